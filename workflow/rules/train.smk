# Stage 1: one training job per distinct run settings, into the run store: results/runs/<hash>/,
# the hash of the run's canonical settings (ablation.store), shared by every study and config.
# `ablation.forkserver train` = `ablation.train`, forked from a server that imported torch once
# (started by the onstart hook in the Snakefile when jobs run locally; see its docstring).


# The job writes the run's five files (ablation.store.RUN_FILES) and metrics.csv last, atomically:
# metrics.csv alone is declared, as the mark of a complete run. Every declared file costs the DAG
# of a big grid time (benchmarks/results.md, section 4: the dry run and the bare Snakefiles).
rule train:
    output:
        metrics=f"{STORE}/{{hash}}/metrics.csv",
    log:
        f"{STORE}/{{hash}}/{run_store.LOG}",
    benchmark:
        f"{STORE}/{{hash}}/{run_store.BENCHMARK}"
    priority: train_priority
    conda:
        "../../environment.yml"
    threads: CFG.train_threads
    resources:
        # a function per job only when some run is on CUDA: every input function slows a big DAG
        gpu=train_gpu if ANY_CUDA else 0,
    params:
        settings=run_settings_json,
        outdir=f"{STORE}/{{hash}}",
    shell:
        "python -m ablation.forkserver train --settings {params.settings:q} --outdir {params.outdir:q}"
        " --threads {threads} --run-id {wildcards.hash} > {log:q} 2>&1"
