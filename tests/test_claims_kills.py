"""Tests of ablation.claims at the edges its decision rules draw: ties at a band's boundary, ties
between the two verdicts' p-values, cells without seeds, and gradient rows without a layer index."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from test_claims import CFG, FACTORS, GRAD, _grad_study, _slope, claim, grads, study, verdict

from ablation import claims as C

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
    slopes = C._slopes(df, spoilt)
    assert np.isfinite(slopes).all() and len(slopes) == len(df)
    kept = g[(g["run_id"] == run) & (g.index != first)]
    assert slopes[run] == pytest.approx(_slope(kept), abs=1e-12)
    others = C._slopes(df, g).drop(run)
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


def test_grad_trend_a_growing_interval_that_reaches_zero_shows_no_growth(monkeypatch):
    # SUPPORTED needs the growing slope's interval above 0: one starting at 0 is not, one ending at 0
    # (no positive slope inside) contradicts growth
    assert _trend_verdict(monkeypatch, (0.0, 1.0), (0.0, 0.0)) == "INCONCLUSIVE"
    assert _trend_verdict(monkeypatch, (0.5, 1.0), (0.0, 0.0)) == "SUPPORTED"
    assert _trend_verdict(monkeypatch, (-0.5, 0.0), (0.0, 0.0)) == "CONTRADICTED"
    assert _trend_verdict(monkeypatch, (-0.5, 0.5), (0.0, 0.0)) == "INCONCLUSIVE"


def test_grad_trend_a_flat_interval_touching_the_margin_is_not_outside_it(monkeypatch):
    # the flat level's interval inside [-margin, margin], edges included, supports flatness; one
    # touching an edge from outside is not entirely outside the band, so it contradicts nothing
    for flat in ((-0.25, 0.25), (0.25, 0.25), (-0.25, -0.25)):
        assert _trend_verdict(monkeypatch, (0.5, 1.0), flat) == "SUPPORTED", flat
    for flat in ((0.25, 0.5), (-0.5, -0.25)):
        assert _trend_verdict(monkeypatch, (0.5, 1.0), flat) == "INCONCLUSIVE", flat
    for flat in ((0.375, 0.5), (-0.5, -0.375)):
        assert _trend_verdict(monkeypatch, (0.5, 1.0), flat) == "CONTRADICTED", flat


# --------------------------------------------------------------------------- a tie of the two p-values


def test_a_tie_of_the_two_verdicts_p_values_decides_nothing():
    # p_sup == p_con: both verdicts reached at the same alpha; neither may be reported
    assert C._decided(0.01, 0.01, 1.0, 0.0, 0.05) == "INCONCLUSIVE"
    assert C._decided(0.01, 0.02, 1.0, 0.0, 0.05) == "SUPPORTED"
    assert C._decided(0.02, 0.01, 1.0, 0.0, 0.05) == "CONTRADICTED"
    assert C._decided(0.05, 1.0, 1.0, 0.0, 0.05) == "SUPPORTED"  # at alpha exactly
    assert C._decided(0.01, 1.0, 6.0, 0.0, 0.05) == "INCONCLUSIVE"  # Holm: 6 * 0.01 > alpha
    assert C._decided(0.01, 1.0, 1.0, 0.06, 0.05) == "INCONCLUSIVE"  # a claim ranked before it failed
    assert C._decided(1.0, 1.0, 1.0, 0.0, 0.05) == "INCONCLUSIVE"


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


def test_the_brackets_narrow_to_the_bisections_p_and_always_hold_it():
    rng = np.random.default_rng(0)
    for t in [*THRESHOLDS, *np.exp(rng.uniform(np.log(1e-10), np.log(0.7), 40))]:
        ok = lambda a, t=t: a >= t  # noqa: E731
        brackets = list(C._p_brackets(ok))
        p = brackets[-1][0]
        assert brackets[-1] == (p, p) and p == _bisection(ok) == C._exact(C._p_brackets(ok)), t
        assert len(brackets) == (1 if t <= 1e-9 or t > 0.5 else 31), t  # known at once, or 30 steps and p
        assert all(lo <= p <= hi for lo, hi in brackets), t
        assert all(lo0 <= lo1 < hi1 <= hi0 for (lo0, hi0), (lo1, hi1) in zip(brackets, brackets[1:-1])), t
    # min(1, m p) at both ends: a bracket wholly above 1/m is (1, 1)
    assert list(C._bonferroni(iter([(0.01, 0.02), (0.3, 0.6), (0.4, 0.6)]), 3)) == [
        (0.03, 0.06), (0.8999999999999999, 1.0), (1.0, 1.0)]


def test_the_verdict_from_brackets_is_the_verdict_from_the_p_values_in_fewer_steps():
    # every pair of thresholds (ties among them), one cell or three (CONTRADICTED's p times 3), Holm
    # factors and floors: the verdict decided step by step is the verdict of the exact p-values
    steps = {"lazy": 0, "exact": 0}

    def rule(t, count):
        def ok(a):
            steps[count] += 1
            return a >= t

        return ok

    for t_sup, t_con in itertools.product(THRESHOLDS, THRESHOLDS):
        for cells, (holm_factor, floor) in itertools.product((1, 3), ((1.0, 0.0), (4.0, 0.0), (2.0, 0.04), (1.0, 0.06))):
            p_sup = C._exact(C._p_brackets(rule(t_sup, "exact")))
            p_con = C._exact(C._bonferroni(C._p_brackets(rule(t_con, "exact")), cells))
            for alpha in (0.05, holm_factor * p_sup, holm_factor * p_con, floor):  # and at the adjusted p, the floor
                lazy = C._decided_lazily(C._p_brackets(rule(t_sup, "lazy")),
                                         C._bonferroni(C._p_brackets(rule(t_con, "lazy")), cells), holm_factor, floor, alpha)  # fmt: skip
                assert lazy == C._decided(p_sup, p_con, holm_factor, floor, alpha), (t_sup, t_con, cells, holm_factor, floor, alpha)
    assert steps["lazy"] < steps["exact"] * 4 / 2  # four lazy verdicts per pair of exact p-values


def _tied_claim_p(p):
    """_claim_p as it would be for a claim whose two verdicts tie at ``p`` over five seeds."""

    def claim_p(c, summary, init_grads, factors, cfg, seed, design=None, texts=True):
        return dict(sup=C._known(p), con=C._known(p), n=5, estimate=0.5, ci_lo=0.25, ci_hi=0.75, seeds=list(range(5)),
                    cells=["cell: mean 0.5000"], desc="given", n_cells=1)  # fmt: skip

    return claim_p


def test_a_tie_is_inconclusive_and_the_detail_names_both_verdicts(monkeypatch):
    monkeypatch.setattr(C, "_claim_p", _tied_claim_p(0.001))
    v, row = verdict(claim("at_least", threshold=0.5), study(lambda cell, s: 0.9, seeds=range(5)))
    assert v == "INCONCLUSIVE" and row["p_value"] == 0.001 and row["robustness"] == 1.0
    assert row["detail"].startswith("p = 0.001 for SUPPORTED and CONTRADICTED alike, a tie that decides nothing")
    # a tie at p = 1: neither verdict is reached at any alpha
    monkeypatch.setattr(C, "_claim_p", _tied_claim_p(1.0))
    v, row = verdict(claim("at_least", threshold=0.5), study(lambda cell, s: 0.9, seeds=range(5)))
    assert v == "INCONCLUSIVE" and row["detail"].startswith("p = 1 (the rule decides at no alpha up to 0.5)")


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


def test_a_claim_with_a_one_seed_cell_shows_the_lowest_such_cell():
    # pos_enc=none: seeds 0-2 at 0.8; in each norm cell of pos_enc=sinusoidal only seed 0, at 0.9 and
    # 0.85: the claim rests on one seed there, so a one-seed cell is shown, the lower one
    df = study(lambda cell, s: 0.8 if cell["pos_enc"] == "none" else 0.85 + 0.05 * (cell["norm"] == "post"), seeds=range(3))
    df = df[(df["pos_enc"] == "none") | (df["seed"] == 0)]
    row = verdict(claim("at_least", threshold=0.5, where={"norm": "pre"}), df)[1]
    assert row["n"] == 1 and row["estimate"] == pytest.approx(0.85, abs=1e-12)
    row = verdict(claim("at_least", threshold=0.5, where={"norm": "post"}), df)[1]
    assert row["n"] == 1 and row["estimate"] == pytest.approx(0.9, abs=1e-12)
    row = verdict(claim("at_least", threshold=0.5), df)[1]
    assert row["n"] == 1 and row["estimate"] == pytest.approx(0.85, abs=1e-12)


def test_a_run_left_with_one_numeric_layer_has_no_slope_and_the_detail_says_why():
    df, g = _grad_study()
    spoilt = g.astype({"layer": object})
    run = df["run_id"][0]
    spoilt.loc[(spoilt["run_id"] == run) & (spoilt["layer"] != 0), "layer"] = "n/a"
    assert run not in C._slopes(df, spoilt).index
    row = verdict(GRAD, df, spoilt)[1]
    assert ("; 1 run(s) without a usable slope (< 2 numeric layer indices with a positive, finite norm) left out. "
            in row["detail"])  # fmt: skip


def test_seed_means_over_unequal_numbers_of_cells_keep_their_exact_values():
    # a seed mean of k values on a grid of `step` lies on step / k; seeds averaging 2 and 3 cells
    # share the grid step / 6, and rounding both to step / 3 moved the two-cell mean
    step = 1 / 300
    sub = pd.DataFrame({"seed": [0, 0, 1, 1, 1], "cell": ["a", "b", "a", "b", "c"]})
    values = np.array([0, 1, 1, 1, 1]) * step  # seed 0: mean step / 2; seed 1: mean step
    (units,) = C._cell_units(sub, values, [], "average", step, (0.0, 1.0))
    assert units.values.tolist() == pytest.approx([step / 2, step], abs=1e-15)
    assert units.step == pytest.approx(step / 6)
