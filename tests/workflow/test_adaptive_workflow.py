"""An adaptive study end to end in Snakemake (a temp copy of the project): the smoke config's depth
study with two seeds and ``adaptive: {max_seeds: 4, batch: 2}``; an ``at_least`` claim on one cell
that two seeds cannot decide and four can, so one Snakemake call runs two rounds (checkpoints) and
trains the extra seeds in that cell only. Stopped after round 1, a second call trains exactly the
planned runs and nothing finished; on the same results the next call plans nothing."""

from __future__ import annotations

import copy
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from ablation import adaptive as A
from ablation import config as C
from ablation import outputs
from ablation import store as run_store
from conftest import BIN, REPO, copy_project, snakemake, snakemake_log
from test_incremental import planned_jobs

SMOKE = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())


def tiny_config() -> dict:
    cfg = copy.deepcopy(SMOKE)
    study = cfg["studies"]["depth"]
    study["factors"] = {"norm": ["post", "pre"]}
    study["fixed"]["warmup"] = 0
    study["adaptive"] = {"max_seeds": 4, "batch": 2}
    study["claims"] = [
        {"id": "A1-pre-above-floor", "statement": "Pre-norm scores above 5 %.", "kind": "at_least",
         "where": {"norm": "pre"}, "threshold": 0.05, "estimand": "mean", "test": "betting"},  # far above 0.05: a few seeds
    ]  # fmt: skip
    cfg["studies"] = {"depth": study}
    # at alpha 0.025 the e-process needs a capital of 40: the first round's two seeds reach it only together
    cfg["stats"] = {**cfg.get("stats", {}), "alpha": 0.025}
    cfg["outdir"] = "adaptive_test"
    cfg["report"] = {"headline": []}
    return cfg


def test_two_rounds_resume_and_nothing_to_redo(tmp_path):
    work = copy_project(tmp_path / "work")
    cfg = tiny_config()
    (work / "config" / "adaptive.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    args = ("--cores", "2", "--configfile", "config/adaptive.yaml")
    results = work / "adaptive_test" / "results" / "depth"
    study = C.validate(cfg).studies["depth"]

    # stop after the first round's checkpoint: it plans seeds 2 and 3 in the pre-norm cell only
    snakemake(work, "adaptive_test/results/depth/adaptive/round_1.json", *args)
    first = json.loads((results / "adaptive" / "round_1.json").read_text())
    # two seeds far above the floor reach it at the round's end, but either seed alone does not: fragile
    assert [c["state"] for c in first["claims"]] == ["fragile"]
    planned = {(r["norm"], r["seed"]) for r in first["new_runs"]}
    assert planned == {("pre", "2"), ("pre", "3")}
    assert {r["hash"] for r in first["new_runs"]} == {
        A.make_run(study, {"norm": "pre"}, s).hash for s in (2, 3)
    }

    # resume: the round's two runs train, no finished run again; round 2 resolves and plans nothing
    dry = planned_jobs(snakemake(work, "-n", "adaptive_test/results/depth/summary.csv", *args).stdout)
    assert sorted(w["hash"] for rule, w, _ in dry if rule == "train") == sorted(r["hash"] for r in first["new_runs"])
    snakemake(work, "adaptive_test/results/depth/tables/claims.csv", "adaptive_test/results/depth/tables/adaptive_cost.csv", *args)
    second = json.loads((results / "adaptive" / "round_2.json").read_text())
    assert second["claims"][0]["state"] == "resolved" and second["claims"][0]["verdict"] == "SUPPORTED"
    assert second["new_runs"] == [] and not (results / "adaptive" / "round_3.json").exists()
    # the summary (and so the tables and claims) sees every round's runs
    summary = (results / "summary.csv").read_text().splitlines()
    assert len(summary) - 1 == 2 * 2 + 2
    claims = (results / "tables" / "claims.csv").read_text()
    assert "anytime-valid" in claims and "SUPPORTED" in claims

    rounds = pd.read_csv(results / "tables" / "adaptive_rounds.csv")
    assert list(rounds["state"]) == ["fragile", "resolved"] and list(rounds["n_seeds"]) == [2, 4]
    seq = pd.read_csv(results / "tables" / "adaptive_sequences.csv")
    assert list(seq["n_seeds"]) == [1, 2, 3, 4] and (seq["cs_hi"].diff().dropna() <= 1e-12).all()
    assert seq["cs_lo"].iloc[-1] > 0.05  # the decision: above the threshold
    cost = pd.read_csv(results / "tables" / "adaptive_cost.csv").iloc[0]
    assert (cost["runs_trained"], cost["runs_at_max_seeds"]) == (6, 8) and cost["train_seconds_saved"] > 0

    glossary = outputs.full_glossary()
    for table in outputs.ADAPTIVE_TABLES:
        assert set(pd.read_csv(results / table.file).columns) <= set(glossary), table.name

    # on the same results, nothing is planned or trained
    out = snakemake(work, "-n", "adaptive_test/results/depth/tables/claims.csv", *args).stdout
    assert planned_jobs(out) == [], out[-2000:]


def write_tiny(work) -> tuple[tuple, Path]:
    (work / "config" / "adaptive.yaml").write_text(yaml.safe_dump(tiny_config(), sort_keys=False))
    return ("--cores", "1", "--configfile", "config/adaptive.yaml"), work / "adaptive_test" / "results" / "depth"


@pytest.mark.slow
def test_killed_between_rounds_resumes_at_that_round_and_replans_the_same(tmp_path):
    """Killed as soon as round 1 is planned (SIGKILL to the whole process group), a resumed run
    trains only round 1's runs that did not finish, then completes; planning the rounds again on
    the same results writes the same round files byte for byte and trains nothing."""
    work = copy_project(tmp_path / "work")
    args, results = write_tiny(work)
    round_1 = results / "adaptive" / "round_1.json"
    env = {**os.environ, "ABLATION_FORK_SERVER": "0"}  # jobs are children of Snakemake: killed with it
    proc = subprocess.Popen([str(BIN / "snakemake"), "adaptive_test/results/depth/tables/claims.csv", *args],
                            cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        while not round_1.is_file() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    planned = [r["hash"] for r in json.loads(round_1.read_text())["new_runs"]]
    unfinished = {h for h in planned if not run_store.is_complete(work / run_store.STORE / h)}
    snakemake(work, "--unlock", *args)
    proc = snakemake(work, "adaptive_test/results/depth/tables/claims.csv", *args)
    jobs = planned_jobs(snakemake_log(proc))
    assert {w["hash"] for rule, w, _ in jobs if rule == "train"} == unfinished
    files = sorted((results / "adaptive").glob("round_*.json"))
    first = {p.name: p.read_bytes() for p in files}
    assert list(first) == ["round_1.json", "round_2.json"]
    for p in files:
        p.unlink()
    proc = snakemake(work, *(str(p.relative_to(work)) for p in files), *args)
    assert not re.search(r"^(local)?rule train:", snakemake_log(proc), re.M)
    assert {p.name: p.read_bytes() for p in sorted((results / "adaptive").glob("round_*.json"))} == first
