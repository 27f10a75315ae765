# Stage 4: the lesson's implementation checks and the self-contained HTML report.


rule implementation_checks:
    output:
        report(
            f"{RESULTS}/checks.csv",
            caption="../report/checks.rst",
            category="Overview",
        ),
    log:
        f"{RESULTS}/logs/implementation_checks.log",
    benchmark:
        f"{RESULTS}/benchmarks/implementation_checks.tsv"
    conda:
        "../../environment.yml"
    shell:
        "python -m ablation.checks --out {output:q} > {log:q} 2>&1"


rule report:
    input:
        checks=f"{RESULTS}/checks.csv",
        pe_figure=f"{RESULTS}/figures/positional_encoding.png",
        verify=f"{RESULTS}/verify.csv",
        summaries=per_study(f"{RESULTS}/{{study}}/summary.csv"),
        tables=[
            path
            for table in outputs.TABLES
            for path in per_study(f"{RESULTS}/{{study}}/{table.file}")
        ],
        figures=[
            path
            for figure in outputs.FIGURES
            for path in per_study(f"{RESULTS}/{{study}}/{figure.file}")
        ],
    output:
        report(
            f"{REPORTS}/ablation_report.html",
            caption="../report/ablation_report.rst",
            category="Overview",
        ),
    log:
        f"{RESULTS}/logs/report.log",
    benchmark:
        f"{RESULTS}/benchmarks/report.tsv"
    conda:
        "../../environment.yml"
    params:
        config=config_json,
        studies=studies_json,
        results=input_dir,
    shell:
        "python -m ablation.report --config-json {params.config:q} --studies {params.studies:q}"
        " --results {params.results:q} --out {output:q} > {log:q} 2>&1"
