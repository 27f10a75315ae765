"""The tests a claim's seeds are put to (ablation.seedtests), at their edges: batched cells (leading
axes are independent copies), no seeds, n = 0 or 1 counted seeds, counted flags in any order (ties
among the seeds), p capped at 1, and the Bonferroni over a two-sided band's two sides."""

import numpy as np
import pytest

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
