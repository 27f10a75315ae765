"""The t-test's assumption check (seedtests.normality and its words) at its edges: batches of cells
checked at once, the fewest seeds it checks, a seed within a hair of the range's bound, ties on the
grid spread back over their grid cell, seeds all on one value, and Shapiro-Wilk at three seeds."""

import numpy as np
import pytest

from ablation import seedtests as T
from ablation import sequential

STEP = 1 / 300
NORMALISH = np.array([-0.012, -0.006, -0.003, 0.0, 0.003, 0.007, 0.010, 0.016])  # holds: no tie, no bound
SKEW = np.array([0.0, 0.0033, 0.0067, 0.01, 0.0133, 0.0167, 0.02, 0.30])  # one seed strays far out
PILE = np.zeros(8)  # every seed ties: no spread for the t-test to read


def test_a_batch_of_cells_is_checked_cell_by_cell_in_its_own_shape():
    cells = np.stack([NORMALISH, SKEW, PILE, np.r_[NORMALISH[:-1], 1.0]])
    batch = np.stack([cells, cells[::-1]])  # (2, 4, 8): two samples of four cells
    codes = T.normality(batch, batch, (-1.0, 1.0), STEP)
    assert codes.shape == (2, 4)
    one_by_one = [int(T.normality(c, c, (-1.0, 1.0), STEP)) for c in cells]
    assert one_by_one == [T.HOLDS, T.SKEWED, T.PILED, T.ON_BOUND]
    assert codes.tolist() == [one_by_one, one_by_one[::-1]]


def test_the_fewest_seeds_it_checks_are_checked_and_one_fewer_are_too_few():
    n = T.CHECK_MIN_SEEDS
    assert int(T.normality(NORMALISH[:n], NORMALISH[:n], (-1.0, 1.0), STEP)) != T.TOO_FEW
    assert int(T.normality(NORMALISH[: n - 1], NORMALISH[: n - 1], (-1.0, 1.0), STEP)) == T.TOO_FEW
    assert T.normality(np.zeros((3, n - 1)), np.zeros((3, n - 1)), None, STEP).tolist() == [T.TOO_FEW] * 3


@pytest.mark.parametrize("bound", [-1.0, 1.0])
def test_a_seed_within_a_hair_of_either_bound_is_on_it_and_one_just_inside_is_not(bound):
    bounds, hair = (-1.0, 1.0), sequential.EDGE * 2  # the range is 2 wide: the edge is EDGE x 2
    inward = -np.sign(bound)
    at = np.r_[NORMALISH[:-1], bound + inward * hair * 0.9]
    inside = np.r_[NORMALISH[:-1], bound + inward * hair * 1.1]
    assert int(T.normality(at, at, bounds, STEP)) == T.ON_BOUND
    assert int(T.normality(inside, inside, bounds, STEP)) != T.ON_BOUND
    words = T.normality_words(at, at, bounds, STEP, paired=True)
    assert words.endswith(f"fails: 1 of 8 seeds on the range's bound ({bound:g})"), words
    assert "on the range's bound" not in T.normality_words(inside, inside, bounds, STEP, paired=True)


def test_a_range_that_does_not_start_at_zero_sets_its_own_edge():
    # bounds (0.5, 1): a seed at 0.5 + 0.4 x the edge is on the bound only if the edge is EDGE x 0.5
    bounds = (0.5, 1.0)
    seeds = np.r_[0.7 + NORMALISH[:-1], 0.5 + sequential.EDGE * 0.5 * 0.9]
    assert int(T.normality(seeds, seeds, bounds, STEP)) == T.ON_BOUND
    seeds[-1] = 0.5 + sequential.EDGE * 0.5 * 1.5
    assert int(T.normality(seeds, seeds, bounds, STEP)) != T.ON_BOUND


def test_without_bounds_no_seed_is_on_a_bound():
    seeds = np.r_[NORMALISH[:-1], 1.0]
    assert int(T.normality(seeds, seeds, None, STEP)) != T.ON_BOUND


def test_a_diverged_seed_is_unknown_and_named_in_words():
    lo, hi = NORMALISH.copy(), NORMALISH.copy()
    hi[2] = 0.5
    assert int(T.normality(lo, hi, (-1.0, 1.0), STEP)) == T.UNKNOWN
    assert T.normality_words(lo, hi, (-1.0, 1.0), STEP, paired=True).endswith("fails: 1 of 8 seeds have a diverged run (value unknown)")


def test_seeds_all_within_half_a_grid_step_pile_and_a_paired_pile_at_zero_is_said_as_a_tie():
    near = np.array([0.0, STEP * 0.2, 0.0, -STEP * 0.2, 0.0, STEP * 0.1, 0.0, 0.0])
    assert int(T.normality(near, near, (-1.0, 1.0), STEP)) == T.PILED
    assert T.normality_words(near, near, (-1.0, 1.0), STEP, paired=True).endswith("fails: all 8 seeds tie (difference 0)")
    apart = np.r_[np.zeros(7), STEP * 0.51]  # one seed over half a step away: a spread, not a pile
    assert int(T.normality(apart, apart, (-1.0, 1.0), STEP)) != T.PILED
    off_zero = PILE + 0.55 * STEP  # piled on a value over half a step from 0: a shared value, not a tie
    words = T.normality_words(off_zero, off_zero, (-1.0, 1.0), STEP, paired=True)
    assert words.endswith(f"all 8 seeds share one value ({0.55 * STEP:.4g})"), words
    assert "share one value" in T.normality_words(PILE, PILE, (-1.0, 1.0), STEP, paired=False)  # not a difference


def test_ties_on_the_grid_spread_evenly_over_their_grid_cell_in_any_order():
    seeds = np.array([5, 0, 1, 0, 2, 1, 0, 5]) / 300
    spread = T.spread_on_grid(seeds, STEP) * 300
    np.testing.assert_allclose(spread, [-1 / 3, 0, 1 / 3, 0.75, 1.25, 2, 4.75, 5.25], atol=1e-9)
    batch = np.stack([seeds, seeds[::-1], np.arange(8) / 300])
    np.testing.assert_allclose(T.spread_on_grid(batch, STEP)[:2], [spread / 300] * 2, atol=1e-12)
    np.testing.assert_allclose(T.spread_on_grid(batch, STEP)[2], np.arange(8) / 300)  # no ties: as they are
    np.testing.assert_allclose(T.spread_on_grid(seeds, 0.0), np.sort(seeds))  # no grid: as they are
    assert float(np.mean(T.spread_on_grid(seeds, STEP))) == pytest.approx(float(np.mean(seeds)), abs=1e-15)


def test_seeds_on_the_grid_that_shapiro_wilk_rejects_only_for_their_ties_pass_once_spread():
    grid = np.array([-7, -6, -5, -4, -4, -4, -3, -3, -3, -3, -3, -3, -2]) / 300  # a reference cell of C4-seq-len
    assert T._shapiro_p(grid) < T.SHAPIRO_LEVEL  # rounding alone makes Shapiro-Wilk reject
    assert int(T.normality(grid, grid, (-1.0, 1.0), STEP)) == T.HOLDS


def test_shapiro_wilk_runs_from_three_seeds_and_reads_equal_seeds_as_no_evidence():
    p3 = T._shapiro_p(np.array([[0.0, 0.001, 0.1], [0.0, 0.05, 0.1]]))
    assert p3.shape == (2,) and p3[0] < 0.2 < p3[1] <= 1.0
    assert T._shapiro_p(np.zeros((2, 2))).tolist() == [1.0, 1.0]
    assert T._shapiro_p(np.zeros((3, 6))).tolist() == [1.0, 1.0, 1.0]  # a range of zero: p = 1, exactly
    assert int(T.normality(SKEW, SKEW, (-1.0, 1.0), STEP)) == T.SKEWED
    words = T.normality_words(SKEW, SKEW, (-1.0, 1.0), STEP, paired=True)
    assert words.startswith("normality checked on the 8 seeds: fails: Shapiro-Wilk rejects normality at the check's level 0.2 (p = ")


def test_a_spread_of_exactly_half_a_grid_step_is_no_pile():
    seeds = np.r_[np.zeros(7), STEP / 2]
    assert int(T.normality(seeds, seeds, (-1.0, 1.0), STEP)) != T.PILED


@pytest.mark.parametrize("bound", [-1.0, 1.0])
def test_a_seed_exactly_one_edge_from_the_bound_is_on_it(bound):
    bounds, edge = (-1.0, 1.0), sequential.EDGE * 2
    at = np.r_[NORMALISH[:-1], bound + edge if bound < 0 else bound - edge]
    assert int(T.normality(at, at, bounds, STEP)) == T.ON_BOUND
    assert T.normality_words(at, at, bounds, STEP, paired=True).endswith(f"fails: 1 of 8 seeds on the range's bound ({bound:g})")


def test_a_diverged_seed_marks_its_own_cell_unknown_and_no_other():
    lo, hi = np.stack([NORMALISH, NORMALISH]), np.stack([NORMALISH, NORMALISH])
    hi[1, 2] = 0.5
    assert T.normality(lo, hi, (-1.0, 1.0), STEP).tolist() == [T.HOLDS, T.UNKNOWN]


def test_cells_on_two_leading_axes_keep_their_shape_with_and_without_bounds():
    cells = np.stack([np.stack([NORMALISH, SKEW, PILE])] * 2)  # (2, 3, 8)
    for bounds in (None, (-1.0, 1.0)):
        assert T.normality(cells, cells, bounds, STEP).tolist() == [[T.HOLDS, T.SKEWED, T.PILED]] * 2
    assert T._shapiro_p(np.zeros((2, 3, 2))).shape == (2, 3)  # too few for Shapiro-Wilk: p = 1 per cell
