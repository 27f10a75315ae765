# Helpers shared by the rules: the validated config, the runs of each study, their paths.
import json
import os
import sys

from ablation import config as ablation_config
from ablation import outputs
from ablation.settings import cost_estimate

try:
    CFG = ablation_config.validate(config)
except ablation_config.ConfigError as exc:
    sys.exit(f"config error: {exc}")

STUDIES = CFG.studies
RUNS = {
    name: {run.run_id: run for run in study.runs()} for name, study in STUDIES.items()
}
ANY_CUDA = any(
    run.settings.device == "cuda" for runs in RUNS.values() for run in runs.values()
)


envvars:
    "PATH",


# Light jobs run on the submitting host under a cluster executor (workflow/profiles/slurm).
localrules:
    summarize,
    analyze,
    claims,
    figures,
    positional_encoding_figure,
    implementation_checks,
    report,


# Jobs run `python`: the interpreter running Snakemake (the project's .venv), also on cluster nodes.
os.environ["PATH"] = os.pathsep.join(
    [os.path.dirname(sys.executable), os.environ["PATH"]]
)
RUN_FILES = (
    "metrics.csv",
    "curve.csv",
    "init_grads.csv",
    "settings.json",
    "provenance.json",
)


wildcard_constraints:
    study="|".join(STUDIES),
    run=r"[^/]+~[^/]+(/[^/]+~[^/]+)*",


def run_of(wildcards):
    """The Run (settings included) that a train job's wildcards name."""
    try:
        return RUNS[wildcards.study][wildcards.run]
    except KeyError:
        raise ValueError(
            f"{wildcards.study}/{wildcards.run} is not a run of the config"
        ) from None


def run_settings_json(wildcards):
    return run_of(wildcards).settings.to_json()


def train_gpu(wildcards):
    """1 GPU for a run on CUDA (a cluster executor then asks for it), else none."""
    return int(run_of(wildcards).settings.device == "cuda")


def train_priority(wildcards):
    """Costliest training first (ablation.settings.cost_estimate): a short idle tail."""
    return cost_estimate(run_of(wildcards).settings)


def study_run_files(wildcards, name="metrics.csv"):
    study = wildcards.study
    return [f"results/{study}/runs/{run_id}/{name}" for run_id in RUNS[study]]


def study_json(wildcards):
    """What defines a study's runs (fixed settings, factors, seeds): a change re-aggregates it."""
    study = STUDIES[wildcards.study].to_dict()
    study.pop("claims")
    study.pop("description")
    return json.dumps(study)  # key order matters: factor order names the run folders


def analysis_json(wildcards):
    """What the statistics of a study depend on beyond its summary: factors, stats settings."""
    study = STUDIES[wildcards.study]
    return json.dumps(
        {"factors": study.factor_names, "stats": CFG.stats}, sort_keys=True
    )


def family_json(wildcards):
    """What the claims' verdicts depend on beyond the results: every study's factors and claims
    (one error family, in the order of the summaries) and the stats settings."""
    studies = {
        name: {"factors": study.factor_names, "claims": study.claims}
        for name, study in STUDIES.items()
    }
    return json.dumps({"stats": CFG.stats, "studies": studies})


def per_study(pattern):
    return expand(pattern, study=list(STUDIES))


def study_factors_json(wildcards):
    return json.dumps(STUDIES[wildcards.study].factor_names)


def study_plot_json(wildcards):
    """The study's optional plot hint (hue, facet, where): a change redraws its figures."""
    return json.dumps(
        CFG.raw["studies"][wildcards.study].get("plot", {}), sort_keys=True
    )


def figure_captions(wildcards):
    """name -> caption of every study figure (ablation.outputs), for Snakemake's report captions."""
    return {figure.name: figure.caption for figure in outputs.FIGURES}


def figures_outdir(wildcards, output):
    return os.path.dirname(output[0])


def largest_setting(name):
    """The largest value of a setting over every run of the config (the overview figure's size)."""
    return max(
        getattr(run.settings, name) for runs in RUNS.values() for run in runs.values()
    )
