"""The figures and tables of a study, each declared once: its name, its file (under
results/<study>/) and its caption. The rules (workflow/rules/plots.smk, report.smk), the plots
(ablation.plots draws each figure with the function of its name), the HTML report and Snakemake's
report captions (workflow/report/study_figures.rst) all read these declarations.

Only the standard library is imported here: the Snakefile imports this module on every run.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Output:
    name: str
    file: str  # relative to results/<study>/
    caption: str


FIGURES = (
    Output(
        "accuracy_by_factor", "figures/accuracy_by_factor.png",
        "Test accuracy against each factor, coloured by the study's first factor (or its plot hint): every run "
        "is a dot, the diamonds are the means of the runs at each level with bootstrap intervals at the "
        "configured confidence; the dashed line is chance.",
    ),
    Output(
        "interactions", "figures/interactions.png",
        "Mean test accuracy for every pair of factors, averaged over the other factors (only the runs that the "
        "study's plot hint `where` selects, if it has one).",
    ),
    Output(
        "learning_curves", "figures/learning_curves.png",
        "Training loss and accuracy per epoch, grouped by the study's first factor and split into rows by its "
        "second (or by its plot hint): each run thin (in a group of more than 100 runs: the band from the 5th to "
        "the 95th percentile of its runs), each group's mean bold.",
    ),
    Output(
        "grad_norms_init", "figures/grad_norms_init.png",
        "Per-layer gradient norms at step 0, drawn like the learning curves: post-norm is expected to grow "
        "toward the output, pre-norm to stay flat (Xiong et al. 2020, Fig. 3).",
    ),
)  # fmt: skip

TABLES = (
    Output("cells", "tables/cells.csv", "Test accuracy per cell: mean, std, min and max over seeds, with intervals."),
    Output("main_effects", "tables/main_effects.csv", "Factors ranked by how much they move test accuracy."),
    Output("stability", "tables/stability.csv", "Fractions of runs that converged and that diverged, per cell."),
    Output("comparisons", "tables/comparisons.csv", "Paired comparisons between the levels of each factor."),
    Output("claims", "tables/claims.csv", "The study's claims, each with its verdict."),
)


def study_path(study: str, output: Output) -> str:
    return f"results/{study}/{output.file}"
