"""ablation.stats at the places its mutation run (benchmarks/mutation.py stats) found untested: each test
states a behaviour by its definition (scipy, numpy or a hand computation), on real inputs, no mocks."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from ablation import stats


def _scipy_bootstrap(Y, n_resamples, seed, method, confidence=0.95):
    """scipy's bootstrap of the row means of Y with the resamples bootstrap_mean_ci draws (rng [seed, n])."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sps.bootstrap((np.asarray(Y, dtype=float),), lambda x, axis=-1: np.mean(x, axis=axis), axis=-1,
                            vectorized=True, n_resamples=n_resamples, method=method, confidence_level=confidence,
                            rng=np.random.default_rng([seed, np.shape(Y)[1]]))  # fmt: skip
    return np.atleast_1d(res.confidence_interval.low), np.atleast_1d(res.confidence_interval.high)


def test_bootstrap_falls_back_to_the_percentile_interval_of_the_same_resamples_where_bca_is_not_finite():
    # two resamples of 3 seeds: the first sample's resample means all lie on one side of its mean, so
    # BCa's bias correction is infinite there (NaN ends); the second sample's BCa interval is finite
    Y = [[0.6, 0.3, 0.8], [0.5, 0.5, 0.8]]
    bca_lo, bca_hi = _scipy_bootstrap(Y, 2, 7, "BCa")
    assert np.isnan([bca_lo[0], bca_hi[0]]).all() and np.isfinite([bca_lo[1], bca_hi[1]]).all()
    pct_lo, pct_hi = _scipy_bootstrap(Y, 2, 7, "percentile")
    lo, hi, how = stats.bootstrap_mean_ci(Y, 0.95, 2, seed=7)
    assert list(how) == ["percentile", "BCa"]
    assert list(lo) == [pct_lo[0], bca_lo[1]] and list(hi) == [pct_hi[0], bca_hi[1]]


def test_bootstrap_t_interval_above_max_n_is_clipped_to_the_bounds():
    near_one, near_zero = [0.99, 1.0, 1.0, 0.98], [0.0, 0.02, 0.0, 0.01]
    t_lo, t_hi = stats.t_mean_ci([near_one, near_zero], 0.95, bounds=(-np.inf, np.inf))
    assert t_hi[0] > 1 and t_lo[1] < 0  # Student's t leaves [0, 1] on these
    lo, hi, how = stats.bootstrap_mean_ci([near_one, near_zero], max_n=2)
    assert list(how) == ["t (n > 2)"] * 2
    assert list(lo) == [t_lo[0], 0.0] and list(hi) == [1.0, t_hi[1]]


def test_t_mean_ci_of_empty_single_and_several_values():
    samples = [[], [0.3], [0.2, np.nan, 0.4], [0.1, 0.2, 0.6], []]
    lo, hi = stats.t_mean_ci(samples)  # 95 % by default
    assert np.isnan(lo[[0, 4]]).all() and np.isnan(hi[[0, 4]]).all() and lo.dtype == float
    assert (lo[1], hi[1]) == (0.3, 0.3)  # one value: [v, v]
    for i, s in ((2, [0.2, 0.4]), (3, [0.1, 0.2, 0.6])):
        half = sps.t.ppf(0.975, len(s) - 1) * np.std(s, ddof=1) / np.sqrt(len(s))
        assert (lo[i], hi[i]) == pytest.approx(tuple(np.clip([np.mean(s) - half, np.mean(s) + half], 0, 1)), rel=1e-12)
    assert (lo[2], hi[2]) == (0.0, 1.0)  # clipped to the bounds
    assert stats.t_mean_ci([[0.2, 0.4]], bounds=(-1.0, 1.0))[0][0] < 0


def test_run_accuracy_takes_the_counts_only_where_test_acc_is_missing():
    df = pd.DataFrame({"test_acc": [0.7, np.nan, np.nan, np.nan, np.nan],
                       "test_correct": [1, 90, 1, np.nan, 5],
                       "test_total": [2, 300, 1, 300, 0]})  # fmt: skip
    acc, imputed = stats.run_accuracy(df)
    # a recorded test_acc stands (even beside counts that disagree); counts fill the missing ones,
    # a single test sequence too; no usable counts: chance
    assert list(acc) == [0.7, 0.3, 1.0, 0.5, 0.5] and list(imputed) == [False, True, True, True, True]


def test_resolution_takes_the_largest_positive_test_set():
    df = pd.DataFrame({"test_total": [1, 1]})
    assert stats.resolution(df) == 1.0
    assert stats.resolution(pd.DataFrame({"test_total": [0, 0]})) == 0.0
    assert stats.resolution(pd.DataFrame({"test_total": [-4, np.nan]})) == 0.0


def _seed_variance_row(summary, factors):
    return stats.seed_variance(summary, factors).iloc[0].to_dict()


def test_seed_variance_rows_when_it_cannot_fit():
    base = "MixedLM (REML): test_acc ~ factors + (1 | seed)"
    one_seed = pd.DataFrame({"seed": [3, 3, 3], "test_acc": [0.6, 0.7, 0.8], "x": ["a", "b", "c"]})
    out = stats.seed_variance(one_seed, ["x"])
    assert list(out.columns) == stats.SEED_VARIANCE_COLUMNS and len(out) == 1
    row = out.iloc[0].to_dict()
    assert (row["n_runs"], row["n_seeds"], row["runs_per_seed"]) == (3, 1, 3.0)
    assert np.isnan([row["var_seed"], row["var_residual"], row["icc"], row["n_eff"]]).all()
    assert row["method"] == base + "; not fitted: fewer than 2 seeds"
    # without a seed column every run has seed 0
    row = _seed_variance_row(one_seed.drop(columns="seed"), [])
    assert (row["n_runs"], row["n_seeds"], row["method"]) == (3, 1, base + "; not fitted: fewer than 2 seeds")
    same = pd.DataFrame({"seed": [0, 0, 1, 1], "test_acc": [0.75] * 4, "x": ["a", "b"] * 2})
    row = _seed_variance_row(same, ["x"])
    assert (row["n_runs"], row["n_seeds"], row["runs_per_seed"]) == (4, 2, 2.0)
    assert row["method"] == base + "; not fitted: every run has the same accuracy"
    assert np.isnan(row["var_seed"]) and np.isnan(row["icc"])
    with pytest.raises(ValueError, match="'seed' is never a factor"):
        stats.seed_variance(same, ["seed"])


def test_seed_variance_of_two_seeds_with_a_factor_is_statsmodels_fit():
    from statsmodels.regression.mixed_linear_model import MixedLM

    rng = np.random.default_rng(5)
    seeds = np.repeat(np.arange(2), 6)
    x = np.tile(["a", "b", "c"], 4)
    acc = 0.6 + 0.1 * (x == "b") + 0.2 * (x == "c") + 0.02 * seeds + rng.normal(0, 0.01, 12)
    df = pd.DataFrame({"seed": seeds, "x": x, "test_acc": acc})
    row = _seed_variance_row(df, ["x"])
    exog = np.column_stack([np.ones(12), x == "b", x == "c"]).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = MixedLM(acc, exog, groups=seeds).fit(reml=True, method="lbfgs")
    var_seed, var_res = float(np.asarray(fit.cov_re)[0, 0]), float(fit.scale)
    assert row["method"] == "MixedLM (REML): test_acc ~ factors + (1 | seed)"
    assert (row["n_runs"], row["n_seeds"], row["runs_per_seed"]) == (12, 2, 6.0)
    assert (row["var_seed"], row["var_residual"]) == pytest.approx((var_seed, var_res), rel=1e-6)
    icc = var_seed / (var_seed + var_res)
    assert row["icc"] == pytest.approx(icc, rel=1e-6) and 0 < icc < 1
    assert row["n_eff"] == pytest.approx(12 / (1 + 5 * icc), rel=1e-6)


def test_interactions_follow_their_definition():
    # 3 x 2 design, 2 seeds; y matters only at x = "c"
    levels = {"x": ["a", "b", "c"], "y": [1, 2], "z": ["p", "q"]}
    rows = []
    for (xv, yv, zv), s in itertools.product(itertools.product(*levels.values()), range(2)):
        rows.append(dict(seed=s, x=xv, y=yv, z=zv, status="ok",
                         test_acc=0.6 + 0.05 * (xv == "b") + 0.2 * (xv == "c") * (yv == 2) + 0.01 * s + 0.03 * (zv == "q")))
    df = pd.DataFrame(rows)
    acc = df["test_acc"].to_numpy()
    ss_total = ((acc - acc.mean()) ** 2).sum()
    table = stats.interactions(df, ["x", "y", "z"])
    assert list(table.columns) == stats.INTERACTION_COLUMNS
    expected = {}
    for fa, fb in itertools.combinations(["x", "y", "z"], 2):
        g = df.groupby([fa, fb])["test_acc"]
        m, n = g.mean(), g.size()
        ma, mb = df.groupby(fa)["test_acc"].mean(), df.groupby(fb)["test_acc"].mean()
        ss = sum(n[k] * (m[k] - ma[k[0]] - mb[k[1]] + acc.mean()) ** 2 for k in m.index)
        spreads = "; ".join(f"{fb}={lev}: {m.xs(lev, level=1).max() - m.xs(lev, level=1).min():.4f}"
                            for lev in sorted(df[fb].unique()))  # fmt: skip
        expected[(fa, fb)] = (ss / ss_total, spreads)
    got = {(r.factor_a, r.factor_b): (r.eta_sq, r.simple_spreads) for r in table.itertuples()}
    assert got.keys() == expected.keys()
    for key, (eta, spreads) in expected.items():
        assert got[key][0] == pytest.approx(eta, rel=1e-9, abs=1e-15) and got[key][1] == spreads, key
    assert list(table["eta_sq"]) == sorted(table["eta_sq"], reverse=True)
    assert (table.iloc[0]["factor_a"], table.iloc[0]["factor_b"]) == ("x", "y") and table.iloc[0]["eta_sq"] > 0.1
    assert got[("x", "y")][1] == "y=1: 0.0500; y=2: 0.2000"
