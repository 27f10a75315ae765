"""The mean's t-test (``estimand: mean``, ``test: t``, the default) keeps alpha where its assumption
holds, falls back to the share of seeds where the check on the seeds finds it does not, stays valid
over an adaptive design's looks with Bonferroni over them, and decides in a handful of seeds where the
betting e-process needs hundreds; and the sequential tests give the same verdict for every order of
the seeds within a round.

Each simulation puts thousands of simulated studies through the claims table's own test
(``verdicts.p_values``, on claims built by ``ablation.config.check_claims``; seeds along the last axis,
leading axes independent studies) and its verdict (``verdicts.decided``), and reads which studies the
t-test judged from the same check the test runs (``seedtests.normality``). At a margin (the mean
paired difference exactly at +margin or -margin of an ``equivalent`` claim, exactly at -margin of a
``not_worse`` one; margin 2 pp) both verdicts are wrong. The seed distributions, each with the mean
asked for: normal on the test set's grid (1/300: ties among seeds), skewed (skewness -0.5 and +0.5),
bound-touching (half the seeds tied at 0: both levels at 100 %) and two modes (half the seeds 10 pp
below the rest). Each wrong verdict of the t-test is asserted at most alpha + 3 Monte-Carlo
standard errors; the share test's verdicts on the studies it took over are a verdict on the share of
seeds, not on the mean, and are printed beside. What no check on the seeds can see is simulated too:
a mode of seeds too rare to show among them. Run with ``-s`` for the tables.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from ablation import config as ablation_config
from ablation import seedtests, verdicts

ALPHA = 0.05
GRID = 300
MARGIN = 0.02
SIMS = 4000
SEEDS = (8, 10, 13)
FACTORS = ["cell", "norm"]
PROBE_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "probes" / "mean_test_power.py"
_spec = importlib.util.spec_from_file_location("mean_test_power", PROBE_PATH)
probe = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(probe)


def limit(sims: int) -> float:
    """alpha plus three Monte-Carlo standard errors of a rate at alpha."""
    return ALPHA + 3 * np.sqrt(ALPHA * (1 - ALPHA) / sims)


def build(kind: str, test: str = "t", margin: float = MARGIN):
    raw = {"id": f"c-{kind}", "statement": f"a {kind} claim", "source": "simulation", "kind": kind, "factor": "norm",
           "levels": ["post", "pre"], "estimand": "mean", "test": test}  # fmt: skip
    if kind != "better":
        raw["margin"] = margin
    return ablation_config.check_claims([raw], FACTORS, ["run_id", "test_acc", "test_total", "status"])[0]


def decided(c, d: np.ndarray, sequential: bool = False, looks=None) -> np.ndarray:
    """The claims table's verdict (one claim alone) per simulated study."""
    p_sup, p_con = verdicts.p_values(c, c.parts[0], d, d, 1 / GRID, sequential, ALPHA, looks)
    pairs, inverse = np.unique(np.stack([p_sup, p_con], -1), axis=0, return_inverse=True)
    each = np.array([verdicts.decided(float(s), float(q), verdicts.HolmStep(), ALPHA) for s, q in pairs], dtype=object)
    return each[inverse.ravel()].reshape(p_sup.shape)


def t_judged(c, d: np.ndarray) -> np.ndarray:
    """The studies whose seeds pass the t-test's check (the rest the share test judges)."""
    return seedtests.normality(d, d, verdicts.bounds(c, c.parts[0]), 1 / GRID) == seedtests.HOLDS


# --------------------------------------------------------------------------- seed distributions, mean exactly mu


def on_grid(x):
    return np.round(np.asarray(x) * GRID) / GRID


def normal(sd):
    # rounding a normal whose mean lies on the grid keeps its mean (the margins are 6 / 300)
    return f"normal on the grid, sd {100 * sd:g} pp", lambda rng, mu, s: on_grid(rng.normal(mu, sd, s))


def skewed(sign: int, sd: float = 0.01, k: float = 16.0):
    """A gamma of shape k (skewness 2 / sqrt(k) = 0.5), standardised, its sign flipped for a left skew."""
    return (f"skewed {'right' if sign > 0 else 'left'} (skewness {sign * 2 / np.sqrt(k):+g}), sd {100 * sd:g} pp",
            lambda rng, mu, s: mu + sign * sd * (rng.gamma(k, 1.0, s) - k) / np.sqrt(k))  # fmt: skip


def half_tied(sd: float = 0.005):
    """Half the seeds exactly 0 (both levels at 100 %), the rest around 2 mu."""
    return (f"bound: half the seeds tie at 0, the rest Normal(2 mu, {100 * sd:g} pp)",
            lambda rng, mu, s: np.where(rng.random(s) < 0.5, 0.0, rng.normal(2 * mu, sd, s)))  # fmt: skip


def two_modes(f: float, gap: float = 0.1, sd: float = 0.005):
    """A share f of the seeds ``gap`` below the rest, each mode Normal(., sd)."""
    return (f"two modes: {f:.0%} of seeds {100 * gap:g} pp below the rest",
            lambda rng, mu, s: mu + f * gap - np.where(rng.random(s) < f, gap, 0.0) + rng.normal(0, sd, s))  # fmt: skip


SCENARIOS = [normal(0.003), normal(0.011), skewed(-1), skewed(+1), half_tied(), two_modes(0.5)]
MARGINS = [("equivalent", +1), ("equivalent", -1), ("not_worse", -1)]  # the kind, and the margin its mean sits on


def rates(c, d: np.ndarray) -> dict:
    """Wrong verdicts (at a margin, both are) of the studies the t-test judged, and of those the share
    test took over, each a share of every study; and how often the check failed."""
    v, t = decided(c, d), t_judged(c, d)
    return {"t_sup": float(np.mean(t & (v == "SUPPORTED"))), "t_con": float(np.mean(t & (v == "CONTRADICTED"))),
            "fallback": float(np.mean(~t)), "share_sup": float(np.mean(~t & (v == "SUPPORTED"))),
            "share_con": float(np.mean(~t & (v == "CONTRADICTED")))}  # fmt: skip


@pytest.mark.parametrize("name, sampler", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_the_t_test_keeps_alpha_at_its_margins_and_hands_what_its_check_fails_to_the_share(name, sampler):
    """At each margin of ``equivalent`` (TOST) and ``not_worse`` (one-sided), on 5, 8 and 10 seeds: the
    rate of a wrong SUPPORTED and of a wrong CONTRADICTED among the studies the t-test judged is at
    most alpha + 3 MC se; the rest went to the share test (printed: the check's fallback rate and
    the share test's verdicts, which speak of the share of seeds)."""
    print(f"\n{name}: {SIMS} studies each; rates are shares of every study")
    for j, (kind, side) in enumerate(MARGINS):
        c = build(kind)
        for n in SEEDS:
            d = sampler(np.random.default_rng([41, SCENARIOS.index((name, sampler)), j, n]), side * MARGIN, (SIMS, n))
            r = rates(c, d)
            print(f"  {kind:<10} mean {side * MARGIN:+.2f}, {n:>2} seeds: t-test wrong SUPPORTED {r['t_sup']:.4f}, "
                  f"wrong CONTRADICTED {r['t_con']:.4f} (limit {limit(SIMS):.4f}); check failed {r['fallback']:.2f}: "
                  f"share SUPPORTED {r['share_sup']:.4f}, CONTRADICTED {r['share_con']:.4f}")  # fmt: skip
            assert r["t_sup"] <= limit(SIMS), (name, kind, side, n, r)
            assert r["t_con"] <= limit(SIMS), (name, kind, side, n, r)


def test_the_check_hands_bound_ties_and_two_modes_to_the_share_and_keeps_normal_seeds():
    """The check acts where the t-test's assumption fails and seldom where it holds: at 8 seeds on the
    margin of ``not_worse``, half the seeds tied at 0 and two equal modes fail it in nearly every study,
    normal seeds with a spread of several grid steps pass it in most."""
    c = build("not_worse")
    failed = {}
    for i, (name, sampler) in enumerate(SCENARIOS):
        d = sampler(np.random.default_rng([42, i]), -MARGIN, (SIMS, 8))
        failed[name] = float(np.mean(~t_judged(c, d)))
    print("\nthe check's fallback rate at 8 seeds, not_worse at -margin: " + "; ".join(f"{k}: {v:.2f}" for k, v in failed.items()))
    assert failed[half_tied()[0]] > 0.99 and failed[two_modes(0.5)[0]] > 0.8
    assert failed[normal(0.011)[0]] < 0.25 and failed[skewed(+1)[0]] < 0.25


@pytest.mark.parametrize("k", [4.0, 1.0], ids=["skewness 1", "skewness 2"])
def test_a_stronger_skew_costs_the_t_test_a_little_of_alpha_where_its_check_misses_it(k):
    """Beyond skewness 0.5 the t-test errs more often in the skew's direction, and Shapiro-Wilk on 8 to
    13 seeds catches only part of it: the limit docs/statistics.md names. Skewness 1 and 2 (a gamma of
    shape 4 and 1), each sign, at every margin: the t-test's wrong verdicts among the studies it judged
    stay below 1.5 alpha, and the check fails more often the stronger the skew (printed)."""
    print()
    for sign in (-1, +1):
        name, sampler = skewed(sign, k=k)
        worst, fallback = 0.0, []
        for j, (kind, side) in enumerate(MARGINS):
            c = build(kind)
            for n in SEEDS:
                d = sampler(np.random.default_rng([44, int(k), sign + 1, j, n]), side * MARGIN, (SIMS, n))
                r = rates(c, d)
                worst, fallback = max(worst, r["t_sup"], r["t_con"]), fallback + [r["fallback"]]
        print(f"{name}: the t-test's worst wrong verdict {worst:.4f} (alpha {ALPHA}); check failed {min(fallback):.2f} "
              f"to {max(fallback):.2f} of studies")  # fmt: skip
        assert worst <= 1.5 * ALPHA, (name, worst)


@pytest.mark.parametrize("f, n", [(0.1, 8), (0.1, 13), (0.2, 8), (0.3, 10)])
def test_a_mode_too_rare_to_show_among_the_seeds_is_invisible_to_the_check(f, n):
    """The limit of any check on the seeds: a share f of the seeds 10 pp below the rest, the mean on a
    margin; in the studies where no seed shows that mode (a share (1 - f)^n of them) the seeds look
    normal and the t-test decides on the other mode alone, wrongly. At each margin of ``equivalent``
    and ``not_worse`` its wrong rate stays within alpha plus that chance (+ 3 MC se), and exceeds alpha
    where that chance does (10 % of 8 or 10 seeds, 30 % of 5); docs/statistics.md says so: a claim whose
    seeds may rarely fail takes ``test: betting``, valid for any distribution on the metric's range."""
    name, sampler = two_modes(f)
    unseen = (1 - f) ** n
    worst = 0.0
    for j, (kind, side) in enumerate(MARGINS):
        d = sampler(np.random.default_rng([43, int(100 * f), n, j]), side * MARGIN, (SIMS, n))
        r = rates(build(kind), d)
        wrong = max(r["t_sup"], r["t_con"])
        worst = max(worst, wrong)
        print(f"\n{name}, {kind} at {side * MARGIN:+.2f}, {n} seeds: t-test wrong SUPPORTED {r['t_sup']:.4f}, "
              f"CONTRADICTED {r['t_con']:.4f}; the low mode unseen in {unseen:.4f} of studies; check failed "
              f"{r['fallback']:.2f}")  # fmt: skip
        assert wrong <= ALPHA + unseen + 3 * np.sqrt(unseen * (1 - unseen) / SIMS) + 3 * np.sqrt(ALPHA / SIMS), (kind, r)
        betting = decided(build(kind, "betting"), d)
        assert np.mean(betting != "INCONCLUSIVE") <= limit(SIMS)  # the betting test needs only the range
    assert (worst > limit(SIMS)) == (unseen > 0.1), (worst, unseen)


# --------------------------------------------------------------------------- the looks of an adaptive design

FIRST, BATCH, MOST = 6, 2, 16  # looks at 6, 8, ..., 16 seeds: K = 6


def stop_at_first_decision(p_at) -> np.ndarray:
    """The verdict at the first look whose verdict is decisive, else INCONCLUSIVE."""
    verdict = None
    for n in range(FIRST, MOST + 1, BATCH):
        at = p_at(n)
        verdict = at if verdict is None else np.where(verdict == "INCONCLUSIVE", at, verdict)
    return verdict


def test_bonferroni_over_the_looks_keeps_alpha_in_rounds_and_testing_each_look_afresh_does_not():
    """An adaptive design of 6 seeds, 2 a round to 16 (K = 6 looks), stopping at the first decisive look,
    normal seeds (sd 1 pp) with the mean on the margin of ``not_worse``: the t-test with Bonferroni
    over the looks (``verdicts.p_values`` with the design's ``seedtests.Looks``) errs at most alpha + 3
    MC se each way; the fixed-design t-test re-run at every look errs more often than that."""
    c = build("not_worse")
    d = np.random.default_rng(44).normal(-MARGIN, 0.01, (SIMS, MOST))
    looks = seedtests.Looks.schedule(FIRST, BATCH, MOST, MOST)
    assert looks.count == 6 and looks.ends == [6, 8, 10, 12, 14, 16]
    rounds = stop_at_first_decision(lambda n: decided(c, d[:, :n], True, seedtests.Looks.schedule(FIRST, BATCH, MOST, n)))
    naive = stop_at_first_decision(lambda n: decided(c, d[:, :n]))
    wrong = {v: float(np.mean(rounds == v)) for v in ("SUPPORTED", "CONTRADICTED")}
    naive_wrong = {v: float(np.mean(naive == v)) for v in ("SUPPORTED", "CONTRADICTED")}
    print(f"\nrounds 6/8/.../16 at the margin: Bonferroni over 6 looks {wrong}; each look afresh {naive_wrong}")
    assert max(wrong.values()) <= limit(SIMS)
    assert naive_wrong["SUPPORTED"] > limit(SIMS) and naive_wrong["CONTRADICTED"] > limit(SIMS)


# --------------------------------------------------------------------------- seeds permuted within a round


def permuted_within_rounds(rng, x: np.ndarray, rounds: tuple) -> np.ndarray:
    """``x`` with its seeds shuffled within each round (each study its own shuffle)."""
    r = np.asarray(rounds)
    keys = rng.random(x.shape) + r  # sorts by round first, at random within it
    return np.take_along_axis(x, np.argsort(keys, axis=-1), axis=-1)


def test_permuting_seeds_within_a_round_never_changes_a_sequential_p():
    """The sequential tests read their evidence only at round ends: for 2000 studies of 13 seeds in the
    factorial study's rounds (7 seeds, then 2 a round), 20 shuffles of the seeds within their rounds
    give every p bit for bit -- the share's e-process, the betting mean test and the t-test with its
    Bonferroni -- while moving one seed to another round changes some (the rounds are read)."""
    rng = np.random.default_rng(45)
    design = {"seeds": list(range(7)), "max_seeds": 13, "batch": 2}
    looks = verdicts.looks_of(design, np.arange(13))
    assert looks.rounds == (0,) * 7 + (1, 1, 2, 2, 3, 3) and looks.count == 4
    d = on_grid(rng.normal(-0.01, 0.01, (2000, 13)))
    claims = [build("not_worse", "t"), build("not_worse", "betting")]
    share = ablation_config.check_claims([{"id": "s", "statement": "s", "kind": "not_worse", "factor": "norm",
                                           "levels": ["post", "pre"], "margin": MARGIN}], FACTORS, [])[0]  # fmt: skip

    def p(c, x, r=looks):
        return np.stack(verdicts.p_values(c, c.parts[0], x, x, 1 / GRID, True, ALPHA, r))

    for c in [*claims, share]:
        want = p(c, d)
        for _ in range(20):
            np.testing.assert_array_equal(p(c, permuted_within_rounds(rng, d, looks.rounds)), want)
        # a seed of the first round swapped with one of the last: the capital reads other rounds
        swapped = d.copy()
        swapped[:, [0, 12]] = swapped[:, [12, 0]]
        assert np.any(p(c, swapped) != want), c.test if c.estimand == "mean" else "share"


# --------------------------------------------------------------------------- what the t-test buys


@pytest.mark.parametrize("kind", probe.KINDS)
def test_the_t_test_decides_in_a_handful_of_seeds_where_the_betting_test_needs_hundreds(kind):
    """benchmarks/probes/mean_test_power.py's table for one kind, 2000 studies per case (paired noise
    0.5 and 1.1 pp per seed on the grid; true difference 0, margin/2, 2 x margin): the default test
    reaches the right verdict in 80 % of studies within 11 seeds in every case, the betting e-process
    not within 60."""
    rows = probe.table(sims=2000, most=20, most_betting=60, kinds=[kind], sds=probe.SDS[1:])
    print(f"\n{kind}: " + "; ".join(f"{r['truth']}, sd {r['sd_pp']:.1f} pp: t {r['t']}, betting {r['betting']}" for r in rows))
    assert len(rows) == 6
    for r in rows:
        assert r["t"] is not None and r["t"] <= 11, r
        assert r["betting"] is None, r
