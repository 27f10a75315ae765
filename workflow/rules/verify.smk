# Stage 5: re-train a random sample of finished runs in a scratch folder and compare them bit for
# bit with the originals in the run store (metrics but timing, params_sha256, curves): verify.csv.


rule verify:
    input:
        indexes=per_study(f"{RESULTS}/{{study}}/runs.csv"),
        summaries=per_study(f"{RESULTS}/{{study}}/summary.csv"),
    output:
        f"{RESULTS}/verify.csv",
    log:
        f"{RESULTS}/logs/verify.log",
    benchmark:
        f"{RESULTS}/benchmarks/verify.tsv"
    conda:
        "../../environment.yml"
    threads: CFG.train_threads
    resources:
        # it re-trains runs as their settings say: a GPU when any run asks for CUDA
        gpu=int(ANY_CUDA),
    params:
        studies=sorted_studies_json,
        results=output_dir,
        store=STORE,
        sample=CFG.verify["sample"],
        random_seed=CFG.verify["random_seed"],
    shell:
        "python -m ablation.verify --studies {params.studies:q} --results {params.results:q}"
        " --store {params.store:q} --sample {params.sample} --seed {params.random_seed}"
        " --out {output:q} > {log:q} 2>&1"
