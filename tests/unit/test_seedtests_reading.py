"""How the tests of ablation.seedtests read a cell's seeds: a fixed design's one look the same for
every order of its seeds, an adaptive design's looks at its round ends (and only there), rounds of
ties, the looks a schedule names, the t-test's p at two seeds and at none, and a cell's shape kept
whatever its seeds."""

import numpy as np
import pytest
from scipy import stats as sps

from ablation import kinds
from ablation import seedtests as T

ALPHA = 0.05
STEP = 1 / 300
BAND = kinds.Condition(-0.02, 0.02, "within 2 pp")
NOT_WORSE = kinds.Condition(-0.02, np.inf, "lost at most 2 pp")
AT_LEAST = kinds.Condition(0.95, np.inf, "at least 95 %")
# 8 paired differences, off the grid: summed in another order their t-statistic differs in its last bits
SEEDS = np.array([0.006596293143085968, 0.0032067911862287283, 0.009937672553746266, 0.006670799264601392,
                  -0.00023250307746388343, 0.009978120833606746, 0.01654207557194136, 0.013260106597862989])  # fmt: skip
ORDER = [3, 7, 5, 4, 0, 1, 2, 6]


def test_the_t_test_reads_two_seeds_and_none_below_two():
    two = np.array([0.01, 0.03])
    above, below = T._t_p(two, 0.0)
    assert float(above) == pytest.approx(sps.ttest_1samp(two, 0.0, alternative="greater").pvalue, rel=1e-12)
    assert float(below) == pytest.approx(sps.ttest_1samp(two, 0.0, alternative="less").pvalue, rel=1e-12)
    above, below = T._t_p(np.zeros((2, 3, 1)), 0.0)  # one seed in each of 2 x 3 cells
    assert above.shape == below.shape == (2, 3) and above.tolist() == below.tolist() == [[1.0] * 3] * 2


@pytest.mark.parametrize("value", [0.0, 0.01, -0.01])
def test_seeds_without_spread_give_the_t_test_no_evidence_either_way(value):
    """On the bound (t = 0/0) or beside it (t infinite): p = 1 both ways, not 0 and not NaN."""
    above, below = T._t_p(np.full((2, 5), value), 0.0)
    assert above.tolist() == below.tolist() == [1.0, 1.0]


def test_a_fixed_designs_t_test_gives_every_order_of_its_seeds_the_same_p_to_the_last_bit():
    # the order matters to scipy's sum in the last bits: the test has something to catch
    assert sps.ttest_1samp(SEEDS, -0.02).pvalue != sps.ttest_1samp(SEEDS[ORDER], -0.02).pvalue
    for band in (NOT_WORSE.band, BAND.band):
        got = T.mean_t_p(SEEDS, SEEDS, band, (-1.0, 1.0), STEP)
        permuted = T.mean_t_p(SEEDS[ORDER], SEEDS[ORDER], band, (-1.0, 1.0), STEP)
        assert [float(v) for v in got] == [float(v) for v in permuted]


def test_an_adaptive_t_test_keeps_the_p_of_a_round_end_where_its_check_held():
    """The first round (8 seeds) shows a clear effect and passes the check; the second round's two
    seeds fail it (Shapiro-Wilk): the p is K x the first look's, computed on that round's seeds."""
    seeds = np.array([0.01, 0.013, 0.007, 0.017, 0.003, 0.01, 0.0133, 0.0067, -0.03, -0.033])
    looks = T.Looks.schedule(8, 2, 14, 10)
    p_sup, p_con, check = T.mean_t_p(seeds, seeds, NOT_WORSE.band, (-1.0, 1.0), STEP, looks)
    assert int(check) == T.SKEWED  # the check at the current look
    first = sps.ttest_1samp(seeds[:8], -0.02, alternative="greater").pvalue
    assert float(p_sup) == pytest.approx(4 * first, rel=1e-12)
    assert float(p_con) == 1.0  # K x a p near 1, capped at 1


def test_a_look_without_seeds_is_too_few_in_the_cells_own_shape():
    empty = np.zeros((2, 3, 0))
    p_sup, p_con, check = T.mean_t_p(empty, empty, BAND.band, (-1.0, 1.0), STEP, T.Looks((), 1))
    assert p_sup.shape == p_con.shape == check.shape == (2, 3)
    assert check.tolist() == [[T.TOO_FEW] * 3] * 2 and p_sup.tolist() == p_con.tolist() == [[1.0] * 3] * 2


def test_a_t_test_of_many_cells_keeps_their_shape():
    cells = np.stack([np.stack([SEEDS, SEEDS + 0.03, SEEDS - 0.03])] * 2)  # 2 x 3 cells of 8 seeds
    p_sup, p_con, check = T.mean_t_p(cells, cells, BAND.band, (-1.0, 1.0), STEP, T.Looks.schedule(6, 2, 10, 8))
    assert p_sup.shape == p_con.shape == check.shape == (2, 3)


def test_contradicted_outside_a_band_is_twice_the_nearer_sides_t_p_and_inside_it_is_1():
    outside = SEEDS + 0.03  # above the band's top
    _, p_con, check = T.mean_t_p(outside, outside, BAND.band, (-1.0, 1.0), STEP)
    above_top = sps.ttest_1samp(outside, 0.02, alternative="greater").pvalue
    assert int(check) == T.HOLDS and 0 < above_top < 0.25
    assert float(p_con) == pytest.approx(2 * above_top, rel=1e-12)
    _, p_con, _ = T.mean_t_p(SEEDS, SEEDS, BAND.band, (-1.0, 1.0), STEP)  # inside: each side's p near 1
    assert float(p_con) == 1.0


def test_an_adaptive_t_test_is_capped_at_1_after_its_bonferroni():
    p_sup, p_con, _ = T.mean_t_p(SEEDS, SEEDS, BAND.band, (-1.0, 1.0), STEP, T.Looks.schedule(8, 2, 20, 8))
    assert float(p_con) == 1.0 and 0 < float(p_sup) < 1.0


def test_a_seed_on_the_metrics_bound_leaves_the_mean_to_the_share_test():
    accuracy = np.array([0.99, 0.9933, 0.9967, 1.0, 0.9867, 0.99, 0.98, 0.9833])  # one seed at 100 %
    assert int(T.normality(accuracy, accuracy, None, STEP)) == T.HOLDS  # normal-looking but for the bound
    assert int(T.mean_t_p(accuracy, accuracy, AT_LEAST.band, (0.0, 1.0), STEP)[2]) == T.ON_BOUND
    mean = T.condition_p(AT_LEAST, "mean", 0.5, accuracy, accuracy, STEP, (0.0, 1.0), False, ALPHA)
    share = T.condition_p(AT_LEAST, "share", 0.5, accuracy, accuracy, STEP, (0.0, 1.0), False, ALPHA)
    assert [float(v) for v in mean] == [float(v) for v in share] == [0.5**8, 1.0]


def test_the_mean_where_the_check_holds_takes_both_ps_from_the_t_test():
    outside = SEEDS + 0.03
    p_sup, p_con = T.condition_p(BAND, "mean", 0.5, outside, outside, STEP, (-1.0, 1.0), False, ALPHA)
    t_sup, t_con, _ = T.mean_t_p(outside, outside, BAND.band, (-1.0, 1.0), STEP)
    share_con = float(T.condition_p(BAND, "share", 0.5, outside, outside, STEP, (-1.0, 1.0), False, ALPHA)[1])
    assert (float(p_sup), float(p_con)) == (float(t_sup), float(t_con)) and float(t_con) != share_con


def test_a_fixed_design_looks_once_whatever_looks_it_is_handed():
    looks = T.Looks.schedule(4, 2, 12, 8)
    plain = T.condition_p(BAND, "mean", 0.5, SEEDS, SEEDS, STEP, (-1.0, 1.0), False, ALPHA)
    handed = T.condition_p(BAND, "mean", 0.5, SEEDS, SEEDS, STEP, (-1.0, 1.0), False, ALPHA, looks=looks)
    assert [float(v) for v in plain] == [float(v) for v in handed]
    adaptive = T.condition_p(BAND, "mean", 0.5, SEEDS, SEEDS, STEP, (-1.0, 1.0), True, ALPHA, looks=looks)
    assert float(adaptive[0]) > float(plain[0])  # the adaptive design pays for its looks


def test_looks_that_name_another_number_of_seeds_are_refused():
    with pytest.raises(ValueError, match="the looks name the rounds of 3 seeds, the cell has 8"):
        T.condition_p(BAND, "share", 0.5, SEEDS, SEEDS, STEP, (-1.0, 1.0), True, ALPHA, looks=T.Looks((0, 0, 0), 1))


MEET_THEN_FAIL = np.r_[np.full(6, 0.9), np.full(4, 0.1)]  # 6 seeds meet "at least 1/2", then 4 do not
HALF = kinds.Condition(0.5, np.inf, "at least 1/2")


@pytest.mark.parametrize("rounds", [(0,) * 6 + (1,) * 4, (0,) * 10])
def test_an_adaptive_share_test_reads_its_seeds_at_the_round_ends_it_is_handed(rounds):
    """Two rounds look after the sixth seed, where every seed so far met the claim; one round looks
    only after the tenth. Neither looks after every seed."""
    looks = T.Looks(rounds, 2)
    got = T.condition_p(HALF, "share", 0.5, MEET_THEN_FAIL, MEET_THEN_FAIL, STEP, (0.0, 1.0), True, ALPHA, looks=looks)
    met = MEET_THEN_FAIL >= 0.5
    want = T.share_p_sequential(met, met, np.ones(10, bool), 0.5, ALPHA, np.asarray(rounds))
    assert [float(v) for v in got] == [float(v) for v in want]
    every_seed = T.share_p_sequential(met, met, np.ones(10, bool), 0.5, ALPHA)
    one_look = T.share_p_sequential(met, met, np.ones(10, bool), 0.5, ALPHA, np.zeros(10, int))
    other = one_look if len(set(rounds)) == 2 else every_seed
    assert float(got[0]) != float(other[0])  # the rounds change the p: the test has something to catch


def test_a_round_of_ties_after_the_counted_seeds_leaves_their_round_end_a_look():
    """Six counted seeds in round 0, four ties in round 1: the p is the six seeds' own, read at their
    round's end, as if the ties were not there."""
    met = np.r_[np.ones(6), np.zeros(4)]
    counted = np.r_[np.ones(6, bool), np.zeros(4, bool)]
    rounds = np.r_[np.zeros(6, int), np.ones(4, int)]
    got = T.share_p_sequential(met, met, counted, 0.5, ALPHA, rounds)
    alone = T.share_p_sequential(met[:6], met[:6], counted[:6], 0.5, ALPHA, rounds[:6])
    assert [float(v) for v in got] == [float(v) for v in alone] and float(got[0]) < 0.05


@pytest.mark.parametrize("band, seeds, which", [
    ((0.5, 0.5), MEET_THEN_FAIL, 0),  # SUPPORTED of "mean > 0.5": the early seeds are high
    ((0.5, 0.5), MEET_THEN_FAIL[::-1], 1),  # CONTRADICTED: the early seeds are low
    ((0.3, 0.7), np.r_[np.full(6, 0.05), np.full(4, 0.6)], 1),  # outside the band, below it early
    ((0.3, 0.7), np.r_[np.full(6, 0.95), np.full(4, 0.4)], 1),  # outside the band, above it early
    ((0.3, 0.7), np.r_[np.full(6, 0.4), np.full(4, 0.95)], 0),  # inside: below the top early, above it late
    ((0.3, 0.7), np.r_[np.full(6, 0.6), np.full(4, 0.05)], 0),  # inside: above the bottom early, below it late
])  # fmt: skip
def test_the_betting_test_of_a_fixed_design_looks_once_after_its_seeds(band, seeds, which):
    one_look = T.mean_p(seeds, seeds, band, (0.0, 1.0), ALPHA, np.zeros(10, int))
    reversed_ = T.mean_p(seeds[::-1], seeds[::-1], band, (0.0, 1.0), ALPHA, np.zeros(10, int))
    assert [float(v) for v in one_look] == [float(v) for v in reversed_]
    every_seed = T.mean_p(seeds, seeds, band, (0.0, 1.0), ALPHA)
    assert float(every_seed[which]) < float(one_look[which])  # a look after every seed would see more


def test_looks_after_every_seed_count_one_look_a_seed_and_at_least_one():
    assert [T.Looks.every_seed(n).count for n in (0, 1, 4)] == [1, 1, 4]
    assert T.Looks.every_seed(3).rounds == (0, 1, 2)


def test_a_schedule_numbers_its_later_rounds_from_one_and_counts_its_looks_by_batch():
    assert T.Looks.schedule(7, 2, 13, 11).rounds == (0,) * 7 + (1, 1, 2, 2)
    assert T.Looks.schedule(7, 2, 13, 5).rounds == (0,) * 5
    assert T.looks_count(8, 1, 10) == 3 and T.looks_count(8, 3, 10) == 2 and T.looks_count(10, 2, 8) == 1


def test_a_cell_without_spread_gets_no_t_evidence_and_its_neighbour_keeps_its_own():
    cells = np.stack([np.full(8, 0.01), SEEDS])
    above, below = T._t_p(cells, -0.02)
    assert above[0] == below[0] == 1.0
    assert above[1] == pytest.approx(sps.ttest_1samp(SEEDS, -0.02, alternative="greater").pvalue, rel=1e-12)


def test_an_adaptive_t_tests_supported_p_is_capped_at_1_after_its_bonferroni():
    below_band = SEEDS - 0.05  # the mean lies well under the band: SUPPORTED's p near 1, times K = 7
    p_sup, p_con, _ = T.mean_t_p(below_band, below_band, BAND.band, (-1.0, 1.0), STEP, T.Looks.schedule(8, 2, 20, 8))
    assert float(p_sup) == 1.0 and 0 < float(p_con) < 1.0
