"""The plan's time estimate against the real workflow: the jobs it lays out are the jobs Snakemake
plans, and its calibration times real training on this machine in a few seconds."""

import dataclasses

import pytest

from ablation import config as C
from ablation import design
from ablation import plan as P
from ablation import timing as T
from conftest import REPO, copy_project, snakemake
from test_workflow import job_counts


@pytest.mark.parametrize("config", ["smoke.yaml", "config.yaml"])
def test_the_estimate_lays_out_the_jobs_snakemake_plans(tmp_path, config):
    """Every job of a dry run (the first round of an adaptive study: one checkpoint, no more runs),
    one for one; the first of the estimate's jobs is Snakemake's own start. An adaptive study's
    evaluate jobs wait for its checkpoint, so a dry run cannot list them: the estimate has them."""
    work = copy_project(tmp_path)
    counts = job_counts(snakemake(work, "-n", "--configfile", f"config/{config}").stdout)
    cfg = C.load(REPO / "config" / config)
    cal = T.Calibration(per_unit=0.01, per_run=0.0, other_job=1.0, start=1.0, basis="b")
    jobs = T.design_jobs(cfg, work / "results" / "runs", cal, every_round=False)
    hidden = sum(len(T.first_round(cfg, name)) + len(design.scope_runs(study, study.seeds))
                 for name, study in cfg.studies.items()
                 if study.eval_lengths and design.adaptive_block(cfg.raw["studies"][name]))  # fmt: skip
    assert len(jobs) - 1 - hidden == counts["total"] - counts["all"]
    assert sum(j.priority > 0 for j in jobs) == counts["train"]


def test_the_calibration_times_real_training_here_in_a_few_seconds(tmp_path):
    cfg = C.load(REPO / "config" / "smoke.yaml")
    cal = T.calibrate(cfg, tmp_path / "empty-store", slots=2)
    assert cal.basis.startswith(f"timed here: {T.SAMPLE_SHAPES} of the design's")
    # what the forked children measured is training: a run of the smoke config's costliest shape costs
    # more than its cheapest, and more cores finish the same design sooner
    shapes = sorted({dataclasses.replace(s, seed=0) for runs in T.design_settings(cfg).values() for s in runs},
                    key=lambda s: cal.run_seconds(s))  # fmt: skip
    assert 0 < cal.run_seconds(shapes[0]) < cal.run_seconds(shapes[-1]) and 0 < cal.other_job
    walls = [T.wall_seconds(cfg, tmp_path / "empty-store", cal, cores, every_round=False) for cores in (1, 2)]
    assert walls[1] < walls[0]
    # its own time stays short (a bound loose enough for a machine other work keeps busy)
    assert cal.seconds < 60 and 0 <= cal.other_share <= 1


def test_make_plan_prints_the_wall_time_at_the_cores_it_is_given(capsys, tmp_path, monkeypatch):
    """The wall time is printed whatever the plan refuses (the smoke config's two seeds decide nothing:
    its claims are refused, on stderr, unless they say why with undecidable_ok)."""
    monkeypatch.chdir(tmp_path)  # an empty run store: every run still to train
    refused = P.refusals(P.plan(C.load(REPO / "config" / "smoke.yaml")))[0]
    assert P.main([str(REPO / "config" / "smoke.yaml"), "--cores", "2"]) == (1 if refused else 0)
    out = capsys.readouterr().out
    assert "Wall time at 2 cores: about " in out and "timed here" in out
    assert max(map(len, out.splitlines())) <= P.WIDTH
