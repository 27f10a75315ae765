"""Incremental work on a finished run: only what a config change touches is re-run.

Dry runs on a copy of the finished smoke run, with an edited config:
- adding a seed (lesson) and a factor value (factorial) lists exactly the new training jobs, plus
  the aggregation of those two studies (and the project-wide report and verify);
- changing a fixed setting of one study (depth) re-trains that study only (its jobs' params
  changed; rerun-triggers include params), and a new description re-runs nothing of its study.
"""

import copy
import re
import shutil

import pytest
import yaml

from ablation import config as C
from conftest import REPO, snakemake

SMOKE_YAML = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
SMOKE = C.validate(SMOKE_YAML)
PER_STUDY_RULES = ("summarize", "analyze", "figures")


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


def dry_run(work, cfg: dict):
    (work / "config" / "edited.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    out = snakemake(work, "-n", "--configfile", "config/edited.yaml").stdout
    return planned_jobs(out)


def run_ids(cfg: dict, study: str) -> set:
    return {r.run_id for r in C.validate(cfg).studies[study].runs()}


def test_new_seed_and_factor_value_train_only_the_new_runs(finished_copy):
    cfg = copy.deepcopy(SMOKE_YAML)
    cfg["studies"]["lesson"]["seeds"].append(2)
    cfg["studies"]["factorial"]["factors"]["heads"] = [1, 2, 4]  # a new value in the middle
    jobs = dry_run(finished_copy, cfg)

    trained = {(w["study"], w["run"]) for rule, w, _ in jobs if rule == "train"}
    expected = {
        (study, run_id)
        for study in ("lesson", "factorial")
        for run_id in run_ids(cfg, study) - run_ids(SMOKE_YAML, study)
    }
    assert len(expected) == 2 + 16
    assert trained == expected
    assert all(reason.startswith("Missing output files") for rule, _, reason in jobs if rule == "train")
    for rule in PER_STUDY_RULES:
        assert sorted(w["study"] for r, w, _ in jobs if r == rule) == ["factorial", "lesson"], rule
    # every claim of the config is one Holm family: every study's verdicts are re-evaluated
    assert sorted(w["study"] for r, w, _ in jobs if r == "claims") == sorted(SMOKE.studies)
    others = sorted(rule for rule, _, _ in jobs if rule not in ("train", "claims", *PER_STUDY_RULES))
    assert others == ["all", "report", "verify"] or others == ["report", "verify"], others


def test_changed_fixed_setting_reruns_that_study_only(finished_copy):
    cfg = copy.deepcopy(SMOKE_YAML)
    cfg["studies"]["depth"]["fixed"]["depth"] = 2
    cfg["studies"]["lesson"]["description"] = "A new description: nothing to re-compute."
    jobs = dry_run(finished_copy, cfg)

    trained = [(w["study"], w["run"]) for rule, w, _ in jobs if rule == "train"]
    assert sorted(trained) == sorted(("depth", r) for r in run_ids(SMOKE_YAML, "depth"))
    assert all("Params have changed" in reason for rule, _, reason in jobs if rule == "train")
    assert {w.get("study") for rule, w, _ in jobs if rule in PER_STUDY_RULES} == {"depth"}
    # the claims are one family over every study: only their verdicts are re-evaluated elsewhere
    assert not [job for job in jobs if job[1].get("study") in ("lesson", "factorial") and job[0] != "claims"]
    assert sorted(w["study"] for r, w, _ in jobs if r == "claims") == sorted(SMOKE.studies)
    assert {rule for rule, _, _ in jobs} <= {"train", "claims", *PER_STUDY_RULES, "report", "verify", "all"}
