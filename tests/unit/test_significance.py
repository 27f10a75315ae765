"""ablation.significance: the sign-flip test of the mean seed difference (against scipy, McNemar and its
enumeration), Holm's adjustment (by hand and against statsmodels), the paired effect size and the minimum
detectable effect."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from ablation import significance


def test_sign_flip_ties_are_within_its_tolerance_of_the_observed_sum():
    # two differences a, b: the patterns' |sums| are a + b (observed) and a - b. A pattern counts when
    # its |sum| reaches obs - eps, eps = 1e-9 * max(1, obs) (plus step / 8 when the step is known)
    assert significance.sign_flip_test([0.5, 7.5e-10]) == (0.5, 2, "sign-flip exact")  # a - b = obs - 1.5e-9: beyond eps
    assert significance.sign_flip_test([1.5, 0.6e-9]) == (1.0, 2, "sign-flip exact")  # obs - 1.2e-9, eps = 1.5e-9: a tie
    assert significance.sign_flip_test([0.5, (1e-9 + 0.6e-13) / 2]) == (0.5, 2, "sign-flip exact")  # just beyond, step 0
    assert significance.sign_flip_test([0.5, 4.9999999998e-10]) == (1.0, 2, "sign-flip exact")  # a - b = obs - eps exactly
    # without a step, only differences within 5e-13 of 0 are zeros
    assert significance.sign_flip_test([4e-13, 0.2])[1] == 1 and significance.sign_flip_test([5e-13, 0.2])[1] == 1
    assert significance.sign_flip_test([6e-13, 0.2])[1] == 2


def test_sign_flip_permutation_counts_every_batch_and_the_ties():
    # 1,000 differences of +-1/256 summing to 0: a random sign pattern ties with the observed sum
    # (|sum| >= 0) always; the resamples come in batches of BATCH_ELEMENTS // n rows, each counted
    n, B, seed = 1000, 4999, 2
    d = np.array([1.0, -1.0] * (n // 2)) / 256
    chunk = significance.BATCH_ELEMENTS // n
    assert chunk < B  # several batches
    assert significance.sign_flip_test(d, 1 / 256, B, seed) == (1.0, n, "sign-flip permutation")
    # two more +1/256: |sum| = 2/256; the hits are the patterns whose sum is not 0, batch by batch
    e = np.append(d, [1 / 256, 1 / 256])
    rng = np.random.default_rng([seed, n + 2, 11])
    hits, chunk = 0, significance.BATCH_ELEMENTS // (n + 2)
    for start in range(0, B, chunk):
        b = min(chunk, B - start)
        hits += int((np.abs((rng.integers(0, 2, (b, n + 2)) * 2 - 1) @ e) >= 2 / 256 - 1e-6).sum())
    assert 0 < hits < B
    assert significance.sign_flip_test(e, 1 / 256, B, seed) == ((hits + 1) / (B + 1), n + 2, "sign-flip permutation")


def test_sign_flip_permutation_counts_a_pattern_exactly_at_the_bar():
    # every value a multiple of 2**-56 below 1/8, so every sum is exact in any order; a - b is
    # exactly obs - eps (eps = 1e-9 here), the bar a pattern's |sum| must reach; 8 pairs +-u cancel
    a, b, u = 0.1, 36028797 * 2.0**-56, 2.0**-20
    assert a - b == (a + b) - 1e-9
    d = np.array([a, b] + [u, -u] * 8)
    signs = np.random.default_rng([0, 18, 11]).integers(0, 2, (9999, 18)) * 2 - 1
    hits = int((np.abs(signs @ d) >= (a + b) - 1e-9).sum())
    assert hits > int((np.abs(signs @ d) > (a + b) - 1e-9).sum())  # ties at the bar are drawn
    assert significance.sign_flip_test(d) == ((hits + 1) / 10000, 18, "sign-flip permutation")


@pytest.mark.parametrize("n", [2, 3, 5, 7, 10])
def test_cohen_dz_of_equal_non_zero_values_is_nan_whatever_their_rounding(n):
    for value in (0.1, 0.3, 1 / 3, 0.7):
        assert np.isnan(significance.cohen_dz(np.full(n, value)))


def test_holm_matches_hand_computed_example():
    # sorted 0.005, 0.01, 0.03, 0.04 -> *4, *3, *2, *1 = 0.02, 0.03, 0.06, 0.04 -> running max
    adjusted = significance.holm([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])
    with_nan = significance.holm([np.nan, 0.02, 0.5])  # NaN does not count: m = 2
    assert np.isnan(with_nan[0]) and with_nan[1:] == pytest.approx([0.04, 0.5])
    assert significance.holm([0.6, 0.7]) == pytest.approx([1.0, 1.0])  # capped at 1


def test_min_p_and_mde():
    assert significance.reachable_p(5) == 0.0625 and significance.reachable_p(1) == 1.0 and significance.reachable_p(0) == 1.0
    assert significance.reachable_p(2000) == 0.0 and significance.seeds_to_reach(0.05) == 6 and significance.seeds_to_reach(0.05 / 7) == 9
    # the bound is attained: 5 positive differences
    assert significance.sign_flip_test([0.01, 0.02, 0.03, 0.04, 0.05])[0] == pytest.approx(0.0625)
    # (t_.975,4 + t_.8,4) * sd / sqrt(n) = (2.776445 + 0.940965) * 0.1 / sqrt(5)
    assert significance.mde(0.1, 5, 0.05) == pytest.approx(0.166248, abs=1e-5)
    assert np.isnan(significance.mde(0.1, 1, 0.05))


def test_zeros_do_not_count_and_ties_are_at_the_resolution():
    # 7 zeros and 3 equal gains of 3 test items: only the 3 non-zero differences carry evidence
    d = np.array([0.0] * 7 + [3 / 300] * 3)
    p, n_nonzero, test = significance.sign_flip_test(d, step=1 / 300)
    assert (p, n_nonzero, test) == (0.25, 3, "sign-flip exact")
    # float noise of k / n does not split ties: the same p however the mean was rounded
    noisy = np.array([(k + 3) / 300 - k / 300 for k in range(150, 160)])
    assert len(np.unique(noisy)) > 1
    assert significance.sign_flip_test(noisy, step=1 / 300)[0] == significance.sign_flip_test(np.full(10, 0.01), step=1 / 300)[0]


def test_sign_flip_test_agrees_with_scipy_and_mcnemar():
    from statsmodels.stats.contingency_tables import mcnemar

    rng = np.random.default_rng(0)
    for n in (4, 7, 12):
        d = rng.normal(0.01, 0.1, n)
        ref = sps.permutation_test((d,), lambda x, axis: x.mean(axis=axis), permutation_type="samples",
                                   vectorized=True, n_resamples=np.inf).pvalue  # fmt: skip
        assert significance.sign_flip_test(d)[0] == pytest.approx(ref, rel=1e-9)
    # equal |differences|: the sign test
    d = np.array([0.02, 0.02, -0.02, 0.02, 0.02, 0.02, 0.02])
    assert significance.sign_flip_test(d)[0] == pytest.approx(sps.binomtest(6, 7).pvalue)
    # a 0/1 metric of one cell: differences -1, 0, 1; the exact McNemar test on the discordant pairs
    d = np.array([1, 1, 1, 0, 0, -1, 1, 1, 0, 1, 1.0])
    b, c = int((d > 0).sum()), int((d < 0).sum())
    ref = mcnemar([[3, b], [c, 0]], exact=True).pvalue
    assert significance.sign_flip_test(d, step=1.0)[0] == pytest.approx(ref, rel=1e-12)
    # above EXACT_SIGN_FLIP_MAX_N non-zero differences: random signs, close to the exact value
    d = rng.normal(0.02, 0.1, 40)
    exact = sps.permutation_test((d,), lambda x, axis: x.mean(axis=axis), permutation_type="samples",
                                 vectorized=True, n_resamples=20000, rng=1).pvalue  # fmt: skip
    p, n, test = significance.sign_flip_test(d, n_resamples=20000)
    assert test == "sign-flip permutation" and n == 40 and p == pytest.approx(exact, abs=0.02)


def test_holm_agrees_with_statsmodels():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(4)
    for m in (1, 2, 7, 30):
        p = rng.random(m) ** 3  # many small p-values, some ties after rounding
        p = np.round(p, 3)
        assert significance.holm(p) == pytest.approx(multipletests(p, method="holm")[1], abs=1e-12)


def test_mde_defaults_to_alpha_five_percent_and_power_eighty():
    by_hand = (sps.t.ppf(1 - 0.05 / 2, 4) + sps.t.ppf(0.8, 4)) * 0.1 / np.sqrt(5)
    assert significance.mde(0.1, 5) == pytest.approx(by_hand, rel=1e-12) == significance.mde(0.1, 5, 0.05, 0.8)


def test_sign_flip_test_edges_and_its_permutation_p():
    assert significance.sign_flip_test([0.0, 0.0]) == (1.0, 0, "sign-flip (no non-zero difference)")
    assert significance.sign_flip_test([0.1]) == (1.0, 1, "sign-flip exact")
    rng = np.random.default_rng(12)
    sixteen = rng.normal(0.01, 0.02, 16)
    assert significance.sign_flip_test(sixteen)[2] == "sign-flip exact" and significance.sign_flip_test([*sixteen, 0.03])[2] == "sign-flip permutation"
    # 20 differences: p = (hits + 1) / (B + 1), the hits among B sign patterns drawn from default_rng([seed, n, 11])
    d = rng.normal(0.005, 0.02, 20)
    B = 999
    signs = np.random.default_rng([3, 20, 11]).integers(0, 2, (B, 20)) * 2 - 1
    hits = int((np.abs(signs @ d) >= abs(d.sum()) - 1e-9 * max(1.0, abs(d.sum()))).sum())
    assert 0 < hits < B and significance.sign_flip_test(d, 0.0, B, seed=3) == ((hits + 1) / (B + 1), 20, "sign-flip permutation")
    assert significance.sign_flip_test(np.full(20, 0.01), 0.0, B)[0] == 1 / (B + 1)
