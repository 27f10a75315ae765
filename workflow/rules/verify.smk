# Stage 5: re-train a random sample of finished runs in a scratch folder and compare them bit for
# bit with the originals (metrics but timing, params_sha256, curves): results/verify.csv.
from ablation import verify as ablation_verify


rule verify:
    input:
        summaries=per_study("results/{study}/summary.csv"),
    output:
        "results/verify.csv",
    log:
        "results/logs/verify.log",
    benchmark:
        "results/benchmarks/verify.tsv"
    conda:
        "../../environment.yml"
    threads: CFG.train_threads
    resources:
        # it re-trains runs as their settings say: a GPU when any run asks for CUDA
        gpu=int(ANY_CUDA),
    params:
        # only what defines the runs: a new description or claim does not re-verify
        config=lambda wildcards: json.dumps(ablation_verify.runs_config(CFG)),
        sample=CFG.verify["sample"],
        random_seed=CFG.verify["random_seed"],
    shell:
        "python -m ablation.verify --config-json {params.config:q} --results results"
        " --sample {params.sample} --seed {params.random_seed} --out {output:q} > {log:q} 2>&1"
