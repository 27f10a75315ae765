"""The tests a claim's seeds are put to (ablation.seedtests), at their edges: batched cells (leading
axes are independent copies), no seeds, n = 0 or 1 counted seeds, counted flags in any order (ties
among the seeds), p capped at 1, and the Bonferroni over a two-sided band's two sides; the mean's
t-test against statsmodels' TOST, each rule of its assumption check and the fallback it names, and
its Bonferroni over an adaptive design's looks."""

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.weightstats import ttost_paired

from ablation import kinds
from ablation import seedtests
from ablation import sequential

ALPHA = 0.05
ONE_BET = 1 / (1 + sequential.C_TRUNCATE)  # p after one seed that agrees, at a share (or boundary) of 1/2


@pytest.mark.parametrize("sequential_rule", [False, True])
def test_a_batch_of_cells_gets_each_cells_own_p(sequential_rule):
    """Cells stacked on a leading axis are judged one by one: a cell's p does not read its
    neighbours' seeds (their sure, possible or counted seeds)."""
    condition = kinds.Condition(0.5, np.inf, "at least 1/2")
    cells = np.array([[0.9] * 8, [0.1] * 8, [0.9, 0.1] * 4])  # every seed meets it, none does, half do
    batched = seedtests.condition_p(condition, "share", 0.5, cells, cells, 0.01, (0.0, 1.0), sequential_rule, ALPHA)
    one_by_one = [seedtests.condition_p(condition, "share", 0.5, c, c, 0.01, (0.0, 1.0), sequential_rule, ALPHA)
                  for c in cells]  # fmt: skip
    for got, want in zip(batched, zip(*one_by_one)):
        assert got.shape == (3,)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert batched[0][0] < ALPHA and batched[1][1] < ALPHA  # each cell reaches its own verdict


def test_no_seeds_give_p_1_both_ways_in_the_shape_of_the_cells():
    empty, cells = np.zeros(0), np.zeros((2, 3, 0))
    for test in (lambda x: seedtests.mean_p(x, x, (0.5, 0.5), (0.0, 1.0), ALPHA),
                 lambda x: seedtests.mean_p(x, x, (0.3, 0.7), (0.0, 1.0), ALPHA),
                 lambda x: seedtests.share_p_sequential(x, x, x.astype(bool), 0.5, ALPHA)):  # fmt: skip
        for x, shape in ((empty, ()), (cells, (2, 3))):
            p_sup, p_con = test(x)
            assert p_sup.shape == shape and p_con.shape == shape
            assert np.all(p_sup == 1.0) and np.all(p_con == 1.0)


def test_one_seed_of_the_exact_test_gives_the_binomial_tail_of_one_draw():
    """n = 1: p_sup is the chance that one draw meets the condition (the share), p_con that it does not."""
    assert tuple(map(float, seedtests.share_p(1, 1, 1, 0.3))) == pytest.approx((0.3, 1.0))
    assert tuple(map(float, seedtests.share_p(0, 0, 1, 0.3))) == pytest.approx((1.0, 0.7))


def test_one_counted_seed_moves_the_e_process_by_one_bet():
    """n = 1: the capital after the one counted seed, whether it is the only seed or ties follow it."""
    for outcome, want in ((1.0, (ONE_BET, 1.0)), (0.0, (1.0, ONE_BET))):
        x = np.array([outcome])
        assert tuple(map(float, seedtests.share_p_sequential(x, x, [True], 0.5, ALPHA))) == pytest.approx(want)
        x = np.full(3, outcome)  # the ties' outcomes are skipped
        got = seedtests.share_p_sequential(x, x, [False, True, False], 0.5, ALPHA)
        assert tuple(map(float, got)) == pytest.approx(want)


def test_seeds_that_are_all_ties_give_p_1_both_ways_whatever_their_outcomes():
    """n = 0 counted seeds: nothing to bet on, the same as no seeds (a row of a batch too)."""
    ones, zeros = np.ones(5), np.zeros(5)
    none_counted = np.zeros(5, bool)
    for x in (ones, zeros):
        p_sup, p_con = seedtests.share_p_sequential(x, x, none_counted, 0.5, ALPHA)
        assert (float(p_sup), float(p_con)) == (1.0, 1.0)
    x = np.stack([ones, zeros, ones])
    counted = np.stack([none_counted, none_counted, ~none_counted])
    p_sup, p_con = seedtests.share_p_sequential(x, x, counted, 0.5, ALPHA)
    assert p_sup.dtype == float and p_con.dtype == float
    np.testing.assert_array_equal(p_sup[:2], 1.0)
    np.testing.assert_array_equal(p_con, 1.0)
    assert p_sup[2] < ALPHA


def test_ties_anywhere_among_the_seeds_leave_the_counted_seeds_p_in_their_order():
    """Counted flags in any order (many seeds, ties scattered among them): the p is the e-process on
    the counted seeds alone, kept in their seed order."""
    rng = np.random.default_rng(7)
    outcome = (rng.random((60, 40)) < 0.6).astype(float)
    counted = rng.random((60, 40)) < 0.7
    sure, possible = outcome * counted, np.maximum(outcome, ~counted)  # a tie's outcome is never read
    p_sup, p_con = seedtests.share_p_sequential(sure, possible, counted, 0.5, ALPHA)
    for row in range(len(outcome)):
        kept = outcome[row][counted[row]]
        want = seedtests.share_p_sequential(kept, kept, np.ones(len(kept), bool), 0.5, ALPHA)
        assert (p_sup[row], p_con[row]) == pytest.approx(tuple(map(float, want)), rel=1e-12)


def test_counted_flags_may_be_zeros_and_ones():
    """``counted`` is read as truth values: 0/1 numbers count as False/True."""
    x = np.array([1.0, 0.0, 1.0, 1.0])
    flags = np.array([1.0, 0.0, 1.0, 1.0])
    want = seedtests.share_p_sequential(x, x, flags.astype(bool), 0.5, ALPHA)
    got = seedtests.share_p_sequential(x, x, flags, 0.5, ALPHA)
    assert tuple(map(float, got)) == tuple(map(float, want))


def test_contradicted_of_a_two_sided_band_is_p_capped_at_1():
    """Seeds in the middle of the band: neither side has evidence, p_con is 1 (not 2 x 1)."""
    x = np.full(6, 0.5)
    p_sup, p_con = seedtests.mean_p(x, x, (0.3, 0.7), (0.0, 1.0), ALPHA)
    assert float(p_con) == 1.0


def test_contradicted_of_a_two_sided_band_is_bonferroni_over_its_two_sides():
    """Seeds above the band: p_con is twice the one-sided p of "mean > band's top"."""
    x = np.full(6, 0.95)
    _, p_con = seedtests.mean_p(x, x, (0.3, 0.7), (0.0, 1.0), ALPHA)
    above_top, _ = seedtests.mean_p(x, x, (0.7, 0.7), (0.0, 1.0), ALPHA)
    assert 0 < float(above_top) < 0.5
    assert float(p_con) == pytest.approx(2 * float(above_top), rel=1e-12)


# --------------------------------------------------------------------------- the mean's t-test and its check

STEP = 1 / 300
BAND = kinds.Condition(-0.02, 0.02, "within 2 pp")
NOT_WORSE = kinds.Condition(-0.02, np.inf, "lost at most 2 pp")
P4 = np.array([-6.33, -8.0, -4.67, -7.67, -7.67, -7.67, -7.0, -8.0]) / 100  # the worse seeds of a claim's cell
NORMAL = np.array([-1.0, -0.33, 0.67, 0.0, 1.33, -1.67, 0.33, 1.0, -0.67]) / 100  # 9 seeds that pass the check


def test_the_t_test_of_a_band_is_statsmodels_tost_and_of_a_bound_its_one_sided_test():
    """SUPPORTED of a band: two one-sided paired t-tests, the larger p (``ttost_paired`` of the two
    levels); CONTRADICTED: the other two one-sided tests, Bonferroni over the two sides. A bound
    (not_worse): the one-sided test each way."""
    base = np.full(9, 0.9)
    p_sup, p_con, check = seedtests.mean_t_p(NORMAL, NORMAL, BAND.band, (-1.0, 1.0), STEP)
    assert int(check) == seedtests.HOLDS
    assert float(p_sup) == pytest.approx(ttost_paired(base + NORMAL, base, -0.02, 0.02)[0], rel=1e-9)
    below = sps.ttest_1samp(NORMAL, -0.02, alternative="less").pvalue
    above = sps.ttest_1samp(NORMAL, 0.02, alternative="greater").pvalue
    assert float(p_con) == pytest.approx(min(1.0, 2 * min(below, above)), rel=1e-12)
    p_sup, p_con, _ = seedtests.mean_t_p(NORMAL, NORMAL, NOT_WORSE.band, (-1.0, 1.0), STEP)
    assert float(p_sup) == pytest.approx(sps.ttest_1samp(NORMAL, -0.02, alternative="greater").pvalue, rel=1e-12)
    assert float(p_con) == pytest.approx(below, rel=1e-12)


@pytest.mark.parametrize("x, code, words", [
    (NORMAL, seedtests.HOLDS, "normality checked on the 9 seeds: holds"),
    (NORMAL[:7], seedtests.TOO_FEW, "normality checked on the 7 seeds: fails: 7 seeds are too few to check it (it needs 8)"),
    (np.r_[NORMAL[:6], 1.0, -1.0], seedtests.ON_BOUND,
     "normality checked on the 8 seeds: fails: 1 of 8 seeds on the range's bound (1) and 1 of 8 seeds on the range's bound (-1)"),
    (np.zeros(8), seedtests.PILED, "normality checked on the 8 seeds: fails: all 8 seeds tie (difference 0)"),
    (np.full(8, 0.01), seedtests.PILED, "normality checked on the 8 seeds: fails: all 8 seeds share one value (0.01)"),
    (P4, seedtests.SKEWED,
     "normality checked on the 8 seeds: fails: Shapiro-Wilk rejects normality at the check's level 0.2 (p = 0.032, ties spread over their grid cell)"),
])  # fmt: skip
def test_the_check_names_the_first_rule_the_seeds_fail(x, code, words):
    assert int(seedtests.normality(x, x, (-1.0, 1.0), STEP)) == code
    assert seedtests.normality_words(x, x, (-1.0, 1.0), STEP, paired=True) == words


def test_a_seed_with_a_diverged_run_fails_the_check_and_leaves_the_cell_to_the_share_test():
    lo, hi = NORMAL.copy(), NORMAL.copy()
    lo[2], hi[2] = -0.5, 0.5  # its value lies anywhere in [-0.5, 0.5]
    assert int(seedtests.normality(lo, hi, (-1.0, 1.0), STEP)) == seedtests.UNKNOWN
    assert seedtests.normality_words(lo, hi, (-1.0, 1.0), STEP, True).endswith("fails: 1 of 9 seeds have a diverged run (value unknown)")
    got = seedtests.condition_p(BAND, "mean", 0.5, lo, hi, STEP, (-1.0, 1.0), False, ALPHA)
    assert tuple(map(float, got)) == tuple(map(float, seedtests.condition_p(BAND, "share", 0.5, lo, hi, STEP, (-1.0, 1.0), False, ALPHA)))


def test_the_mean_takes_the_t_test_where_the_check_holds_the_share_test_where_it_fails_and_betting_when_asked():
    cells = np.stack([NORMAL, np.r_[NORMAL[:8], -0.15]])  # the second's outlying seed fails Shapiro-Wilk
    assert seedtests.normality(cells, cells, (-1.0, 1.0), STEP).tolist() == [seedtests.HOLDS, seedtests.SKEWED]
    p_sup, p_con = seedtests.condition_p(BAND, "mean", 0.5, cells, cells, STEP, (-1.0, 1.0), False, ALPHA)
    t_sup, t_con, _ = seedtests.mean_t_p(NORMAL, NORMAL, BAND.band, (-1.0, 1.0), STEP)
    share_sup, share_con = seedtests.condition_p(BAND, "share", 0.5, cells[1], cells[1], STEP, (-1.0, 1.0), False, ALPHA)
    assert (p_sup[0], p_con[0]) == (float(t_sup), float(t_con)) and (p_sup[1], p_con[1]) == (float(share_sup), float(share_con))
    betting = seedtests.condition_p(BAND, "mean", 0.5, cells, cells, STEP, (-1.0, 1.0), False, ALPHA, "betting")
    want = seedtests.mean_p(cells, cells, BAND.band, (-1.0, 1.0), ALPHA, np.zeros(9, int))  # a fixed design: one look
    for got, w in zip(betting, want):
        np.testing.assert_array_equal(got, w)


def test_an_adaptive_t_test_pays_bonferroni_over_every_look_its_design_can_take():
    """8 seeds, then 2 a round to 14: K = 4 looks. On 10 seeds (rounds ending at 8 and 10) the p is 4 x
    the smaller of the two looks' p, each where the check held; a look too few to check gives none."""
    seeds = np.r_[NORMAL, 0.0033]
    looks = seedtests.Looks.schedule(8, 2, 14, 10)
    assert looks == seedtests.Looks((0,) * 8 + (1, 1), 4) and looks.ends == [8, 10]
    assert seedtests.looks_count(7, 2, 13) == 4 and seedtests.looks_count(10, 5, 10) == 1 and seedtests.looks_count(8, 1, 9) == 2
    p_sup, _, check = seedtests.mean_t_p(seeds, seeds, NOT_WORSE.band, (-1.0, 1.0), STEP, looks)
    at = [sps.ttest_1samp(seeds[:n], -0.02, alternative="greater").pvalue for n in (8, 10)]
    assert int(check) == seedtests.HOLDS and float(p_sup) == pytest.approx(min(1.0, 4 * min(at)), rel=1e-12)
    # rounds ending at 7 and 9: the first look is too few to check and gives no p, the second does
    looks = seedtests.Looks.schedule(7, 2, 13, 9)
    assert looks == seedtests.Looks((0,) * 7 + (1, 1), 4) and looks.ends == [7, 9]
    assert int(seedtests.normality(NORMAL[:7], NORMAL[:7], (-1.0, 1.0), STEP)) == seedtests.TOO_FEW
    p_sup, _, check = seedtests.mean_t_p(NORMAL, NORMAL, NOT_WORSE.band, (-1.0, 1.0), STEP, looks)
    assert int(check) == seedtests.HOLDS
    assert float(p_sup) == pytest.approx(min(1.0, 4 * sps.ttest_1samp(NORMAL, -0.02, alternative="greater").pvalue), rel=1e-12)
