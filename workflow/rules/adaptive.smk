# Adaptive studies (a study's `adaptive` block): after the study's seeds, one checkpoint per round
# evaluates its claims (ablation.adaptive) and plans the next seeds, in the cells of open claims
# only; the index (and so the summary, tables and claims) of the study lists every round's runs.


localrules:
    adaptive_round,
    adaptive_tables,


checkpoint adaptive_round:
    input:
        metrics=adaptive_round_metrics,
        previous=adaptive_previous_rounds,
    output:
        f"{RESULTS}/{{study}}/adaptive/round_{{round}}.json",
    log:
        f"{RESULTS}/{{study}}/logs/adaptive_round_{{round}}.log",
    benchmark:
        f"{RESULTS}/{{study}}/benchmarks/adaptive_round_{{round}}.tsv"
    wildcard_constraints:
        round=r"[1-9][0-9]*",
    conda:
        "../../environment.yml"
    params:
        spec=adaptive_spec_json,
        store=STORE,
    shell:
        "python -m ablation.adaptive plan --spec-json {params.spec:q} --round {wildcards.round}"
        " --previous {input.previous:q} --store {params.store:q} --out {output:q} > {log:q} 2>&1"


# Per adaptive study: every round's claim states, each claim's confidence sequence per seed count,
# and the training seconds spent against every cell at max_seeds.
rule adaptive_tables:
    input:
        summary=f"{RESULTS}/{{study}}/summary.csv",
        rounds=study_rounds,
    output:
        [f"{RESULTS}/{{study}}/{table.file}" for table in outputs.ADAPTIVE_TABLES],
    log:
        f"{RESULTS}/{{study}}/logs/adaptive_tables.log",
    benchmark:
        f"{RESULTS}/{{study}}/benchmarks/adaptive_tables.tsv"
    conda:
        "../../environment.yml"
    params:
        spec=adaptive_spec_json,
        study_dir=input_dir,
    shell:
        "python -m ablation.adaptive tables --spec-json {params.spec:q} --rounds {input.rounds:q}"
        " --summary {input.summary:q} --study-dir {params.study_dir:q} > {log:q} 2>&1"
