# Stage 1b: a run's evaluations at test lengths, from its stored weights (ablation.evaluate). One job
# per run and set of lengths (its study's eval_lengths and the run's trained lengths), written beside
# the run in the store, so adding a length evaluates again and trains nothing; a run folder without
# weights trains again inside its job to recover them. Per study, evaluations.csv collects its runs'.


rule evaluate:
    input:
        metrics=f"{STORE}/{{hash}}/metrics.csv",
    output:
        f"{STORE}/{{hash}}/evaluations/{{lengths}}.csv",
    log:
        f"{STORE}/{{hash}}/evaluations/{{lengths}}.log",
    benchmark:
        f"{STORE}/{{hash}}/evaluations/{{lengths}}.tsv"
    wildcard_constraints:
        lengths=LENGTHS_PATTERN,
    priority: evaluate_priority
    conda:
        "../../environment.yml"
    threads: CFG.train_threads
    params:
        settings=run_settings_json,
        run_dir=input_dir,
    shell:
        "python -m ablation.forkserver evaluate --settings {params.settings:q} --run-dir {params.run_dir:q}"
        " --lengths {wildcards.lengths} --out {output:q} > {log:q} 2>&1"


rule evaluations:
    input:
        index=f"{RESULTS}/{{study}}/runs.csv",
        evaluations=study_evaluation_files,
    output:
        study_output("evaluations", "Runs"),
    log:
        f"{RESULTS}/{{study}}/logs/evaluations.log",
    benchmark:
        f"{RESULTS}/{{study}}/benchmarks/evaluations.tsv"
    conda:
        "../../environment.yml"
    params:
        captions=table_captions,
    shell:
        "python -m ablation.aggregate evaluations --index {input.index:q}"
        " --evaluations {input.evaluations:q} --out {output:q} > {log:q} 2>&1"
