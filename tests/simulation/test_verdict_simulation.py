"""Every rule a claim's verdict rests on keeps its error rate, by simulation, and the exact
properties the rules promise.

Per-seed test accuracies are k / 300 (ties at the metric's resolution), paired differences
multiples of 1 / 300. Each simulation draws seeds from a distribution on a claim's boundary null --
its estimand exactly at the boundary, where SUPPORTED and CONTRADICTED are both wrong -- and
asserts that the rate of a wrong SUPPORTED and, separately, of a wrong CONTRADICTED is at most
alpha + 3 Monte-Carlo standard errors. The seed distributions: unimodal (a Beta or binomial on the
grid, tuned so that the estimand sits exactly on the boundary), bound-touching (seeds exactly at
1.0, or exactly at 0.5) and mixtures (5, 10 or 30 % of seeds failing at chance, the rest near or
at 1.0), over 5 and 10 seeds; a cells: every claim over 6 cells. ``better`` has a boundary null per
tie rule: with ties counted (the default) a seed meets it when its difference is above 0, a tie
among the non-improvements, so the null is P(difference > 0) = 1/2 exactly; with ``ties: exclude``
it is the sign test over the seeds that changed, the null P(improve | changed) = 1/2.

The rules run vectorised over the simulations, each the claims table's own (``verdicts.p_values``): the
share rule (the exact test), the betting e-processes (estimand mean with ``test: betting``; adaptive
rounds, read at the round ends of the design's ``seedtests.Looks``) on ``sequential.directional_p`` as
``seedtests.mean_p`` and ``share_p_sequential`` combine it. (The mean's default test, the t-test with
its assumption checked: tests/simulation/test_mean_test_simulation.py.)
``test_the_simulated_rules_are_the_claims_rules`` checks, on summaries built from simulated seeds,
that ``verdicts.claim_test`` gives the same p-values. Run with ``-s`` for the table of measured rates.
"""

from __future__ import annotations

import functools
import gc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy import stats as sps

from ablation import claims as C
from ablation import verdicts
from ablation import kinds, seed_units
from ablation import config as ablation_config
from ablation import design
from ablation import seedtests
from ablation import measures, significance
from ablation.outputs import ROBUST

ALPHA = 0.05
GRID = 300  # test examples per run: accuracies move in steps of 1 / GRID
SEEDS = (5, 10)
SIMS = 20_000  # vectorised share rules
MEAN_SIMS = 10_000  # the betting e-process over 40 seeds
CELLS = 6
SCHEDULE = [10, 15, 20, 25, 30, 35, 40]  # the adaptive rounds: 10 seeds, then 5 more a round, up to 40
FACTORS = ["cell", "norm"]
LEVELS = ["post", "pre"]  # a paired claim's [baseline, other]
CFG = measures.resolve_cfg({"alpha": ALPHA})


def limit(sims: int) -> float:
    """alpha plus three Monte-Carlo standard errors of a rate at alpha."""
    return ALPHA + 3 * np.sqrt(ALPHA * (1 - ALPHA) / sims)


def claim(kind: str, **keys) -> kinds.Claim:
    """A claim built as the config builds it, defaults filled in (share 1/2, estimand share, cells every)."""
    c = {"id": f"c-{kind}", "statement": f"a {kind} claim", "source": "simulation", "kind": kind, **keys}
    if issubclass(kinds.CLAIM_KINDS[kind], kinds.Comparison):
        c.setdefault("factor", "norm")
        c.setdefault("levels", LEVELS)
    return C.check_claims([c], FACTORS, ["run_id", "test_acc", "test_total", "status"])[0]


def with_estimand(c: kinds.Claim, estimand: str) -> kinds.Claim:
    return C.check_claims([dict(c.to_dict(), estimand=estimand)], FACTORS, ["run_id", "test_acc", "test_total", "status"])[0]


def table(title: str, rows: list[tuple]) -> None:
    print(f"\n{title}")
    for name, n, sims, sup, con in rows:
        print(f"  {name:<62} n={n!s:<6} {sims:>6} sims: wrong SUPPORTED {sup:.4f}, wrong CONTRADICTED {con:.4f}"
              f" (limit {limit(sims):.4f})")  # fmt: skip


# --------------------------------------------------------------------------- seed distributions
# Samplers return integers: a one-level claim's test_correct out of GRID, a paired claim's
# difference other - baseline in GRID-ths; shape (sims, seeds) or whatever ``size`` says.


def near_one(rng, size):
    """A seed that learns: at 1.0 or a few examples short (about a third exactly at 1.0)."""
    return GRID - rng.binomial(10, 0.1, size)


def chance(rng, size):
    """A seed that fails: chance on a 300-example test set."""
    return rng.binomial(GRID, 0.5, size)


def grid_beta(rng, a, b, size):
    return np.rint(GRID * rng.beta(a, b, size)).astype(int)


def tuned(f, lo, hi) -> float:
    return optimize.brentq(f, lo, hi, xtol=1e-13, rtol=1e-14)


# the Beta shapes that put exactly half of the grid values on the condition's side
A_AT_LEAST = tuned(lambda a: sps.beta.sf(269.5 / GRID, a, 3) - 0.5, 1, 500)  # round(300 B) >= 270
A_AT_VALUE = tuned(lambda a: sps.beta.cdf(165.5 / GRID, a, a) - sps.beta.cdf(134.5 / GRID, a, a) - 0.5, 1, 1e4)
A_EQUIVALENT = tuned(lambda a: sps.beta.cdf(0.5 + 6.5 / 600, a, a) - sps.beta.cdf(0.5 - 6.5 / 600, a, a) - 0.5, 1, 1e6)


def mix(rng, size, fail, failing, learning):
    """A share ``fail`` of the seeds from ``failing``, the rest from ``learning``."""
    return np.where(rng.random(size) < fail, failing(rng, size), learning(rng, size))


def fixed(value):
    return lambda rng, size: np.full(size, value)


def paired(rng, size, fail):
    """Differences other - baseline: both levels at 1.0 or up to 3 examples short (within the
    margin of each other), except that the other level fails at chance in a share ``fail``."""
    base = GRID - rng.binomial(3, 0.3, size)
    other = np.where(rng.random(size) < fail, chance(rng, size), GRID - rng.binomial(3, 0.3, size))
    return other - base


def exchangeable(rng, size, fail):
    """Each level fails at chance with probability ``fail``, independently, else sits at or just
    below 1.0: the two levels are exchangeable, so a seed improves as often as it worsens."""

    def level():
        learn = np.where(rng.random(size) < 0.8, GRID, GRID - 1 - rng.binomial(2, 0.3, size))
        return np.where(rng.random(size) < fail, chance(rng, size), learn)

    return level() - level()


def sign(rng, size, magnitude):
    return np.where(rng.random(size) < 0.5, magnitude, -magnitude)


# ``better`` with ties counted: P(difference > 0) = 1/2 exactly, ties among the non-improvements.
# The levels' exact distributions of test_correct (pmfs over 0..GRID) give P(other > baseline).
CHANCE_PMF = sps.binom.pmf(np.arange(GRID + 1), GRID, 0.5)
LEARN_PMF = np.zeros(GRID + 1)  # as ``exchangeable``'s learning level: 80 % at 1.0, else 1-3 short
LEARN_PMF[GRID] = 0.8
LEARN_PMF[GRID - 1 - np.arange(3)] += 0.2 * sps.binom.pmf(np.arange(3), 2, 0.3)


def p_improve(pmf_base, pmf_other) -> float:
    """P(other > baseline) for independent levels with these pmfs of test_correct."""
    below = np.concatenate([[0.0], np.cumsum(pmf_base)[:-1]])  # P(baseline < k)
    return float(np.sum(pmf_other * below))


def level_pmf(fail: float) -> np.ndarray:
    return fail * CHANCE_PMF + (1 - fail) * LEARN_PMF


@functools.cache
def base_fail_at_null(other_fail: float) -> float:
    """The baseline's failure rate that puts P(other > baseline) at exactly 1/2 when the other
    level fails at chance in ``other_fail``."""
    return tuned(lambda f: p_improve(level_pmf(f), level_pmf(other_fail)) - 0.5, 0.0, 1.0)


def mixed_levels(rng, size, base_fail, other_fail):
    """Each level independently fails at chance (baseline in ``base_fail``, the other level in
    ``other_fail``), else sits at or just below 1.0 as in ``exchangeable``: other - baseline."""

    def level(fail):
        learn = np.where(rng.random(size) < 0.8, GRID, GRID - 1 - rng.binomial(2, 0.3, size))
        return np.where(rng.random(size) < fail, chance(rng, size), learn)

    return level(other_fail) - level(base_fail)


def three_point(rng, size, up, tie):
    """+0.5 (the baseline exactly at chance, the other at 1.0) in ``up``, tied at 1.0 in ``tie``, else
    -0.5."""
    u = rng.random(size)
    return np.select([u < up, u < up + tie], [GRID // 2, 0], -(GRID // 2))


P_BETTER_UNIMODAL = tuned(lambda p: sps.binom.sf(20, 40, p) - 0.5, 0.3, 0.7)  # P(Binomial(40, p) - 20 > 0) = 1/2


# Each kind's boundary nulls for the share estimand: (name, claim, sampler, diverged share).
SHARE_NULLS = {
    "at_least": [
        ("unimodal: Beta on the grid, median at the threshold", claim("at_least", threshold=0.9),
         lambda rng, s: grid_beta(rng, A_AT_LEAST, 3, s), 0.0),
        ("bound: 50 % exactly 1.0, 50 % exactly 0.5", claim("at_least", threshold=0.9),
         lambda rng, s: mix(rng, s, 0.5, fixed(GRID // 2), fixed(GRID)), 0.0),
        *[(f"mixture: {f:.0%} fail at chance, the rest near 1.0 (share {1 - f:g})",
           claim("at_least", threshold=0.9, share=round(1 - f, 2)),
           lambda rng, s, f=f: mix(rng, s, f, chance, near_one), 0.0) for f in (0.05, 0.1, 0.3)],
        ("mixture: 50 % fail at chance, 20 % of runs diverged", claim("at_least", threshold=0.9),
         lambda rng, s: mix(rng, s, 0.5, chance, near_one), 0.2),
    ],
    "at_value": [
        ("unimodal: Beta on the grid around 0.5", claim("at_value", target=0.5, tolerance=0.05),
         lambda rng, s: grid_beta(rng, A_AT_VALUE, A_AT_VALUE, s), 0.0),
        ("bound: 50 % exactly 0.5, 50 % exactly 1.0", claim("at_value", target=0.5, tolerance=0.05),
         lambda rng, s: mix(rng, s, 0.5, fixed(GRID), fixed(GRID // 2)), 0.0),
        *[(f"mixture: {f:.0%} learn (near 1.0), the rest exactly 0.5 (share {1 - f:g})",
           claim("at_value", target=0.5, tolerance=0.05, share=round(1 - f, 2)),
           lambda rng, s, f=f: mix(rng, s, f, near_one, fixed(GRID // 2)), 0.0) for f in (0.05, 0.1, 0.3)],
        ("mixture: 50 % exactly 0.5, 20 % of runs diverged", claim("at_value", target=0.5, tolerance=0.05),
         lambda rng, s: mix(rng, s, 0.5, near_one, fixed(GRID // 2)), 0.2),
    ],
    "not_worse": [
        ("unimodal: binomial differences, median at -margin", claim("not_worse", margin=0.02),
         lambda rng, s: rng.binomial(41, 0.5, s) - 27, 0.0),  # symmetric about -6.5 / 300
        ("bound: 50 % tied at 1.0, 50 % the other level exactly 0.5", claim("not_worse", margin=0.02),
         lambda rng, s: mix(rng, s, 0.5, fixed(-GRID // 2), fixed(0)), 0.0),
        *[(f"mixture: the other level fails at chance in {f:.0%} (share {1 - f:g})",
           claim("not_worse", margin=0.02, share=round(1 - f, 2)),
           lambda rng, s, f=f: paired(rng, s, f), 0.0) for f in (0.05, 0.1, 0.3)],
    ],
    "equivalent": [
        ("unimodal: Beta differences, half within the margin", claim("equivalent", margin=0.02),
         lambda rng, s: np.rint(GRID * (2 * rng.beta(A_EQUIVALENT, A_EQUIVALENT, s) - 1)).astype(int), 0.0),
        ("bound: 50 % tied at 1.0, 50 % one level exactly 0.5", claim("equivalent", margin=0.02),
         lambda rng, s: mix(rng, s, 0.5, lambda r, z: sign(r, z, GRID // 2), fixed(0)), 0.0),
        *[(f"mixture: the other level fails at chance in {f:.0%} (share {1 - f:g})",
           claim("equivalent", margin=0.02, share=round(1 - f, 2)),
           lambda rng, s, f=f: paired(rng, s, f), 0.0) for f in (0.05, 0.1, 0.3)],
    ],
    "better": [  # ties count: P(difference > 0) = 1/2, ties among the non-improvements
        ("ties count, unimodal: Binomial(40, p) - 20, P(> 0) = 1/2 (ties at 0)", claim("better"),
         lambda rng, s: rng.binomial(40, P_BETTER_UNIMODAL, s) - 20, 0.0),
        ("ties count, bound: 50 % +0.5, 30 % tied at 1.0, 20 % -0.5", claim("better"),
         lambda rng, s: three_point(rng, s, 0.5, 0.3), 0.0),
        *[(f"ties count, mixture: other fails at chance in {f:.0%}, baseline tuned", claim("better"),
           lambda rng, s, f=f: mixed_levels(rng, s, base_fail_at_null(f), f), 0.0) for f in (0.05, 0.3)],
        # ties exclude: P(improve | changed) = 1/2, the sign test over the seeds that changed
        ("ties exclude, unimodal: symmetric binomial differences (ties at 0)", claim("better", ties="exclude"),
         lambda rng, s: rng.binomial(40, 0.5, s) - 20, 0.0),
        ("ties exclude, bound: 60 % tied at 1.0, 20 % +0.5, 20 % -0.5", claim("better", ties="exclude"),
         lambda rng, s: mix(rng, s, 0.4, lambda r, z: sign(r, z, GRID // 2), fixed(0)), 0.0),
        *[(f"ties exclude, mixture: each level fails at chance in {f:.0%}, else at or near 1.0",
           claim("better", ties="exclude"), lambda rng, s, f=f: exchangeable(rng, s, f), 0.0)
          for f in (0.05, 0.1, 0.3)],
    ],
}  # fmt: skip


def draw(rng, sampler, diverged: float, size):
    """Units (sims, ..., seeds) as the claims rule sees them: [lo, hi] per seed, on the grid; a
    diverged run's value is unknown, the whole range."""
    units = sampler(rng, size) / GRID
    lo, hi = units.copy(), units.copy()
    if diverged:
        div = rng.random(size) < diverged
        lo[div], hi[div] = 0.0, 1.0
    return units, lo, hi


# --------------------------------------------------------------------------- the rules, vectorised


def share_rule(c: kinds.Claim, lo: np.ndarray, hi: np.ndarray, sequential: bool = False, looks=None):
    """(p_sup, p_con) per simulated cell on all its seeds (seeds on the last axis): the claims table's
    own test (``verdicts.p_values``: the exact share test, or with ``sequential`` the e-process an
    adaptive study uses, read at the round ends of ``looks``)."""
    return verdicts.p_values(c, c.parts[0], lo, hi, 1 / GRID, sequential, ALPHA, looks)


def looks_at(schedule: list[int], n: int) -> seedtests.Looks:
    """The looks of an adaptive design whose rounds end at ``schedule`` (its seeds, then its batch a
    round to max_seeds), on its first ``n`` seeds: what ``verdicts.looks_of`` gives the claims table."""
    batch = schedule[1] - schedule[0] if len(schedule) > 1 else 1
    return seedtests.Looks.schedule(schedule[0], batch, schedule[-1], n)


def over_cells(p_sup, p_con):
    """cells: every, cells on the last axis: the claims table's ``combine`` (SUPPORTED in every cell,
    the largest p; CONTRADICTED in one, Bonferroni)."""
    sup, con, _ = verdicts.combine(np.moveaxis(p_sup, -1, 0)[:, None], np.moveaxis(p_con, -1, 0)[:, None])
    return sup, con


PAIRED = tuple(name for name, kind in kinds.CLAIM_KINDS.items() if issubclass(kind, kinds.Comparison))
JUDGE = verdicts.Judge.of(CFG)


def runs(df: pd.DataFrame, design=None, claims=()) -> seed_units.StudyRuns:
    return seed_units.StudyRuns("s", df, tuple(FACTORS), None, design, tuple(claims))


_decided = np.frompyfunc(lambda s, c: verdicts.decided(float(s), float(c), verdicts.HolmStep(), ALPHA), 2, 1)


def wrong_rates(p_sup, p_con) -> tuple[float, float]:
    """Under a boundary null every decisive verdict is wrong: the rates of SUPPORTED and of
    CONTRADICTED, each verdict from ``verdicts.decided`` (a claim alone in its family)."""
    verdict = _decided(p_sup, p_con)
    return float(np.mean(verdict == "SUPPORTED")), float(np.mean(verdict == "CONTRADICTED"))


# --------------------------------------------------------------------------- summaries for the engine


def summary(units, diverged=None, kind: str = "at_least") -> pd.DataFrame:
    """Runs whose seed units are ``units`` (cells, seeds) in 1 / GRID steps: test_correct per run,
    or for a paired kind the difference other - baseline (baseline at 1.0 where it can be)."""
    units = np.atleast_2d(np.rint(np.asarray(units) * GRID).astype(int))
    diverged = np.zeros(units.shape, dtype=bool) if diverged is None else np.atleast_2d(diverged)
    rows = []

    def run(cell, level, seed, correct, status="ok"):
        rows.append(dict(run_id=f"r{len(rows)}", seed=seed, cell=f"c{cell}", norm=level, status=status,
                         test_correct=correct, test_total=GRID, test_acc=correct / GRID if status == "ok" else np.nan,
                         final_train_acc=1.0))  # fmt: skip

    for (cell, seed), u in np.ndenumerate(units):
        if kind in PAIRED:
            base = GRID - max(u, 0)
            run(cell, LEVELS[0], seed, base)
            run(cell, LEVELS[1], seed, base + u)
        else:
            run(cell, LEVELS[0], seed, u, "diverged" if diverged[cell, seed] else "ok")
    return pd.DataFrame(rows)


def engine_p(c: dict, df: pd.DataFrame, design=None) -> tuple[float, float]:
    r = verdicts.claim_test(c, runs(df, design), JUDGE)
    return r.p_sup, r.p_con


def evaluate(c: dict, df: pd.DataFrame, design=None) -> pd.Series:
    """The claim's row of the report (alone in its family)."""
    out = C.evaluate_family([runs(df, design, [c])], CFG)
    return out.iloc[0]


# --------------------------------------------------------------------------- the share estimand


@pytest.mark.parametrize("kind", list(SHARE_NULLS))
def test_share_rule_keeps_alpha_at_the_boundary_null(kind):
    """Share of seeds meeting the condition exactly at `share`: each wrong verdict's rate <= alpha
    + 3 MC se, for every seed distribution, 5 and 10 seeds (``better``: with ties counted the share
    of seeds above 0 at 1/2; with ``ties: exclude`` the sign test over the seeds that changed)."""
    rows = []
    for i, (name, c, sampler, diverged) in enumerate(SHARE_NULLS[kind]):
        for n in SEEDS:
            rng = np.random.default_rng([1, i, n])
            units, lo, hi = draw(rng, sampler, diverged, (SIMS, n))
            # the distribution sits on the boundary: the seeds meeting the condition are `share`
            cond = c.parts[0].condition
            if cond.ties:  # ties: exclude: as many seeds improve as worsen
                plus, minus = np.mean(units > 0), np.mean(units < 0)
                assert abs(plus - minus) < 4 * np.sqrt((plus + minus) / units.size), name
            else:
                met = np.mean(cond.sure(units, units))
                assert abs(met - c.share) < 4 * np.sqrt(c.share * (1 - c.share) / units.size), name
            sup, con = wrong_rates(*share_rule(c, lo, hi))
            rows.append((name, n, SIMS, sup, con))
    table(f"share estimand, {kind}: boundary nulls", rows)
    for name, n, sims, sup, con in rows:
        assert sup <= limit(sims), (name, n, sup)
        assert con <= limit(sims), (name, n, con)


def cell_nulls():
    """cells: every over 6 cells, at_least 0.9, share 1/2: (name, sampler of (sims, cells, seeds))."""

    def independent(rng, size):
        return mix(rng, size, 0.5, chance, near_one)

    def shared_fate(rng, size):  # a seed that learns in one cell learns in every cell
        learns = rng.random(size[:1] + (1,) + size[2:]) < 0.5
        return np.where(learns, near_one(rng, size), chance(rng, size))

    def one_open(rng, size):  # one cell on the boundary, every seed learning in the others
        out = near_one(rng, size)
        out[:, 0] = independent(rng, out[:, 0].shape)
        return out

    return [
        ("6 cells on the boundary, seeds independent across cells", independent),
        ("6 cells on the boundary, a seed's fate shared by its cells", shared_fate),
        ("1 cell on the boundary, every seed learns in the other 5", one_open),
    ]


def test_every_cell_rule_keeps_alpha_over_six_cells():
    """Intersection-union for SUPPORTED (the largest p over 6 cells) and Bonferroni for
    CONTRADICTED (6 x the smallest): each wrong verdict's rate <= alpha + 3 MC se, where every cell
    sits on the boundary (seeds independent across cells or sharing their fate) and where only
    one does (the least favourable case for the intersection-union test)."""
    c = claim("at_least", threshold=0.9)
    rows = []
    for i, (name, sampler) in enumerate(cell_nulls()):
        for n in SEEDS:
            units = sampler(np.random.default_rng([2, i, n]), (SIMS, CELLS, n)) / GRID
            sup, con = wrong_rates(*over_cells(*share_rule(c, units, units)))
            rows.append((name, n, SIMS, sup, con))
    table("share estimand, cells: every over 6 cells (at_least 0.9)", rows)
    for name, n, sims, sup, con in rows:
        assert sup <= limit(sims), (name, n, sup)
        assert con <= limit(sims), (name, n, con)


# --------------------------------------------------------------------------- the mean estimand


def binomial_diff(n_a, p_a, n_b, p_b):
    return lambda rng, s: rng.binomial(n_b, p_b, s) - rng.binomial(n_a, p_a, s)


def learners_with_mean(mu: float):
    """Seeds near 1.0 with mean accuracy exactly ``mu``: GRID - Binomial(60, p)."""
    p = GRID * (1 - mu) / 60
    return lambda rng, s: GRID - rng.binomial(60, p, s)


# (name, claim, sampler): the mean over seeds exactly on the claim's boundary
MEAN_NULLS = {
    "at_least": [
        ("binomial: Binomial(300, 0.9) / 300", claim("at_least", threshold=0.9, estimand="mean", test="betting"),
         lambda rng, s: rng.binomial(GRID, 0.9, s)),
        ("bound: 80 % exactly 1.0, 20 % exactly 0.5", claim("at_least", threshold=0.9, estimand="mean", test="betting"),
         lambda rng, s: mix(rng, s, 0.2, fixed(GRID // 2), fixed(GRID))),
        *[(f"mixture: {f:.0%} fail at chance, the rest near 1.0", claim("at_least", threshold=0.9, estimand="mean", test="betting"),
           lambda rng, s, f=f: mix(rng, s, f, chance, learners_with_mean((0.9 - f / 2) / (1 - f)))) for f in (0.05, 0.1)],
        ("bound: 50 % exactly 1.0, 50 % exactly 0.5, threshold 0.75", claim("at_least", threshold=0.75, estimand="mean", test="betting"),
         lambda rng, s: mix(rng, s, 0.5, fixed(GRID // 2), fixed(GRID))),
        ("bound: every seed exactly 1.0, threshold 1.0", claim("at_least", threshold=1.0, estimand="mean", test="betting"),
         fixed(GRID)),
    ],
    "at_value": [  # on the band's top
        ("binomial: Binomial(300, 0.55) / 300", claim("at_value", target=0.5, tolerance=0.05, estimand="mean", test="betting"),
         lambda rng, s: rng.binomial(GRID, 0.55, s)),
        ("bound: 90 % exactly 0.5, 10 % exactly 1.0", claim("at_value", target=0.5, tolerance=0.05, estimand="mean", test="betting"),
         lambda rng, s: mix(rng, s, 0.1, fixed(GRID), fixed(GRID // 2))),
        ("mixture: 80 % exactly 0.5, 20 % half-learn at 0.75", claim("at_value", target=0.5, tolerance=0.05, estimand="mean", test="betting"),
         lambda rng, s: mix(rng, s, 0.2, lambda r, z: r.binomial(GRID, 0.75, z), fixed(GRID // 2))),
        ("bound: 50 % exactly 0.5, 50 % exactly 1.0, band 0.5 ± 0.25", claim("at_value", target=0.5, tolerance=0.25, estimand="mean", test="betting"),
         lambda rng, s: mix(rng, s, 0.5, fixed(GRID), fixed(GRID // 2))),
    ],
    "not_worse": [  # -margin, -0.1
        ("binomial: Binomial(300, 0.85) - Binomial(300, 0.95)", claim("not_worse", margin=0.1, estimand="mean", test="betting"),
         binomial_diff(GRID, 0.95, GRID, 0.85)),
        ("bound: 80 % tied at 1.0, 20 % the other level exactly 0.5", claim("not_worse", margin=0.1, estimand="mean", test="betting"),
         lambda rng, s: mix(rng, s, 0.2, fixed(-GRID // 2), fixed(0))),
        ("mixture: the other level fails at chance in 10 %", claim("not_worse", margin=0.1, estimand="mean", test="betting"),
         lambda rng, s: mix(rng, s, 0.1, lambda r, z: chance(r, z) - GRID,
                            lambda r, z: learners_with_mean(1 - 0.05 / 0.9)(r, z) - GRID)),
    ],
    "equivalent": [  # +margin, 0.02
        ("binomial: Binomial(60, 0.6) - 30 (mean 6 / 300)", claim("equivalent", margin=0.02, estimand="mean", test="betting"),
         lambda rng, s: rng.binomial(60, 0.6, s) - 30),
        ("bound: 96 % tied at 1.0, 4 % the baseline exactly 0.5", claim("equivalent", margin=0.02, estimand="mean", test="betting"),
         lambda rng, s: mix(rng, s, 0.04, fixed(GRID // 2), fixed(0))),
    ],
    "better": [  # 0
        ("binomial: Binomial(40, 1/2) - 20", claim("better", estimand="mean", test="betting"), lambda rng, s: rng.binomial(40, 0.5, s) - 20),
        ("bound: 60 % tied at 1.0, 20 % +0.5, 20 % -0.5", claim("better", estimand="mean", test="betting"),
         lambda rng, s: mix(rng, s, 0.4, lambda r, z: sign(r, z, GRID // 2), fixed(0))),
        ("mixture: each level fails at chance in 10 %", claim("better", estimand="mean", test="betting"),
         lambda rng, s: exchangeable(rng, s, 0.1)),
    ],
}  # fmt: skip


def mean_rule(c: kinds.Claim, lo: np.ndarray, hi: np.ndarray, looks=None) -> tuple[np.ndarray, np.ndarray]:
    """(p_sup, p_con) on all the seeds (seeds on the last axis): the claims table's own mean test of a
    claim with ``test: betting`` (``verdicts.p_values`` with the estimand mean: ``seedtests.mean_p`` on
    the claim's band and bounds): a fixed design's one look after its seeds, or (``looks``) an adaptive
    design's looks at its round ends. (The mean's t-test: tests/simulation/test_mean_test_simulation.py.)"""
    return verdicts.p_values(c, c.parts[0], lo, hi, 1 / GRID, looks is not None, ALPHA, looks)


@pytest.mark.parametrize("kind", list(MEAN_NULLS))
def test_mean_rule_keeps_alpha_at_the_boundary_null(kind):
    """Estimand mean with ``test: betting`` (the e-process of ``seedtests.mean_p``): the mean over seeds exactly on
    the boundary, seeds unimodal, bound-touching or mixed: each wrong verdict's rate <= alpha + 3 MC
    se on 5 and on 10 seeds (a fixed design's one look), and over the adaptive rounds (10 seeds, +5 a
    round to 40, read at the round ends, stopping at the first decisive look)."""
    rows = []
    for i, (name, c, sampler) in enumerate(MEAN_NULLS[kind]):
        lo_b, hi_b = c.parts[0].condition.band
        big = sampler(np.random.default_rng([3, i]), (400, 500)) / GRID  # the mean is on the boundary
        assert min(abs(big.mean() - lo_b), abs(big.mean() - hi_b)) <= 4 * big.std() / np.sqrt(big.size) + 1e-12, name
        units = sampler(np.random.default_rng([3, i, 1]), (MEAN_SIMS, SCHEDULE[-1])) / GRID
        for n in SEEDS:
            rows.append((name, str(n), MEAN_SIMS, *wrong_rates(*mean_rule(c, units[:, :n], units[:, :n]))))
        verdict = rounds(lambda n: mean_rule(c, units[:, :n], units[:, :n], looks_at(SCHEDULE, n)))
        rows.append((name, "rounds", MEAN_SIMS, *(np.mean(verdict == v) for v in ("SUPPORTED", "CONTRADICTED"))))
    table(f"mean estimand, {kind}: boundary nulls", rows)
    for name, n, sims, sup, con in rows:
        assert sup <= limit(sims), (name, n, sup)
        assert con <= limit(sims), (name, n, con)


# --------------------------------------------------------------------------- adaptive rounds

ADAPTIVE_NULLS = [
    ("at_least 0.9: 50 % fail at chance", claim("at_least", threshold=0.9),
     lambda rng, s: mix(rng, s, 0.5, chance, near_one)),
    ("at_least 0.9, share 0.7: 30 % fail at chance", claim("at_least", threshold=0.9, share=0.7),
     lambda rng, s: mix(rng, s, 0.3, chance, near_one)),
    ("at_value 0.5: 50 % exactly 0.5, 50 % learn", claim("at_value", target=0.5, tolerance=0.05),
     lambda rng, s: mix(rng, s, 0.5, near_one, fixed(GRID // 2))),
    ("better, ties exclude: each level fails at chance in 30 % (ties)", claim("better", ties="exclude"),
     lambda rng, s: exchangeable(rng, s, 0.3)),
    ("better, ties count: other fails at chance in 30 %, P(> 0) = 1/2", claim("better"),
     lambda rng, s: mixed_levels(rng, s, base_fail_at_null(0.3), 0.3)),
]  # fmt: skip


def rounds(p_at, schedule=SCHEDULE) -> np.ndarray:
    """The verdict of each simulated claim on ``schedule``: the first look whose verdict is decisive,
    else INCONCLUSIVE; ``p_at(n)``: (p_sup, p_con) per simulation on the first n seeds. (The rounds
    also stop a claim that can no longer resolve; looking on instead can only add wrong verdicts.)"""
    verdict = None
    for n in schedule:
        at = _decided(*p_at(n))
        verdict = at if verdict is None else np.where(verdict == "INCONCLUSIVE", at, verdict)
    return verdict


def test_adaptive_rounds_keep_alpha_and_retesting_the_binomial_does_not():
    """The rounds (10 seeds, +5 a round to 40, stop at the first look with p <= alpha) with
    ``share_p_sequential`` read at the round ends: each wrong verdict's rate <= alpha + 3 MC se. Re-testing the fixed-n
    binomial after every round on the same seeds: its wrong rate exceeds alpha + 3 MC se, for
    SUPPORTED and for CONTRADICTED."""
    rows, naive_rows = [], []
    for i, (name, c, sampler) in enumerate(ADAPTIVE_NULLS):
        units = sampler(np.random.default_rng([4, i]), (SIMS, SCHEDULE[-1])) / GRID
        verdict = rounds(lambda n: share_rule(c, units[:, :n], units[:, :n], True, looks_at(SCHEDULE, n)))
        rows.append((name, "rounds", SIMS, *(np.mean(verdict == v) for v in ("SUPPORTED", "CONTRADICTED"))))
        naive = rounds(lambda n: share_rule(c, units[:, :n], units[:, :n]))
        naive_rows.append((name, "rounds", SIMS, *(np.mean(naive == v) for v in ("SUPPORTED", "CONTRADICTED"))))
    table(f"adaptive rounds {'/'.join(map(str, SCHEDULE))}, share_p_sequential", rows)
    table(f"naive rounds {'/'.join(map(str, SCHEDULE))}, the fixed-n binomial re-tested", naive_rows)
    for name, n, sims, sup, con in rows:
        assert sup <= limit(sims), (name, sup)
        assert con <= limit(sims), (name, con)
    for name, n, sims, sup, con in naive_rows:
        assert sup > limit(sims) and con > limit(sims), (name, sup, con)


_DEFAULT = ablation_config.load(Path(__file__).resolve().parents[2] / "config" / "config.yaml")
DEFAULT_SCHEDULES = {  # the looks of each adaptive study of config/config.yaml: its seeds, + batch, to max_seeds
    name: list(range(len(study.seeds), block["max_seeds"], block["batch"])) + [block["max_seeds"]]
    for name, study in _DEFAULT.studies.items()
    if (block := design.adaptive_block(_DEFAULT.raw["studies"][name])) is not None
}
FRAGILE_SIMS = SIMS
HOLM_SIMS = 4000  # the pair of claims' Holm rounds, one decided() per look and claim


def test_the_default_configs_rounds_keep_alpha():
    """The rounds of config/config.yaml (each adaptive study's seeds, then its batch a round to its
    max_seeds), each claim alone: each wrong verdict's rate <= alpha + 3 MC se under every adaptive
    null."""
    rows = []
    for study, schedule in DEFAULT_SCHEDULES.items():
        for i, (name, c, sampler) in enumerate(ADAPTIVE_NULLS):
            units = sampler(np.random.default_rng([6, i, schedule[0]]), (SIMS, schedule[-1])) / GRID
            verdict = rounds(lambda n: share_rule(c, units[:, :n], units[:, :n], True, looks_at(schedule, n)), schedule)
            rows.append((f"{study}: {name}", "/".join(map(str, schedule)), SIMS,
                         *(np.mean(verdict == v) for v in ("SUPPORTED", "CONTRADICTED"))))  # fmt: skip
    table("the default config's adaptive rounds, share_p_sequential", rows)
    for name, n, sims, sup, con in rows:
        assert sup <= limit(sims) and con <= limit(sims), (name, sup, con)


def fragile_rounds(c: dict, units: np.ndarray, schedule: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The rounds as ``adaptive.evaluate`` runs them with the fragile rule: a claim stops when its
    verdict is decisive and at least ``ROBUST`` of its leave-one-seed-out evaluations (the claims
    rule on the other seeds) give that verdict; a decisive verdict below that keeps getting seeds
    while the schedule allows. Returns (verdict at the claim's last look, whether it was ever fragile)."""
    S = units.shape[0]
    verdict = np.full(S, "INCONCLUSIVE", dtype=object)
    was_fragile = np.zeros(S, dtype=bool)
    open_ = np.ones(S, dtype=bool)
    for n in schedule:
        idx = np.flatnonzero(open_)
        x = units[idx, :n]
        looks = looks_at(schedule, n)
        verdict[idx] = _decided(*share_rule(c, x, x, True, looks))
        decisive = idx[verdict[idx] != "INCONCLUSIVE"]
        if decisive.size:
            keep = ~np.eye(n, dtype=bool)  # row j: every seed but seed j, in seed order
            loo = units[decisive, :n][:, np.nonzero(keep)[1].reshape(n, n - 1)]  # (claims, n, n - 1)
            # without seed j its round is a seed shorter (the claims table places seeds by their number)
            again = np.stack([_decided(*share_rule(c, loo[:, j], loo[:, j], True, seedtests.Looks(
                looks.rounds[:j] + looks.rounds[j + 1:], looks.count))) for j in range(n)], axis=1)
            robust = np.mean(again == verdict[decisive][:, None], axis=1) >= ROBUST
            was_fragile[decisive[~robust]] = True
            open_[decisive[robust]] = False
    return verdict, was_fragile


def test_fragile_verdicts_that_keep_getting_seeds_keep_alpha():
    """The default config's rounds with the fragile rule (a decisive verdict that fewer than 80 % of
    the leave-one-seed-out evaluations repeat gets more seeds, to max_seeds): under every adaptive
    null each wrong verdict's rate, read at the claim's last look, stays within alpha + 3 MC se. The
    e-process's p only falls as seeds arrive, so looking on cannot undo a verdict; it can only add
    the other one, which Ville's inequality bounds at every look."""
    rows, fragile = [], 0
    for study, schedule in DEFAULT_SCHEDULES.items():
        for i, (name, c, sampler) in enumerate(ADAPTIVE_NULLS):
            units = sampler(np.random.default_rng([8, i, schedule[0]]), (FRAGILE_SIMS, schedule[-1])) / GRID
            verdict, was_fragile = fragile_rounds(c, units, schedule)
            fragile += int(was_fragile.sum())
            rows.append((f"{study}: {name}", "/".join(map(str, schedule)), FRAGILE_SIMS,
                         *(np.mean(verdict == v) for v in ("SUPPORTED", "CONTRADICTED"))))  # fmt: skip
    table("the default config's rounds with the fragile rule", rows)
    assert fragile > 0  # the rule acted: some decisive verdicts were fragile and got more seeds
    for name, n, sims, sup, con in rows:
        assert sup <= limit(sims) and con <= limit(sims), (name, sup, con)


def test_rounds_at_holm_keep_alpha_for_the_claim_on_its_boundary():
    """Two claims in one study's family, decided round by round as ``adaptive.evaluate`` decides them
    (``verdicts.holm_steps`` and ``decided`` on the p-values so far): one plainly true (every seed
    meets it), one on its boundary null (half the seeds fail at chance), on rounds of 10 seeds, +5 to
    40. The true claim passes Holm's first step at once, so the other is judged at alpha:
    its wrong verdicts stay within alpha + 3 MC se."""
    null_c, sampler = ADAPTIVE_NULLS[0][1], ADAPTIVE_NULLS[0][2]
    units = sampler(np.random.default_rng(7), (HOLM_SIMS, SCHEDULE[-1])) / GRID
    ones = np.ones(SCHEDULE[0])
    true_p = float(seedtests.share_p_sequential(ones, ones, ones.astype(bool), 0.5, ALPHA)[0])
    verdict = np.full(HOLM_SIMS, "INCONCLUSIVE", dtype=object)
    # the e-process on 0/1 outcomes takes few distinct p-values: one Holm step-down per pair of them
    # (statsmodels' multipletests, which holm_steps calls, collects garbage on every call)
    step_of = functools.cache(lambda p: verdicts.holm_steps([true_p, p])[1])
    for n in SCHEDULE:
        p_sup, p_con = share_rule(null_c, units[:, :n], units[:, :n], True, looks_at(SCHEDULE, n))
        for s in np.flatnonzero(verdict == "INCONCLUSIVE"):
            ps, pc = float(p_sup[s]), float(p_con[s])
            verdict[s] = verdicts.decided(ps, pc, step_of(min(ps, pc)), ALPHA)
    rates = [float(np.mean(verdict == v)) for v in ("SUPPORTED", "CONTRADICTED")]
    table("Holm rounds: the boundary-null claim beside a plainly true one", [("at_least 0.9, 50 % fail", "rounds", HOLM_SIMS, *rates)])
    assert true_p <= ALPHA / 2
    assert max(rates) <= limit(HOLM_SIMS), rates


# --------------------------------------------------------------------------- the rules are the engine's


def test_the_simulated_rules_are_the_claims_rules():
    """On summaries built from simulated seeds, ``verdicts.claim_test`` gives the p-values the
    simulations use: every share and mean null (one cell), the 6-cell nulls, and the adaptive
    rounds' looks (``share_p_sequential`` or ``mean_p`` on the first n seeds, read at the design's
    round ends)."""
    cases = [(c, s, d, 1) for nulls in SHARE_NULLS.values() for _, c, s, d in nulls]
    cases += [(c, s, 0.0, 1) for nulls in MEAN_NULLS.values() for _, c, s in nulls]
    cases += [(claim("at_least", threshold=0.9), s, 0.0, CELLS) for _, s in cell_nulls()]
    rng = np.random.default_rng(5)
    for c, sampler, diverged, cells in cases:
        for n in SEEDS:
            size = (1, CELLS, n) if cells > 1 else (1, n)
            units, lo, hi = draw(rng, sampler, diverged, size)
            if c.estimand == "mean":
                want = np.stack(mean_rule(c, lo, hi), -1)  # a fixed design: one look
            elif cells > 1:
                want = np.stack(over_cells(*share_rule(c, lo, hi)), -1)
            else:
                want = np.stack(share_rule(c, lo, hi), -1)
            div = (lo[0] != hi[0]) if diverged else None
            got = engine_p(c, summary(units[0], div, c.kind.name))
            assert got == pytest.approx(tuple(want[0]), rel=1e-12, abs=1e-15), (c, units[0])
    rounds_cases = [(c, s, True) for _, c, s in ADAPTIVE_NULLS]
    rounds_cases += [(c, s, False) for nulls in MEAN_NULLS.values() for _, c, s in nulls]
    for c, sampler, share in rounds_cases:
        units = sampler(rng, (1, SCHEDULE[-1])) / GRID
        design = {"seeds": list(range(SCHEDULE[0])), "max_seeds": SCHEDULE[-1], "batch": 5}
        for n in (SCHEDULE[0], SCHEDULE[3], SCHEDULE[-1]):
            x = units[:, :n]
            looks = looks_at(SCHEDULE, n)
            p_sup, p_con = share_rule(c, x, x, True, looks) if share else mean_rule(c, x, x, looks)
            got = engine_p(c, summary(units[0, :n], kind=c.kind.name), design)
            assert got == pytest.approx((p_sup[0], p_con[0]), rel=1e-12, abs=1e-15), (c, n)


# --------------------------------------------------------------------------- seeds on the bound


BOUND_CLAIMS = [
    claim("at_least", threshold=0.9), claim("at_least", threshold=1.0),
    claim("at_value", target=0.99, tolerance=0.01), claim("at_value", target=1.0, tolerance=0.0),
]  # fmt: skip


@pytest.mark.parametrize("n", [2, 3, 5, 10])
def test_seeds_all_at_the_bound_give_no_p_below_half_to_the_n(n):
    """n seeds all at 1.0 (300 / 300), every one meeting the claim: no rule reports a p below 1/2^n,
    the exact limit for n exchangeable seeds at share 1/2 (the exact share test reaches it), and
    none calls the claim CONTRADICTED -- fixed design (share, mean) and adaptive rounds."""
    df = summary(np.full(n, 1.0))
    design = {"seeds": list(range(n)), "max_seeds": n + 5, "batch": 5}
    for c in BOUND_CLAIMS:
        for estimand, adaptive in (("share", None), ("share", design), ("mean", None)):
            row = evaluate(with_estimand(c, estimand), df, adaptive)
            where = (c.kind.name, c.keys.get("threshold", c.keys.get("target")), estimand, bool(adaptive))
            assert row["p_value"] >= 0.5**n, where
            assert row["verdict"] != "CONTRADICTED", where
            if estimand == "share" and not adaptive:
                assert row["p_value"] == 0.5**n, where
                assert row["verdict"] == ("SUPPORTED" if 0.5**n <= ALPHA else "INCONCLUSIVE"), where


def step_cases():
    """Small summaries (correct counts per level and seed) and claims whose per-seed condition a
    seed at 300 / 300 moved to 299 / 300 may or may not cross."""
    one_level = [claim("at_least", threshold=t) for t in (0.9, 0.99, 1.0)] + [
        claim("at_value", target=t, tolerance=w) for t, w in ((0.99, 0.01), (0.5, 0.05), (1.0, 0.0))]  # fmt: skip
    pairs = [claim("not_worse", margin=m) for m in (0.0, 0.01)] + [claim("equivalent", margin=m) for m in (0.0, 0.01)]
    pairs.append(claim("better"))
    rng = np.random.default_rng(6)
    values = np.array([GRID, GRID, GRID, GRID - 1, GRID - 3, GRID - 20, GRID // 2])
    for c in one_level + pairs:
        levels = 2 if c.kind.name in PAIRED else 1
        for n in (4, 6, 7):
            yield c, rng.choice(values, (levels, n))


def runs_of(correct: np.ndarray) -> pd.DataFrame:
    rows = []
    for (level, seed), k in np.ndenumerate(correct):
        rows.append(dict(run_id=f"r{len(rows)}", seed=seed, cell="c0", norm=LEVELS[level], status="ok",
                         test_correct=int(k), test_total=GRID, test_acc=k / GRID, final_train_acc=1.0))  # fmt: skip
    return pd.DataFrame(rows)


def test_one_step_off_the_bound_moves_a_verdict_only_where_the_seed_crosses_its_condition():
    """A seed at 300 / 300 moved to 299 / 300 (either level of a paired claim): where it stays on
    the same side of the claim's per-seed condition, both p-values and the verdict are exactly
    unchanged (nothing rests on the value sitting at the bound); where it crosses, p moves only
    towards the side it crossed to, and an INCONCLUSIVE verdict can turn only that way."""
    same = crossed = 0
    for c, correct in step_cases():
        before = verdicts.claim_test(c, runs(runs_of(correct)), JUDGE)
        v0 = verdicts.decided(before.p_sup, before.p_con, verdicts.HolmStep(), ALPHA)
        for level, seed in zip(*np.nonzero(correct == GRID)):
            moved = correct.copy()
            moved[level, seed] -= 1
            after = verdicts.claim_test(c, runs(runs_of(moved)), JUDGE)
            v1 = verdicts.decided(after.p_sup, after.p_con, verdicts.HolmStep(), ALPHA)
            e0, e1 = before.evidence[0][0], after.evidence[0][0]
            gained, lost = e1.met - e0.met, (e1.n - e1.met) - (e0.n - e0.met)  # seeds meeting / failing
            where = (c.kind.name, correct.tolist(), (level, seed))
            if (gained, lost) == (0, 0):
                same += 1
                assert (after.p_sup, after.p_con, v1) == (before.p_sup, before.p_con, v0), where
                continue
            crossed += 1
            assert abs(gained) <= 1 and abs(lost) <= 1 and gained * lost <= 0, where  # one seed moved one way
            if gained >= 0 and lost <= 0:  # towards SUPPORTED
                assert after.p_sup <= before.p_sup and after.p_con >= before.p_con, where
                assert v0 != "INCONCLUSIVE" or v1 in ("INCONCLUSIVE", "SUPPORTED"), where
            else:
                assert after.p_sup >= before.p_sup and after.p_con <= before.p_con, where
                assert v0 != "INCONCLUSIVE" or v1 in ("INCONCLUSIVE", "CONTRADICTED"), where
    assert same > 50 and crossed > 20  # both kinds of move are exercised


# --------------------------------------------------------------------------- against library tests


def test_share_p_is_the_exact_one_sided_binomial_test():
    """``seedtests.share_p`` (one vectorised call) equals scipy's binomtest, greater for p_sup on
    the seeds that surely meet the condition, less for p_con on those that may, over n 1..25, every
    count and shares 0.05..0.95; no seed: p = 1 both ways."""
    shares = (0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95)
    rng = np.random.default_rng(7)
    grid = [(s, n, k, min(n, k + rng.integers(0, 3))) for s in shares for n in range(1, 26) for k in range(n + 1)]
    share, n, k_sure, k_possible = (np.array(col) for col in zip(*grid))
    p_sup, p_con = seedtests.share_p(k_sure, k_possible, n, share)
    want_sup = [sps.binomtest(int(k), int(m), s, alternative="greater").pvalue for s, m, k, _ in grid]
    want_con = [sps.binomtest(int(k), int(m), s, alternative="less").pvalue for s, m, _, k in grid]
    np.testing.assert_allclose(p_sup, want_sup, rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(p_con, want_con, rtol=1e-10, atol=1e-300)
    assert tuple(map(float, seedtests.share_p(0, 0, 0, 0.5))) == (1.0, 1.0)


def test_better_is_the_sign_test_with_ties_counted_or_left_out():
    """The ``better`` kind's p-values are scipy's binomtest, through ``claims.evaluate_family`` and
    ``claim_test``: with ties counted (the default) over every seed, a tie among the non-improvements
    (wins of n, share 1/2 or the claim's share); with ``ties: exclude`` over the seeds that changed
    (wins of wins + losses; no seed changed: p = 1 both ways)."""
    rng = np.random.default_rng(8)
    values = np.array([GRID, GRID, GRID - 1, GRID - 12, GRID // 2])
    for trial in range(40):
        n = int(rng.integers(3, 13))
        correct = rng.choice(values, (2, n))
        d = correct[1] - correct[0]
        wins, losses = int((d > 0).sum()), int((d < 0).sum())
        for share in (0.5, 0.3):
            for ties, counted in (("count", n), ("exclude", wins + losses)):
                c = claim("better", share=share, ties=ties)
                r = verdicts.claim_test(c, runs(runs_of(correct)), JUDGE)
                if counted:
                    want = (sps.binomtest(wins, counted, share, alternative="greater").pvalue,
                            sps.binomtest(wins, counted, share, alternative="less").pvalue)  # fmt: skip
                else:
                    want = (1.0, 1.0)
                assert (r.p_sup, r.p_con) == pytest.approx(want, rel=1e-12), (correct.tolist(), share, ties)
                assert (r.evidence[0][0].n, r.evidence[0][0].met) == (counted, wins)
                if trial < 5:
                    assert evaluate(c, runs_of(correct))["p_value"] == pytest.approx(min(want), rel=1e-12)


def test_holm_matches_statsmodels(monkeypatch):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    monkeypatch.setattr(gc, "collect", lambda *args: 0)  # multipletests collects garbage on every call
    rng = np.random.default_rng(9)
    for m in range(1, 13):
        for _ in range(30):
            p = np.where(rng.random(m) < 0.3, rng.choice([0.01, 0.02, 1.0], m), rng.uniform(0, 0.2, m))  # with ties
            np.testing.assert_allclose(significance.holm(p), multitest.multipletests(p, method="holm")[1], rtol=1e-12)
