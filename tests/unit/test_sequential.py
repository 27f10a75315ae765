"""Anytime-valid verdicts (ablation.sequential): the betting capital and the confidence sequences;
and the mean test a claim's seeds are put to (ablation.seedtests.mean_p) on them. The rounds' error
rates are simulated in tests/simulation/test_sequential_rules.py."""

import numpy as np
import pytest

from ablation import seedtests
from ablation import sequential

ALPHA = 0.05


def loop_capital(z, m, alpha):
    """K+ and K- written out step by step from Waudby-Smith & Ramdas' definitions (no cumsum)."""
    mu_sum, dev_sum, s2_prev = 0.0, 0.0, 0.25
    kp, km, best_p, best_m = 1.0, 1.0, 1.0, 1.0
    for t, x in enumerate(z, start=1):
        lam = np.sqrt(2 * np.log(2 / alpha) / (s2_prev * t * np.log(1 + t)))
        kp *= 1 + min(lam, sequential.C_TRUNCATE / m) * (x - m)
        km *= 1 - min(lam, sequential.C_TRUNCATE / (1 - m)) * (x - m)
        best_p, best_m = max(best_p, kp), max(best_m, km)
        mu_sum += x
        dev_sum += (x - (0.5 + mu_sum) / (t + 1)) ** 2
        s2_prev = (0.25 + dev_sum) / (t + 1)
    return np.log(best_p), np.log(best_m)


def test_capital_matches_the_definition():
    rng = np.random.default_rng(1)
    z = rng.beta(2, 3, 25)
    for m in (0.2, 0.4, 0.7):
        up, down = sequential.log_capital(z, m, ALPHA)
        assert (up[-1], down[-1]) == pytest.approx(loop_capital(z, m, ALPHA), rel=1e-10)


def test_evidence_only_accumulates_and_points_the_right_way():
    x = np.r_[np.ones(30)]  # every seed at the top of the range
    above, below = sequential.directional_p(x, 0.5, (0.0, 1.0), ALPHA)
    assert np.all(np.diff(above) <= 0) and above[-1] < ALPHA and below[-1] == 1.0
    ps, pc = seedtests.mean_p(x, x, (0.5, 0.5), (0.0, 1.0), ALPHA)
    assert ps < ALPHA and pc == 1.0
    ps, pc = seedtests.mean_p(1 - x, 1 - x, (0.5, 0.5), (0.0, 1.0), ALPHA)
    assert ps == 1.0 and pc < ALPHA


def test_out_of_range_values_are_refused():
    with pytest.raises(ValueError, match=r"must lie in \[-1, 1\]"):
        seedtests.mean_p(np.array([0.5, 1.5]), np.array([0.5, 1.5]), (0.0, 0.0), (-1.0, 1.0), ALPHA)
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
        sequential.directional_p(np.array([-0.5]), 0.5, (0.0, 1.0), ALPHA)


def test_confidence_sequence_covers_and_shrinks():
    rng = np.random.default_rng(2)
    misses = 0
    for _ in range(200):
        x = rng.beta(6, 4, 40)
        lo, hi = sequential.confidence_sequence(x, (0.0, 1.0), ALPHA, grid=201)
        misses += np.any((lo > 0.6) | (hi < 0.6))
        assert np.all(np.diff(hi - lo) <= 1e-12)  # running intersection
    assert misses / 200 <= ALPHA


def test_a_mean_over_truncations_is_the_mean_of_their_capitals():
    rng = np.random.default_rng(4)
    z, m = rng.beta(2, 2, 20), 0.4
    lam = sequential.plugin_lambda(z, ALPHA)

    def running_max(capital):  # of log K, with K_0 = 1
        return np.maximum(np.maximum.accumulate(np.log(capital)), 0.0)

    for side, sign, room in ((0, 1.0, m), (1, -1.0, 1 - m)):
        capital = {c: np.cumprod(1 + sign * np.minimum(lam, c / room) * (z - m)) for c in (0.5, 0.9)}
        for truncate, want in (((0.5, 0.9), (capital[0.5] + capital[0.9]) / 2), (0.5, capital[0.5]),
                               (None, capital[sequential.C_TRUNCATE])):  # fmt: skip
            got = sequential.log_capital(z, m, ALPHA, truncate)[side]
            np.testing.assert_allclose(got, running_max(want), rtol=1e-10, atol=1e-12)


def test_a_boundary_on_the_ranges_edge_is_passed_once_a_value_leaves_the_edge_and_one_beyond_it_at_once():
    e = sequential.EDGE
    # on the low edge (bound 0 of [0, 1]): a value within EDGE of the edge still sits on it
    above, below = sequential.directional_p(np.array([0.0, e, 2 * e]), 0.0, (0.0, 1.0), ALPHA)
    assert above.tolist() == [1.0, 1.0, 0.0] and below.tolist() == [1.0, 1.0, 1.0]
    above, below = sequential.directional_p(np.array([1.0, 1 - e, 1 - 2 * e]), 1.0, (0.0, 1.0), ALPHA)
    assert above.tolist() == [1.0, 1.0, 1.0] and below.tolist() == [1.0, 1.0, 0.0]
    # beyond the range's high end the mean lies below the bound for certain, every value on the edge or not
    above, below = sequential.directional_p(np.ones(3), 1.5, (0.0, 1.0), ALPHA)
    assert above.tolist() == [1.0] * 3 and below.tolist() == [0.0] * 3
    # seeds run along the last axis: each row is a cell of its own
    above, below = sequential.directional_p(np.array([[1.0, 0.5, 1.0], [1.0, 1.0, 1.0]]), 1.0, (0.0, 1.0), ALPHA)
    assert below.tolist() == [[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]]


def test_seeds_that_all_agree_multiply_the_capital_by_one_plus_c():
    """At a share of 1/2 every agreeing seed multiplies the capital by 1 + C_TRUNCATE: 7 such seeds
    reach alpha / 2 (the factorial's two claims) and 8 reach alpha / 4 (the position study's four)."""
    p = sequential.directional_p(np.ones(9), 0.5, (0.0, 1.0), ALPHA)[0]
    np.testing.assert_allclose(p[3:], (1 + sequential.C_TRUNCATE) ** -np.arange(4.0, 10.0), rtol=1e-12)
    assert p[6] <= ALPHA / 2 and p[7] <= ALPHA / 4


# --------------------------------------------------------------------------- rounds: looks at their ends only


def test_a_round_of_one_seed_each_is_a_look_after_every_seed():
    """Rounds of one seed each are Waudby-Smith & Ramdas' own bets and looks, to the last bit."""
    z = np.random.default_rng(5).beta(2, 3, 15)
    for got, want in zip(sequential.log_capital(z, 0.4, ALPHA, rounds=np.arange(15)), sequential.log_capital(z, 0.4, ALPHA)):
        np.testing.assert_array_equal(got, want)


def test_a_rounds_bets_are_its_first_seeds_and_the_capital_is_read_at_its_end():
    """Rounds 0, 0, 0, 1, 1: the three seeds of the first round bet its first bet, the two of the second
    the plug-in bet after the first round; the capital is 1 until the first round ends and the first
    round's until the second does. Written out from the definitions."""
    z, m = np.array([0.9, 0.2, 0.8, 0.7, 0.95]), 0.4
    rounds = np.array([0, 0, 0, 1, 1])
    first, second = np.sort(z[:3]), np.sort(z[3:])  # each round in one order (sorted): the bits do not depend on it
    t = np.array([1.0, 4.0])  # the rounds' first steps
    s2 = np.array([0.25, (0.25 + sum((x - (0.5 + first[: i + 1].sum()) / (i + 2)) ** 2 for i, x in enumerate(first))) / 4])
    lam = np.minimum(np.sqrt(2 * np.log(2 / ALPHA) / (s2 * t * np.log1p(t))), sequential.C_TRUNCATE / m)
    k1 = np.prod(1 + lam[0] * (first - m))
    k2 = k1 * np.prod(1 + lam[1] * (second - m))
    log_up, _ = sequential.log_capital(z, m, ALPHA, rounds=rounds)
    np.testing.assert_allclose(log_up, np.maximum(0, [0, 0, np.log(k1), np.log(k1), max(np.log(k1), np.log(k2))]), rtol=1e-12)


def test_permuting_seeds_within_a_round_leaves_every_look_bit_for_bit():
    rng = np.random.default_rng(6)
    z = rng.beta(3, 2, (50, 11))
    rounds = np.array([0] * 5 + [1] * 3 + [2] * 3)
    want = sequential.log_capital(z, 0.55, ALPHA, rounds=rounds)
    for _ in range(10):
        order = np.argsort(rng.random(z.shape) + rounds, axis=-1)  # shuffled within each round
        got = sequential.log_capital(np.take_along_axis(z, order, -1), 0.55, ALPHA, rounds=rounds)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g[..., sequential.round_ends(rounds)], w[..., sequential.round_ends(rounds)])


def test_six_seeds_that_meet_then_four_that_fail_give_the_same_p_in_either_order_in_one_round():
    """The order of the seeds within a round does not decide: 6 seeds meeting a share-1/2 claim and 4
    failing it read seed by seed give p = 0.021 in one order and 1 in the other; read as one round
    (a fixed design's one look, or an adaptive design's first round of 10 seeds) both give one p."""
    x = np.array([1.0] * 6 + [0.0] * 4)
    counted = np.ones(10, dtype=bool)
    seed_by_seed = [float(seedtests.share_p_sequential(v, v, counted, 0.5, ALPHA)[0]) for v in (x, x[::-1])]
    assert seed_by_seed == [pytest.approx(0.02125585, rel=1e-6), 1.0]
    one_round = [seedtests.share_p_sequential(v, v, counted, 0.5, ALPHA, np.zeros(10, int)) for v in (x, x[::-1])]
    assert [tuple(map(float, p)) for p in one_round] == [(1.0, 1.0)] * 2


def test_a_boundary_on_the_edge_is_passed_at_the_end_of_the_round_that_leaves_it():
    x = np.array([1.0, 0.9, 1.0, 1.0, 1.0])
    _, below = sequential.directional_p(x, 1.0, (0.0, 1.0), ALPHA, rounds=np.array([0, 0, 0, 1, 1]))
    assert below.tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]  # seen at the first round's end, not at the seed itself
    _, below = sequential.directional_p(x, 1.0, (0.0, 1.0), ALPHA, rounds=np.array([0, 0, 1, 1, 1]))
    assert below.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
