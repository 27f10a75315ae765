# Stage 2: per study, the runs' CSVs -> summary.csv -> tables with intervals and claim verdicts.


rule summarize:
    input:
        metrics=study_run_files,
        curves=lambda wildcards: study_run_files(wildcards, "curve.csv"),
        init_grads=lambda wildcards: study_run_files(wildcards, "init_grads.csv"),
    output:
        summary="results/{study}/summary.csv",
        curves="results/{study}/curves.csv",
        init_grads="results/{study}/init_grads.csv",
    log:
        "results/{study}/logs/summarize.log",
    benchmark:
        "results/{study}/benchmarks/summarize.tsv"
    conda:
        "../../environment.yml"
    params:
        study=study_json,
    shell:
        "python -m ablation.aggregate --study-json {params.study:q}"
        " --runs-dir results/{wildcards.study}/runs --summary {output.summary:q}"
        " --curves {output.curves:q} --init-grads {output.init_grads:q} > {log:q} 2>&1"


rule analyze:
    input:
        summary="results/{study}/summary.csv",
    output:
        cells=report(
            "results/{study}/tables/cells.csv",
            caption="../report/cells.rst",
            category="{study}",
            subcategory="Tables",
        ),
        cells_md="results/{study}/tables/cells.md",
        cells_html="results/{study}/tables/cells.html",
        comparisons=report(
            "results/{study}/tables/comparisons.csv",
            caption="../report/comparisons.rst",
            category="{study}",
            subcategory="Tables",
        ),
        stability=report(
            "results/{study}/tables/stability.csv",
            caption="../report/stability.rst",
            category="{study}",
            subcategory="Tables",
        ),
        main_effects=report(
            "results/{study}/tables/main_effects.csv",
            caption="../report/main_effects.rst",
            category="{study}",
            subcategory="Tables",
        ),
        seed_variance="results/{study}/tables/seed_variance.csv",
        interactions="results/{study}/tables/interactions.csv",
    log:
        "results/{study}/logs/analyze.log",
    benchmark:
        "results/{study}/benchmarks/analyze.tsv"
    conda:
        "../../environment.yml"
    params:
        analysis=analysis_json,
        outdir=lambda wildcards, output: os.path.dirname(output.cells),
    shell:
        "python -m ablation.analyze --analysis-json {params.analysis:q}"
        " --summary {input.summary:q} --outdir {params.outdir:q} > {log:q} 2>&1"


# Every claim of the config is one error family (Holm over all of them), so each study's verdicts
# read every study's results.
rule claims:
    input:
        summaries=per_study("results/{study}/summary.csv"),
        init_grads=per_study("results/{study}/init_grads.csv"),
    output:
        report(
            "results/{study}/tables/claims.csv",
            caption="../report/claims.rst",
            category="{study}",
            subcategory="Claims",
        ),
    log:
        "results/{study}/logs/claims.log",
    benchmark:
        "results/{study}/benchmarks/claims.tsv"
    conda:
        "../../environment.yml"
    params:
        family=family_json,
    shell:
        "python -m ablation.claims --family-json {params.family:q}"
        " --summaries {input.summaries:q} --init-grads {input.init_grads:q}"
        " --study {wildcards.study} --out {output:q} > {log:q} 2>&1"
