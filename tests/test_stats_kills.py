"""ablation.stats at the places its mutation run (benchmarks/mutation.py stats) found untested: each test
states a behaviour by its definition (scipy, numpy or a hand computation), on real inputs, no mocks."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from ablation import stats, variance


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
    df = pd.DataFrame({"test_acc": [0.7, np.nan, np.nan, np.nan, np.nan, np.nan],
                       "test_correct": [1, 90, 1, np.nan, 5, 3],
                       "test_total": [2, 300, 1, 300, 0, -6]})  # fmt: skip
    acc, imputed = stats.run_accuracy(df)
    # a recorded test_acc stands (even beside counts that disagree); counts fill the missing ones,
    # a single test sequence too; no usable counts (a total that is not positive): chance
    assert list(acc) == [0.7, 0.3, 1.0, 0.5, 0.5, 0.5] and list(imputed) == [False] + [True] * 5


def test_resolution_takes_the_largest_positive_test_set():
    df = pd.DataFrame({"test_total": [1, 1]})
    assert stats.resolution(df) == 1.0
    assert stats.resolution(pd.DataFrame({"test_total": [0, 0]})) == 0.0
    assert stats.resolution(pd.DataFrame({"test_total": [-4, np.nan]})) == 0.0


def _seed_variance_row(summary, factors):
    return variance.seed_variance(summary, factors).iloc[0].to_dict()


def test_seed_variance_rows_when_it_cannot_fit():
    base = "MixedLM (REML): test_acc ~ factors + (1 | seed)"
    one_seed = pd.DataFrame({"seed": [3, 3, 3], "test_acc": [0.6, 0.7, 0.8], "x": ["a", "b", "c"]})
    out = variance.seed_variance(one_seed, ["x"])
    assert list(out.columns) == variance.SEED_VARIANCE_COLUMNS and len(out) == 1
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
    with pytest.raises(ValueError, match=r"^'seed' is never a factor$"):
        variance.seed_variance(same, ["seed"])


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
    table = variance.interactions(df, ["x", "y", "z"])
    assert list(table.columns) == variance.INTERACTION_COLUMNS
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


def _summary(levels: dict, seeds, acc_fn, total=300) -> pd.DataFrame:
    rows = []
    for combo in itertools.product(*levels.values()):
        cell = dict(zip(levels, combo))
        for s in seeds:
            correct = round(acc_fn(cell, s) * total)
            rows.append(dict(seed=s, **cell, status="ok", final_train_acc=1.0, test_correct=correct,
                             test_total=total, test_acc=correct / total, n_test=total // 2))  # fmt: skip
    return pd.DataFrame(rows)


def test_cell_table_rows_in_sorted_order_with_int_counts_and_the_given_confidence():
    rng = np.random.default_rng(3)
    df = _summary({"norm": ["pre", "post"], "heads": [4, 1]}, range(4), lambda c, s: 0.6 + rng.normal(0, 0.05))
    table = stats.cell_table(df, ["norm", "heads"], {"confidence": 0.9, "n_resamples": 99})
    assert list(zip(table["norm"], table["heads"])) == [("post", 1), ("post", 4), ("pre", 1), ("pre", 4)]
    for col in ["n", "n_ok", "n_diverged", "n_imputed", "pooled_correct", "pooled_total"]:
        assert table[col].dtype == np.int64, col
    lo, hi = stats.wilson_ci(table["pooled_correct"], table["pooled_total"], 0.9)
    assert list(table["testset_lo"]) == list(lo) and list(table["testset_hi"]) == list(hi)
    assert (stats.wilson_ci(table["pooled_correct"], table["pooled_total"])[0] < lo).all()  # 95 % is wider
    # without a seed column each run is its own seed
    bare = stats.cell_table(df.drop(columns="seed"), ["norm"], {"n_resamples": 99})
    assert list(bare["n"]) == [8, 8] and bare["ci_method"].str.startswith("skew-corrected t").all()


def test_cell_table_seed_means_within_half_a_test_step_are_ties():
    # norm cells hold two runs (heads 1 and 2) per seed; every seed's mean is 30/300 except seed 0's,
    # (30 + 31) / 600: half a step of 1/300 above, a tie at the resolution, so every seed counts as equal
    def acc(c, s):
        return (31 if (s == 0 and c["heads"] == 2) else 30) / 300

    df = _summary({"norm": ["post", "pre"], "heads": [1, 2]}, range(5), acc)
    row = stats.cell_table(df, ["norm"], {"n_resamples": 99}).iloc[0]
    assert row["ci_method"] == "Anderson bound (seeds all equal)"
    lo, hi = stats.anderson_ci(np.full(5, 0.1))
    assert (row["ci_lo"], row["ci_hi"]) == (lo[0], hi[0])


def test_default_seeds_and_confidence_are_those_documented():
    rng = np.random.default_rng(9)
    df = _summary({"x": ["a", "b", "c"]}, range(5), lambda c, s: 0.6 + 0.05 * (c["x"] == "b") + rng.normal(0, 0.03))
    cfg = {"n_resamples": 199}
    for fn in (stats.main_effects, stats.marginal_means, stats.paired_comparisons, stats.cell_table):
        pd.testing.assert_frame_equal(fn(df, ["x"], cfg), fn(df, ["x"], cfg, seed=0))
    assert not stats.main_effects(df, ["x"], cfg).equals(stats.main_effects(df, ["x"], cfg, seed=1))
    x = rng.uniform(0.5, 0.9, (3, 6))
    for got, want in ((stats.anderson_ci(x), stats.anderson_ci(x, 0.95, (0.0, 1.0))),
                      (stats.mean_cis(x), stats.mean_cis(x, 0.95, (0.0, 1.0), 0.0)),
                      (stats.t_mean_ci(x), stats.t_mean_ci(x, 0.95, (0.0, 1.0))),
                      (stats.skew_t_ci(x), stats.skew_t_ci(x, 0.95)),
                      (stats.tango_ci([1, 3], [2, 0], 6), stats.tango_ci([1, 3], [2, 0], 6, 0.95))):  # fmt: skip
        for g, w in zip(got, want):
            assert list(g) == list(w)
    d = rng.normal(0.01, 0.02, 20)
    assert stats.sign_flip_test(d) == stats.sign_flip_test(d, 0.0, 9999, 0) != stats.sign_flip_test(d, 0.0, 9999, 1)
    assert stats.sign_flip_test(d)[0] * 10000 == pytest.approx(round(stats.sign_flip_test(d)[0] * 10000))


@pytest.mark.parametrize("confidence", [0.8, 0.99])
def test_mean_cis_uses_its_confidence_in_every_branch(confidence):
    binary = [[0, 1, 1, 1, 1, 0]]
    lo, hi, how = stats.mean_cis(binary, confidence)
    assert how[0] == "Clopper-Pearson over seeds"
    assert (lo[0], hi[0]) == tuple(float(v[0]) for v in stats.clopper_pearson_ci([4], [6], confidence))
    paired = [[1, 0, -1, 1, 1, 0]]
    lo, hi, how = stats.mean_cis(paired, confidence, (-1.0, 1.0), 1)
    assert how[0] == "Tango score over seeds (paired 0/1)"
    assert (lo[0], hi[0]) == tuple(float(v[0]) for v in stats.tango_ci([3], [1], 6, confidence))
    spread = [[0.5, 0.6, 0.62, 0.7, 0.9, 0.55]]
    lo, hi, how = stats.mean_cis(spread, confidence)
    assert how[0] == "skew-corrected t over seeds"
    assert (lo[0], hi[0]) == tuple(float(np.clip(v[0], 0, 1)) for v in stats.skew_t_ci(spread, confidence))


def test_mean_cis_ties_are_within_half_a_step_of_each_row():
    # step 0.5: a row spanning exactly half a step is all equal; one spanning 0.75 is not
    lo, hi, how = stats.mean_cis([[0.25, 0.5, 0.5], [0.25, 1.0, 1.0]], step=0.5)
    assert list(how) == ["Anderson bound (seeds all equal)", "skew-corrected t over seeds"]
    # each row's own spread decides: two constant rows at different values are both equal
    lo, hi, how = stats.mean_cis([[0.25, 0.25, 0.25], [0.75, 0.75, 0.75]])
    assert list(how) == ["Anderson bound (seeds all equal)"] * 2
    a_lo, a_hi = stats.anderson_ci([[0.25] * 3, [0.75] * 3])
    assert list(lo) == list(a_lo) and list(hi) == list(a_hi)


def test_anderson_ci_with_an_unbounded_side_is_infinite_there():
    # (a slope of initial gradients: both sides unbounded)
    x = [0.1, 0.4, 0.5, 0.9]
    lo, hi = stats.anderson_ci([x, x], 0.9, (-np.inf, np.inf))
    assert list(lo) == [-np.inf] * 2 and list(hi) == [np.inf] * 2


def test_skew_t_ci_of_constant_rows_is_the_point():
    lo, hi = stats.skew_t_ci([[0.5, 0.5, 0.5], [0.2, 0.4, 0.9]])
    assert (lo[0], hi[0]) == (0.5, 0.5) and lo[1] < 0.5 < hi[1]


def test_tango_ci_reaches_the_ends_when_every_pair_moves_one_way():
    lo, hi = stats.tango_ci([5, 0], [0, 5], 5)
    assert hi[0] == 1.0 and lo[1] == -1.0 and 0 < lo[0] < 1 and -1 < hi[1] < 0


def test_paired_comparisons_of_equal_differences_have_no_mde():
    # every seed gains exactly 32/256 (binary fractions: their mean is exact, their sd exactly 0),
    # so there is no detectable-difference estimate (NaN, not 0)
    df = _summary({"norm": ["post", "pre"]}, range(7), lambda c, s: (150 + s + 32 * (c["norm"] == "pre")) / 256, 256)
    row = stats.paired_comparisons(df, ["norm"], {"n_resamples": 99}).iloc[0]
    assert row["n_seeds"] == 7 and row["note"] == "" and np.isnan(row["mde"])


def test_pairing_refuses_runs_sharing_a_key_whatever_their_values():
    df = _summary({"norm": ["post", "pre"], "heads": [1, 2]}, range(2), lambda c, s: 0.6 + 0.1 * (c["heads"] == 2))
    with pytest.raises(ValueError, match=r"^4 runs at norm='post' share seed"):
        stats.pair_runs(df, "norm", "post", "pre", ["norm"])


def test_sorted_levels_break_numeric_ties_by_text():
    assert stats.sorted_levels(["1.0", "1", "0.5"]) == ["0.5", "1", "1.0"]
    assert stats.sorted_levels(["1", "1.0"]) == ["1", "1.0"]


def test_empty_marginal_means_have_their_columns():
    df = _summary({"x": ["a", "b"]}, range(3), lambda c, s: 0.6)
    assert list(stats.marginal_means(df.iloc[:0], [], {"n_resamples": 99}).columns) == stats.MARGINAL_COLUMNS
    assert list(variance.interactions(df, ["x"]).columns) == variance.INTERACTION_COLUMNS


def test_non_numeric_accuracies_count_as_missing():
    df = pd.DataFrame({"test_acc": ["0.7", "n/a"], "test_correct": [210, "?"], "test_total": [300, 300]})
    acc, imputed = stats.run_accuracy(df)
    assert list(acc) == [0.7, 0.5] and list(imputed) == [False, True]


def test_sign_flip_ties_are_within_its_tolerance_of_the_observed_sum():
    # two differences a, b: the patterns' |sums| are a + b (observed) and a - b. A pattern counts when
    # its |sum| reaches obs - eps, eps = 1e-9 * max(1, obs) (plus step / 8 when the step is known)
    assert stats.sign_flip_test([0.5, 7.5e-10]) == (0.5, 2, "sign-flip exact")  # a - b = obs - 1.5e-9: beyond eps
    assert stats.sign_flip_test([1.5, 0.6e-9]) == (1.0, 2, "sign-flip exact")  # obs - 1.2e-9, eps = 1.5e-9: a tie
    assert stats.sign_flip_test([0.5, (1e-9 + 0.6e-13) / 2]) == (0.5, 2, "sign-flip exact")  # just beyond, step 0
    assert stats.sign_flip_test([0.5, 4.9999999998e-10]) == (1.0, 2, "sign-flip exact")  # a - b = obs - eps exactly
    # without a step, only differences within 5e-13 of 0 are zeros
    assert stats.sign_flip_test([4e-13, 0.2])[1] == 1 and stats.sign_flip_test([5e-13, 0.2])[1] == 1
    assert stats.sign_flip_test([6e-13, 0.2])[1] == 2


def test_sign_flip_permutation_counts_every_batch_and_the_ties():
    # 1,000 differences of +-1/256 summing to 0: a random sign pattern ties with the observed sum
    # (|sum| >= 0) always; the resamples come in batches of _BATCH_ELEMENTS // n rows, each counted
    n, B, seed = 1000, 4999, 2
    d = np.array([1.0, -1.0] * (n // 2)) / 256
    chunk = stats._BATCH_ELEMENTS // n
    assert chunk < B  # several batches
    assert stats.sign_flip_test(d, 1 / 256, B, seed) == (1.0, n, "sign-flip permutation")
    # two more +1/256: |sum| = 2/256; the hits are the patterns whose sum is not 0, batch by batch
    e = np.append(d, [1 / 256, 1 / 256])
    rng = np.random.default_rng([seed, n + 2, 11])
    hits, chunk = 0, stats._BATCH_ELEMENTS // (n + 2)
    for start in range(0, B, chunk):
        b = min(chunk, B - start)
        hits += int((np.abs((rng.integers(0, 2, (b, n + 2)) * 2 - 1) @ e) >= 2 / 256 - 1e-6).sum())
    assert 0 < hits < B
    assert stats.sign_flip_test(e, 1 / 256, B, seed) == ((hits + 1) / (B + 1), n + 2, "sign-flip permutation")


@pytest.mark.parametrize("b, c, n", [(0, 12, 27), (0, 11, 28), (3, 5, 10), (7, 0, 9)])
def test_tango_ends_are_where_the_score_statistic_is_z(b, c, n):
    """Tango (1998): T(D) = (b - c - n D) / sqrt(n (2 q + D (1 - D))), q the restricted MLE
    (sqrt(B^2 - 8 n C) - B) / (4 n), B = -b - c + (2 n - b + c) D, C = -c D (1 - D); the interval's
    ends solve T = z (lower) and T = -z (upper)."""

    def T(d):
        B = -b - c + (2 * n - b + c) * d
        C = -c * d * (1 - d)
        q = (np.sqrt(B * B - 8 * n * C) - B) / (4 * n)
        return (b - c - n * d) / np.sqrt(n * (2 * q + d * (1 - d)))

    z = sps.norm.ppf(0.975)
    lo, hi = stats.tango_ci([b], [c], n)
    assert T(lo[0]) == pytest.approx(z, abs=1e-6) and T(hi[0]) == pytest.approx(-z, abs=1e-6)


def test_skew_t_ci_of_nearly_symmetric_seeds_is_the_t_interval_shifted_by_a_sixth_of_the_skew():
    # |a| < 1e-9: the closed form's limit g^-1(c) = c - a / 6
    X = np.array([0.1, 0.5, 0.9 + 1e-9])
    mean, sd = X.mean(), X.std(ddof=1)
    a = ((X - mean) ** 3).mean() / sd**3 / np.sqrt(3)
    assert 0 < a < 1e-9
    q, se = sps.t.ppf(0.975, 2), sd / np.sqrt(3)
    lo, hi = stats.skew_t_ci(X)
    assert lo[0] == pytest.approx(mean - se * (q - a / 6), abs=1e-14)
    assert hi[0] == pytest.approx(mean - se * (-q - a / 6), abs=1e-14)
    assert abs(lo[0] - (mean - se * q)) > 1e-12  # the shift is seen


def test_interactions_of_equal_size_keep_the_order_of_the_factor_pairs():
    # 6 two-level factors, effects in binary fractions (every mean exact): a x b, c x f and a x e
    # interact; the other 12 pairs have eta_sq exactly 0 and keep their order
    names = list("abcdef")
    rows = []
    for combo in itertools.product([0, 1], repeat=len(names)):
        c = dict(zip(names, combo))
        acc = (128 + 16 * c["a"] * c["b"] + 8 * c["c"] * c["f"] + 4 * c["d"] + 2 * c["a"] * c["e"]) / 256
        rows.append(dict(seed=0, **c, test_acc=acc, status="ok"))
    table = variance.interactions(pd.DataFrame(rows), names)
    pairs = list(zip(table["factor_a"], table["factor_b"]))
    rest = [p for p in itertools.combinations(names, 2) if p not in {("a", "b"), ("c", "f"), ("a", "e")}]
    assert pairs == [("a", "b"), ("c", "f"), ("a", "e"), *rest]
    assert (table["eta_sq"].iloc[3:] == 0.0).all() and (table["eta_sq"].iloc[:3] > 0).all()


def test_marginal_means_of_a_one_level_factor_use_the_test_step():
    # x has one level (one cell); a setting left out of the factors (z) gives each seed two runs, so
    # seed means fall on half steps, which the interval rounds to the test step 1/300
    units = {0: (30, 31), 1: (31, 31), 2: (32, 33), 3: (30, 30), 4: (33, 34)}
    df = pd.DataFrame([dict(seed=s, x="a", z=i, status="ok", test_total=300, test_correct=k, test_acc=k / 300)
                       for s, ks in units.items() for i, k in enumerate(ks)])  # fmt: skip
    row = stats.marginal_means(df, ["x"], {"n_resamples": 99}).iloc[0]
    means = df.groupby("seed")["test_acc"].mean().to_numpy()
    lo, hi, how = stats.mean_ci(stats.quantize(means, 1 / 300), 0.95, (0.0, 1.0), 1 / 300)
    assert (row["ci_lo"], row["ci_hi"], row["ci_method"]) == (lo, hi, how)
    assert (lo, hi) != stats.mean_ci(stats.quantize(means, 1 / 600), 0.95, (0.0, 1.0), 1 / 600)[:2]


def test_accuracies_come_back_as_floats_whatever_the_columns_dtype():
    df = pd.DataFrame({"test_acc": [1, 0, 1], "test_total": [2, 2, 2]})
    acc, _ = stats.run_accuracy(df)
    assert acc.dtype == np.float64 and list(acc) == [1.0, 0.0, 1.0]


def test_seed_variance_names_the_optimizer_that_fitted_and_those_that_failed():
    from pathlib import Path

    summary = pd.read_csv(Path(__file__).parent / "fixtures" / "mixedlm_singular.csv")
    row = _seed_variance_row(summary, ["a", "b", "c", "d"])
    first, second = variance.MIXEDLM_OPTIMIZERS[:2]
    assert row["method"] == f"MixedLM (REML): test_acc ~ factors + (1 | seed); fitted with {second} ({first} failed)"
    assert (row["n_runs"], row["n_seeds"]) == (len(summary), summary["seed"].nunique())


def test_sign_flip_permutation_counts_a_pattern_exactly_at_the_bar():
    # every value a multiple of 2**-56 below 1/8, so every sum is exact in any order; a - b is
    # exactly obs - eps (eps = 1e-9 here), the bar a pattern's |sum| must reach; 8 pairs +-u cancel
    a, b, u = 0.1, 36028797 * 2.0**-56, 2.0**-20
    assert a - b == (a + b) - 1e-9
    d = np.array([a, b] + [u, -u] * 8)
    signs = np.random.default_rng([0, 18, 11]).integers(0, 2, (9999, 18)) * 2 - 1
    hits = int((np.abs(signs @ d) >= (a + b) - 1e-9).sum())
    assert hits > int((np.abs(signs @ d) > (a + b) - 1e-9).sum())  # ties at the bar are drawn
    assert stats.sign_flip_test(d) == ((hits + 1) / 10000, 18, "sign-flip permutation")


def test_seed_variance_when_no_optimizer_fits():
    # two factors with the same levels run for run: the fixed effects are not identifiable
    rng = np.random.default_rng(0)
    x = np.tile(["p", "q"], 8)
    df = pd.DataFrame({"seed": np.repeat(np.arange(4), 4), "x": x, "y": x,
                       "test_acc": 0.6 + 0.1 * (x == "q") + rng.normal(0, 0.02, 16)})  # fmt: skip
    out = variance.seed_variance(df, ["x", "y"])
    assert list(out.columns) == variance.SEED_VARIANCE_COLUMNS
    row = out.iloc[0].to_dict()
    assert row["method"] == ("MixedLM (REML): test_acc ~ factors + (1 | seed); not fitted: no optimizer converged ("
                             + ", ".join(variance.MIXEDLM_OPTIMIZERS) + ")")  # fmt: skip
    assert (row["n_runs"], row["n_seeds"], row["runs_per_seed"]) == (16, 4, 4.0)
    assert np.isnan([row["var_seed"], row["var_residual"], row["icc"], row["n_eff"]]).all()


def test_seed_variance_when_the_factors_explain_every_run():
    # no residual and no seed variance: the icc (0 / 0) and n_eff are NaN, not an error
    x = np.tile(["p", "q"], 8)
    df = pd.DataFrame({"seed": np.repeat(np.arange(4), 4), "x": x, "test_acc": 0.5 + 0.25 * (x == "q")})
    row = _seed_variance_row(df, ["x"])
    assert (row["var_seed"], row["var_residual"]) == (0.0, 0.0) and np.isnan(row["icc"]) and np.isnan(row["n_eff"])
    assert row["method"] == "MixedLM (REML): test_acc ~ factors + (1 | seed)"


def test_paired_comparisons_draw_their_permutations_from_seed_zero_by_default():
    # 20 seeds: the sign-flip test samples sign patterns, so the seed matters
    rng = np.random.default_rng(10)
    df = _summary({"x": ["a", "b"]}, range(20), lambda c, s: 0.6 + 0.01 * (c["x"] == "b") + rng.normal(0, 0.03))
    cfg = {"n_resamples": 199}
    out = stats.paired_comparisons(df, ["x"], cfg)
    assert out["test"].iloc[0] == "sign-flip permutation"
    pd.testing.assert_frame_equal(out, stats.paired_comparisons(df, ["x"], cfg, seed=0))
    assert out["p_value"].iloc[0] != stats.paired_comparisons(df, ["x"], cfg, seed=1)["p_value"].iloc[0]


def test_two_values_get_the_percentile_interval_at_any_confidence():
    # at a low confidence the ends fall inside the resample means' steps (x1, their mean, x2), where a
    # bias-corrected (BCa) level would pick other values
    x = np.array([0.3, 0.7])
    lo, hi, how = stats.bootstrap_mean_ci([x], 0.51, 999, seed=0)
    ref_lo, ref_hi = _scipy_bootstrap([x], 999, 0, "percentile", confidence=0.51)
    assert (lo[0], hi[0], how[0]) == (ref_lo[0], ref_hi[0], "percentile")


def _anderson_by_moving_mass(x, confidence, bounds):
    """Anderson's interval computed as its definition says, without the band integral: the upper end
    is the mean of the sample with its lowest d of mass moved up to the upper bound, the lower end
    the mean with its highest d of mass moved down to the lower bound (d the one-sided KS quantile)."""
    x = np.sort(np.asarray(x, dtype=float))
    n = len(x)
    d = sps.ksone.ppf(0.5 + confidence / 2, n)

    def moved(order, to):
        weights, left = np.full(n, 1 / n), d
        for i in order:
            take = min(weights[i], left)
            weights[i], left = weights[i] - take, left - take
        return (weights @ x + d * to) if np.isfinite(to) else to

    return moved(range(n - 1, -1, -1), bounds[0]), moved(range(n), bounds[1])


@pytest.mark.parametrize("bounds", [(-np.inf, 1.0), (0.0, np.inf), (-np.inf, 0.95), (0.05, np.inf)])
def test_anderson_ci_with_one_unbounded_side_is_finite_at_the_other(bounds):
    # the unbounded side's infinite width carries no weight at the other end (0 there): it must
    # not turn that end into NaN (inf * 0)
    x = [0.1, 0.4, 0.5, 0.9, 0.45, 0.62]
    lo, hi = stats.anderson_ci(x, 0.9, bounds)
    want_lo, want_hi = _anderson_by_moving_mass(x, 0.9, bounds)
    assert (lo[0], hi[0]) == pytest.approx((want_lo, want_hi), rel=1e-12, abs=1e-12)
    assert np.isinf(lo[0]) == np.isinf(bounds[0]) and np.isinf(hi[0]) == np.isinf(bounds[1])
    # a far finite bound on the unbounded side gives the same finite end, bit for bit
    far = tuple(np.clip(bounds, -1e6, 1e6))
    f_lo, f_hi = stats.anderson_ci(x, 0.9, far)
    finite_end = (lo[0], f_lo[0]) if np.isfinite(bounds[0]) else (hi[0], f_hi[0])
    assert finite_end[0] == finite_end[1]


def test_paired_comparisons_of_equal_inexact_differences_have_no_mde_and_no_effect_size():
    # every seed gains exactly 30 of 300 test items (0.1, not a binary fraction): numpy's sd of seven
    # 0.1s can come out a rounding error above 0, yet the differences have no spread at all, so there
    # is no detectable-difference estimate and no d_z (NaN, as for binary fractions)
    df = _summary({"norm": ["post", "pre"]}, range(7), lambda c, s: 0.6 + 0.01 * s + 0.1 * (c["norm"] == "pre"))
    va = df[df["norm"] == "post"]["test_acc"].to_numpy()
    vb = df[df["norm"] == "pre"]["test_acc"].to_numpy()
    d = stats.quantize(vb - va, 1 / 300)
    assert np.ptp(d) == 0 and d[0] == 0.1
    row = stats.paired_comparisons(df, ["norm"], {"n_resamples": 99}).iloc[0]
    assert row["n_seeds"] == 7 and row["note"] == "" and row["mean_diff"] == pytest.approx(0.1)
    assert np.isnan(row["mde"]) and np.isnan(row["effect_size"])


@pytest.mark.parametrize("n", [2, 3, 5, 7, 10])
def test_cohen_dz_of_equal_non_zero_values_is_nan_whatever_their_rounding(n):
    for value in (0.1, 0.3, 1 / 3, 0.7):
        assert np.isnan(stats.cohen_dz(np.full(n, value)))


def test_seed_variance_lists_every_optimizer_that_failed_before_the_one_that_fitted(monkeypatch):
    # on this fixture L-BFGS meets a singular matrix and BFGS does not converge: both are named as
    # failed, in the order tried, before Powell's fit
    from pathlib import Path

    summary = pd.read_csv(Path(__file__).parent / "fixtures" / "mixedlm_singular.csv")
    monkeypatch.setattr(variance, "MIXEDLM_OPTIMIZERS", ("lbfgs", "bfgs", "powell", "nm"))
    row = _seed_variance_row(summary, ["a", "b", "c", "d"])
    assert row["method"] == "MixedLM (REML): test_acc ~ factors + (1 | seed); fitted with powell (lbfgs, bfgs failed)"
    assert 0 <= row["var_seed"] < 1e-9


def test_tango_ci_at_confidence_one_is_the_whole_range_of_a_difference():
    # a 100 % interval of a paired difference of proportions covers every D in [-1, 1], and no more
    b, c = np.array([0, 3, 1, 7, 0]), np.array([0, 1, 4, 0, 7])
    lo, hi = stats.tango_ci(b, c, 7, confidence=1.0)
    assert list(lo) == [-1.0] * 5 and list(hi) == [1.0] * 5


def test_skew_t_ci_at_a_skewness_term_of_exactly_one_billionth_is_the_closed_form_inversion():
    # integers over 2**15 around 0.5: mean 0.5, sd, third moment and hence a = skewness / sqrt(n) are
    # exact, a = -1e-9 to the last bit. Hall's closed-form inverse 3 / a (cbrt(1 + a (c - a / 6)) - 1)
    # holds from |a| = 1e-9 up; only below that does its first-order expansion c - a / 6 stand in
    # (which differs here in the 8th digit)
    k = np.array([288, -287, 288, -289, 8205, -8205, 109, -109, 14, -14, 3, -3, 0, 0, 0, 0])
    X = 0.5 + k / 2**15
    n = len(X)
    mean, sd = X.mean(), X.std(ddof=1)
    a = ((X - mean) ** 3).mean() / sd**3 / np.sqrt(n)
    assert a == -1e-9
    q, se = sps.t.ppf(0.975, n - 1), sd / np.sqrt(n)

    def closed_form(c):
        return 3 / a * (np.cbrt(1 + a * (c - a / 6)) - 1)

    lo, hi = stats.skew_t_ci(X)
    assert (lo[0], hi[0]) == (mean - se * closed_form(q), mean - se * closed_form(-q))
    assert (lo[0], hi[0]) != (mean - se * (q - a / 6), mean - se * (-q - a / 6))


def test_resolution_of_accuracies_over_unequal_test_sets_is_one_over_their_lcm():
    # 181/200 - 2/300 is a multiple of 1/600, not of 1/300: every accuracy stays on the grid
    summary = pd.DataFrame({"test_total": [200, 300, 300], "test_correct": [181, 150, 2]})
    step = stats.resolution(summary, "test_acc")
    assert step == pytest.approx(1 / 600)
    accuracies = np.array([181 / 200, 150 / 300, 2 / 300])
    assert stats.quantize(accuracies, step).tolist() == pytest.approx(accuracies.tolist(), abs=1e-15)
