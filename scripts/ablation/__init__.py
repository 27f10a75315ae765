"""Transformer ablation study: the order task, the model, its training and the study's analysis.

The modules, lowest first. Each imports only from modules above it in this list, and from this
package's root (its paths and git helpers), so the package draws as layers with no circle;
tests/tooling/test_package_layout.py holds the code to this order.

    io             atomic file writes
    workspace      a scratch copy of the project to run Snakemake in
    scheduling     Snakemake's scheduling loop: one pass per finished job on this machine
    settings       the settings of one run, the schema, the run's hash
    outputs        every figure and table of a study, declared once
    validation     the schema's strict validator and its one-line errors
    registry       named classes registered by a class decorator (variants, tasks, claim kinds)
    kinds          the claim kinds, each declared once, and the claim a config builds from them
    data           the tasks: their registry, what each declares, the order, copy and reverse tasks
    model          the models and the registries of their variants
    architectures  the architectures' registry: what each reads and writes, the model it builds
    plugins        the user's plugin modules: their variants and tasks checked, their code hashed
    config         the configuration, validated and expanded into studies and runs
    design         a study's design: its adaptive block, the order of its seeds, every run it may train
    selection      the studies STUDY= names: the studies their claims read, the report of them
    checks         the lesson's implementation checks
    provenance     where a run came from, and how its process was started
    train          one training run
    evaluate       a run's evaluations at test lengths, from its stored weights
    forkserver     training jobs forked from one process that has imported torch
    store          the run store and a study's index of its runs
    registration   a study's claims fixed before its runs: their tests' hashes, what changed since
    aggregate      a study's runs collected into summary.csv, curves.csv, init_grads.csv
    verify         finished runs re-trained and compared bit for bit
    compare        two results folders compared; reference/ written
    measures       a run's values, their resolution, the seed as the unit, runs grouped into cells
    intervals      intervals of a mean or a proportion over seeds
    significance   the sign-flip test, Holm, effect size and minimum detectable effect
    variance       the seed's share of the variance, two-factor interactions
    stats          the tables of one study: cells, stability, paired comparisons, main effects
    seed_units     a claim's runs and seed units
    sequential     anytime-valid e-processes and confidence sequences
    seedtests      the tests a claim's seeds are put to
    verdicts       one claim's test and verdict, its robustness, what further seeds would decide it
    pricing        what seeds decide at a plausible truth: each verdict's price in seeds per cell
    scope          where a verdict holds: a claim judged in every universe of its robust_over settings
    analyze        a study's tables from its summary.csv
    claims         the claims table: every claim's verdict at its Holm step, in words
    adaptive       adaptive studies' rounds
    timing         a design's cost on this machine: the cost model timed here, its jobs on the cores
    plan           the seeds each claim needs and the training still to do
    progress       what `make reproduce` shows: a line per finished run, runs and time left
    reading        what a study's claims read: metric, test lengths, the figure that shows it; n by cell
    specification  a scoped claim's specifications: each universe's mean and interval, sorted
    plots          a study's figures
    published      our numbers beside a published result: its table, whether its ranking holds, one figure
    effects        the report's largest effects: every seed counted, a tie moving neither way
    report         the stand-alone HTML report
    findings       the reference's claims in words: each effect measured again from reference/, its interval, why one is open
    readme         the README's generated blocks: the reference's findings, the plan's runs, measured times
"""

import subprocess
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parents[1]
# workflow/schemas/config.schema.yaml, through a link in the package: an installed package carries a copy
SCHEMA_PATH = PACKAGE_DIR / "config.schema.yaml"


def git(*args: str) -> str | None:
    """The output of ``git -C REPO_DIR ARGS``; None without git, outside a repository or on an error."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(REPO_DIR), *args], capture_output=True, text=True, timeout=20, check=False
        )
    except         (OSError, subprocess.SubprocessError):
        return None
    return         proc.stdout if proc.returncode == 0 else None


def git_state() -> dict:
    """The commit of the project's repository and whether its tree differs from it (None if unknown)."""
    head           = git("rev-parse", "--verify", "--quiet", "HEAD")
    status         = git("status", "--porcelain") if head else None
    return         {
        "git_commit": head.strip() if head else None,
        "git_dirty": None if status is None else bool(status.strip()),
    }
