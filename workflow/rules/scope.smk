# Stage 2b: a study's scope (claims with robust_over, ablation.scope): the runs its claims train in
# their other universes are indexed, summarised and evaluated beside the study's own; the claims rule
# judges each claim in every universe. Only studies with such a claim (SCOPED) ask for these files.


rule scope_index:
    input:
        rounds=study_rounds,
    output:
        f"{RESULTS}/{{study}}/scope/runs.csv",
    log:
        f"{RESULTS}/{{study}}/logs/scope_index.log",
    benchmark:
        f"{RESULTS}/{{study}}/benchmarks/scope_index.tsv"
    conda:
        "../../environment.yml"
    params:
        study=scope_study_json,
        rounds=index_rounds_arg,
    shell:
        "python -m ablation.store scope-index --study-json {params.study:q} --out {output:q} {params.rounds}"
        " > {log:q} 2>&1"


rule scope_summarize:
    input:
        index=f"{RESULTS}/{{study}}/scope/runs.csv",
        metrics=scope_run_files,
    output:
        summary=f"{RESULTS}/{{study}}/scope/summary.csv",
        curves=f"{RESULTS}/{{study}}/scope/curves.csv",
        init_grads=f"{RESULTS}/{{study}}/scope/init_grads.csv",
    log:
        f"{RESULTS}/{{study}}/logs/scope_summarize.log",
    benchmark:
        f"{RESULTS}/{{study}}/benchmarks/scope_summarize.tsv"
    conda:
        "../../environment.yml"
    params:
        store=STORE,
    shell:
        "python -m ablation.aggregate --study {wildcards.study} --index {input.index:q}"
        " --store {params.store:q} --summary {output.summary:q}"
        " --curves {output.curves:q} --init-grads {output.init_grads:q} > {log:q} 2>&1"


rule scope_evaluations:
    input:
        index=f"{RESULTS}/{{study}}/scope/runs.csv",
        evaluations=scope_evaluation_files,
    output:
        f"{RESULTS}/{{study}}/scope/evaluations.csv",
    log:
        f"{RESULTS}/{{study}}/logs/scope_evaluations.log",
    benchmark:
        f"{RESULTS}/{{study}}/benchmarks/scope_evaluations.tsv"
    conda:
        "../../environment.yml"
    shell:
        "python -m ablation.aggregate evaluations --index {input.index:q}"
        " --evaluations {input.evaluations:q} --out {output:q} > {log:q} 2>&1"
