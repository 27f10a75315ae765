"""The twin certificate each run records at training time: the largest |logit - twin logit| over the
twin test set (twin_logit_gap) and the twin pairs predicted differently (twin_pairs_differ), from the
logits to metrics.csv and the study's summary.csv. What exact claims make of it, and that a model
blind to order holds it, is tests/unit/test_exact_claims.py."""

import csv
import math

import torch

from ablation import aggregate as A
from ablation import store, train
from ablation.verdicts import EXACT_GAP
from ablation.config import Study
from ablation.settings import Settings

SMALL = dict(n_train=64, n_test=40, seq_len=6, d_model=16, heads=2, depth=1)


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_the_certificate_compares_each_sequence_with_its_twin_half_the_set_away():
    # [6]: sequences 0, 1, 2, then their twins 3, 4, 5; pair 1 alone is predicted differently
    logits = torch.tensor([1.0, -2.0, 0.5, 1.5, 3.0, 0.25])
    assert train.twin_certificate(logits) == (5.0, 1)
    # [4, 2]: several logits per sequence; a pair differs when any entry's prediction does
    logits = torch.tensor([[0.5, -1.0], [2.0, 2.0], [0.5, 1.0], [2.0, 1.75]])
    assert train.twin_certificate(logits) == (2.0, 1)
    gap, differ = train.twin_certificate(torch.tensor([1.0, float("inf"), 1.0, 0.0]))
    assert math.isnan(gap) and math.isnan(differ)


def test_the_pairs_predicted_differently_account_for_test_correct():
    s = Settings(arch="attention_only", pos_enc="sinusoidal", attn_mask="bidirectional", seed=0, epochs=40, **SMALL)
    r = train.train_run(s)
    assert r.status == "ok" and r.twin_pairs_differ > 0 and r.twin_logit_gap > 100 * EXACT_GAP
    # twins carry opposite labels: a pair predicted alike has one correct prediction, a pair predicted
    # differently two or none, so the count of differing pairs fixes the parity of test_correct
    alike = s.n_test - r.twin_pairs_differ
    assert alike <= r.test_correct <= alike + 2 * r.twin_pairs_differ
    assert (r.test_correct - alike) % 2 == 0


def test_the_certificate_reaches_metrics_csv_and_the_study_summary(tmp_path):
    study = Study("t", "", {"epochs": 15, **SMALL}, {"pos_enc": ["none", "sinusoidal"]}, [0], [])
    results = {}
    for run in study.runs():
        results[run.run_id] = r = train.train_run(run.settings)
        train.write_outputs(r, tmp_path / "runs" / run.hash, "", run.hash)
        (row,) = read_csv(tmp_path / "runs" / run.hash / "metrics.csv")
        assert float(row["twin_logit_gap"]) == r.twin_logit_gap and int(row["twin_pairs_differ"]) == r.twin_pairs_differ
    store.write_index(study, tmp_path / "runs.csv")
    argv = ["--study", "t", "--index", str(tmp_path / "runs.csv"), "--store", str(tmp_path / "runs"),
            "--summary", str(tmp_path / "summary.csv"), "--curves", str(tmp_path / "curves.csv"),
            "--init-grads", str(tmp_path / "init_grads.csv")]  # fmt: skip
    assert A.main(argv) == 0
    summary = {row["run_id"]: row for row in read_csv(tmp_path / "summary.csv")}
    assert set(summary) == set(results)
    for run_id, r in results.items():
        row = summary[run_id]
        assert float(row["twin_logit_gap"]) == r.twin_logit_gap and int(row["twin_pairs_differ"]) == r.twin_pairs_differ
    blind = next(r for r in results.values() if r.settings.pos_enc == "none")
    assert blind.twin_pairs_differ == 0


def test_a_diverged_run_has_no_certificate(tmp_path):
    r = train.train_run(Settings(lr=1e8, depth=4, norm="post", n_train=96, n_test=24, epochs=25))
    assert r.status == "diverged" and math.isnan(r.test_acc)
    assert math.isnan(r.twin_logit_gap) and math.isnan(r.twin_pairs_differ)
    train.write_outputs(r, tmp_path, "", "div")
    (row,) = read_csv(tmp_path / "metrics.csv")
    assert math.isnan(float(row["twin_logit_gap"])) and math.isnan(float(row["twin_pairs_differ"]))
