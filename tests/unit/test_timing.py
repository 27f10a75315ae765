"""Tests of ablation.timing: the cost model priced on this machine and a design's jobs on the cores."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from collections import Counter

import pytest

from ablation import config as C
from ablation import timing as T
from ablation.settings import cost_estimate, from_dict
from conftest import REPO

SMOKE = C.load_yaml(REPO / "config" / "smoke.yaml")


def test_two_timings_split_a_run_into_its_epochs_and_its_fixed_part():
    # 2 epochs 0.3 s, 12 epochs 1.3 s: 0.1 s an epoch, 0.1 s besides
    assert T.epoch_fit(0.3, 1.3, 2, 12) == pytest.approx((0.1, 0.1))
    # a noisy pair (the longer run no slower) puts every second on the epochs, none on the fixed part
    assert T.epoch_fit(0.5, 0.4, 2, 12) == pytest.approx((0.4 / 12, 0.0))


def test_the_seconds_per_unit_weight_each_timed_shape_by_the_units_it_stands_for():
    cheap = from_dict({"arch": "encoder", "depth": 2, "heads": 1, "seq_len": 8})
    dear = dataclasses.replace(cheap, heads=8, seq_len=32)
    per_epoch = {cheap: 0.01, dear: 0.05}  # seconds an epoch, 0.02 s fixed each
    times = {s: {2: 0.02 + 2 * e, 12: 0.02 + 12 * e} for s, e in per_epoch.items()}
    picks = Counter({cheap: 1, dear: 3})
    per_unit, fixed = T.per_unit_fit(picks, times)
    units = {s: cost_estimate(s) / s.epochs for s in picks}
    assert per_unit == pytest.approx((0.01 + 3 * 0.05) / (units[cheap] + 3 * units[dear]))
    assert fixed == pytest.approx(0.02)


def test_the_timed_shapes_stand_for_equal_shares_of_the_designs_units():
    cfg = C.load(REPO / "config" / "config.yaml")
    by_study = T.design_settings(cfg)
    picks = T.shapes(by_study, k=8)
    assert sum(picks.values()) == 8
    units = Counter()
    for s in (s for runs in by_study.values() for s in runs):
        units[dataclasses.replace(s, seed=0)] += cost_estimate(s)
    # depth's 10-block shapes hold about a quarter of the units: as many of the eight picks, give or take the rounding
    depth_share = sum(u for s, u in units.items() if s.depth == 10) / sum(units.values())
    assert sum(w for s, w in picks.items() if s.depth == 10) in (math.floor(8 * depth_share), math.ceil(8 * depth_share))
    # every study with a share of at least one pick is timed
    for name, runs in by_study.items():
        share = sum(cost_estimate(s) for s in runs) / sum(units.values())
        shapes = {dataclasses.replace(s, seed=0) for s in runs}
        assert share < 1 / 8 or any(s in shapes for s in picks), name


def test_a_run_shared_by_two_studies_is_trained_once():
    raw = copy.deepcopy(SMOKE)
    raw["studies"]["twin"] = copy.deepcopy(raw["studies"]["lesson"]) | {"claims": []}
    raw["report"]["headline"] = []
    cfg = C.validate(raw)
    by_study = T.design_settings(cfg)
    assert by_study["twin"] == []  # every run of it is lesson's
    jobs = T.design_jobs(cfg, REPO / "no-store-here", T.Calibration(0.01, 0.0, 1.0, 1.0, "b"), every_round=False)
    assert sum(j.priority > 0 for j in jobs) == len({r.hash for s in cfg.studies.values() for r in s.runs()})


def test_the_smoke_configs_jobs_are_the_workflows():
    """Training jobs, an evaluate job per run of a study with test lengths, per study index,
    summarize, evaluations, published_table, analyze, claims and figures, then the implementation checks, the
    positional-encoding figure, verify and the report (workflow/rules; tests/workflow/test_plan_estimate.py
    holds the count to Snakemake's own)."""
    cfg = C.load(REPO / "config" / "smoke.yaml")
    jobs = T.design_jobs(cfg, REPO / "no-store-here", T.Calibration(0.01, 0.0, 1.0, 1.0, "b"), every_round=False)
    runs = {r.hash for s in cfg.studies.values() for r in s.runs()}
    evaluated = sum(s.n_runs() for s in cfg.studies.values() if s.eval_lengths)
    assert evaluated and len(jobs) == 1 + len(runs) + evaluated + 7 * len(cfg.studies) + 4  # 1: Snakemake's own start


def test_an_adaptive_study_trains_its_rounds_one_after_the_other():
    raw = copy.deepcopy(SMOKE)
    raw["studies"] = {"depth": raw["studies"]["depth"] | {"adaptive": {"max_seeds": 6, "batch": 2}}}
    raw["report"]["headline"] = []
    cfg = C.validate(raw)
    rounds = T.rounds(cfg, "depth")
    assert [sorted({r.settings.seed for r in batch}) for batch in rounds] == [[2, 3], [4, 5]]
    cal = T.Calibration(per_unit=0.0, per_run=10.0, other_job=0.0, start=0.0, basis="b")
    first, every = (T.wall_seconds(cfg, REPO / "no-store-here", cal, cores=100, every_round=e) for e in (False, True))
    # on cores enough for every job at once: one run's 10 s, then 10 s a round; verify re-trains its sample last
    verify = cfg.verify["sample"] * 10.0
    assert (first, every) == (10.0 + verify, 30.0 + verify)


def test_jobs_run_costliest_first_as_soon_as_their_inputs_are_done():
    jobs = [T.Job(10), T.Job(10), T.Job(10), T.Job(30, priority=5)]
    assert T.schedule(jobs, cores=2) == 30  # the 30 s job first, the three others beside it
    assert T.schedule([T.Job(10), T.Job(10), T.Job(10), T.Job(30)], cores=2) == 40  # last: a 30 s tail
    chain = [T.Job(5), T.Job(5, after=[0]), T.Job(5, after=[1])]
    assert T.schedule(chain, cores=8) == 15
    assert T.schedule([T.Job(10, threads=2), T.Job(10, threads=2)], cores=2) == 20  # one 2-thread job at a time
    assert T.schedule([T.Job(10, threads=4)], cores=2) == 10  # a job wanting more cores than there are runs on all


def test_the_stores_finished_runs_price_the_design_once_there_are_enough(tmp_path):
    cfg = C.load(REPO / "config" / "smoke.yaml")
    by_study = T.design_settings(cfg)
    runs = [s for settings in by_study.values() for s in settings]
    from ablation.settings import run_hash

    for s, seconds in zip(runs[:3], (1.0, 2.0, 3.0)):
        d = tmp_path / run_hash(s)
        d.mkdir()
        (d / "settings.json").write_text(json.dumps(s.as_dict()))
        (d / "metrics.csv").write_text(f"train_seconds\n{seconds}\n")
    per_unit, n = T.from_store(by_study, tmp_path, min_runs=3)
    assert n == 3 and per_unit == pytest.approx(6.0 / sum(cost_estimate(s) for s in runs[:3]))
    per_unit, n = T.from_store(by_study, tmp_path, min_runs=4)
    assert n == 3 and math.isnan(per_unit)


def test_a_run_the_reference_holds_is_priced_at_its_seconds_there_times_this_machines_speed(tmp_path):
    """The reference measured a decoder run at 50 s and an encoder run at 5 s where the cost model
    prices them alike; a machine twice as slow on the run both hold prices them at 100 s and 10 s,
    and a run the reference never trained by the cost model."""
    import pandas as pd

    cfg = C.load(REPO / "config" / "smoke.yaml")
    by_study = T.design_settings(cfg)
    runs = [s for settings in by_study.values() for s in settings]
    from ablation.settings import run_hash

    held, other, unknown = runs[0], runs[1], runs[2]
    (tmp_path / "a").mkdir()
    pd.DataFrame({"run_id": ["x", "y"], "hash": [run_hash(held), run_hash(other)], "train_seconds": [5.0, 50.0]}).to_csv(
        tmp_path / "a" / "summary.csv", index=False)  # fmt: skip
    reference = T.reference_seconds(tmp_path)
    assert reference == {run_hash(held): 5.0, run_hash(other): 50.0}
    cal = T.Calibration(per_unit=0.01, per_run=0.5, other_job=1.0, start=1.0, basis="timed here")
    priced = T.by_reference(cal, {run_hash(held): 10.0}, by_study, reference)
    assert priced.run_seconds(held) == pytest.approx(10.0) and priced.run_seconds(other) == pytest.approx(100.0)
    assert priced.run_seconds(unknown) == cal.run_seconds(unknown) == 0.5 + 0.01 * cost_estimate(unknown)
    assert "2 runs at the reference's seconds x 2.00" in priced.basis
    assert T.by_reference(cal, {"not-a-reference-run": 10.0}, by_study, reference) is cal
