# Stage 2: per study, its index (runs.csv: readable run id -> hash in the run store), the runs'
# CSVs -> summary.csv -> tables with intervals and claim verdicts.


rule index:
    input:
        rounds=study_rounds,
    output:
        f"{RESULTS}/{{study}}/runs.csv",
    log:
        f"{RESULTS}/{{study}}/logs/index.log",
    benchmark:
        f"{RESULTS}/{{study}}/benchmarks/index.tsv"
    conda:
        "../../environment.yml"
    params:
        study=study_json,
        rounds=index_rounds_arg,
    shell:
        "python -m ablation.store index --study-json {params.study:q} --out {output:q} {params.rounds}"
        " > {log:q} 2>&1"


rule summarize:
    input:
        index=f"{RESULTS}/{{study}}/runs.csv",
        metrics=study_run_files,
    output:
        summary=study_output("summary", "Runs"),
        curves=f"{RESULTS}/{{study}}/curves.csv",
        init_grads=f"{RESULTS}/{{study}}/init_grads.csv",
    log:
        f"{RESULTS}/{{study}}/logs/summarize.log",
    benchmark:
        f"{RESULTS}/{{study}}/benchmarks/summarize.tsv"
    conda:
        "../../environment.yml"
    params:
        store=STORE,
        captions=table_captions,
    shell:
        "python -m ablation.aggregate --study {wildcards.study} --index {input.index:q}"
        " --store {params.store:q} --summary {output.summary:q}"
        " --curves {output.curves:q} --init-grads {output.init_grads:q} > {log:q} 2>&1"


rule analyze:
    input:
        summary=f"{RESULTS}/{{study}}/summary.csv",
    output:
        cells=study_output("cells", "Tables"),
        cells_md=f"{RESULTS}/{{study}}/tables/cells.md",
        cells_html=f"{RESULTS}/{{study}}/tables/cells.html",
        comparisons=study_output("comparisons", "Tables"),
        stability=study_output("stability", "Tables"),
        main_effects=study_output("main_effects", "Tables"),
        seed_variance=study_output("seed_variance", "Tables"),
        interaction_effects=study_output("interaction_effects", "Tables"),
    log:
        f"{RESULTS}/{{study}}/logs/analyze.log",
    benchmark:
        f"{RESULTS}/{{study}}/benchmarks/analyze.tsv"
    conda:
        "../../environment.yml"
    params:
        analysis=analysis_json,
        outdir=output_dir,
        captions=table_captions,
    shell:
        "python -m ablation.analyze --analysis-json {params.analysis:q}"
        " --summary {input.summary:q} --outdir {params.outdir:q} > {log:q} 2>&1"


# A study beside its published result (the config's `published` block): the levels' means over seeds
# at the block's lengths, beside the published numbers (no rows for a study without a block); the same
# per test length beside the paper's per-length means (ablation.published.PAPER), and its figure.
rule published_table:
    input:
        evaluations=f"{RESULTS}/{{study}}/evaluations.csv",
    output:
        table=study_output("published", "Tables"),
        lengths=f"{RESULTS}/{{study}}/tables/published_lengths.csv",
        figure=f"{RESULTS}/{{study}}/figures/published_lengths.png",
    log:
        f"{RESULTS}/{{study}}/logs/published_table.log",
    benchmark:
        f"{RESULTS}/{{study}}/benchmarks/published_table.tsv"
    conda:
        "../../environment.yml"
    params:
        study=published_json,
        captions=table_captions,
    shell:
        "python -m ablation.published table --study-json {params.study:q} --study {wildcards.study:q}"
        " --evaluations {input.evaluations:q} --out {output.table:q} --lengths-out {output.lengths:q}"
        " --figure {output.figure:q} > {log:q} 2>&1"


# A study's claims are one error family by default (stats.family: study), so its verdicts read its own
# results only; with stats.family: config every claim of the config is one, so each study's verdicts
# read every study's results (claims_studies), and `make plan` says so. Each row also says what
# changed in its claim since the study's registration (ablation.registration) and its verdict as registered.
rule claims:
    input:
        summaries=family_summaries,
        init_grads=family_init_grads,
        evaluations=family_evaluations,
        scope=scope_files,
        registrations=registration_files,
    output:
        claims=study_output("claims", "Claims"),
        scope=study_output("scope", "Claims"),
        scope_seeds=f"{RESULTS}/{{study}}/tables/scope_seeds.csv",
    log:
        f"{RESULTS}/{{study}}/logs/claims.log",
    benchmark:
        f"{RESULTS}/{{study}}/benchmarks/claims.tsv"
    conda:
        "../../environment.yml"
    params:
        family=family_json,
        scope=scope_args,
        registrations=registration_args,
        captions=table_captions,
    shell:
        "python -m ablation.claims --family-json {params.family:q}"
        " --summaries {input.summaries:q} --init-grads {input.init_grads:q}"
        " --evaluations {input.evaluations:q} {params.scope} {params.registrations}"
        " --study {wildcards.study} --out {output.claims:q}"
        " --scope-out {output.scope:q} --scope-seeds-out {output.scope_seeds:q} > {log:q} 2>&1"
