# Stage 3: figures (seaborn), per study and for the whole project.

FIGURES = {
    "accuracy_by_factor": "Test accuracy against each factor",
    "interactions": "Two-factor interactions",
    "learning_curves": "Learning curves",
    "grad_norms_init": "Per-layer gradient norms at initialisation",
}


rule figures:
    input:
        summary=f"{RESULTS}/{{study}}/summary.csv",
        curves=f"{RESULTS}/{{study}}/curves.csv",
        init_grads=f"{RESULTS}/{{study}}/init_grads.csv",
        cells=f"{RESULTS}/{{study}}/tables/cells.csv",
    output:
        **{
            name: report(
                f"{RESULTS}/{{study}}/figures/{name}.png",
                caption=f"../report/{name}.rst",
                category="{study}",
                subcategory="Figures",
            )
            for name in FIGURES
        },
    log:
        f"{RESULTS}/{{study}}/logs/figures.log",
    benchmark:
        f"{RESULTS}/{{study}}/benchmarks/figures.tsv"
    conda:
        "../../environment.yml"
    params:
        factors=study_factors_json,
        outdir=output_dir,
    shell:
        "python -m ablation.plots --factors {params.factors:q} --summary {input.summary:q}"
        " --curves {input.curves:q} --init-grads {input.init_grads:q} --cells {input.cells:q}"
        " --outdir {params.outdir:q} > {log:q} 2>&1"


rule positional_encoding_figure:
    output:
        report(
            f"{RESULTS}/figures/positional_encoding.png",
            caption="../report/positional_encoding.rst",
            category="Overview",
        ),
    log:
        f"{RESULTS}/logs/positional_encoding_figure.log",
    benchmark:
        f"{RESULTS}/benchmarks/positional_encoding_figure.tsv"
    conda:
        "../../environment.yml"
    params:
        seq_len=max_seq_len,
        d_model=max_d_model,
    shell:
        "python -m ablation.plots --pe-figure {output:q} --seq-len {params.seq_len}"
        " --d-model {params.d_model} > {log:q} 2>&1"
