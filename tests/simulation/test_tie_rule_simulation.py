"""The tie rule keeps each wrong verdict's rate at alpha, by simulation, and decides what ties decide.

A comparison's seed is judged on its paired difference, a tie (a difference of exactly 0) included:
with ``ties: count`` (the default) a tie did not improve (``better``), is not worse (``not_worse``)
and lies within the margin (``equivalent``); with ``ties: exclude`` a tie counts for neither verdict
(the claim speaks of the seeds that changed). So each tie rule has its own boundary null for the
share estimand (share 1/2): with ties counted P(a seed meets the condition) = 1/2, ties on their
side; with ties left out P(meets | changed) = 1/2. Differences are multiples of 1 / 300 (test
accuracies k / 300); every simulated seed difference is drawn from an exact pmf over -300..300
whose estimand sits exactly on the boundary (tuned with ``brentq`` on the exact pmf):

- ties-heavy: 40 or 50 % exact ties under ``count`` (a tie counts on one side, so a boundary null
  holds at most 1/2 of them) and 40 or 80 % under ``exclude``; the changed seeds meet the condition
  in the share that puts the estimand on the boundary;
- unimodal on the grid: Binomial(40, p) - 20, p tuned;
- bound-touching: each level exactly at 1.0 in many seeds (so exact ties) or at chance, the other
  level also exactly at 1.0 - margin (on the condition's edge);
- mixtures: each level independently learns (at or a few examples below 1.0) or fails at chance;
- all-tied cells: every seed tied. Under ``exclude`` nothing is left to decide, so any verdict is
  wrong; a ``cells: every`` claim of one all-tied cell and one cell on its boundary null is on its
  boundary under either rule (under ``count`` for ``better`` the all-tied cell makes the claim false,
  so only SUPPORTED is wrong there).

Claims: ``better``, ``not_worse`` (margin 0.02 and 0), ``equivalent`` (margin 0.02), each under both
tie rules, over 5, 10 and 20 seeds, with the fixed-design rule (the exact binomial test) and the
sequential rule of an adaptive study (the betting e-process, at each n and over rounds 5/10/15/20
stopping at the first decisive look). The p-values are the pipeline's (``verdicts.p_values`` on
claims built by ``ablation.config.check_claims``), the verdicts ``verdicts.decided``; each wrong
verdict's rate is asserted at most alpha + 3 Monte-Carlo standard errors. And the tie rule decides
what the evidence decides: a ``better`` claim whose every seed ties is CONTRADICTED from 5 seeds
under ``count`` and never decided under ``exclude``; ``not_worse`` and ``equivalent`` with margin 0
and every seed tied are SUPPORTED from 5 seeds. Run with ``-s`` for the table of measured rates.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy import stats as sps

from ablation import config as ablation_config
from ablation import seed_units, verdicts

ALPHA = 0.05
GRID = 300
SIMS = 10_000
SEEDS = (5, 10, 20)
ROUNDS = (5, 10, 15, 20)
FACTORS = ["cell", "norm"]
LEVELS = ["post", "pre"]  # [baseline, other]
D = np.arange(-GRID, GRID + 1)  # the differences other - baseline, in 1 / GRID


def limit(sims: int) -> float:
    """alpha plus three Monte-Carlo standard errors of a rate at alpha."""
    return ALPHA + 3 * np.sqrt(ALPHA * (1 - ALPHA) / sims)


def build(kind: str, ties: str, margin: float | None = None, **more):
    keys = {"id": f"c-{kind}", "statement": f"a {kind} claim", "source": "simulation", "kind": kind,
            "factor": "norm", "levels": LEVELS, "ties": ties, **more}  # fmt: skip
    if margin is not None:
        keys["margin"] = margin
    return ablation_config.check_claims([keys], FACTORS, ["run_id", "test_acc", "test_total", "status"])[0]


# (kind, margin in 1 / GRID): the claims simulated, under each tie rule
SPECS = {"better": ("better", None), "not_worse 0.02": ("not_worse", 6), "not_worse 0": ("not_worse", 0),
         "equivalent 0.02": ("equivalent", 6)}  # fmt: skip
TIES = ("count", "exclude")


def meets(kind: str, m: int | None, d) -> np.ndarray:
    """Whether a difference d (in 1 / GRID) meets the kind's per-seed condition, written out here
    from the kinds' table (not read from ``kinds``): above 0, at least -margin, within +- margin."""
    d = np.asarray(d)
    if kind == "better":
        return d > 0
    if kind == "not_worse":
        return d >= -m
    return np.abs(d) <= m


def estimand(kind: str, m, ties: str, pmf: np.ndarray) -> float:
    """The share the claim tests, from the exact pmf of d: P(meets) with ties counted, P(meets |
    changed) with ties left out."""
    met = meets(kind, m, D)
    if ties == "count":
        return float(pmf[met].sum())
    changed = D != 0
    return float(pmf[met & changed].sum() / pmf[changed].sum())


# --------------------------------------------------------------------------- exact pmfs


def point(k: int) -> np.ndarray:
    out = np.zeros(GRID + 1)
    out[k] = 1.0
    return out


AT1 = point(GRID)
CHANCE = sps.binom.pmf(np.arange(GRID + 1), GRID, 0.5)
LEARN = np.zeros(GRID + 1)  # a seed that learns: at 1.0 or up to 10 examples short (a third exactly at 1.0)
LEARN[GRID - np.arange(11)] = sps.binom.pmf(np.arange(11), 10, 0.1)


def diff_pmf(base: np.ndarray, other: np.ndarray) -> np.ndarray:
    """The pmf of other - baseline over D for independent levels (pmfs of test_correct)."""
    return np.convolve(other, base[::-1])


def on_d(values, weights) -> np.ndarray:
    out = np.zeros(D.size)
    np.add.at(out, np.asarray(values) + GRID, weights)
    return out / np.sum(weights)


def spread(start: int, sign: int) -> np.ndarray:
    """sign * (start + Binomial(20, 0.3)): changed seeds a few examples beyond ``start``."""
    k = np.arange(21)
    return on_d(sign * (start + k), sps.binom.pmf(k, 20, 0.3))


def met_and_failing(kind: str, m) -> tuple[np.ndarray, np.ndarray]:
    """Two pmfs of changed seeds (no tie): one that meets the condition, one that fails it."""
    if kind == "better":
        return spread(1, 1), spread(1, -1)
    if kind == "not_worse":
        within = [*range(-m, 0), *range(1, 11)]
        return on_d(within, np.ones(len(within))), spread(m + 1, -1)
    within = [*range(-m, 0), *range(1, m + 1)]
    return on_d(within, np.ones(len(within))), 0.5 * (spread(m + 1, 1) + spread(m + 1, -1))


def tuned(f, lo, hi) -> float:
    return optimize.brentq(f, lo, hi, xtol=1e-13, rtol=1e-14)


def ties_heavy(kind, m, ties, t: float) -> np.ndarray:
    """A share t of exact ties; the changed seeds meet the condition in the share q that puts the
    estimand at 1/2 (with ties counted they count on their side)."""
    tie_meets = float(meets(kind, m, 0))
    q = (0.5 - t * tie_meets) / (1 - t) if ties == "count" else 0.5
    assert 0 <= q <= 1, (kind, m, ties, t)
    met, failing = met_and_failing(kind, m)
    return t * on_d([0], [1.0]) + (1 - t) * (q * met + (1 - q) * failing)


def unimodal(kind, m, ties) -> tuple[str, np.ndarray]:
    def pmf(p):
        return on_d(np.arange(41) - 20, sps.binom.pmf(np.arange(41), 40, p))

    lo = 0.5 if kind == "equivalent" else 0.02  # equivalent: shifted off 0 until half lie within +-m
    p = tuned(lambda p: estimand(kind, m, ties, pmf(p)) - 0.5, lo, 0.98)
    return f"unimodal: Binomial(40, {p:.4f}) - 20", pmf(p)


def bound_touching(kind, m, ties) -> tuple[str, np.ndarray]:
    """Each level exactly at 1.0 or at chance; the other level exactly at 1.0 or 1.0 - margin in
    equal parts when it learns. The tuned rate: the baseline's chance share for ``better`` with
    ties counted (it must fail for the other to improve), else the other level's."""
    learned = 0.5 * (AT1 + point(GRID - (m or 0)))
    if kind == "better" and ties == "count":
        def pmf(x):
            return diff_pmf((1 - x) * AT1 + x * CHANCE, 0.9 * AT1 + 0.1 * CHANCE)

        x = tuned(lambda x: estimand(kind, m, ties, pmf(x)) - 0.5, 0.0, 1.0)
        return f"bound: baseline exactly 1.0 or at chance ({x:.1%}), other at chance in 10 %", pmf(x)

    def pmf(x):
        return diff_pmf(0.8 * AT1 + 0.2 * CHANCE, (1 - x) * learned + x * CHANCE)

    x = tuned(lambda x: estimand(kind, m, ties, pmf(x)) - 0.5, 0.0, 1.0)
    edge = " or 1.0 - margin" if m else ""
    return f"bound: baseline 1.0 or chance (20 %), other 1.0{edge} or chance ({x:.1%})", pmf(x)


def mixture(kind, m, ties) -> tuple[str, np.ndarray]:
    """Each level independently learns (at or just below 1.0) or fails at chance."""
    if kind == "better" and ties == "count":
        def pmf(x):
            return diff_pmf(x * CHANCE + (1 - x) * LEARN, 0.1 * CHANCE + 0.9 * LEARN)

        x = tuned(lambda x: estimand(kind, m, ties, pmf(x)) - 0.5, 0.0, 1.0)
        return f"mixture: baseline fails at chance in {x:.1%}, other in 10 %", pmf(x)
    fb = 0.3 if kind == "better" else 0.1

    def pmf(x):
        return diff_pmf(fb * CHANCE + (1 - fb) * LEARN, x * CHANCE + (1 - x) * LEARN)

    x = tuned(lambda x: estimand(kind, m, ties, pmf(x)) - 0.5, 0.0, 1.0)
    return f"mixture: baseline fails at chance in {fb:.0%}, other in {x:.1%}", pmf(x)


ALL_TIED = on_d([0], [1.0])


@functools.cache
def nulls(spec: str, ties: str) -> list[tuple[str, np.ndarray]]:
    """(name, pmf of d) of every one-cell boundary null of the claim under the tie rule."""
    kind, m = SPECS[spec]
    heavy = (0.4, 0.5) if ties == "count" else (0.4, 0.8)
    out = [(f"ties-heavy: {t:.0%} exact ties", ties_heavy(kind, m, ties, t)) for t in heavy]
    out += [f(kind, m, ties) for f in (unimodal, bound_touching, mixture)]
    for name, pmf in out:
        assert abs(pmf.sum() - 1) < 1e-9 and pmf.min() >= -1e-15, name
        assert abs(estimand(kind, m, ties, pmf) - 0.5) < 1e-9, name
    return out


def sample(rng, pmf: np.ndarray, size) -> np.ndarray:
    """Differences (in 1 / GRID, as floats on the grid) drawn from ``pmf``."""
    return D[rng.choice(D.size, size=size, p=np.clip(pmf, 0, None) / np.clip(pmf, 0, None).sum())] / GRID


# --------------------------------------------------------------------------- the pipeline's rule


def p_values(c, d: np.ndarray, sequential: bool):
    return verdicts.p_values(c, c.parts[0], d, d, 1 / GRID, sequential, ALPHA)


def verdict_of(p_sup: np.ndarray, p_con: np.ndarray) -> np.ndarray:
    """``verdicts.decided`` (a claim alone in its family) per simulated cell, once per distinct pair."""
    pairs, inverse = np.unique(np.stack([p_sup.ravel(), p_con.ravel()], -1), axis=0, return_inverse=True)
    step = verdicts.HolmStep()
    each = np.array([verdicts.decided(float(s), float(c), step, ALPHA) for s, c in pairs], dtype=object)
    return each[inverse.ravel()].reshape(p_sup.shape)


def cells_p(c, cells: list[np.ndarray], sequential: bool):
    """cells: every: the claims table's ``combine`` over the cells' p-values."""
    ps = [p_values(c, d, sequential) for d in cells]
    sup, con, _ = verdicts.combine(np.array([[p[0]] for p in ps]), np.array([[p[1]] for p in ps]))
    return sup, con


def rates_of(c, cells: list[np.ndarray]) -> list[tuple[str, float, float]]:
    """(rule, wrong SUPPORTED, wrong CONTRADICTED) under a boundary null (every verdict wrong): the
    fixed design at each n, the sequential rule at each n, and rounds stopping at the first
    decisive look."""
    out = []
    for n in SEEDS:
        for rule, seq in (("fixed", False), ("sequential", True)):
            v = verdict_of(*cells_p(c, [d[:, :n] for d in cells], seq))
            out.append((f"{rule} n={n}", float(np.mean(v == "SUPPORTED")), float(np.mean(v == "CONTRADICTED"))))
    verdict = None
    for n in ROUNDS:
        at = verdict_of(*cells_p(c, [d[:, :n] for d in cells], True))
        verdict = at if verdict is None else np.where(verdict == "INCONCLUSIVE", at, verdict)
    out.append(("rounds 5/10/15/20", float(np.mean(verdict == "SUPPORTED")), float(np.mean(verdict == "CONTRADICTED"))))
    return out


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("spec", list(SPECS))
def test_tie_rule_keeps_alpha_at_its_boundary_null(spec, ties):
    """With the claim's estimand exactly on its boundary under its tie rule (ties counted on their
    side, or left out), seeds ties-heavy, unimodal, bound-touching or mixed, and in all-tied cells:
    each wrong verdict's rate <= alpha + 3 MC se, over 5, 10 and 20 seeds, fixed design and
    sequential rule (at each n and over rounds)."""
    kind, m = SPECS[spec]
    c = build(kind, ties, None if m is None else m / GRID)
    cases = []  # (name, cells, whether CONTRADICTED is wrong)
    for i, (name, pmf) in enumerate(nulls(spec, ties)):
        rng = np.random.default_rng([11, list(SPECS).index(spec), TIES.index(ties), i])
        cases.append((name, [sample(rng, pmf, (SIMS, max(ROUNDS)))], True))
    tied = np.zeros((SIMS, max(ROUNDS)))
    if ties == "exclude":
        cases.append(("all-tied: every seed tied (nothing changed)", [tied], True))
    rng = np.random.default_rng([12, list(SPECS).index(spec), TIES.index(ties)])
    _, pmf = nulls(spec, ties)[2]  # unimodal
    cases.append(("all-tied cell beside a unimodal cell on its null", [tied, sample(rng, pmf, (SIMS, max(ROUNDS)))],
                  not (kind == "better" and ties == "count")))  # fmt: skip
    rows, worst = [], {}
    print(f"\n{spec}, ties: {ties} -- wrong verdicts at the boundary null ({SIMS} sims, limit {limit(SIMS):.4f})")
    for name, cells, con_wrong in cases:
        for rule, sup, con in rates_of(c, cells):
            rows.append((name, rule, sup, con, con_wrong))
            print(f"  {name:<66} {rule:<18} SUPPORTED {sup:.4f}  CONTRADICTED {con:.4f}"
                  f"{'' if con_wrong else ' (right here)'}")  # fmt: skip
            family = name.split(":")[0].split(" ")[0]
            worst[family] = max(worst.get(family, 0.0), sup, con if con_wrong else 0.0)
    print("  max per family: " + ", ".join(f"{k} {v:.4f}" for k, v in worst.items()))
    for name, rule, sup, con, con_wrong in rows:
        assert sup <= limit(SIMS), (spec, ties, name, rule, sup)
        assert not con_wrong or con <= limit(SIMS), (spec, ties, name, rule, con)


def test_boundary_nulls_are_on_the_boundary_by_the_pipelines_own_condition():
    """The tuned pmfs put the share the pipeline's condition tests at exactly 1/2: the seeds that
    ``Condition.sure`` says meet it (and ``Condition.counted`` counts) weighted by the pmf, so the
    written-out conditions of this file and the kinds' agree on every grid difference."""
    for spec, (kind, m) in SPECS.items():
        for ties in TIES:
            cond = build(kind, ties, None if m is None else m / GRID).parts[0].condition
            x = D / GRID
            met, counted = cond.sure(x, x), cond.counted(x, x, 1 / GRID)
            np.testing.assert_array_equal(met & counted, meets(kind, m, D) & ((D != 0) | (ties == "count")))
            for name, pmf in nulls(spec, ties):
                share = pmf[met & counted].sum() / pmf[counted].sum()
                assert share == pytest.approx(0.5, abs=1e-9), (spec, ties, name)


# --------------------------------------------------------------------------- decide what ties decide


def tied_runs(n: int) -> pd.DataFrame:
    """n seeds, both levels at exactly 300 / 300 in every seed: every difference a tie."""
    rows = [dict(run_id=f"r{seed}-{level}", seed=seed, cell="c0", norm=level, status="ok", test_correct=GRID,
                 test_total=GRID, test_acc=1.0, final_train_acc=1.0)
            for seed in range(n) for level in LEVELS]  # fmt: skip
    return pd.DataFrame(rows)


def verdict_on_tied(c, n: int, adaptive: bool) -> tuple[str, float, float]:
    design = {"seeds": list(range(n)), "max_seeds": 40, "batch": 5} if adaptive else None
    runs = seed_units.StudyRuns("s", tied_runs(n), tuple(FACTORS), None, design, (c,))
    r = verdicts.claim_test(c, runs, verdicts.Judge.of({"alpha": ALPHA}))
    return verdicts.decided(r.p_sup, r.p_con, verdicts.HolmStep(), ALPHA), r.p_sup, r.p_con


DECIDES = [  # (claim, ties, what every seed tied decides from 5 seeds on)
    (("better", None), "count", "CONTRADICTED"),
    (("better", None), "exclude", "INCONCLUSIVE"),
    (("not_worse", 0.0), "count", "SUPPORTED"),
    (("equivalent", 0.0), "count", "SUPPORTED"),
    (("not_worse", 0.0), "exclude", "INCONCLUSIVE"),
    (("equivalent", 0.0), "exclude", "INCONCLUSIVE"),
]


@pytest.mark.parametrize("adaptive", [False, True], ids=["fixed", "adaptive"])
def test_every_seed_tied_decides_what_the_tie_rule_says(adaptive):
    """Every seed tied (both levels at 300 / 300), through ``verdicts.claim_test`` on a summary:
    ``better`` with ties counted is CONTRADICTED (p_con <= alpha) from 5 seeds (no seed improved),
    with ``ties: exclude`` never decided (no seed changed: p = 1 both ways); ``not_worse`` and
    ``equivalent`` with margin 0 and ties counted are SUPPORTED from 5 seeds (a tie is not worse and
    within a margin of 0), and never decided with ``ties: exclude``. Fixed design and an adaptive
    study (the e-process), n = 5 .. 40."""
    print(f"\nevery seed tied ({'adaptive: e-process' if adaptive else 'fixed design: exact test'})")
    for (kind, margin), ties, want in DECIDES:
        c = build(kind, ties, margin)
        for n in (2, 3, 4, 5, 6, 10, 20, 40):
            verdict, p_sup, p_con = verdict_on_tied(c, n, adaptive)
            if n in (4, 5, 40):
                print(f"  {kind:<10} margin {margin!s:<5} ties {ties:<8} n={n:<3} p_sup {p_sup:.4f} p_con {p_con:.4f} "
                      f"-> {verdict}")  # fmt: skip
            if n >= 5:
                assert verdict == want, (kind, margin, ties, n, p_sup, p_con)
            else:
                assert verdict in ("INCONCLUSIVE", want), (kind, margin, ties, n)
            if want == "CONTRADICTED" and n >= 5:
                assert p_con <= ALPHA
            if want == "SUPPORTED" and n >= 5:
                assert p_sup <= ALPHA
            if want == "INCONCLUSIVE":
                assert (p_sup, p_con) == (1.0, 1.0)
