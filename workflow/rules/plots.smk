# Stage 3: figures (seaborn), per study and for the whole project.

FIGURES = {
    "accuracy_by_factor": "Test accuracy against each factor",
    "interactions": "Two-factor interactions",
    "learning_curves": "Learning curves",
    "grad_norms_init": "Per-layer gradient norms at initialisation",
}


rule figures:
    input:
        summary="results/{study}/summary.csv",
        curves="results/{study}/curves.csv",
        init_grads="results/{study}/init_grads.csv",
        cells="results/{study}/tables/cells.csv",
    output:
        **{
            name: report(
                f"results/{{study}}/figures/{name}.png",
                caption=f"../report/{name}.rst",
                category="{study}",
                subcategory="Figures",
            )
            for name in FIGURES
        },
    log:
        "results/{study}/logs/figures.log",
    benchmark:
        "results/{study}/benchmarks/figures.tsv"
    conda:
        "../../environment.yml"
    params:
        factors=lambda wildcards: json.dumps(STUDIES[wildcards.study].factor_names),
        outdir=lambda wildcards, output: os.path.dirname(output.accuracy_by_factor),
    shell:
        "python -m ablation.plots --factors {params.factors:q} --summary {input.summary:q}"
        " --curves {input.curves:q} --init-grads {input.init_grads:q} --cells {input.cells:q}"
        " --outdir {params.outdir:q} > {log:q} 2>&1"


rule positional_encoding_figure:
    output:
        report(
            "results/figures/positional_encoding.png",
            caption="../report/positional_encoding.rst",
            category="Overview",
        ),
    log:
        "results/logs/positional_encoding_figure.log",
    benchmark:
        "results/benchmarks/positional_encoding_figure.tsv"
    conda:
        "../../environment.yml"
    params:
        seq_len=lambda wildcards: max(
            run.settings.seq_len for runs in RUNS.values() for run in runs.values()
        ),
        d_model=lambda wildcards: max(
            run.settings.d_model for runs in RUNS.values() for run in runs.values()
        ),
    shell:
        "python -m ablation.plots --pe-figure {output:q} --seq-len {params.seq_len}"
        " --d-model {params.d_model} > {log:q} 2>&1"
