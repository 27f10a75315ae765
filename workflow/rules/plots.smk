# Stage 3: figures (seaborn), per study (declared in ablation.outputs) and for the whole project.


rule figures:
    input:
        unpack(scope_table_files),
        summary=f"{RESULTS}/{{study}}/summary.csv",
        curves=f"{RESULTS}/{{study}}/curves.csv",
        init_grads=f"{RESULTS}/{{study}}/init_grads.csv",
        evaluations=f"{RESULTS}/{{study}}/evaluations.csv",
        scope_seeds=scope_seeds_file,
    output:
        **{
            figure.name: study_output(figure.name, "Figures")
            for figure in outputs.FIGURES
        },
    log:
        f"{RESULTS}/{{study}}/logs/figures.log",
    benchmark:
        f"{RESULTS}/{{study}}/benchmarks/figures.tsv"
    conda:
        "../../environment.yml"
    params:
        factors=study_factors_json,
        plot=study_plot_json,
        confidence=CFG.stats["confidence"],
        captions=figure_captions,
        outdir=output_dir,
        scope_seeds=scope_seeds_arg,
    shell:
        "python -m ablation.plots --factors {params.factors:q} --plot {params.plot:q}"
        " --confidence {params.confidence} --summary {input.summary:q} --curves {input.curves:q}"
        " --init-grads {input.init_grads:q} --evaluations {input.evaluations:q}"
        " {params.scope_seeds}"
        " --outdir {params.outdir:q} > {log:q} 2>&1"


rule positional_encoding_figure:
    output:
        report(
            f"{RESULTS}/figures/positional_encoding.png",
            caption="../report/positional_encoding.rst",
            category="Overview",
            labels={"study": "all studies", "file": "figures/positional_encoding.png"},
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
