"""A run is identified by its settings: what a config change trains, and what it leaves alone.

Runs live in the run store, ``results/runs/<hash of the settings>/``, shared by every study and
config. On a copy of the finished smoke run, with an edited config (dry runs where they suffice):
- adding a seed trains only that seed's runs; adding a factor whose list holds the old fixed value
  trains only the new level's runs;
- reordering keys, or the whole YAML with sorted keys, trains nothing and re-aggregates nothing;
- removing a level trains nothing, its runs stay in the store, and `gc` lists exactly them;
- changing a fixed setting trains that study under new hashes; the old runs stay;
- a killed training job leaves no folder that looks complete;
- a config with its own outdir never touches another config's tables and report;
- runs in the old layout (results/<study>/runs/<factor~value>/.../seed~N/) move into the store
  without training, with the same params_sha256.
On config/config.yaml with every run in the store: the lr factor plans 12 training jobs on the
lesson study and 336 on the factorial, the sorted-keys YAML plans none.
"""

import copy
import csv
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from ablation import config as C
from ablation import design
from ablation import report
from ablation import store as run_store
from conftest import BIN, REPO, copy_project, snakemake, snakemake_log

SMOKE_YAML = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
SMOKE = C.validate(SMOKE_YAML)
FULL_YAML = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
PER_STUDY_RULES = ("index", "summarize", "analyze", "figures")


def planned_jobs(dry_run_output: str) -> list[tuple[str, dict, str]]:
    """(rule, wildcards, reason) of every job of a Snakemake dry run."""
    jobs = []
    blocks = re.split(r"^\s*(?:local)?rule (\w+):$", dry_run_output, flags=re.M)  # group jobs are indented
    for rule, body in zip(blocks[1::2], blocks[2::2]):
        wildcards, reason = {}, ""
        for line in body.lstrip("\n").splitlines():
            line = line.strip()
            if line.startswith("wildcards: "):
                wildcards = dict(item.split("=", 1) for item in line[len("wildcards: ") :].split(", "))
            elif line.startswith("reason: "):
                reason = line[len("reason: ") :]
            elif not line or line.startswith("["):
                break
        jobs.append((rule, wildcards, reason))
    return jobs


@pytest.fixture()
def finished_copy(smoke_run, tmp_path):
    work = tmp_path / "work"
    shutil.copytree(smoke_run[0], work, symlinks=True)
    return work


def write_config(work: Path, cfg: dict, name: str = "edited", sort_keys: bool = False) -> str:
    path = work / "config" / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=sort_keys))
    return str(path.relative_to(work))


def dry_run(work: Path, cfg: dict, sort_keys: bool = False):
    out = snakemake(work, "-n", "--configfile", write_config(work, cfg, sort_keys=sort_keys)).stdout
    return planned_jobs(out)


def trained(jobs) -> set:
    return {w["hash"] for rule, w, _ in jobs if rule == "train"}


def hashes(cfg: dict, study: str | None = None) -> set:
    """Every run the first round trains: the studies' own and their claims' scopes' (robust_over)."""
    studies = C.validate(cfg).studies
    return {r.hash for name, s in studies.items() if study in (None, name)
            for r in s.runs() + design.scope_runs(s, s.seeds)}  # fmt: skip


def test_new_seed_trains_only_that_seeds_runs(finished_copy):
    cfg = copy.deepcopy(SMOKE_YAML)
    cfg["studies"]["lesson"]["seeds"].append(2)
    jobs = dry_run(finished_copy, cfg)
    new = hashes(cfg) - hashes(SMOKE_YAML)
    assert {r.settings.seed for r in C.validate(cfg).studies["lesson"].runs() if r.hash in new} == {2}
    assert len(new) == 2 and trained(jobs) == new
    assert all(reason.startswith("Missing output files") for rule, _, reason in jobs if rule == "train")
    assert {w["study"] for rule, w, _ in jobs if rule in PER_STUDY_RULES} == {"lesson"}
    # each study is its own Holm family: only the lesson's verdicts are re-evaluated
    assert [w["study"] for r, w, _ in jobs if r == "claims"] == ["lesson"]


def test_new_factor_holding_the_old_fixed_value_trains_only_the_new_level(finished_copy):
    cfg = copy.deepcopy(SMOKE_YAML)
    assert cfg["defaults"]["lr"] == 0.01
    cfg["studies"]["factorial"]["factors"]["lr"] = [0.01, 0.003]
    jobs = dry_run(finished_copy, cfg)
    factorial = C.validate(cfg).studies["factorial"]
    assert trained(jobs) == {r.hash for r in factorial.runs() if r.settings.lr == 0.003}
    assert len(trained(jobs)) == SMOKE.studies["factorial"].n_runs() == 32
    assert {r.hash for r in factorial.runs() if r.settings.lr == 0.01} == hashes(SMOKE_YAML, "factorial")


def test_new_test_lengths_plan_evaluation_jobs_only(finished_copy):
    """Adding test lengths to a finished study trains nothing: each of its runs gets one evaluate job
    (all its lengths, from its stored weights), then the study's evaluations, its claims (a claim may be
    on a metric at test lengths), figures and report."""
    cfg = copy.deepcopy(SMOKE_YAML)
    cfg["studies"]["length"]["eval_lengths"] = {"from": 1, "to": 7}
    cfg["studies"]["lesson"]["eval_lengths"] = [16]  # a study evaluated for the first time
    jobs = dry_run(finished_copy, cfg)
    assert trained(jobs) == set()
    evaluated = {(w["hash"], w["lengths"]) for rule, w, _ in jobs if rule == "evaluate"}
    assert evaluated == {(h, "1-7") for h in hashes(cfg, "length")} | {(h, "8_16") for h in hashes(cfg, "lesson")}
    assert {w["study"] for rule, w, _ in jobs if rule == "evaluations"} == {"length", "lesson"}
    assert {rule for rule, _, _ in jobs} == {"evaluate", "evaluations", "published_table", "claims", "figures", "report", "all"}
    assert {w["study"] for rule, w, _ in jobs if rule == "claims"} == {"length", "lesson"}


def test_a_run_without_weights_recovers_them_in_its_evaluate_job_without_a_training_job(finished_copy):
    """A run folder written before weights were kept: a new test length evaluates it, and its evaluate
    job trains it again to recover its weights, to the same params_sha256; metrics.csv is untouched."""
    cfg = copy.deepcopy(SMOKE_YAML)
    cfg["studies"]["length"]["eval_lengths"] = [6]
    del cfg["studies"]["length"]["published"]  # its lengths (4-5) are no longer evaluated
    store = finished_copy / run_store.STORE
    runs = sorted(hashes(cfg, "length"))
    metrics = {h: (store / h / "metrics.csv").read_bytes() for h in runs}
    for h in runs:
        (store / h / "weights.pt").unlink()
    snakemake(finished_copy, "--cores", "2", f"--configfile={write_config(finished_copy, cfg)}",
              "smoke/results/length/evaluations.csv")  # fmt: skip
    assert {h: (store / h / "metrics.csv").read_bytes() for h in runs} == metrics
    assert all((store / h / "weights.pt").is_file() for h in runs)
    logs = [(store / h / "evaluations" / "1-3_6.log").read_text() for h in runs]
    assert all("training the run again to recover them" in log for log in logs)
    rows = list(csv.DictReader(open(finished_copy / "smoke/results/length/evaluations.csv", encoding="utf-8")))
    summary = {r["run_id"]: r for r in csv.DictReader(open(finished_copy / "smoke/results/length/summary.csv"))}
    at_3 = [r for r in rows if r["length"] == "3" and r["metric"] == "exact_match"]
    assert len(at_3) == 4 and all(r["value"] == summary[r["run_id"]]["test_acc"] for r in at_3)


def _reverse_factors(cfg: dict) -> dict:
    cfg = copy.deepcopy(cfg)
    for study in cfg["studies"].values():
        study["factors"] = dict(reversed(list(study["factors"].items())))
        study["fixed"] = dict(reversed(list(study["fixed"].items())))
    return cfg


@pytest.mark.parametrize("edit", ["sorted-keys", "reversed-factors"])
def test_reordered_keys_train_and_aggregate_nothing(finished_copy, edit):
    cfg = _reverse_factors(SMOKE_YAML) if edit == "reversed-factors" else SMOKE_YAML
    jobs = dry_run(finished_copy, cfg, sort_keys=edit == "sorted-keys")
    # the report shows the config as written, so it may be redrawn; nothing else is
    assert {rule for rule, _, _ in jobs} <= {"report", "all"}, jobs


def test_removed_level_trains_nothing_and_its_runs_stay(finished_copy):
    cfg = copy.deepcopy(SMOKE_YAML)
    cfg["studies"]["factorial"]["factors"]["norm"] = ["post"]
    removed = hashes(SMOKE_YAML) - hashes(cfg)
    assert len(removed) == 16
    path = write_config(finished_copy, cfg)
    assert not trained(planned_jobs(snakemake(finished_copy, "-n", "--configfile", path).stdout))
    summary = f"{SMOKE.outdir}/results/factorial/summary.csv"
    snakemake(finished_copy, summary, "--cores", "2", "--configfile", path)
    assert all(run_store.is_complete(finished_copy / run_store.STORE / h) for h in removed)
    with open(finished_copy / summary) as fh:
        assert len(list(csv.DictReader(fh))) == 16
    # gc lists exactly the removed runs, deletes nothing without --delete, then only them
    gc = [str(BIN / "python"), "-m", "ablation.store", "gc", path]
    out = subprocess.run(gc, cwd=finished_copy, capture_output=True, text=True, check=True).stdout
    assert {m for m in re.findall(r"^orphan results/runs/(\w+):", out, re.M)} == removed
    assert all((finished_copy / run_store.STORE / h).is_dir() for h in removed)
    subprocess.run([*gc, "--delete"], cwd=finished_copy, capture_output=True, check=True)
    left = {d.name for d in (finished_copy / run_store.STORE).iterdir()}
    assert left == hashes(SMOKE_YAML) - removed


def test_changed_fixed_setting_retrains_that_study_under_new_hashes(finished_copy):
    cfg = copy.deepcopy(SMOKE_YAML)
    cfg["studies"]["depth"]["fixed"]["depth"] = 2
    cfg["studies"]["lesson"]["description"] = "A new description: nothing to re-compute."
    jobs = dry_run(finished_copy, cfg)
    new = hashes(cfg, "depth") - hashes(SMOKE_YAML)
    # at depth 2 without warm-up, the depth study's runs are runs of the factorial study: shared
    shared = {r.hash for r in C.validate(cfg).studies["depth"].runs() if r.settings.warmup == 0}
    assert shared <= hashes(SMOKE_YAML, "factorial") and len(shared) == 4
    assert trained(jobs) == new == hashes(cfg, "depth") - shared
    assert all(reason.startswith("Missing output files") for rule, _, reason in jobs if rule == "train")
    assert all(run_store.is_complete(finished_copy / run_store.STORE / h) for h in hashes(SMOKE_YAML, "depth"))
    assert {w["study"] for rule, w, _ in jobs if rule in PER_STUDY_RULES} == {"depth"}

    # each study is its own Holm family: no other study's verdicts are re-evaluated
    assert [w["study"] for r, w, _ in jobs if r == "claims"] == ["depth"]
    assert not [job for job in jobs if job[1].get("study") not in (None, "depth")]

def test_killed_training_leaves_no_folder_that_looks_complete(tmp_path):
    work = copy_project(tmp_path / "work")
    cfg = {"studies": {"long": {"fixed": {"epochs": 10**7, "n_train": 8, "n_test": 4}, "seeds": [0]}}}
    path = write_config(work, cfg)
    (run,) = C.validate(cfg).studies["long"].runs()
    run_dir = work / run_store.STORE / run.hash
    env = {**os.environ, "ABLATION_FORK_SERVER": "0"}  # the job is a child of Snakemake: killed with it
    proc = subprocess.Popen([str(BIN / "snakemake"), "--cores", "1", "--configfile", path], cwd=work, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not (run_dir / run_store.LOG).is_file() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(2)  # training under way
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert run_dir.is_dir() and not run_store.is_complete(run_dir)
    snakemake(work, "--unlock", "--configfile", path)
    assert trained(planned_jobs(snakemake(work, "-n", "--configfile", path).stdout)) == {run.hash}


def _snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and run_store.STORE.name not in p.relative_to(root).parts[:2]
    }


def test_a_config_with_its_own_outdir_leaves_the_others_outputs_untouched(finished_copy):
    """The smoke config after a "full" one (here the smoke lesson study, outdir "."): the full
    run's tables, figures and report keep their bytes, and neither needs anything afterwards."""
    full = {k: v for k, v in copy.deepcopy(SMOKE_YAML).items() if k not in ("outdir", "report")}  # one study:
    # the headline names claims of the others
    full["studies"] = {"lesson": full["studies"]["lesson"]}
    path = write_config(finished_copy, full, "full")
    proc = snakemake(finished_copy, "--cores", "2", "--configfile", path)
    assert not re.search(r"^rule train:", snakemake_log(proc), re.M), "the runs are shared with smoke"
    before = {**_snapshot(finished_copy / "results"), **_snapshot(finished_copy / "reports")}
    assert "lesson/summary.csv" in before and "ablation_report.html" in before
    shutil.rmtree(finished_copy / SMOKE.outdir / "results" / "lesson")
    snakemake(finished_copy, "--cores", "2", "--configfile", "config/smoke.yaml", "--forcerun", "report")
    assert (finished_copy / SMOKE.outdir / "results" / "lesson" / "summary.csv").is_file()
    assert {**_snapshot(finished_copy / "results"), **_snapshot(finished_copy / "reports")} == before
    out = snakemake(finished_copy, "-n", "--configfile", path)
    assert "Nothing to be done" in out.stdout + out.stderr


def _old_run_id(cfg: dict, run) -> str:
    """The run folder of the old layout: factors in the config's key order."""
    names = list(cfg["studies"][run.study].get("factors", {}))
    return "/".join([f"{k}~{C.format_value(run.factors[k])}" for k in names] + [f"seed~{run.settings.seed}"])


def _metrics(path: Path) -> dict:
    with open(path, newline="") as fh:
        return next(csv.DictReader(fh))


def test_migration_moves_old_run_folders_into_the_store_without_training(finished_copy):
    store = finished_copy / run_store.STORE
    sha = {h: _metrics(store / h / "metrics.csv")["params_sha256"] for h in hashes(SMOKE_YAML)}
    # the old layout: a copy per study under results/<study>/runs/<factor~value>/.../seed~N/
    for name, study in SMOKE.studies.items():
        for run in study.runs():
            old = finished_copy / "results" / name / "runs" / _old_run_id(SMOKE_YAML, run)
            shutil.copytree(store / run.hash, old)
            rows = [_metrics(old / "metrics.csv") | {"study": name, "run_id": _old_run_id(SMOKE_YAML, run)}]
            with open(old / "metrics.csv", "w", newline="") as fh:
                writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
                writer.writeheader()
                writer.writerows(rows)
            log = finished_copy / "results" / name / "logs" / "train" / f"{_old_run_id(SMOKE_YAML, run)}.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            (old / run_store.LOG).rename(log)
    fresh = {h: (store / h / "metrics.csv").read_bytes() for h in sha}
    shutil.rmtree(store)
    proc = subprocess.run([str(BIN / "python"), "-m", "ablation.store", "migrate"], cwd=finished_copy,
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert f"moved {len(sha)} run(s)" in proc.stdout and " 0 conflict(s)" in proc.stdout, proc.stdout
    assert {h: _metrics(store / h / "metrics.csv")["params_sha256"] for h in sha} == sha
    assert {h: (store / h / "metrics.csv").read_bytes() for h in sha} == fresh  # as trained in the store
    assert all((store / h / run_store.LOG).is_file() for h in sha)
    assert not any((finished_copy / "results" / name / "runs").exists() for name in SMOKE.studies)
    assert not trained(planned_jobs(snakemake(finished_copy, "-n", "--configfile", "config/smoke.yaml").stdout))


@pytest.fixture(scope="module")
def full_store(tmp_path_factory):
    """A copy of the project whose store holds every run of config/config.yaml (empty files: a dry
    run looks at nothing but their presence)."""
    work = copy_project(tmp_path_factory.mktemp("full"))
    for h in hashes(FULL_YAML):
        (work / run_store.STORE / h).mkdir(parents=True)
        for name in run_store.RUN_FILES:
            (work / run_store.STORE / h / name).touch()
    return work


# factorial: 408 new runs at lr 0.003 (the default config asks no claim where it holds over lr, so the store
# holds no run at lr 0.003)
@pytest.mark.parametrize("study, expected", [("lesson", 12), ("factorial", 408), (None, 0)])
def test_default_config_lr_factor_plans_only_the_new_level(full_store, study, expected):
    cfg = copy.deepcopy(FULL_YAML)
    if study is not None:
        cfg["studies"][study]["factors"]["lr"] = [0.01, 0.003]
    jobs = dry_run(full_store, cfg, sort_keys=study is None)  # None: the unchanged config, keys sorted
    assert len(trained(jobs)) == expected
    assert trained(jobs) == hashes(cfg) - hashes(FULL_YAML)


def test_resolved_configuration_shows_each_setting_once():
    cfg = copy.deepcopy(FULL_YAML)
    cfg["studies"]["lesson"]["factors"]["lr"] = [0.01, 0.003]
    shown = yaml.safe_load(report.resolved_config(C.validate(cfg).studies["lesson"]))
    assert "lr" not in shown["fixed"] and shown["factors"]["lr"] == [0.01, 0.003]
    assert re.findall(r"^\s*lr:", report.resolved_config(C.validate(cfg).studies["lesson"]), re.M) == ["  lr:"]
