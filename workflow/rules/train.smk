# Stage 1: one training job per (study, factor combination, seed).
# `ablation.forkserver train` = `ablation.train`, forked from a server that imported torch once
# (started by the onstart hook in the Snakefile when jobs run locally; see its docstring).


rule train:
    output:
        metrics="results/{study}/runs/{run}/metrics.csv",
        curve="results/{study}/runs/{run}/curve.csv",
        init_grads="results/{study}/runs/{run}/init_grads.csv",
        settings="results/{study}/runs/{run}/settings.json",
        provenance="results/{study}/runs/{run}/provenance.json",
    log:
        "results/{study}/logs/train/{run}.log",
    benchmark:
        "results/{study}/benchmarks/train/{run}.tsv"
    priority: train_priority
    conda:
        "../../environment.yml"
    threads: CFG.train_threads
    resources:
        gpu=lambda wildcards: int(run_of(wildcards).settings.device == "cuda"),
    params:
        settings=run_settings_json,
        outdir=lambda wildcards, output: os.path.dirname(output.metrics),
    shell:
        "python -m ablation.forkserver train --settings {params.settings:q} --outdir {params.outdir:q}"
        " --threads {threads} --study {wildcards.study} --run-id {wildcards.run:q} > {log:q} 2>&1"
