"""The anytime-valid rules against independent computations: each vectorised step (batched capitals,
the claims table's p-values over cells, reachability, the fewest seeds a design needs, the rounds and
the naive rounds of benchmarks/probes/naive_rounds.py, the confidence sequence, the simulation rows,
the probe's command line) is checked against the per-sequence rule its docstring states, written out
with scalar building blocks, on inputs that reach every branch (edges of the range, exact ties at
alpha, empty confidence sequences, several cells). The rules are the pipeline's own functions
(ablation.claims, ablation.plan); the adapters below only put simulated cells into their shapes."""

import contextlib
import importlib.util
import io
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ablation import intervals, plan, seed_units, sequential, verdicts

ALPHA = 0.05
PROBE_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "probes" / "naive_rounds.py"
_spec = importlib.util.spec_from_file_location("naive_rounds", PROBE_PATH)
probe = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(probe)
_probe_claim = probe.claim
# the probe asks about the betting e-process of the mean: its claims name that test (the mean's default, the
# t-test, is simulated in tests/simulation/test_mean_test_simulation.py)
probe.claim = lambda kind, **keys: _probe_claim(kind, **({"test": "betting"} | keys))
MEAN_BOUNDS, PAIRED_BOUNDS = (0.0, 1.0), (-1.0, 1.0)


def claim_of(spec: dict):
    """A claim mapping of the old form ({"kind": ..., keys}) built as the probe builds its claims."""
    return probe.claim(spec["kind"], **{k: v for k, v in spec.items() if k != "kind"})


BETTER = claim_of({"kind": "better"})


def band(c):
    return c.parts[0].condition.band


def bounds_of(c):
    return verdicts.bounds(c, c.parts[0])


def claim_p_path(c, x, alpha):
    """(p_sup, p_con) of one cell after every seed: the claims table's test on each prefix."""
    x = np.asarray(x, dtype=float)
    prefixes = [verdicts.p_values(c, c.parts[0], x[..., :n], x[..., :n], 0.0, True, alpha) for n in range(1, x.shape[-1] + 1)]
    return np.stack([p[0] for p in prefixes], axis=-1), np.stack([p[1] for p in prefixes], axis=-1)


def claim_p(c, cells, alpha):
    """(p_sup, p_con) on every cell's seeds: the claims table's test per cell, combined over cells."""
    if not cells or any(len(x) == 0 for x in cells):
        return 1.0, 1.0
    ps = [verdicts.p_values(c, c.parts[0], np.asarray(x, float), np.asarray(x, float), 0.0, True, alpha) for x in cells]
    p_sup, p_con, _ = verdicts.combine([[p[0]] for p in ps], [[p[1]] for p in ps])
    return float(p_sup), float(p_con)


def study_of(c, cells) -> seed_units.StudyRuns:
    """An adaptive study whose claim ``c`` reads exactly ``cells`` (a comparison: differences b - a)."""
    rows = []
    for i, x in enumerate(cells):
        for s, v in enumerate(np.asarray(x, dtype=float)):
            if c.parts[0].compare:
                base = max(0.0, -v)
                rows += [dict(run_id=f"{i}-{s}-a", cell=i, variant="a", seed=s, test_acc=base),
                         dict(run_id=f"{i}-{s}-b", cell=i, variant="b", seed=s, test_acc=base + v)]  # fmt: skip
            else:
                rows.append(dict(run_id=f"{i}-{s}", cell=i, variant="a", seed=s, test_acc=v))
    factors = ("cell", "variant") if c.parts[0].compare else ("cell",)
    return seed_units.StudyRuns("s", pd.DataFrame(rows), factors, design={"seeds": [0], "max_seeds": 0, "batch": 1})


def reachable(c, cells, alpha, max_seeds, level=None):
    """The claims table's reachability (``verdicts.reachable``) of a claim on ``cells``."""
    runs = study_of(c, cells)
    runs = seed_units.StudyRuns(runs.name, runs.summary, runs.factors, design={"seeds": [0], "max_seeds": max_seeds, "batch": 1})
    return verdicts.reachable(c, runs, verdicts.Judge.of({"alpha": alpha}), alpha if level is None else level)


def seeds_to_resolve(c, alpha, level, max_seeds, n_cells=1):
    """The plan's fewest agreeing seeds (``plan.agreeing_seeds``) of a claim judged in ``n_cells`` cells."""
    return plan.agreeing_seeds(c, level, n_cells, True, alpha, max_seeds)


def loop_capital(z, m, alpha, c=sequential.C_TRUNCATE):
    """Running maxima of log K+ and log K- after every step, from the definitions (no cumsum), bets
    truncated at c / m and c / (1 - m)."""
    mu_sum, dev_sum, s2_prev = 0.0, 0.0, 0.25
    kp, km, best_p, best_m, out = 1.0, 1.0, 1.0, 1.0, []
    for t, x in enumerate(z, start=1):
        lam = np.sqrt(2 * np.log(2 / alpha) / (s2_prev * t * np.log(1 + t)))
        kp *= 1 + min(lam, c / m) * (x - m)
        km *= 1 - min(lam, c / (1 - m)) * (x - m)
        best_p, best_m = max(best_p, kp), max(best_m, km)
        out.append((np.log(best_p), np.log(best_m)))
        mu_sum += x
        dev_sum += (x - (0.5 + mu_sum) / (t + 1)) ** 2
        s2_prev = (0.25 + dev_sum) / (t + 1)
    return np.array(out).T


def p_of(log_k):
    return min(1.0, np.exp(-log_k))


def ones_p(k):
    """p of "mean > 0" after k seeds of +1 (better): the bet is truncated at c / m = 2c at m = 1/2,
    so each seed multiplies K+ by exactly 1 + c, whatever alpha (as long as the plug-in bet exceeds 2c)."""
    return float(claim_p_path(BETTER, np.ones(k), ALPHA)[0][-1])


# --------------------------------------------------------------------------- building blocks


def test_paired_capital_is_the_definition_on_rescaled_values():
    # values in [-1, 1] are rescaled to [0, 1] before betting: (x + 1) / 2
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, 15)
    for bound in (-0.4, 0.1, 0.6):
        above, below = sequential.directional_p(x, bound, PAIRED_BOUNDS, ALPHA)
        up, down = loop_capital((x + 1) / 2, (bound + 1) / 2, ALPHA)
        assert above == pytest.approx([p_of(u) for u in up], rel=1e-10)
        assert below == pytest.approx([p_of(d) for d in down], rel=1e-10)


def test_batches_of_any_shape_equal_one_sequence_at_a_time():
    # "(..., seeds)": every leading axis is a batch; nothing mixes across them
    rng = np.random.default_rng(4)
    X = rng.uniform(-1, 1, (2, 3, 9))
    for claim in (claim_of({"kind": "better"}), claim_of({"kind": "equivalent", "margin": 0.2}), claim_of({"kind": "not_worse", "margin": 0.3})):
        sup, con = claim_p_path(claim, X, ALPHA)
        assert sup.shape == con.shape == X.shape
        for i in np.ndindex(X.shape[:-1]):
            s1, c1 = claim_p_path(claim, X[i], ALPHA)
            np.testing.assert_array_equal(sup[i], s1)
            np.testing.assert_array_equal(con[i], c1)
    lam = sequential.plugin_lambda((X + 1) / 2, ALPHA)
    for i in np.ndindex(X.shape[:-1]):
        np.testing.assert_array_equal(lam[i], sequential.plugin_lambda((X[i] + 1) / 2, ALPHA))


def test_values_a_rounding_error_outside_the_range_are_clipped_not_refused():
    x = np.array([0.0, 1.0, 0.3, 1.0])
    edge = np.array([-1e-12, 1 + 1e-12, 0.3, 1.0])  # within 1e-12 of the range: rounding
    for bound in (0.2, 0.6):
        for a, b in zip(sequential.directional_p(edge, bound, MEAN_BOUNDS, ALPHA), sequential.directional_p(x, bound, MEAN_BOUNDS, ALPHA)):
            np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
        sequential.directional_p([0.5, -0.5], 0.5, MEAN_BOUNDS, ALPHA)  # below the range
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
        sequential.directional_p([0.5, 1.5], 0.5, MEAN_BOUNDS, ALPHA)


def test_values_are_read_as_floats_whatever_their_type():
    # per-seed values are converted with dtype=float: integers, booleans and numeric text alike
    want = sequential.directional_p([0.0, 1.0, 1.0, 0.0, 1.0], 0.3, MEAN_BOUNDS, ALPHA)
    for x in ([0, 1, 1, 0, 1], [False, True, True, False, True], ["0", "1", "1.0", "0.0", "1"]):
        for a, b in zip(sequential.directional_p(x, 0.3, MEAN_BOUNDS, ALPHA), want):
            np.testing.assert_array_equal(a, b)


def test_capital_at_the_range_edge_is_quiet_and_finite():
    # m = 0 or 1 divides c by zero: the bet is then the plug-in bet, without a warning
    z = np.array([0.0, 0.5, 1.0, 0.2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        up0, down0 = sequential.log_capital(z, 0.0, ALPHA)
        up1, down1 = sequential.log_capital(z, 1.0, ALPHA)
    assert np.all(np.isfinite(up0)) and np.all(np.isfinite(down1))
    assert np.all(down0 == 0.0) and np.all(up1 == 0.0)  # no evidence against a mean at the edge


def test_band_and_bounds_of_every_kind():
    assert band(claim_of({"kind": "at_least", "threshold": 0.7})) == (0.7, 0.7)
    assert band(claim_of({"kind": "not_worse", "margin": 0.1})) == (-0.1, -0.1)
    assert band(claim_of({"kind": "better"})) == (0.0, 0.0)
    assert band(claim_of({"kind": "at_value", "target": 0.5, "tolerance": 0.25})) == (0.25, 0.75)
    assert band(claim_of({"kind": "equivalent", "margin": 0.2})) == (-0.2, 0.2)
    for kind in ("at_least", "at_value", "equivalent", "not_worse", "better"):
        keys = {"at_least": {"threshold": 0.7}, "at_value": {"target": 0.5, "tolerance": 0.1}}.get(kind, {"margin": 0.1})
        c = claim_of({"kind": kind, **(keys if kind != "better" else {})})
        paired = kind in ("not_worse", "better", "equivalent")
        assert bounds_of(c) == (PAIRED_BOUNDS if paired else MEAN_BOUNDS) and c.sequential
    grad = probe.check_claims([{"id": "g", "statement": "g", "kind": "grad_trend", "factor": "variant", "growing": "a",
                                "flat": "b", "flat_margin": 0.1}], probe.FACTORS, [])[0]  # fmt: skip
    assert not grad.sequential and [part.bounded for part in grad.parts] == [False, False]  # slopes have no bound


def test_edge_boundaries_decide_one_direction_only():
    x = np.array([0.2, 0.9, 0.5])
    above, below = sequential.directional_p(x, 0.0, MEAN_BOUNDS, ALPHA)  # mean > 0 shown, mean < 0 never
    assert np.all(above == 0.0) and np.all(below == 1.0) and above.shape == x.shape
    above, below = sequential.directional_p(x, 1.0, MEAN_BOUNDS, ALPHA)
    assert np.all(above == 1.0) and np.all(below == 0.0) and below.shape == x.shape
    above, below = sequential.directional_p(x, 0.999, MEAN_BOUNDS, ALPHA)  # inside the range: betting
    up, down = loop_capital(x, 0.999, ALPHA)
    assert above == pytest.approx([p_of(u) for u in up]) and below == pytest.approx([p_of(d) for d in down])


def test_a_boundary_on_the_edge_is_passed_only_once_a_value_lies_inside_the_range():
    # every value on the edge is the one distribution whose mean sits there: no evidence it lies inside
    x = np.array([1.0, 1.0, 0.9, 1.0])
    above, below = sequential.directional_p(x, 1.0, MEAN_BOUNDS, ALPHA)
    assert below.tolist() == [1.0, 1.0, 0.0, 0.0] and np.all(above == 1.0)
    above, below = sequential.directional_p(1 - x, 0.0, MEAN_BOUNDS, ALPHA)
    assert above.tolist() == [1.0, 1.0, 0.0, 0.0] and np.all(below == 1.0)
    # a value a rounding error below the edge (1 on the grid of 1 / 49: 49 * (1 / 49) < 1) is on it
    assert 49 * (1 / 49) < 1.0
    assert np.all(sequential.directional_p(np.full(3, 49 * (1 / 49)), 1.0, MEAN_BOUNDS, ALPHA)[1] == 1.0)
    # a paired difference of -1 everywhere: "mean > -1" is not shown; beyond the range it is at once
    assert np.all(sequential.directional_p(-np.ones(4), -1.0, PAIRED_BOUNDS, ALPHA)[0] == 1.0)
    assert np.all(sequential.directional_p(-np.ones(4), -1.5, PAIRED_BOUNDS, ALPHA)[0] == 0.0)
    # batches: each sequence on its own
    above, _ = sequential.directional_p(np.array([[0.0, 0.0, 0.3], [0.2, 0.0, 0.0]]), 0.0, MEAN_BOUNDS, ALPHA)
    assert above.tolist() == [[1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]


def test_looks_edges():
    assert probe.looks(1, 1, 1) == [1]
    assert probe.looks(1, 1, 3) == [1, 2, 3]
    assert probe.looks(2, 3, 2) == [2]
    for bad in ((0, 5, 10), (3, 0, 10), (0, 0, 10), (3, 1, 2)):
        with pytest.raises(ValueError, match=r"need 1 <= start"):
            probe.looks(*bad)


# --------------------------------------------------------------------------- claim_p


def test_claim_p_without_seeds_is_undecided():
    assert claim_p(BETTER, [], ALPHA) == (1.0, 1.0)
    assert claim_p(BETTER, [np.ones(30), []], ALPHA) == (1.0, 1.0)


def test_claim_p_is_the_last_seed_every_cell_for_support_bonferroni_for_contradiction():
    # one seed: a bet of c / m at threshold 0.2 (below the first plug-in bet, 6.5) turns a seed at 1
    # into K+ = 1 + (c / 0.2) * 0.8, p = 1 / K+
    at_least = claim_of({"kind": "at_least", "threshold": 0.2})
    assert claim_p(at_least, [[1.0]], ALPHA) == (pytest.approx(1 / (1 + sequential.C_TRUNCATE / 0.2 * 0.8)), 1.0)
    rng = np.random.default_rng(5)
    cells = [rng.uniform(-1, 0.2, 12), rng.uniform(-1, 1, 9), np.full(7, -0.9)]
    sup, con = zip(*(claim_p_path(BETTER, c, ALPHA) for c in cells))
    ps, pc = claim_p(BETTER, cells, ALPHA)
    assert ps == max(s[-1] for s in sup)
    assert pc == min(1.0, 3 * min(c[-1] for c in con)) < 1.0
    assert claim_p(BETTER, [np.zeros(5), np.zeros(5)], ALPHA) == (1.0, 1.0)  # capped at 1


# --------------------------------------------------------------------------- ties at alpha


def test_a_p_value_exactly_at_the_level_resolves():
    """p <= level is a verdict (the claims rule's p <= alpha): with alpha (or level) set to the exact
    p of 12 seeds of +1, the 12th seed resolves; the bet is truncated, so alpha does not move p."""
    p12 = ones_p(12)
    assert p12 < ALPHA and float(claim_p_path(BETTER, np.ones(12), p12)[0][-1]) == p12
    X = np.ones((1, 12))
    verdict, used = probe.adaptive_rounds(BETTER, X, [6, 12], p12)
    assert verdict.tolist() == ["SUPPORTED"] and used.tolist() == [12]
    assert reachable(BETTER, [np.ones(6)], ALPHA, 12, level=p12)
    assert seeds_to_resolve(BETTER, ALPHA, p12, 12)[0] == 12


def test_at_alpha_one_every_claim_resolves_at_once_and_a_tie_is_supported():
    X = np.zeros((2, 8))  # on the boundary: p_sup = p_con = 1 <= alpha = 1
    verdict, used = probe.adaptive_rounds(BETTER, X, [4, 8], 1.0)
    assert verdict.tolist() == ["SUPPORTED", "SUPPORTED"] and used.tolist() == [4, 4]


def test_verdict_arrays_hold_python_strings():
    # object arrays: a fixed-width string array would silently cut a longer label
    X = np.zeros((3, 6))
    for run in (probe.adaptive_rounds, probe.naive_rounds):
        verdict, _ = run(BETTER, X, [3, 6], ALPHA)
        assert verdict.dtype == object


# --------------------------------------------------------------------------- reachable, seeds_to_resolve


def test_reachable_edges():
    with pytest.raises(ValueError, match="selects no runs"):  # a claim without runs is an error, not open
        reachable(BETTER, [], ALPHA, 40)
    assert not reachable(BETTER, [np.ones(40)], ALPHA, 40)  # resolved, but no seed left to add
    assert reachable(BETTER, [np.ones(39)], ALPHA, 40)  # one seed left
    assert not reachable(BETTER, [np.ones(30), np.ones(40)], ALPHA, 40)  # one cell has none left
    # the level, not alpha: 4 seeds of +1 reach p = 1 / 1.9^4 ~ 0.077, not 0.05
    assert ones_p(4) == pytest.approx(1 / (1 + sequential.C_TRUNCATE) ** 4)
    assert reachable(BETTER, [np.ones(2)], ALPHA, 4, level=0.08)
    assert not reachable(BETTER, [np.ones(2)], ALPHA, 4)
    # 7 seeds reach 1 / 1.9^7 ~ 0.011, 6 only 0.021: the level 0.02 decides, whatever alpha
    assert reachable(BETTER, [np.ones(2)], 0.08, 7, level=0.02)
    assert not reachable(BETTER, [np.ones(2)], ALPHA, 6, level=0.02)


def reference_reachable(claim, cells, alpha, max_seeds, values):
    n_more = [max_seeds - len(x) for x in cells]
    if not cells or min(n_more) <= 0:
        return False
    return any(min(claim_p(claim, [np.r_[np.asarray(x, float), np.full(k, v)] for x, k in zip(cells, n_more)], alpha)) <= alpha
               for v in values)  # fmt: skip


def favourable(claim):
    """The docstring's most favourable values: the range's ends (one-sided), and the band's centre."""
    lo, hi = band(claim)
    blo, bhi = bounds_of(claim)
    return [blo, bhi] if lo == hi else [blo, bhi, (lo + hi) / 2]


def test_reachable_tries_both_ends_and_the_band_centre():
    rng = np.random.default_rng(6)
    claims = [BETTER, claim_of({"kind": "not_worse", "margin": 0.1}), claim_of({"kind": "equivalent", "margin": 0.1}),
              claim_of({"kind": "at_value", "target": 0.6, "tolerance": 0.05}), claim_of({"kind": "at_least", "threshold": 0.8})]  # fmt: skip
    seen = set()
    for claim in claims:
        blo, bhi = bounds_of(claim)
        for _ in range(40):
            n, max_seeds = rng.integers(1, 12), rng.integers(5, 25)
            cells = [rng.uniform(blo, bhi, n) * rng.uniform(0, 1) for _ in range(rng.integers(1, 3))]
            got = reachable(claim, cells, ALPHA, max_seeds)
            assert got == reference_reachable(claim, cells, ALPHA, max_seeds, favourable(claim))
            seen.add(got)
    assert seen == {True, False}
    # where only the band's centre can still resolve (one seed at 0.5, three more to come)
    wide = claim_of({"kind": "at_value", "target": 0.5, "tolerance": 0.3})
    assert reachable(wide, [[0.5]], ALPHA, 4)
    assert not reference_reachable(wide, [[0.5]], ALPHA, 4, [0.0, 1.0, 1 / 3])
    # where only the lower end (-1, a paired difference) can: CONTRADICTED of a `better` (a first
    # seed at -0.6 starts K- above 1 and K+ below; four more seeds at -1 reach 1 / K- <= 0.05)
    assert reachable(BETTER, [[-0.6]], ALPHA, 5)
    assert not reference_reachable(BETTER, [[-0.6]], ALPHA, 5, [0.0, 1.0])


def reference_seeds(claim, alpha, level, max_seeds, n_cells):
    lo, hi = band(claim)
    blo, bhi = bounds_of(claim)
    out = []
    for which, value in ((0, bhi if lo == hi else (lo + hi) / 2), (1, blo)):
        hit = [n for n in range(1, max_seeds + 1) if claim_p(claim, [np.full(n, value)] * n_cells, alpha)[which] <= level]
        out.append(hit[0] if hit else None)
    return tuple(out)


@pytest.mark.parametrize("n_cells", [1, 3])
def test_seeds_to_resolve_is_the_first_seed_count_claim_p_reaches(n_cells):
    claims = [BETTER, claim_of({"kind": "not_worse", "margin": 0.1}), claim_of({"kind": "equivalent", "margin": 0.1}),
              claim_of({"kind": "at_value", "target": 0.5, "tolerance": 0.3}), claim_of({"kind": "at_least", "threshold": 0.8})]  # fmt: skip
    for claim in claims:
        for level in (ALPHA, 0.01, 1.0):
            got = seeds_to_resolve(claim, ALPHA, level, 30, n_cells)
            assert got == reference_seeds(claim, ALPHA, level, 30, n_cells), (claim, level)
    assert seeds_to_resolve(claim_of({"kind": "at_value", "target": 0.5, "tolerance": 0.3}), ALPHA, ALPHA, 30)[0] is not None


# --------------------------------------------------------------------------- the rounds


def reference_rounds(claim, X, schedule, alpha):
    """run_schedule's docstring, one sequence at a time: at each look decide if min(p) <= alpha
    (SUPPORTED when p_sup <= p_con), else stop open when ``reachable`` says it cannot resolve."""
    verdicts, used = [], []
    for x in X:
        v, u = "INCONCLUSIVE", schedule[-1]
        for n in schedule:
            ps, pc = claim_p(claim, [x[:n]], alpha)
            if min(ps, pc) <= alpha:
                v, u = ("SUPPORTED" if ps <= pc else "CONTRADICTED"), n
                break
            if n != schedule[-1] and not reachable(claim, [x[:n]], alpha, schedule[-1]):
                u = n
                break
        verdicts.append(v)
        used.append(u)
    return verdicts, used


def round_cases():
    rng = np.random.default_rng(7)
    signs = np.r_[np.ones(11), -np.ones(11), np.zeros(11)]
    crafted = [np.ones(16), -np.ones(16), np.zeros(16), np.r_[-np.ones(9), np.zeros(7)], np.r_[-0.2, np.zeros(15)],
               np.r_[np.zeros(6), np.ones(10)], np.r_[np.zeros(10), -np.ones(6)]]  # fmt: skip
    paired = np.vstack(crafted + [rng.choice(signs, 16) for _ in range(40)] + [rng.uniform(-1, 1, 16) for _ in range(20)])
    means = np.vstack([np.full(16, 0.6), np.full(16, 1.0), np.zeros(16), np.r_[0.5, np.zeros(15)], np.r_[0.5, np.ones(15)]] + [rng.beta(6, 4, 16) for _ in range(40)])
    return [(BETTER, paired), (claim_of({"kind": "not_worse", "margin": 0.1}), paired), (claim_of({"kind": "equivalent", "margin": 0.3}), paired),
            (claim_of({"kind": "at_value", "target": 0.6, "tolerance": 0.1}), means), (claim_of({"kind": "at_least", "threshold": 0.5}), means),
            (claim_of({"kind": "at_value", "target": 0.5, "tolerance": 0.3}), means)]  # fmt: skip


@pytest.mark.parametrize("schedule", [[6, 10, 13, 16], [10, 13, 16], [5, 8, 10]])
def test_rounds_follow_the_per_sequence_rule(schedule):
    for claim, X in round_cases():
        X = X[:, : schedule[-1]]
        verdict, used = probe.adaptive_rounds(claim, X, schedule, ALPHA)
        ref_v, ref_u = reference_rounds(claim, X, schedule, ALPHA)
        assert verdict.tolist() == ref_v, claim
        assert used.tolist() == ref_u, claim


def test_rounds_on_plain_sequences():
    # +1s resolve SUPPORTED and -1s CONTRADICTED at the first look with p <= alpha: 1 / 1.9^5 < 0.05 < 1 / 1.9^4;
    # four -1s then ties stop at p = 1 / 1.9^4 ~ 0.077
    X = np.vstack([np.ones(20), -np.ones(20), np.r_[-np.ones(4), np.zeros(16)], np.zeros(20)])
    verdict, used = probe.adaptive_rounds(BETTER, X, [3, 6, 9, 12], ALPHA)
    assert verdict.tolist() == ["SUPPORTED", "CONTRADICTED", "INCONCLUSIVE", "INCONCLUSIVE"]
    # the third stays open to the last look (it can still resolve); the fourth stops when it cannot
    assert used.tolist()[:3] == [6, 6, 12] and used[3] < 12


def reference_naive(claim, X, schedule, alpha):
    """run_naive's rule one sequence at a time: the fixed-design interval at each look; one-sided
    kinds: SUPPORTED when lo > boundary, CONTRADICTED when hi < boundary; bands: SUPPORTED when the
    interval lies inside [lo, hi], CONTRADICTED when it lies wholly outside."""
    lo_b, hi_b = band(claim)
    bounds = bounds_of(claim)
    verdicts, used = [], []
    for x in X:
        v, u = "INCONCLUSIVE", schedule[-1]
        for n in schedule:
            lo, hi, _ = intervals.mean_ci(x[:n], 1 - alpha, bounds)
            if lo_b == hi_b:
                sup, con = lo > lo_b, hi < lo_b
            else:
                sup, con = lo >= lo_b and hi <= hi_b, hi < lo_b or lo > hi_b
            if sup or con:
                v, u = ("SUPPORTED" if sup else "CONTRADICTED"), n
                break
        verdicts.append(v)
        used.append(u)
    return verdicts, used


def test_naive_rounds_follow_the_fixed_design_rule():
    for claim, X in round_cases():
        for schedule in ([4, 8, 12], [3, 16]):
            verdict, used = probe.naive_rounds(claim, X[:, : schedule[-1]], schedule, ALPHA)
            ref_v, ref_u = reference_naive(claim, X[:, : schedule[-1]], schedule, ALPHA)
            assert verdict.tolist() == ref_v, claim
            assert used.tolist() == ref_u, claim
    verdict, _ = probe.naive_rounds(BETTER, np.vstack([np.ones(8), -np.ones(8), np.zeros(8)]), [4, 8], ALPHA)
    assert verdict.tolist() == ["SUPPORTED", "CONTRADICTED", "INCONCLUSIVE"]


def test_naive_interval_touching_a_boundary_decides_nothing():
    # strict inequalities: an interval end exactly on the boundary is not beyond it
    x = np.array([[0.55, 0.61, 0.58, 0.7, 0.52, 0.66]])
    lo, hi, _ = intervals.mean_cis(x, 1 - ALPHA, MEAN_BOUNDS)
    for threshold in (lo[0], hi[0]):
        verdict, _ = probe.naive_rounds(claim_of({"kind": "at_least", "threshold": threshold}), x, [6], ALPHA)
        assert verdict.tolist() == ["INCONCLUSIVE"]
    # a band [0, lo] that the interval touches from above: neither inside nor wholly outside
    band_claim = claim_of({"kind": "at_value", "target": lo[0] / 2, "tolerance": lo[0] / 2})
    assert band(band_claim) == (0.0, lo[0])
    verdict, _ = probe.naive_rounds(band_claim, x, [6], ALPHA)
    assert verdict.tolist() == ["INCONCLUSIVE"]


def test_naive_band_ends_are_inside_the_band():
    # a band [-margin, margin] whose end is exactly an interval end: the interval lies inside it
    # (lo >= -margin, hi <= margin) and touches it from outside without being wholly outside
    d = np.array([[-0.3, 0.1, -0.05, 0.2, -0.15, 0.05]])
    for x, end in ((d, 0), (-d, 1)):
        ci = intervals.mean_cis(x, 1 - ALPHA, PAIRED_BOUNDS)[:2]
        lo, hi = ci[0][0], ci[1][0]
        assert lo < 0 < hi and (-lo >= hi if end == 0 else hi >= -lo)
        verdict, _ = probe.naive_rounds(claim_of({"kind": "equivalent", "margin": abs(ci[end][0])}), x, [6], ALPHA)
        assert verdict.tolist() == ["SUPPORTED"]
    x = np.array([[-0.5, -0.4, -0.6, -0.45, -0.55, -0.35]])
    hi = intervals.mean_cis(x, 1 - ALPHA, PAIRED_BOUNDS)[1][0]
    assert hi < 0
    verdict, _ = probe.naive_rounds(claim_of({"kind": "equivalent", "margin": -hi}), x, [6], ALPHA)
    assert verdict.tolist() == ["INCONCLUSIVE"]


# --------------------------------------------------------------------------- confidence sequence


def reference_cs(x, bounds, alpha, grid):
    """The docstring's grid rule, one grid point at a time with ``directional_p``."""
    lo, hi = bounds
    ms = np.linspace(lo, hi, grid)[1:-1]
    step = (hi - lo) / (grid - 1)
    inside = np.array([np.minimum(*sequential.directional_p(x, m, bounds, alpha)) > alpha for m in ms])
    first, last = [], []
    for t in range(len(x)):
        idx = np.flatnonzero(inside[:, t])
        first.append(min(max(ms[idx[0]] - step, lo), hi) if idx.size else np.nan)
        last.append(min(max(ms[idx[-1]] + step, lo), hi) if idx.size else np.nan)
    return np.array(first), np.array(last)


def test_confidence_sequence_is_the_grid_of_unrejected_means():
    rng = np.random.default_rng(8)
    cases = [
        (rng.beta(6, 4, 12), MEAN_BOUNDS, 401),
        (rng.uniform(-1, 1, 10), PAIRED_BOUNDS, 101),
        (np.ones(12), MEAN_BOUNDS, 3),  # one grid point, 1/2, rejected from the 10th seed on: empty
        (rng.uniform(0.2, 0.9, 6), (0.2, 0.9), 6),  # grids whose ends round past the bounds
        (rng.uniform(0, 1, 6), MEAN_BOUNDS, 94),
        (rng.uniform(-0.3, 0.7, 6), (-0.3, 0.7), 43),
    ]
    for x, bounds, grid in cases:
        got = sequential.confidence_sequence(x, bounds, ALPHA, grid=grid)
        want = reference_cs(x, bounds, ALPHA, grid)
        for g, w in zip(got, want):
            assert g.dtype == float
            np.testing.assert_array_equal(g, w)
    assert np.isnan(sequential.confidence_sequence(np.ones(12), MEAN_BOUNDS, ALPHA, grid=3)[0][-1])
    x = rng.beta(2, 2, 8)  # the default grid: 401 points
    for g, w in zip(sequential.confidence_sequence(x, MEAN_BOUNDS, ALPHA), reference_cs(x, MEAN_BOUNDS, ALPHA, 401)):
        np.testing.assert_array_equal(g, w)


def test_confidence_sequence_excludes_a_mean_whose_p_equals_alpha():
    # 10 seeds at 1 (or 0): the grid point 1/2 has p = 1 / 1.5^10 exactly; alpha set to it excludes it
    p10 = ones_p(10)
    for x, end in ((np.ones(10), 0), (np.zeros(10), 1)):
        # the nearest grid point beyond 1/2 is inside; widened by one step, the end is 1/2 itself
        assert sequential.confidence_sequence(x, MEAN_BOUNDS, p10, grid=401)[end][-1] == pytest.approx(0.5)


# --------------------------------------------------------------------------- simulation and CLI


def test_simulate_rows_are_the_two_procedures_on_each_kinds_null():
    schedule = probe.looks(4, 3, 10)
    nulls = list(probe.boundary_nulls().items())
    rows = probe.simulate(n_sims=30, start=4, batch=3, max_seeds=10, alpha=0.1, seed=3, kinds=["at_value", "better"])
    assert [r["kind"] for r in rows] == ["at_value", "better"]
    for row in rows:
        i = [k for k, _ in nulls].index(row["kind"])
        claim, sample = nulls[i][1]
        X = sample(np.random.default_rng([3, i]), (30, 10))
        adaptive, used = probe.adaptive_rounds(claim, X, schedule, 0.1)
        naive, naive_used = probe.naive_rounds(claim, X, schedule, 0.1)
        assert row == {
            "kind": row["kind"], "n_sims": 30, "schedule": "4/7/10", "alpha": 0.1,
            "adaptive_error": np.mean(adaptive != "INCONCLUSIVE"), "adaptive_mean_seeds": used.mean(),
            "naive_error": np.mean(naive != "INCONCLUSIVE"), "naive_mean_seeds": naive_used.mean(),
            "mc_se": np.sqrt(0.1 * 0.9 / 30),
        }  # fmt: skip
    assert rows[0]["naive_error"] > 0  # the naive rounds err here: the rates are not all zero
    assert probe.simulate(n_sims=30, start=4, batch=3, max_seeds=10, alpha=0.1, seed=3, kinds=["better"]) == rows[1:]


def test_power_rows_are_the_two_procedures_on_each_alternative():
    schedule = probe.looks(3, 2, 9)
    rows = probe.power(n_sims=25, start=3, batch=2, max_seeds=9, alpha=0.1, seed=4)
    assert [r["scenario"] for r in rows] == list(probe.alternatives())
    for i, (row, (claim, sample)) in enumerate(zip(rows, probe.alternatives().values())):
        X = sample(np.random.default_rng([4, 100 + i]), (25, 9)).astype(float)
        adaptive, used = probe.adaptive_rounds(claim, X, schedule, 0.1)
        naive, naive_used = probe.naive_rounds(claim, X, schedule, 0.1)
        assert row == {
            "scenario": row["scenario"], "adaptive_supported": np.mean(adaptive == "SUPPORTED"),
            "adaptive_mean_seeds": used.mean(), "naive_supported": np.mean(naive == "SUPPORTED"),
            "naive_mean_seeds": naive_used.mean(),
        }  # fmt: skip
    assert 0 < rows[0]["adaptive_supported"] < rows[0]["naive_supported"]  # not all 0 or 1: the counts matter
    assert probe.power(n_sims=25, start=3, batch=2, max_seeds=9, alpha=0.1, seed=4) == rows  # reproducible


def test_scenario_names_state_their_claims():
    rng = np.random.default_rng(9)
    for name, (claim, sample) in probe.alternatives().items():
        assert name.startswith(claim.kind.name + " ") or name.startswith(claim.kind.name + ",")
        stated = re.search(r"\(margin ([0-9.]+)\)", name)
        assert (float(stated.group(1)) if stated else None) == claim.keys.get("margin")
        x = sample(rng, (4000,))
        if "every seed +1" in name:
            assert np.all(x == 1)
        if "every seed tied" in name:
            assert np.all(x == 0)
        if "half the seeds +1, rest tied" in name:
            assert set(np.unique(x)) == {0.0, 1.0} and abs(np.mean(x) - 0.5) < 0.05


def test_boundary_nulls_put_the_mean_on_the_boundary():
    rng = np.random.default_rng(10)
    for kind, (claim, sample) in probe.boundary_nulls().items():
        assert claim.kind.name == kind
        lo, hi = band(claim)
        x = sample(rng, (400, 500))
        assert x.shape == (400, 500) and np.ptp(x) > 0
        se = x.std() / np.sqrt(x.size)
        assert min(abs(x.mean() - lo), abs(x.mean() - hi)) < 5 * se, kind


def expected_output(*args):
    return ("Wrong SUPPORTED or CONTRADICTED under each kind's boundary null:\n"
            + pd.DataFrame(probe.simulate(*args)).to_string(index=False) + "\n"
            + "\nWhere SUPPORTED is right (one claim alone; the naive rate is not error-controlled):\n"
            + pd.DataFrame(probe.power(*args)).to_string(index=False) + "\n")  # fmt: skip


def run_main(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = probe.main(argv)
    return rc, out.getvalue()


def test_main_prints_the_two_tables_of_its_arguments():
    rc, text = run_main(["--n-sims", "12", "--start", "3", "--batch", "2", "--max-seeds", "7", "--alpha", "0.1", "--seed", "5"])
    assert rc == 0
    assert text == expected_output(12, 3, 2, 7, 0.1, 5)


def test_main_help_says_what_it_simulates_and_refuses_non_integers():
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        probe.main(["--help"])
    paragraphs = [" ".join(p.split()) for p in out.getvalue().split("\n\n")]
    assert "Simulated wrong-verdict rates of the adaptive rounds and of naive re-testing." in paragraphs
    # the seed is an integer: text that numpy's seeding would read otherwise is refused up front
    with contextlib.redirect_stderr(io.StringIO()), pytest.raises(SystemExit):
        probe.main(["--n-sims", "2", "--max-seeds", "10", "--seed", "0x10"])


def test_main_defaults_are_simulate_and_power_defaults():
    """The CLI's defaults are those of simulate() and power() (10 seeds, +5 a round to 40)."""
    rc, text = run_main([])
    assert rc == 0
    assert text == expected_output()


# --------------------------------------------------------------------------- the rounds' error rates


def test_unreachable_claims_are_recognised():
    better = BETTER
    assert reachable(better, [np.zeros(10)], ALPHA, 40)
    assert not reachable(better, [np.zeros(38)], ALPHA, 40)  # two more seeds cannot tip it
    assert not reachable(better, [np.zeros(40)], ALPHA, 40)  # no seeds left
    # a band narrower than a seed's bet can resolve only as CONTRADICTED: still reachable, though
    # 40 seeds at the band's centre leave SUPPORTED far from alpha
    tight = claim_of({"kind": "at_value", "target": 0.5, "tolerance": 0.0034})
    assert reachable(tight, [np.full(10, 0.5)], ALPHA, 40)
    p_sup, p_con = claim_p(tight, [np.full(40, 0.5)], ALPHA)
    assert p_sup > 10 * ALPHA and p_con == 1.0


def test_looks():
    assert probe.looks(10, 5, 40) == [10, 15, 20, 25, 30, 35, 40]
    assert probe.looks(10, 7, 20) == [10, 17, 20]
    with pytest.raises(ValueError):
        probe.looks(10, 5, 8)


@pytest.mark.parametrize("kind", list(probe.boundary_nulls()))
def test_simulation_adaptive_valid_naive_not(kind):
    """Under the boundary null of each kind, 4000 sequences on rounds of 10 seeds (batches of 5, at
    most 40): the adaptive rate of a wrong SUPPORTED and, separately, of a wrong
    CONTRADICTED <= alpha + 2 MC standard errors; the naive rounds' wrong verdicts (its interval is
    two-sided at 1 - alpha: alpha over both) > alpha + 2 se."""
    row = next(r for r in probe.simulate(n_sims=4000, kinds=[kind]) if r["kind"] == kind)
    assert row["schedule"] == "10/15/20/25/30/35/40"
    i = list(probe.boundary_nulls()).index(kind)
    claim, sample = probe.boundary_nulls()[kind]
    X = sample(np.random.default_rng([0, i]), (4000, 40))  # the sequences simulate() drew
    verdict, _ = probe.adaptive_rounds(claim, X, probe.looks(10, 5, 40), ALPHA)
    wrong = {v: float(np.mean(verdict == v)) for v in ("SUPPORTED", "CONTRADICTED")}
    assert sum(wrong.values()) == pytest.approx(row["adaptive_error"])
    limit = ALPHA + 2 * row["mc_se"]
    assert max(wrong.values()) <= limit, (wrong, row)
    assert row["naive_error"] > limit, row


def test_the_rounds_still_decide_where_the_claim_holds():
    """Validity alone is cheap (never deciding has no errors): where SUPPORTED is right, the rounds
    reach it. Warm-up's C5b pattern (half the seeds converge only with it) resolves within 40 seeds."""
    rows = {r["scenario"]: r for r in probe.power(n_sims=1000)}
    assert rows["better, every seed +1"]["adaptive_supported"] == 1.0
    assert rows["better, every seed +1"]["adaptive_mean_seeds"] == 10
    assert rows["better, half the seeds +1, rest tied"]["adaptive_supported"] >= 0.9


def test_seeds_to_resolve_counts_for_one_cell_unless_told_how_many():
    claim = BETTER  # CONTRADICTED needs one cell: Bonferroni over the cells asks more of it
    one = seeds_to_resolve(claim, ALPHA, ALPHA / 4, 40)
    assert one == seeds_to_resolve(claim, ALPHA, ALPHA / 4, 40, 1) == (7, 7)
    assert seeds_to_resolve(claim, ALPHA, ALPHA / 4, 40, 2) == (7, 8)


