"""ablation.intervals: each interval against its definition (scipy, numpy, statsmodels or a hand
computation) at its edges: the binomial intervals, the bootstrap and its fallbacks, the t, skew-corrected t,
Anderson and Tango intervals, and mean_ci's choice among them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats as sps

from ablation import intervals


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
    lo, hi, how = intervals.bootstrap_mean_ci(Y, 0.95, 2, seed=7)
    assert list(how) == ["percentile", "BCa"]
    assert list(lo) == [pct_lo[0], bca_lo[1]] and list(hi) == [pct_hi[0], bca_hi[1]]


def test_bootstrap_t_interval_above_max_n_is_clipped_to_the_bounds():
    near_one, near_zero = [0.99, 1.0, 1.0, 0.98], [0.0, 0.02, 0.0, 0.01]
    t_lo, t_hi = intervals.t_mean_ci([near_one, near_zero], 0.95, bounds=(-np.inf, np.inf))
    assert t_hi[0] > 1 and t_lo[1] < 0  # Student's t leaves [0, 1] on these
    lo, hi, how = intervals.bootstrap_mean_ci([near_one, near_zero], max_n=2)
    assert list(how) == ["t (n > 2)"] * 2
    assert list(lo) == [t_lo[0], 0.0] and list(hi) == [1.0, t_hi[1]]


def test_t_mean_ci_of_empty_single_and_several_values():
    samples = [[], [0.3], [0.2, np.nan, 0.4], [0.1, 0.2, 0.6], []]
    lo, hi = intervals.t_mean_ci(samples)  # 95 % by default
    assert np.isnan(lo[[0, 4]]).all() and np.isnan(hi[[0, 4]]).all() and lo.dtype == float
    assert (lo[1], hi[1]) == (0.3, 0.3)  # one value: [v, v]
    for i, s in ((2, [0.2, 0.4]), (3, [0.1, 0.2, 0.6])):
        half = sps.t.ppf(0.975, len(s) - 1) * np.std(s, ddof=1) / np.sqrt(len(s))
        assert (lo[i], hi[i]) == pytest.approx(tuple(np.clip([np.mean(s) - half, np.mean(s) + half], 0, 1)), rel=1e-12)
    assert (lo[2], hi[2]) == (0.0, 1.0)  # clipped to the bounds
    assert intervals.t_mean_ci([[0.2, 0.4]], bounds=(-1.0, 1.0))[0][0] < 0


@pytest.mark.parametrize("confidence", [0.8, 0.99])
def test_mean_cis_uses_its_confidence_in_every_branch(confidence):
    binary = [[0, 1, 1, 1, 1, 0]]
    lo, hi, how = intervals.mean_cis(binary, confidence)
    assert how[0] == "Clopper-Pearson over seeds"
    assert (lo[0], hi[0]) == tuple(float(v[0]) for v in intervals.clopper_pearson_ci([4], [6], confidence))
    paired = [[1, 0, -1, 1, 1, 0]]
    lo, hi, how = intervals.mean_cis(paired, confidence, (-1.0, 1.0), 1)
    assert how[0] == "Tango score over seeds (paired 0/1)"
    assert (lo[0], hi[0]) == tuple(float(v[0]) for v in intervals.tango_ci([3], [1], 6, confidence))
    spread = [[0.5, 0.6, 0.62, 0.7, 0.9, 0.55]]
    lo, hi, how = intervals.mean_cis(spread, confidence)
    assert how[0] == "skew-corrected t over seeds"
    assert (lo[0], hi[0]) == tuple(float(np.clip(v[0], 0, 1)) for v in intervals.skew_t_ci(spread, confidence))


def test_mean_cis_ties_are_within_half_a_step_of_each_row():
    # step 0.5: a row spanning exactly half a step is all equal; one spanning 0.75 is not
    lo, hi, how = intervals.mean_cis([[0.25, 0.5, 0.5], [0.25, 1.0, 1.0]], step=0.5)
    assert list(how) == ["Anderson bound (seeds all equal)", "skew-corrected t over seeds"]
    # each row's own spread decides: two constant rows at different values are both equal
    lo, hi, how = intervals.mean_cis([[0.25, 0.25, 0.25], [0.75, 0.75, 0.75]])
    assert list(how) == ["Anderson bound (seeds all equal)"] * 2
    a_lo, a_hi = intervals.anderson_ci([[0.25] * 3, [0.75] * 3])
    assert list(lo) == list(a_lo) and list(hi) == list(a_hi)


def test_anderson_ci_with_an_unbounded_side_is_infinite_there():
    # (a slope of initial gradients: both sides unbounded)
    x = [0.1, 0.4, 0.5, 0.9]
    lo, hi = intervals.anderson_ci([x, x], 0.9, (-np.inf, np.inf))
    assert list(lo) == [-np.inf] * 2 and list(hi) == [np.inf] * 2


def test_skew_t_ci_of_constant_rows_is_the_point():
    lo, hi = intervals.skew_t_ci([[0.5, 0.5, 0.5], [0.2, 0.4, 0.9]])
    assert (lo[0], hi[0]) == (0.5, 0.5) and lo[1] < 0.5 < hi[1]


def test_tango_ci_reaches_the_ends_when_every_pair_moves_one_way():
    lo, hi = intervals.tango_ci([5, 0], [0, 5], 5)
    assert hi[0] == 1.0 and lo[1] == -1.0 and 0 < lo[0] < 1 and -1 < hi[1] < 0


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
    lo, hi = intervals.tango_ci([b], [c], n)
    assert T(lo[0]) == pytest.approx(z, abs=1e-6) and T(hi[0]) == pytest.approx(-z, abs=1e-6)


def test_skew_t_ci_of_nearly_symmetric_seeds_is_the_t_interval_shifted_by_a_sixth_of_the_skew():
    # |a| < 1e-9: the closed form's limit g^-1(c) = c - a / 6
    X = np.array([0.1, 0.5, 0.9 + 1e-9])
    mean, sd = X.mean(), X.std(ddof=1)
    a = ((X - mean) ** 3).mean() / sd**3 / np.sqrt(3)
    assert 0 < a < 1e-9
    q, se = sps.t.ppf(0.975, 2), sd / np.sqrt(3)
    lo, hi = intervals.skew_t_ci(X)
    assert lo[0] == pytest.approx(mean - se * (q - a / 6), abs=1e-14)
    assert hi[0] == pytest.approx(mean - se * (-q - a / 6), abs=1e-14)
    assert abs(lo[0] - (mean - se * q)) > 1e-12  # the shift is seen


def test_two_values_get_the_percentile_interval_at_any_confidence():
    # at a low confidence the ends fall inside the resample means' steps (x1, their mean, x2), where a
    # bias-corrected (BCa) level would pick other values
    x = np.array([0.3, 0.7])
    lo, hi, how = intervals.bootstrap_mean_ci([x], 0.51, 999, seed=0)
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
    lo, hi = intervals.anderson_ci(x, 0.9, bounds)
    want_lo, want_hi = _anderson_by_moving_mass(x, 0.9, bounds)
    assert (lo[0], hi[0]) == pytest.approx((want_lo, want_hi), rel=1e-12, abs=1e-12)
    assert np.isinf(lo[0]) == np.isinf(bounds[0]) and np.isinf(hi[0]) == np.isinf(bounds[1])
    # a far finite bound on the unbounded side gives the same finite end, bit for bit
    far = tuple(np.clip(bounds, -1e6, 1e6))
    f_lo, f_hi = intervals.anderson_ci(x, 0.9, far)
    finite_end = (lo[0], f_lo[0]) if np.isfinite(bounds[0]) else (hi[0], f_hi[0])
    assert finite_end[0] == finite_end[1]


def test_tango_ci_at_confidence_one_is_the_whole_range_of_a_difference():
    # a 100 % interval of a paired difference of proportions covers every D in [-1, 1], and no more
    b, c = np.array([0, 3, 1, 7, 0]), np.array([0, 1, 4, 0, 7])
    lo, hi = intervals.tango_ci(b, c, 7, confidence=1.0)
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

    lo, hi = intervals.skew_t_ci(X)
    assert (lo[0], hi[0]) == (mean - se * closed_form(q), mean - se * closed_form(-q))
    assert (lo[0], hi[0]) != (mean - se * (q - a / 6), mean - se * (-q - a / 6))


def test_wilson_matches_hand_computed_value():
    lo, hi = intervals.wilson_ci(8, 10, 0.95)
    # (2np + z^2 ± z sqrt(4np(1-p) + z^2)) / (2(n + z^2)), z = 1.959964, by hand: 0.4902, 0.9433
    assert lo == pytest.approx(0.490165, abs=1e-5)
    assert hi == pytest.approx(0.943321, abs=1e-5)


@pytest.mark.parametrize("n", [1, 5, 10, 300, 3000])
def test_binomial_intervals_equal_scipy_binomtest(n):
    for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
        if k < 0:
            continue
        ref = sps.binomtest(k, n).proportion_ci(0.95, method="wilson")
        lo, hi = intervals.wilson_ci(k, n, 0.95)
        assert (lo, hi) == pytest.approx((ref.low, ref.high), abs=1e-10)
        ref = sps.binomtest(k, n).proportion_ci(0.9, method="exact")
        lo, hi = intervals.clopper_pearson_ci(k, n, 0.9)
        assert (lo, hi) == pytest.approx((ref.low, ref.high), abs=1e-8)


@pytest.mark.parametrize("n, lowest", [(10, 0.86), (40, 0.92)])
def test_bootstrap_ci_covers_true_mean(n, lowest):
    rng = np.random.default_rng(1)
    true_mean = 16 / 20  # Beta(16, 4)
    samples = [rng.beta(16, 4, size=n) for _ in range(600)]
    lo, hi, method = intervals.bootstrap_mean_ci(samples, 0.95, 999, seed=0)
    coverage = np.mean((lo <= true_mean) & (true_mean <= hi))
    assert set(method) == {"BCa"}
    # bootstrap intervals under-cover at small n (measured: ~0.85 at n = 5, ~0.89 at n = 10, ~0.94 at 40)
    assert lowest <= coverage <= 0.99, coverage
    # and it is an interval of the *mean*: its width is about 2 * 1.96 * sd / sqrt(n)
    sem = np.std(samples[0], ddof=1) / np.sqrt(n)
    assert 2.5 * sem < hi[0] - lo[0] < 5.5 * sem


def test_bootstrap_degenerate_and_tiny_samples_never_nan():
    lo, hi, method = intervals.bootstrap_mean_ci([[1.0] * 5, [0.7], [0.6, 0.8], [1, 1, 1, 1, 0.9967], []], 0.95, 999)
    assert (lo[0], hi[0], method[0]) == (1.0, 1.0, "constant")
    assert (lo[1], hi[1], method[1]) == (0.7, 0.7, "single")
    assert method[2] == "percentile" and 0.6 <= lo[2] <= hi[2] <= 0.8
    assert np.isfinite([lo[3], hi[3]]).all() and 0.99 <= lo[3] <= hi[3] <= 1.0
    assert method[4] == "empty" and np.isnan(lo[4])


def test_t_interval_matches_scipy_and_intervals_over_seeds():
    x = np.array([0.91, 0.95, 0.97, 0.99, 1.0])
    lo, hi = intervals.t_mean_ci([x], 0.95)
    ref = sps.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=sps.sem(x))
    assert abs(lo[0] - ref[0]) < 1e-12 and abs(hi[0] - min(ref[1], 1.0)) < 1e-12
    # symmetric seeds: the skewness-corrected interval is Student's t
    sym = np.array([0.80, 0.84, 0.86, 0.88, 0.92])
    ref = sps.t.interval(0.95, 4, loc=sym.mean(), scale=sps.sem(sym))
    assert intervals.mean_ci(sym)[:2] == pytest.approx(ref, abs=1e-12) and intervals.mean_ci(sym)[2] == "skew-corrected t over seeds"
    # seeds piled at the ceiling with a lower tail: the interval moves down, same t quantile on the
    # transformed scale (Hall's g at the two bounds is -q and +q)
    assert intervals.mean_ci(x) == (intervals.skew_t_ci(x)[0][0], 1.0, "skew-corrected t over seeds")  # clipped to the range
    (lo,), (hi,) = intervals.skew_t_ci(x)
    q = sps.t.ppf(0.975, 4)
    skew = ((x - x.mean()) ** 3).mean() / x.std(ddof=1) ** 3
    a = skew / np.sqrt(5)
    for bound, target in ((lo, q), (hi, -q)):
        t = (x.mean() - bound) / sps.sem(x)
        assert t + a * t**2 / 3 + a**2 * t**3 / 27 + a / 6 == pytest.approx(target, rel=1e-9)
    t_lo, t_hi = intervals.t_mean_ci([x], 0.95, bounds=(-np.inf, np.inf))
    assert lo < t_lo[0] and hi < t_hi[0]
    # 0/1 per seed: Clopper-Pearson, as scipy computes it
    cp = sps.binomtest(4, 5).proportion_ci(0.95, method="exact")
    assert intervals.mean_ci([1, 1, 0, 1, 1])[:2] == pytest.approx((cp.low, cp.high), abs=1e-10)
    # equal seeds: Anderson's bound; all at 1.0 over n seeds: lower bound 1 - d_n, the one-sided
    # Kolmogorov-Smirnov critical value at alpha / 2
    lo, hi, how = intervals.mean_ci(np.full(5, 0.99), step=1 / 300)
    d5 = sps.ksone.ppf(0.975, 5)
    assert how == "Anderson bound (seeds all equal)"
    assert (lo, hi) == pytest.approx((0.99 * (1 - d5), 0.99 + 0.01 * d5))
    assert intervals.mean_ci([0.7])[2] == "n < 2" and np.isnan(intervals.mean_ci([0.7])[0])
    # a difference of accuracies lives in [-1, 1]: ten zero differences still leave +-0.41
    lo, hi, _ = intervals.mean_ci(np.zeros(10), bounds=(-1.0, 1.0))
    assert (lo, hi) == pytest.approx((-sps.ksone.ppf(0.975, 10), sps.ksone.ppf(0.975, 10)))


def test_above_bootstrap_max_n_the_t_interval_which_the_bootstrap_agrees_with():
    rng = np.random.default_rng(3)
    small, large = rng.beta(8, 2, 40), rng.beta(8, 2, 1500)  # skewed, bounded, like accuracies
    lo, hi, method = intervals.bootstrap_mean_ci([small, large], 0.95, 9999, 0, max_n=1000)
    assert method[0] == "BCa" and method[1] == "t (n > 1000)"
    tlo, thi = intervals.t_mean_ci([large], 0.95)
    assert (lo[1], hi[1]) == (tlo[0], thi[0])
    # what the t-interval stands in for: the bootstrap of the same 1,500 values
    blo, bhi, bmethod = intervals.bootstrap_mean_ci([large], 0.95, 9999, 0, max_n=None)
    assert bmethod[0] == "BCa"
    width = thi[0] - tlo[0]
    assert abs(blo[0] - tlo[0]) < 0.05 * width and abs(bhi[0] - thi[0]) < 0.05 * width


@pytest.mark.parametrize("n", [5, 10, 30])
def test_tango_interval_inverts_mcnemars_score_test(n):
    from statsmodels.stats.contingency_tables import mcnemar

    # T(0) of Tango's score statistic is McNemar's: 0 lies inside the interval at level 1 - alpha
    # exactly when McNemar's asymptotic test (no continuity correction) does not reject at alpha
    for b in range(n + 1):
        for c in range(n + 1 - b):
            lo, hi = intervals.tango_ci(b, c, n, 0.95)
            assert -1 <= lo <= (b - c) / n <= hi <= 1
            if b + c:
                p = mcnemar([[n - b - c, b], [c, 0]], exact=False, correction=False).pvalue
                assert (lo <= 0 <= hi) == (p >= 0.05), (b, c, p, lo, hi)
            else:  # every pair concordant: +-z^2 / (n + z^2)
                z2 = sps.norm.ppf(0.975) ** 2
                assert (lo, hi) == pytest.approx((-z2 / (n + z2), z2 / (n + z2)), abs=1e-9)
            # mirror symmetry: swapping the discordant counts mirrors the interval
            assert [float(v) for v in intervals.tango_ci(c, b, n, 0.95)] == pytest.approx([-hi, -lo], abs=1e-9)


def test_binomial_intervals_end_exactly_at_zero_and_one():
    # at k = 0 and k = n the Wilson ends are 0 and 1 exactly (the closed form is off by rounding)
    n = np.arange(1, 400)
    for ci in (intervals.wilson_ci, intervals.clopper_pearson_ci):
        assert (ci(np.zeros_like(n), n)[0] == 0.0).all() and (ci(n, n)[1] == 1.0).all()
        assert (ci(n, n)[0] < 1.0).all() and (ci(np.zeros_like(n), n)[1] > 0.0).all()


def test_bootstrap_edges_defaults_and_the_t_interval_above_max_n():
    rng = np.random.default_rng(6)
    three, four = rng.uniform(0.4, 0.6, 3), rng.uniform(-0.6, -0.4, 4)
    # the defaults: 95 %, 9999 resamples, seed 0
    for got, want in zip(intervals.bootstrap_mean_ci([three]), intervals.bootstrap_mean_ci([three], 0.95, 9999, 0)):
        assert list(got) == list(want)
    assert list(intervals.bootstrap_mean_ci([three])[0]) != list(intervals.bootstrap_mean_ci([three], 0.95, 9999, 1)[0])
    assert list(intervals.bootstrap_mean_ci([three], n_resamples=999)[2]) == ["BCa"]  # BCa from 3 values on
    # exactly max_n values: still the bootstrap; above: Student's t at the given confidence, then the bounds
    assert list(intervals.bootstrap_mean_ci([three], max_n=3)[2]) == ["BCa"]
    lo, hi, how = intervals.bootstrap_mean_ci([three, four], 0.9, 999, bounds=(-1.0, 1.0), max_n=2)
    t_lo, t_hi = intervals.t_mean_ci([three], 0.9)
    f_lo, f_hi = intervals.t_mean_ci([four], 0.9, bounds=(-1.0, 1.0))
    assert list(how) == ["t (n > 2)", "t (n > 2)"]
    assert (lo[0], hi[0], lo[1], hi[1]) == pytest.approx((t_lo[0], t_hi[0], f_lo[0], f_hi[0]), abs=1e-15)


@pytest.mark.parametrize("n", [2, 5])
def test_bootstrap_is_scipys_at_the_given_confidence(n):
    x = np.random.default_rng(n).uniform(0.3, 0.7, n)
    lo, hi, how = intervals.bootstrap_mean_ci([x], 0.9, 999, seed=4)
    ref = sps.bootstrap((x,), np.mean, confidence_level=0.9, n_resamples=999, method="BCa" if n >= 3 else "percentile",
                        rng=np.random.default_rng([4, n]))  # fmt: skip
    assert (lo[0], hi[0]) == pytest.approx((ref.confidence_interval.low, ref.confidence_interval.high), rel=1e-12)
    assert how[0] == ("BCa" if n >= 3 else "percentile")


def test_the_direction_share_is_the_exact_interval_of_the_majoritys_share_of_the_seeds_that_move():
    for up, down, confidence in ((5, 2, 0.9), (2, 5, 0.9), (1, 0, 0.95), (3, 3, 0.8)):
        ci = sps.binomtest(max(up, down), up + down).proportion_ci(confidence, method="exact")
        assert intervals.direction_share_ci(up, down, confidence) == pytest.approx((ci.low, ci.high), abs=1e-12)
    ci = sps.binomtest(6, 7).proportion_ci(0.95, method="exact")
    assert intervals.direction_share_ci(6, 1) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert np.isnan(intervals.direction_share_ci(0, 0)).all()
