"""One study's verdicts train that study only, and runs know their training code.

Dry runs on config/config.yaml in an empty copy of the project: one study's claims table plans the
training jobs of that study's runs (its own and its claims' scopes') and no other, unless the config
is one error family (stats.family: config), where every study's runs are planned; the report of some
studies plans theirs. A slow test, in a scratch copy with its own package: `make reproduce STUDY=lesson`
on the smoke config trains and reports the lesson alone; an edit of the copy's report.py leaves its
runs current, an edit of a default in its train.py makes `make plan` name every run as trained by
other training code, and `make retrain-stale` retrains exactly those, bit-identically.
"""

import copy
import csv
import os
import re
import shutil
import subprocess

import pytest
import yaml

from ablation import config as C
from ablation import design
from ablation import store as run_store
from conftest import BIN, REPO, copy_project, snakemake

FULL_YAML = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
FULL = C.validate(FULL_YAML)


def job_counts(dry_run_output: str) -> dict[str, int]:
    """The 'Job stats' table of a Snakemake dry run, as {rule: count}."""
    table = dry_run_output.split("Job stats:", 1)[1]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", table.split("\n\n")[0], re.M)}


def first_round(cfg, *studies) -> set:
    """The runs the first round of ``studies`` trains: their own and their claims' scopes'."""
    return {r.hash for name in studies for r in cfg.studies[name].runs() + design.scope_runs(cfg.studies[name],
                                                                                             cfg.studies[name].seeds)}  # fmt: skip


@pytest.fixture(scope="module")
def empty_copy(tmp_path_factory):
    return copy_project(tmp_path_factory.mktemp("selection"))


@pytest.mark.parametrize("study, runs", [("lesson", 12), ("length", 60)])
def test_one_study_s_claims_table_plans_that_study_s_runs_only(empty_copy, study, runs):
    counts = job_counts(snakemake(empty_copy, "-n", f"results/{study}/tables/claims.csv").stdout)
    assert counts["train"] == len(first_round(FULL, study)) == runs
    assert counts["summarize"] == 1  # its own summary: no other study's


def test_with_the_config_as_one_family_one_study_s_claims_plan_every_study_s_runs(empty_copy):
    cfg = copy.deepcopy(FULL_YAML)
    cfg["stats"]["family"] = "config"
    (empty_copy / "config" / "one_family.yaml").write_text(yaml.safe_dump(cfg))
    out = snakemake(empty_copy, "-n", "--configfile=config/one_family.yaml", "results/lesson/tables/claims.csv").stdout
    counts = job_counts(out)
    assert counts["train"] == len(first_round(FULL, *FULL.studies))
    assert counts["summarize"] == len(FULL.studies)
    plan = subprocess.run([str(BIN / "python"), "-m", "ablation.plan", "config/one_family.yaml", "--studies", "lesson",
                           "--no-timing"], cwd=empty_copy, capture_output=True, text=True, check=False)  # fmt: skip
    assert "stats.family is config: the claims of lesson are one Holm family" in plan.stdout.replace("\n  ", " ")
    # in one family of every study's claims, the lesson's 6 seeds no longer decide C2 at Holm's first step
    assert plan.returncode == 1 and plan.stderr.startswith("error: C2-pe-100: its 6 seeds per cell")


def test_the_report_of_two_studies_plans_their_runs_and_their_report(empty_copy):
    counts = job_counts(snakemake(empty_copy, "-n", "reports/ablation_report.lesson+length.html").stdout)
    assert counts["train"] == len(first_round(FULL, "lesson", "length"))
    assert counts["summarize"] == counts["claims"] == counts["figures"] == 2
    assert counts["selected_report"] == 1 and "report" not in counts and "verify" not in counts


# ---------------------------------------------------------------- runs that know their code


def make(work, *args, env):
    """`make ARGS` in the scratch copy, with this venv (not rebuilt there) and the copy's package."""
    venv = BIN.parent
    cmd = ["make", "--no-print-directory", f"VENV={venv}", "-o", f"{venv}/.installed", "CORES=2", *args]
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{' '.join(args)}:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc.stdout.replace("\n  ", " ")  # the plan's wrapped lines, joined


def params(store, hashes) -> dict:
    """Each run's params_sha256: the hash of its final parameters."""
    return {h: next(csv.DictReader((store / h / "metrics.csv").open()))["params_sha256"] for h in hashes}


@pytest.mark.slow
def test_an_edit_of_the_training_path_names_every_run_and_retrain_stale_retrains_them(tmp_path):
    work = copy_project(tmp_path / "work")
    shutil.copytree(REPO / "scripts", work / "scripts", symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(REPO / "Makefile", work / "Makefile")
    env = dict(os.environ, PYTHONPATH=str(work / "scripts"))  # the copy's package before the installed one
    smoke = C.load(REPO / "config" / "smoke.yaml")
    lesson = first_round(smoke, "lesson")
    store = work / run_store.STORE

    out = make(work, "reproduce", "CONFIG=config/smoke.yaml", "STUDY=lesson", env=env)
    assert {p.name for p in store.iterdir()} == lesson  # the lesson's runs, no other study's
    report = work / "smoke" / "reports" / "ablation_report.lesson.html"
    html = report.read_text(encoding="utf-8")
    assert "it leaves out factorial, depth, position, length" in html
    assert f"{len(lesson)} runs were trained by the training code here." in html
    assert not (work / "smoke" / "results" / "factorial").exists()
    before = params(store, lesson)

    def plan():
        return make(work, "plan", "CONFIG=config/smoke.yaml", "STUDY=lesson", "PLAN_FLAGS=--no-timing", env=env)

    (work / "scripts" / "ablation" / "report.py").write_text(
        (REPO / "scripts" / "ablation" / "report.py").read_text(encoding="utf-8") + "\n# an edit off the training path\n")
    assert f"{len(lesson)} runs were trained by the training code here." in plan()

    train = work / "scripts" / "ablation" / "train.py"
    text = train.read_text(encoding="utf-8")
    old = 'default=1, help="torch intra-op threads (default 1)"'
    assert text.count(old) == 1
    train.write_text(text.replace(old, 'default=2, help="torch intra-op threads (default 2)"'), encoding="utf-8")
    out = plan()
    assert (f"{len(lesson)} runs were trained by other training code (train.py changed); "
            "`make retrain-stale CONFIG=config/smoke.yaml STUDY=lesson` retrains them.") in out  # fmt: skip
    assert "trained by the training code here" not in out

    made = report.stat().st_mtime_ns
    out = make(work, "retrain-stale", "CONFIG=config/smoke.yaml", "STUDY=lesson", env=env)
    assert f"Retraining {len(lesson)} run(s)" in out
    assert report.stat().st_mtime_ns > made  # made again from the retrained runs
    assert f"{len(lesson)} runs were trained by the training code here." in plan()
    assert params(store, lesson) == before  # the same numbers: the edit changed no run
    assert f"{len(lesson)} runs were trained by the training code here." in report.read_text(encoding="utf-8")
    assert "No run was trained by other training code." in make(work, "retrain-stale", "CONFIG=config/smoke.yaml",
                                                                 "STUDY=lesson", env=env)  # fmt: skip
