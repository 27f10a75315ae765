# Stage 4: the lesson's implementation checks and the self-contained HTML report.


rule implementation_checks:
    output:
        report(
            "results/checks.csv",
            caption="../report/checks.rst",
            category="Overview",
        ),
    log:
        "results/logs/implementation_checks.log",
    benchmark:
        "results/benchmarks/implementation_checks.tsv"
    conda:
        "../../environment.yml"
    shell:
        "python -m ablation.checks --out {output:q} > {log:q} 2>&1"


rule report:
    input:
        checks="results/checks.csv",
        pe_figure="results/figures/positional_encoding.png",
        verify="results/verify.csv",
        summaries=per_study("results/{study}/summary.csv"),
        tables=[
            path
            for table in outputs.TABLES
            for path in per_study(f"results/{{study}}/{table.file}")
        ],
        figures=[
            path
            for figure in outputs.FIGURES
            for path in per_study(f"results/{{study}}/{figure.file}")
        ],
    output:
        report(
            "reports/ablation_report.html",
            caption="../report/ablation_report.rst",
            category="Overview",
        ),
    log:
        "results/logs/report.log",
    benchmark:
        "results/benchmarks/report.tsv"
    conda:
        "../../environment.yml"
    params:
        config=lambda wildcards: json.dumps(CFG.raw, default=str),
        studies=lambda wildcards: json.dumps(list(STUDIES)),
    shell:
        "python -m ablation.report --config-json {params.config:q} --studies {params.studies:q}"
        " --results results --out {output:q} > {log:q} 2>&1"
