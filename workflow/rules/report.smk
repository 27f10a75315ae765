# Stage 4: the lesson's implementation checks and the self-contained HTML report.


rule implementation_checks:
    output:
        report(
            f"{RESULTS}/checks.csv",
            caption="../report/checks.rst",
            category="Overview",
            labels={"study": "all studies", "file": "checks.csv"},
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
        reference=reference_files,
    output:
        report(
            f"{REPORTS}/ablation_report.html",
            caption="../report/ablation_report.rst",
            category="Overview",
            labels={"study": "all studies", "file": "ablation_report.html"},
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
        reference=REFERENCE,
        command=report_command,
        training=training_fingerprint_here,
    shell:
        "python -m ablation.report --config-json {params.config:q} --studies {params.studies:q}"
        " --results {params.results:q} --reference {params.reference:q} --command {params.command:q}"
        " --out {output:q} > {log:q} 2>&1"


# The report of some studies of the config (`make reproduce STUDY=lesson,length`): what the full report
# shows, of those studies, and a sentence naming the studies it leaves out. verify.csv is no input, since
# `make verify` samples every study's runs; a sample made before shows its runs of these studies.
rule selected_report:
    input:
        checks=f"{RESULTS}/checks.csv",
        pe_figure=f"{RESULTS}/figures/positional_encoding.png",
        studies=selected_results,
        reference=reference_files,
    output:
        f"{REPORTS}/ablation_report.{{selection}}.html",
    log:
        f"{RESULTS}/logs/report.{{selection}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/report.{{selection}}.tsv"
    wildcard_constraints:
        selection=SELECTION_PATTERN,
    conda:
        "../../environment.yml"
    params:
        config=config_json,
        studies=selected_studies_json,
        results=input_dir,
        reference=REFERENCE,
        command=report_command,
        training=training_fingerprint_here,
    shell:
        "python -m ablation.report --config-json {params.config:q} --studies {params.studies:q}"
        " --results {params.results:q} --reference {params.reference:q} --command {params.command:q}"
        " --out {output:q} > {log:q} 2>&1"
