"""Anytime-valid verdicts (ablation.sequential): the betting capital, confidence sequences, and the
simulation the adaptive studies rest on: under each claim kind's boundary null, with the adaptive
round schedule, the adaptive procedure's rate of a wrong SUPPORTED and of a wrong CONTRADICTED each
stay within alpha (each verdict is a one-sided test of its own), while re-testing a fixed-n
interval after every round exceeds the alpha that interval is built for."""

import numpy as np
import pytest

from ablation import sequential as Q

ALPHA = 0.05


def loop_capital(z, m, alpha):
    """K+ and K- written out step by step from Waudby-Smith & Ramdas' definitions (no cumsum)."""
    mu_sum, dev_sum, s2_prev = 0.0, 0.0, 0.25
    kp, km, best_p, best_m = 1.0, 1.0, 1.0, 1.0
    for t, x in enumerate(z, start=1):
        lam = np.sqrt(2 * np.log(2 / alpha) / (s2_prev * t * np.log(1 + t)))
        kp *= 1 + min(lam, Q.C_TRUNCATE / m) * (x - m)
        km *= 1 - min(lam, Q.C_TRUNCATE / (1 - m)) * (x - m)
        best_p, best_m = max(best_p, kp), max(best_m, km)
        mu_sum += x
        dev_sum += (x - (0.5 + mu_sum) / (t + 1)) ** 2
        s2_prev = (0.25 + dev_sum) / (t + 1)
    return np.log(best_p), np.log(best_m)


def test_capital_matches_the_definition():
    rng = np.random.default_rng(1)
    z = rng.beta(2, 3, 25)
    for m in (0.2, 0.4, 0.7):
        up, down = Q.log_capital(z, m, ALPHA)
        assert (up[-1], down[-1]) == pytest.approx(loop_capital(z, m, ALPHA), rel=1e-10)


def test_evidence_only_accumulates_and_points_the_right_way():
    x = np.r_[np.ones(30)]  # every seed at the top of the range
    above, below = Q.directional_p(x, 0.5, (0.0, 1.0), ALPHA)
    assert np.all(np.diff(above) <= 0) and above[-1] < ALPHA and below[-1] == 1.0
    ps, pc = Q.claim_p({"kind": "at_least", "threshold": 0.5}, [x], ALPHA)
    assert ps < ALPHA and pc == 1.0
    ps, pc = Q.claim_p({"kind": "at_least", "threshold": 0.5}, [1 - x], ALPHA)
    assert ps == 1.0 and pc < ALPHA


def test_out_of_range_values_are_refused():
    with pytest.raises(ValueError, match=r"must lie in \[-1, 1\]"):
        Q.claim_p({"kind": "better"}, [np.array([0.5, 1.5])], ALPHA)
    with pytest.raises(ValueError, match="no anytime-valid rule"):
        Q.band({"id": "g", "kind": "grad_trend"})


def test_confidence_sequence_covers_and_shrinks():
    rng = np.random.default_rng(2)
    misses = 0
    for _ in range(200):
        x = rng.beta(6, 4, 40)
        lo, hi = Q.confidence_sequence(x, (0.0, 1.0), ALPHA, grid=201)
        misses += np.any((lo > 0.6) | (hi < 0.6))
        assert np.all(np.diff(hi - lo) <= 1e-12)  # running intersection
    assert misses / 200 <= ALPHA


def test_unreachable_claims_are_recognised():
    better = {"kind": "better"}
    assert Q.reachable(better, [np.zeros(10)], ALPHA, 40)
    assert not Q.reachable(better, [np.zeros(38)], ALPHA, 40)  # two more seeds cannot tip it
    assert not Q.reachable(better, [np.zeros(40)], ALPHA, 40)  # no seeds left
    # a band narrower than a seed's bet can resolve only as CONTRADICTED: still reachable, though
    # 40 seeds at the band's centre leave SUPPORTED far from alpha
    tight = {"kind": "at_value", "target": 0.5, "tolerance": 0.0034}
    assert Q.reachable(tight, [np.full(10, 0.5)], ALPHA, 40)
    p_sup, p_con = Q.claim_p(tight, [np.full(40, 0.5)], ALPHA)
    assert p_sup > 10 * ALPHA and p_con == 1.0


def test_looks():
    assert Q.looks(10, 5, 40) == [10, 15, 20, 25, 30, 35, 40]
    assert Q.looks(10, 7, 20) == [10, 17, 20]
    with pytest.raises(ValueError):
        Q.looks(10, 5, 8)


@pytest.mark.parametrize("kind", list(Q.boundary_nulls()))
def test_simulation_adaptive_valid_naive_not(kind):
    """Under the boundary null of each kind, 4000 sequences on rounds of 10 seeds (batches of 5, at
    most 40): the adaptive rate of a wrong SUPPORTED and, separately, of a wrong
    CONTRADICTED <= alpha + 2 MC standard errors; the naive rounds' wrong verdicts (its interval is
    two-sided at 1 - alpha: alpha over both) > alpha + 2 se."""
    row = next(r for r in Q.simulate(n_sims=4000, kinds=[kind]) if r["kind"] == kind)
    assert row["schedule"] == "10/15/20/25/30/35/40"
    i = list(Q.boundary_nulls()).index(kind)
    claim, sample = Q.boundary_nulls()[kind]
    X = sample(np.random.default_rng([0, i]), (4000, 40))  # the sequences simulate() drew
    verdict, _ = Q.run_schedule(claim, X, Q.looks(10, 5, 40), ALPHA)
    wrong = {v: float(np.mean(verdict == v)) for v in ("SUPPORTED", "CONTRADICTED")}
    assert sum(wrong.values()) == pytest.approx(row["adaptive_error"])
    limit = ALPHA + 2 * row["mc_se"]
    assert max(wrong.values()) <= limit, (wrong, row)
    assert row["naive_error"] > limit, row


def test_the_rounds_still_decide_where_the_claim_holds():
    """Validity alone is cheap (never deciding has no errors): where SUPPORTED is right, the rounds
    reach it. Warm-up's C5b pattern (half the seeds converge only with it) resolves within 40 seeds."""
    rows = {r["scenario"]: r for r in Q.power(n_sims=1000)}
    assert rows["better, every seed +1"]["adaptive_supported"] == 1.0
    assert rows["better, every seed +1"]["adaptive_mean_seeds"] == 10
    assert rows["better, half the seeds +1, rest tied"]["adaptive_supported"] >= 0.9


def test_a_mean_over_truncations_is_the_mean_of_their_capitals():
    rng = np.random.default_rng(4)
    z, m = rng.beta(2, 2, 20), 0.4
    lam = Q.plugin_lambda(z, ALPHA)

    def running_max(capital):  # of log K, with K_0 = 1
        return np.maximum(np.maximum.accumulate(np.log(capital)), 0.0)

    for side, sign, room in ((0, 1.0, m), (1, -1.0, 1 - m)):
        capital = {c: np.cumprod(1 + sign * np.minimum(lam, c / room) * (z - m)) for c in (0.5, 0.9)}
        for truncate, want in (((0.5, 0.9), (capital[0.5] + capital[0.9]) / 2), (0.5, capital[0.5]),
                               (None, capital[Q.C_TRUNCATE])):  # fmt: skip
            got = Q.log_capital(z, m, ALPHA, truncate)[side]
            np.testing.assert_allclose(got, running_max(want), rtol=1e-10, atol=1e-12)


def test_a_boundary_on_the_ranges_edge_is_passed_once_a_value_leaves_the_edge_and_one_beyond_it_at_once():
    e = Q.EDGE
    # on the low edge (bound 0 of [0, 1]): a value within EDGE of the edge still sits on it
    above, below = Q.directional_p(np.array([0.0, e, 2 * e]), 0.0, (0.0, 1.0), ALPHA)
    assert above.tolist() == [1.0, 1.0, 0.0] and below.tolist() == [1.0, 1.0, 1.0]
    above, below = Q.directional_p(np.array([1.0, 1 - e, 1 - 2 * e]), 1.0, (0.0, 1.0), ALPHA)
    assert above.tolist() == [1.0, 1.0, 1.0] and below.tolist() == [1.0, 1.0, 0.0]
    # beyond the range's high end the mean lies below the bound for certain, every value on the edge or not
    above, below = Q.directional_p(np.ones(3), 1.5, (0.0, 1.0), ALPHA)
    assert above.tolist() == [1.0] * 3 and below.tolist() == [0.0] * 3
    # seeds run along the last axis: each row is a cell of its own
    above, below = Q.directional_p(np.array([[1.0, 0.5, 1.0], [1.0, 1.0, 1.0]]), 1.0, (0.0, 1.0), ALPHA)
    assert below.tolist() == [[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]]


def test_seeds_to_resolve_counts_for_one_cell_unless_told_how_many():
    claim = {"kind": "better"}  # CONTRADICTED needs one cell: Bonferroni over the cells asks more of it
    one = Q.seeds_to_resolve(claim, ALPHA, ALPHA / 4, 40)
    assert one == Q.seeds_to_resolve(claim, ALPHA, ALPHA / 4, 40, 1) == (7, 7)
    assert Q.seeds_to_resolve(claim, ALPHA, ALPHA / 4, 40, 2) == (7, 8)


def test_seeds_that_all_agree_multiply_the_capital_by_one_plus_c():
    """At a share of 1/2 every agreeing seed multiplies the capital by 1 + C_TRUNCATE: 7 such seeds
    reach alpha / 2 (the factorial's two claims) and 8 reach alpha / 4 (the position study's four)."""
    p = Q.directional_p(np.ones(9), 0.5, (0.0, 1.0), ALPHA)[0]
    np.testing.assert_allclose(p[3:], (1 + Q.C_TRUNCATE) ** -np.arange(4.0, 10.0), rtol=1e-12)
    assert p[6] <= ALPHA / 2 and p[7] <= ALPHA / 4
