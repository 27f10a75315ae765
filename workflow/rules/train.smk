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
        # a function per job only when some run is on CUDA: every input function slows a big DAG
        gpu=train_gpu if ANY_CUDA else 0,
    params:
        settings=run_settings_json,
        outdir="results/{study}/runs/{run}",
    shell:
        "python -m ablation.forkserver train --settings {params.settings:q} --outdir {params.outdir:q}"
        " --threads {threads} --study {wildcards.study} --run-id {wildcards.run:q} > {log:q} 2>&1"
