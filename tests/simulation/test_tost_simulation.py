"""The betting mean test of a two-sided band (two one-sided tests) and of a one-sided one keep alpha, by
simulation, and what the betting mean test costs in seeds. (The default mean test, the t-test with its
assumption checked: tests/simulation/test_mean_test_simulation.py.)

``estimand: mean`` with ``test: betting`` on ``equivalent`` puts the mean paired difference over seeds to
the betting e-process of ``seedtests.mean_p``: SUPPORTED is "-margin < mean < +margin", the larger of the two
one-sided p-values (a TOST: both sides must hold); CONTRADICTED is "mean outside the band",
Bonferroni over the two sides. On ``not_worse`` it is one of them: SUPPORTED "mean > -margin",
CONTRADICTED "mean < -margin". Per-seed differences are bounded in [-1, 1] on the grid k / 300.

At a margin (mean exactly +margin or exactly -margin for ``equivalent``, exactly -margin for
``not_worse``) both verdicts are wrong; strictly inside the band (mean 0) CONTRADICTED is. The seed
distributions, each with the exact mean asked for: unimodal on the grid (Binomial(100, p) - 50),
bound-touching (mass at 0 -- both levels at 1.0 -- and at the extremes +-1 -- one level at 1.0, the
other at 0 -- or at the extremes alone) and mixtures (each level independently learns, at or a few
examples below 1.0, or fails at chance). Over 5, 10 and 20 seeds (the fixed design) and rounds
5/10/15/20 stopping at the first decisive look (the adaptive rule: a look after every seed, each
seed a round of its own); margins 0.02 and 0.1. The fixed design looks once, after its seeds. The
p-values are the pipeline's (``verdicts.p_values`` on claims built by ``ablation.config.check_claims``),
the verdicts ``verdicts.decided``; each wrong verdict's rate is asserted at most alpha + 3 Monte-Carlo
standard errors. ``test_seeds_the_mean_test_needs_when_every_seed_ties`` prints the price of the mean
test: how many seeds, every difference exactly 0, it needs to reach SUPPORTED per margin. Run with
``-s`` for the tables.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from ablation import config as ablation_config
from ablation import seed_units, verdicts

ALPHA = 0.05
GRID = 300
SIMS = 10_000
SEEDS = (5, 10, 20)
ROUNDS = (5, 10, 15, 20)
LONG_SIMS = 4000
LONG_ROUNDS = (20, 50, 100, 150, 200)  # long enough for SUPPORTED to be reachable (32 tied seeds at margin 0.1)
MARGINS = (0.02, 0.1)
FACTORS = ["cell", "norm"]
LEVELS = ["post", "pre"]
D = np.arange(-GRID, GRID + 1)


def limit(sims: int) -> float:
    """alpha plus three Monte-Carlo standard errors of a rate at alpha."""
    return ALPHA + 3 * np.sqrt(ALPHA * (1 - ALPHA) / sims)


def build(kind: str, margin: float):
    raw = {"id": f"c-{kind}", "statement": f"a {kind} claim", "source": "simulation", "kind": kind, "factor": "norm",
           "levels": LEVELS, "margin": margin, "estimand": "mean", "test": "betting"}  # fmt: skip
    return ablation_config.check_claims([raw], FACTORS, ["run_id", "test_acc", "test_total", "status"])[0]


# --------------------------------------------------------------------------- seed distributions: exact pmfs over D


def on_d(values, weights) -> np.ndarray:
    out = np.zeros(D.size)
    np.add.at(out, np.asarray(values) + GRID, weights)
    return out / np.sum(weights)


CHANCE = sps.binom.pmf(np.arange(GRID + 1), GRID, 0.5)  # mean 150
LEARN = np.zeros(GRID + 1)  # mean 299: at 1.0 or up to 10 examples short
LEARN[GRID - np.arange(11)] = sps.binom.pmf(np.arange(11), 10, 0.1)


def unimodal(t: int) -> tuple[str, np.ndarray]:
    p = (50 + t) / 100
    return f"unimodal: Binomial(100, {p:g}) - 50", on_d(np.arange(101) - 50, sps.binom.pmf(np.arange(101), 100, p))


def extremes(t: int, moving: float) -> tuple[str, np.ndarray]:
    """A share 1 - moving tied at 0 (both levels at 1.0), the rest at +-1 (one level at 1.0, the other
    at 0) in the shares that put the mean at t / GRID."""
    up, down = (moving + t / GRID) / 2, (moving - t / GRID) / 2
    what = "at +-1 only" if moving == 1 else f"{1 - moving:.0%} tied at 0, the rest at +-1"
    return f"bound: {what}", on_d([GRID, 0, -GRID], [up, 1 - moving, down])


def mixture(t: int) -> tuple[str, np.ndarray]:
    """Each level fails at chance independently, else learns: the mean difference is (fail_base -
    fail_other) * 149."""
    fb, fo = (0.1 + t / 149, 0.1) if t >= 0 else (0.1, 0.1 - t / 149)
    pmf = np.convolve(fo * CHANCE + (1 - fo) * LEARN, (fb * CHANCE + (1 - fb) * LEARN)[::-1])
    return f"mixture: baseline fails at chance in {fb:.1%}, other in {fo:.1%}", pmf


def distributions(mean: float) -> list[tuple[str, np.ndarray]]:
    t = int(round(mean * GRID))
    out = [unimodal(t), extremes(t, 0.2), extremes(t, 1.0), mixture(t)]
    for name, pmf in out:
        assert pmf.min() >= 0 and abs(pmf.sum() - 1) < 1e-12, name
        assert abs(np.dot(pmf, D) - t) < 1e-9, (name, np.dot(pmf, D), t)  # the mean exactly where asked
    return out


def sample(rng, pmf, size) -> np.ndarray:
    return D[rng.choice(D.size, size=size, p=pmf / pmf.sum())] / GRID


# --------------------------------------------------------------------------- the pipeline's rule


def verdict_of(c, d: np.ndarray, sequential: bool) -> np.ndarray:
    """``verdicts.decided`` on ``verdicts.p_values`` per simulated cell (seeds on the last axis)."""
    p_sup, p_con = verdicts.p_values(c, c.parts[0], d, d, 1 / GRID, sequential, ALPHA)
    pairs, inverse = np.unique(np.stack([p_sup, p_con], -1), axis=0, return_inverse=True)
    step = verdicts.HolmStep()
    each = np.array([verdicts.decided(float(s), float(q), step, ALPHA) for s, q in pairs], dtype=object)
    return each[inverse.ravel()]


def rounds(c, d: np.ndarray, looks) -> np.ndarray:
    """The verdict at the first decisive look (the adaptive rule), else INCONCLUSIVE."""
    verdict = None
    for n in looks:
        at = verdict_of(c, d[:, :n], True)
        verdict = at if verdict is None else np.where(verdict == "INCONCLUSIVE", at, verdict)
    return verdict


def rates(c, d: np.ndarray, long: np.ndarray) -> list[tuple[str, int, float, float]]:
    """(rule, sims, SUPPORTED rate, CONTRADICTED rate): at n = 5, 10, 20 (``d``: the fixed design),
    over rounds 5/10/15/20 and over long rounds to 200 seeds (``long``)."""
    out = []
    for n in SEEDS:
        v = verdict_of(c, d[:, :n], False)
        out.append((f"n={n}", len(d), float(np.mean(v == "SUPPORTED")), float(np.mean(v == "CONTRADICTED"))))
    for name, x, looks in (("rounds", d, ROUNDS), ("rounds to 200", long, LONG_ROUNDS)):
        v = rounds(c, x, looks)
        out.append((name, len(x), float(np.mean(v == "SUPPORTED")), float(np.mean(v == "CONTRADICTED"))))
    return out


CASES = [  # (kind, where the true mean sits, as a multiple of the margin, SUPPORTED wrong there)
    ("equivalent", 1.0, True),
    ("equivalent", -1.0, True),
    ("equivalent", 0.0, False),
    ("not_worse", -1.0, True),
    ("not_worse", 0.0, False),
]


@pytest.mark.parametrize("margin", MARGINS)
@pytest.mark.parametrize("kind, at, sup_wrong", CASES, ids=[f"{k}-mean {a:+g} margin" for k, a, _ in CASES])
def test_mean_test_keeps_alpha_at_the_margins_and_inside_the_band(kind, at, sup_wrong, margin):
    """Estimand mean on ``equivalent`` (TOST) and ``not_worse``: with the mean difference exactly at
    a margin, each wrong verdict's rate (SUPPORTED and CONTRADICTED) <= alpha + 3 MC se; with it
    strictly inside the band (0), the wrong CONTRADICTED's -- unimodal, bound-touching and mixed
    seeds, 5/10/20 seeds, the rounds to 20 seeds and long rounds to 200 (where SUPPORTED can be
    reached: the mean test needs 32 seeds, all tied, at margin 0.1)."""
    c = build(kind, margin)
    rows = []
    for i, (name, pmf) in enumerate(distributions(at * margin)):
        rng = np.random.default_rng([21, int(100 * margin), int(at) + 1, i, len(kind)])
        d, long = sample(rng, pmf, (SIMS, max(ROUNDS))), sample(rng, pmf, (LONG_SIMS, max(LONG_ROUNDS)))
        rows += [(name, *r) for r in rates(c, d, long)]
    where = f"mean {at * margin:+g}" + (" (a margin)" if sup_wrong else " (inside the band)")
    print(f"\n{kind} margin {margin}, estimand mean, {where}")
    for name, rule, sims, sup, con in rows:
        print(f"  {name:<58} {rule:<13} {sims:>5} sims: SUPPORTED {sup:.4f}{'' if sup_wrong else ' (right)'}  "
              f"CONTRADICTED {con:.4f} (limit {limit(sims):.4f})")  # fmt: skip
    worst = max(max(r[3] for r in rows) if sup_wrong else 0.0, max(r[4] for r in rows))
    print(f"  largest wrong rate: {worst:.4f}")
    for name, rule, sims, sup, con in rows:
        assert con <= limit(sims), (kind, margin, at, name, rule, con)
        assert not sup_wrong or sup <= limit(sims), (kind, margin, at, name, rule, sup)


def test_equivalent_mean_is_supported_only_when_both_one_sided_tests_are():
    """The TOST: an equivalent claim's p_sup (estimand mean) is the larger of not_worse's p_sup at
    -margin and the mirror image's at +margin (``not_worse`` on the negated differences), on the
    same seeds: exactly, for random seed values on the grid."""
    rng = np.random.default_rng(22)
    for margin in (0.02, 0.1):
        eq, nw = build("equivalent", margin), build("not_worse", margin)
        d = rng.integers(-40, 41, (500, 12)) / GRID
        eq_sup, _ = verdicts.p_values(eq, eq.parts[0], d, d, 1 / GRID, True, ALPHA)
        low, _ = verdicts.p_values(nw, nw.parts[0], d, d, 1 / GRID, True, ALPHA)
        high, _ = verdicts.p_values(nw, nw.parts[0], -d, -d, 1 / GRID, True, ALPHA)
        np.testing.assert_allclose(eq_sup, np.maximum(low, high), rtol=1e-12, atol=0)


# --------------------------------------------------------------------------- the price of the mean test


def tied_runs(n: int) -> pd.DataFrame:
    rows = [dict(run_id=f"r{seed}-{level}", seed=seed, cell="c0", norm=level, status="ok", test_correct=GRID,
                 test_total=GRID, test_acc=1.0, final_train_acc=1.0)
            for seed in range(n) for level in LEVELS]  # fmt: skip
    return pd.DataFrame(rows)


def first_supported(c, most: int = 400) -> int | None:
    """The fewest seeds, every difference exactly 0, whose mean test gives SUPPORTED (None: more
    than ``most``)."""
    zeros = np.zeros((1, most))
    for n in range(2, most + 1):
        p_sup, p_con = verdicts.p_values(c, c.parts[0], zeros[:, :n], zeros[:, :n], 1 / GRID, True, ALPHA)
        if verdicts.decided(float(p_sup[0]), float(p_con[0]), verdicts.HolmStep(), ALPHA) == "SUPPORTED":
            return n
    return None


def test_seeds_the_mean_test_needs_when_every_seed_ties():
    """The price of the mean test a plan prints: with every seed's difference exactly 0, the seeds an
    ``equivalent`` claim (estimand mean) needs for SUPPORTED, from ``verdicts.seeds_to_decide`` on 2
    tied seeds (every further seed at the band's centre, 0) and by growing the seeds directly, per
    margin 0.02, 0.05, 0.1; and a ``not_worse`` claim's, grown directly (its most favourable seed is
    +1, not 0). The number is finite, the same both ways, and falls as the margin widens."""
    judge = verdicts.Judge.of({"alpha": ALPHA})
    need = {}
    print("\nseeds the mean test needs for SUPPORTED, every seed's difference exactly 0")
    for margin in (0.02, 0.05, 0.1):
        eq = build("equivalent", margin)
        r = verdicts.claim_test(eq, seed_units.StudyRuns("s", tied_runs(2), tuple(FACTORS)), judge)
        more = verdicts.seeds_to_decide(eq, r, verdicts.HolmStep(), ALPHA, limit=400)["SUPPORTED"]
        direct = first_supported(eq)
        not_worse = first_supported(build("not_worse", margin))
        print(f"  margin {margin:<5}: equivalent {direct} seeds (seeds_to_decide: 2 + {more}), not_worse {not_worse}")
        assert more is not None and direct is not None and not_worse is not None, margin
        assert 2 + more == direct, (margin, more, direct)
        need[margin] = (direct, not_worse)
    for kind in (0, 1):
        counts = [need[m][kind] for m in sorted(need)]
        assert all(a > b for a, b in zip(counts, counts[1:])), counts  # fewer seeds for a wider margin
