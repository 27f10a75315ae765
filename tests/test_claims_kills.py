"""Tests of ablation.claims at the edges its decision rules draw: ties at a band's boundary, ties
between the two verdicts' p-values, cells without seeds, and gradient rows without a layer index."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from test_claims import CFG, FACTORS, GRAD, _grad_study, _slope, claim, grads, study, verdict

from ablation import claims as C
from ablation import units as U

# --------------------------------------------------------------------------- slopes


@pytest.mark.parametrize("bad_layer", ["n/a", None, np.nan])
def test_a_gradient_row_without_a_numeric_layer_is_left_out(bad_layer):
    # one run's first layer has no usable index: its slope comes from its other three layers, as a row
    # with an unusable norm does, instead of a NaN slope (which would drop the whole run)
    df, g = _grad_study()
    spoilt = g.astype({"layer": object})
    run = df["run_id"][0]
    first = spoilt.index[spoilt["run_id"] == run][0]
    spoilt.loc[first, "layer"] = bad_layer
    slopes = U._slopes(df, spoilt)
    assert np.isfinite(slopes).all() and len(slopes) == len(df)
    kept = g[(g["run_id"] == run) & (g.index != first)]
    assert slopes[run] == pytest.approx(_slope(kept), abs=1e-12)
    others = U._slopes(df, g).drop(run)
    assert slopes.drop(run).to_numpy() == pytest.approx(others.to_numpy(), abs=1e-12)
    v, row = verdict(GRAD, df, spoilt)
    assert v == "SUPPORTED" and row["n"] == 8 and "without a usable slope" not in row["detail"]


# --------------------------------------------------------------------------- grad_trend at its boundaries


def _unit(interval):
    u = C._Units("cell", np.arange(2), np.zeros(2), 0.0, (-np.inf, np.inf))
    u.interval = interval
    return u


def _trend_verdict(monkeypatch, growing, flat, flat_margin=0.25):
    """grad_trend's verdict for one cell whose slope intervals are ``growing`` and ``flat``."""

    def given_intervals(units, alpha):
        lo, hi = (np.array([u.interval[i] for u in units], dtype=float) for i in (0, 1))
        return lo, hi, np.full(len(units), "given", dtype=object)

    monkeypatch.setattr(C, "_cis", given_intervals)
    decide = C._decider("grad_trend", {"flat_margin": flat_margin}, [(_unit(growing), _unit(flat))])
    return str(decide(0.05)[0])


# --------------------------------------------------------------------------- a tie of the two p-values


# --------------------------------------------------------------------------- the p-value's bisection, step by step


def _bisection(ok):
    """A claim's p as the bisection over log-alpha computes it, written out in full (the reference)."""
    if not ok(0.5):
        return 1.0
    if ok(1e-9):
        return 1e-9
    lo, hi = np.log(1e-9), np.log(0.5)
    for _ in range(30):
        mid = (lo + hi) / 2
        if ok(float(np.exp(mid))):
            hi = mid
        else:
            lo = mid
    return float(np.exp(hi))


# where a rule starts to decide: below the search's floor, at it, inside, at alpha, past 0.5 (never)
THRESHOLDS = [1e-12, 1e-9, 2e-9, 3.7e-6, 0.001, 0.0125, 0.05, 0.05 + 1e-12, 0.3, 0.5, 0.6]


def _tied_claim_p(p):
    """_claim_p as it would be for a claim whose two verdicts tie at ``p`` over five seeds."""

    def claim_p(c, summary, init_grads, factors, cfg, seed, design=None, texts=True):
        return dict(sup=C._known(p), con=C._known(p), n=5, estimate=0.5, ci_lo=0.25, ci_hi=0.75, seeds=list(range(5)),
                    cells=["cell: mean 0.5000"], desc="given", n_cells=1)  # fmt: skip

    return claim_p


# --------------------------------------------------------------------------- the cell a claim shows


def test_a_claim_with_a_cell_without_seeds_shows_that_cell():
    # grad_trend in each pos_enc cell, one seed: no usable slope in pos_enc=none (one layer per run),
    # a falling slope in pos_enc=sinusoidal. The claim's n is 0, so the cell shown is the empty one,
    # not the one-seed cell: its estimate would rest on a seed the claim's n does not count
    df = study(lambda cell, s: 0.9, seeds=range(1))
    g = grads(df, lambda run: -0.5)
    g = g[(g["layer"] < 1) | (g["pos_enc"] == "sinusoidal")]
    v, row = verdict(dict(GRAD, where={"pos_enc": ["none", "sinusoidal"]}), df, g)
    assert (v, row["n"]) == ("INCONCLUSIVE", 0) and np.isnan(row["estimate"]) and np.isnan(row["ci_lo"])
    assert "2 run(s) without a usable slope" in row["detail"]


def test_a_run_left_with_one_numeric_layer_has_no_slope_and_the_detail_says_why():
    df, g = _grad_study()
    spoilt = g.astype({"layer": object})
    run = df["run_id"][0]
    spoilt.loc[(spoilt["run_id"] == run) & (spoilt["layer"] != 0), "layer"] = "n/a"
    assert run not in U._slopes(df, spoilt).index
    row = verdict(GRAD, df, spoilt)[1]
    assert ("; 1 run(s) without a usable slope (< 2 numeric layer indices with a positive, finite norm) left out. "
            in row["detail"])  # fmt: skip


