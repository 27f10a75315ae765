"""The tests a claim's seeds are put to: one-sided p-values for SUPPORTED and for CONTRADICTED.

A claim's seed units (one value per seed, or the interval a seed's value is known to lie in when a
run diverged) meet a part's per-seed condition or do not (``ablation.kinds.Condition``). Two estimands:

``share`` (the default)
    the share q of seeds that meet the condition, against the claim's ``share`` (default 1/2, "the
    typical seed"). SUPPORTED tests q > share, CONTRADICTED q < share, each with the exact binomial
    test over the seeds (``scipy.stats.binom``): a seed learns the task or it does not, and a
    count of seeds is exact whatever mixture the seeds come from. A seed whose value is uncertain
    (a diverged run) counts against the verdict being tested: as failing the condition for
    SUPPORTED, as meeting it for CONTRADICTED.
``mean``
    the mean over seeds against the condition's band, by the claim's ``test`` (``TESTS``):

    ``t`` (the default): one-sample t-tests on the per-seed values (a comparison's are paired
    differences, so this is the paired t-test): for a two-sided band two one-sided tests (TOST, as
    statsmodels' ``ttost_paired``), for a one-sided one the one-sided test. Its assumption, a mean
    over seeds close to normal, is checked on the seeds every time (``normality``: enough seeds,
    every value known, none on the metric's bound, not every seed on one value, Shapiro-Wilk not
    rejecting at ``SHAPIRO_LEVEL`` once the test set's grid has its ties spread back over the grid cell
    they were rounded into, ``spread_on_grid``); where it fails the claim falls back to the exact share
    test with its ``share`` (the share estimand's own test, ties counted as its tie rule says), so
    a seed distribution the t-test cannot read is not read by it. An adaptive study pays Bonferroni
    over its looks: p = min(1, K * the smallest p_t at a round end so far where the check held),
    with K the round ends the design can take (``Looks``).

    ``betting``: the betting e-process (``ablation.sequential``), valid for any distribution on the
    metric's range, bound-touching seeds and mixtures included, read at the design's looks (an
    adaptive study's round ends; a fixed design's one look, after its seeds).

    Uncertain values take the end of their interval that is worst for the verdict being tested.

An adaptive study takes the e-process for the share estimand (on the seeds' 0/1 outcomes, read at
its round ends), since its seeds stop when a verdict is reached. The two verdicts are one-sided tests
of complementary hypotheses, so neither pays for the other: each keeps alpha (per direction).

Every test here reads its seeds along the last axis and any leading axes as independent copies, so
the simulations (tests/simulation) put thousands of simulated studies through the very functions the
claims table calls.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats as scipy_stats

from . import sequential
from .kinds import Condition

ESTIMANDS = ("share", "mean")
TESTS = ("t", "betting")
"""The tests of the estimand ``mean``: the (paired) t-test with its assumption checked, the default,
and the betting e-process."""
CHECK_MIN_SEEDS = 8
"""The fewest seeds on which the t-test's assumption is checked; fewer fall back to the share test: on
5 seeds a skewness of 0.5 takes the t-test past alpha and no check on 5 values sees it
(tests/simulation/test_mean_test_simulation.py)."""
SHAPIRO_LEVEL = 0.2
"""Shapiro-Wilk's p below this fails the t-test's assumption: the level at which the fallback takes the
t-test's wrong verdicts under skewness 0.5 back within alpha on 8 to 13 seeds (at 0.1 they pass it);
tests/simulation/test_mean_test_simulation.py prints the rates, the normal samples it keeps, and the
larger skews that still get past it."""
HOLDS, TOO_FEW, UNKNOWN, ON_BOUND, PILED, SKEWED = range(6)
"""What the t-test's assumption check finds on a cell's seeds: it holds, or the first rule it fails."""


@dataclass(frozen=True)
class Looks:
    """Where an adaptive design looks at one cell's seeds (in seed order, along the last axis): each
    seed's round, and ``count``, the looks the design can take in all (K: its round ends, from the
    first round's seeds to max_seeds by batch). The seeds given end the current round."""

    rounds: tuple
    count: int

    @classmethod
    def every_seed(cls, n: int) -> "Looks":
        """A look after every one of ``n`` seeds, and none after them."""
        return cls(tuple(range(n)), max(n, 1))

    @classmethod
    def schedule(cls, first: int, batch: int, max_seeds: int, n: int) -> "Looks":
        """``n`` seeds of a design whose first round has ``first`` seeds and each later one ``batch``
        more, up to ``max_seeds``."""
        rounds = [0] * min(first, n) + [1 + (i - first) // batch for i in range(first, n)]
        return cls(tuple(rounds), looks_count(first, batch, max_seeds))

    @property
    def ends(self) -> list[int]:
        """The seed counts at which the rounds so far end."""
        r = self.rounds
        return [i + 1 for i in range(len(r)) if i + 1 == len(r) or r[i + 1] != r[i]]


def looks_count(first: int, batch: int, max_seeds: int) -> int:
    """K: the round ends a design can take, from ``first`` seeds to ``max_seeds`` by ``batch``."""
    return 1 + max(0, math.ceil((max_seeds - first) / max(batch, 1)))


def share_p(k_sure, k_possible, n, share: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact one-sided binomial p-values over seeds: ``p_sup`` for "q > share" from the ``k_sure``
    seeds that surely meet the condition, ``p_con`` for "q < share" from the ``k_possible`` that
    may; ``n`` seeds in all. No seed: p = 1 both ways."""
    k_sure, k_possible, n = (np.asarray(a, dtype=float) for a in (k_sure, k_possible, n))
    p_sup = np.where(n > 0, scipy_stats.binom.sf(k_sure - 1, n, share), 1.0)
    p_con = np.where(n > 0, scipy_stats.binom.cdf(k_possible, n, share), 1.0)
    return np.minimum(p_sup, 1.0), np.minimum(p_con, 1.0)


def share_p_sequential(sure, possible, counted, share: float, alpha: float, rounds=None) -> tuple[np.ndarray, np.ndarray]:
    """Anytime-valid p-values for "q > share" and "q < share" from 0/1 outcomes in seed order: the
    betting e-process on the counted seeds' outcomes (``counted`` False: a tie, skipped), read at the
    round ends (``rounds``: each seed's round, see ``sequential.log_capital``; None: a look after
    every seed). The counted seeds move to the front, in their order and with their rounds: a capital
    after the last of them depends on them alone, and is a look."""
    sure, possible, counted = np.broadcast_arrays(np.asarray(sure, dtype=float), np.asarray(possible, dtype=float),
                                                  np.asarray(counted, dtype=bool))  # fmt: skip
    if sure.shape[-1] == 0:
        return np.ones(sure.shape[:-1]), np.ones(sure.shape[:-1])
    order = np.argsort(~counted, axis=-1, kind="stable")
    if rounds is not None:  # the skipped seeds after the counted ones, in a round of their own
        r = np.take_along_axis(np.broadcast_to(np.asarray(rounds), sure.shape), order, -1)
        rounds = np.where(np.take_along_axis(counted, order, -1), r, np.max(r, initial=0) + 1)
    above, _ = sequential.directional_p(np.take_along_axis(sure, order, -1), share, (0.0, 1.0), alpha, rounds)
    _, below = sequential.directional_p(np.take_along_axis(possible, order, -1), share, (0.0, 1.0), alpha, rounds)
    n = counted.sum(axis=-1)
    last = np.maximum(n - 1, 0)[..., None]
    p_sup = np.take_along_axis(above, last, -1)[..., 0]
    p_con = np.take_along_axis(below, last, -1)[..., 0]
    return np.where(n > 0, p_sup, 1.0), np.where(n > 0, p_con, 1.0)


def mean_p(lo, hi, band: tuple[float, float], bounds: tuple[float, float], alpha: float,
           rounds=None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Anytime-valid p-values for "the mean lies inside ``band``" (SUPPORTED) and "outside it"
    (CONTRADICTED) from per-seed values known to lie in [lo, hi], in seed order, by the betting
    e-process read at the round ends (``rounds``; None: after every seed). A one-sided condition's
    band is (boundary, boundary): SUPPORTED is "mean > boundary", CONTRADICTED "mean < boundary".
    Outside a two-sided band means below it or above it: Bonferroni over the two sides."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    if lo.shape[-1] == 0:
        return np.ones(lo.shape[:-1]), np.ones(lo.shape[:-1])
    b0, b1 = band
    above_b0, _ = sequential.directional_p(lo, b0, bounds, alpha, rounds)  # SUPPORTED on the lowest values
    _, below_b0 = sequential.directional_p(hi, b0, bounds, alpha, rounds)  # CONTRADICTED on the highest
    if b1 == b0:
        return above_b0[..., -1], below_b0[..., -1]
    _, below_b1 = sequential.directional_p(hi, b1, bounds, alpha, rounds)
    above_b1, _ = sequential.directional_p(lo, b1, bounds, alpha, rounds)
    p_sup = np.maximum(above_b0[..., -1], below_b1[..., -1])
    p_con = np.minimum(1.0, 2 * np.minimum(below_b0[..., -1], above_b1[..., -1]))
    return p_sup, p_con


# --------------------------------------------------------------------------- the t-test and its assumption


def spread_on_grid(x: np.ndarray, step: float) -> np.ndarray:
    """The seeds sorted along the last axis, each run of k equal values v spread evenly over the grid
    cell they were rounded into: v + step * ((i + 1/2) / k - 1/2), i < k. A metric counted on a test
    set (1/300 steps) rounds a continuous spread onto its grid, and its ties are the rounding's; spread
    back, the values read as the spread they came from. A function of the values alone: every order
    of the seeds gives the same. ``step`` 0 (no grid): the values as they are."""
    s = np.sort(np.asarray(x, dtype=float), axis=-1)
    n = s.shape[-1]
    if step <= 0 or n < 2:
        return s
    equal = np.diff(s, axis=-1) <= step * 1e-9  # the same grid value, up to the float error of a difference
    start = np.concatenate([np.ones(s.shape[:-1] + (1,), bool), ~equal], axis=-1)
    pos = np.arange(n)
    first = np.maximum.accumulate(np.where(start, pos, 0), axis=-1)  # where each seed's run begins
    size = sum((first == first[..., k : k + 1]).astype(int) for k in range(n))  # the length of each seed's run
    v = np.take_along_axis(s, first, axis=-1)
    return v + step * ((pos - first + 0.5) / size - 0.5)


def _shapiro_p(x: np.ndarray) -> np.ndarray:
    """Shapiro-Wilk's p along the last axis (1 where the seeds are too few or all equal)."""
    if x.shape[-1] < 3:
        return np.ones(x.shape[:-1])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # a range of zero: the point-mass rule has failed it already
        p = np.asarray(scipy_stats.shapiro(x, axis=-1).pvalue, dtype=float)
    return np.where(np.isfinite(p), p, 1.0)


def normality(lo, hi, bounds, step: float) -> np.ndarray:
    """The t-test's assumption (a mean over seeds close to normal), checked on seed units [lo, hi]
    (..., seeds): per copy ``HOLDS``, or the first rule the seeds fail -- ``TOO_FEW`` (fewer than
    ``CHECK_MIN_SEEDS``), ``UNKNOWN`` (a seed's value unknown: a diverged run), ``ON_BOUND`` (a seed
    on the range's bound, ``bounds``: a metric at 0 or 1 has a point mass there), ``PILED`` (every
    seed shares one value: no spread for the t-test to read) or ``SKEWED`` (Shapiro-Wilk rejects at
    ``SHAPIRO_LEVEL`` on the seeds with their ties spread over the grid cell they were rounded into,
    ``spread_on_grid``: skewed seeds, an outlying seed, two modes, not the grid's ties)."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    n = lo.shape[-1]
    out = np.full(lo.shape[:-1], HOLDS)
    if n < CHECK_MIN_SEEDS:
        return np.full(lo.shape[:-1], TOO_FEW)
    unknown = np.any(lo != hi, axis=-1)
    edge = sequential.EDGE * (bounds[1] - bounds[0]) if bounds is not None else 0.0
    on_bound = (np.any((lo <= bounds[0] + edge) | (lo >= bounds[1] - edge), axis=-1) if bounds is not None
                else np.zeros(lo.shape[:-1], dtype=bool))  # fmt: skip
    piled = np.ptp(lo, axis=-1) < max(step, 1e-12) / 2  # every seed within half a grid step of every other
    skewed = _shapiro_p(spread_on_grid(lo, step)) < SHAPIRO_LEVEL
    for code, failed in ((SKEWED, skewed), (PILED, piled), (ON_BOUND, on_bound), (UNKNOWN, unknown)):
        out = np.where(failed, code, out)  # the first rule that fails, in the order of the codes
    return out


def normality_words(lo, hi, bounds, step: float, paired: bool) -> str:
    """What the check finds on one cell's seeds, in words: 'normality checked on the 8 seeds: holds'
    or '...: fails: 7 of 8 seeds tie (difference 0)'."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    n, code = lo.shape[-1], int(normality(lo, hi, bounds, step))
    head = f"normality checked on the {n} seeds: "
    if code == HOLDS:
        return head + "holds"
    if code == TOO_FEW:
        why = f"{n} seeds are too few to check it (it needs {CHECK_MIN_SEEDS})"
    elif code == UNKNOWN:
        why = f"{int(np.sum(lo != hi))} of {n} seeds have a diverged run (value unknown)"
    elif code == ON_BOUND:
        edge = sequential.EDGE * (bounds[1] - bounds[0])
        low, high = int(np.sum(lo <= bounds[0] + edge)), int(np.sum(lo >= bounds[1] - edge))
        where = [f"{k} of {n} seeds on the range's bound ({b:g})" for k, b in ((high, bounds[1]), (low, bounds[0])) if k]
        why = " and ".join(where)
    elif code == PILED:
        value = float(np.median(lo))
        tie = paired and abs(value) < max(step, 1e-12) / 2
        why = f"all {n} seeds tie (difference 0)" if tie else f"all {n} seeds share one value ({value:.4g})"
    else:
        p = float(_shapiro_p(spread_on_grid(lo, step)))
        why = f"Shapiro-Wilk rejects normality at the check's level {SHAPIRO_LEVEL:g} (p = {p:.2g}, ties spread over their grid cell)"
    return head + "fails: " + why


def _t_p(x: np.ndarray, bound: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sample t-test p-values for "mean > bound" and "mean < bound" along the last axis (1 where
    the seeds have no spread or are fewer than 2: the check has failed them already)."""
    if x.shape[-1] < 2:
        return np.ones(x.shape[:-1]), np.ones(x.shape[:-1])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zero variance: scipy warns, and the spread below reads it
        above = scipy_stats.ttest_1samp(x, bound, axis=-1, alternative="greater").pvalue
        below = scipy_stats.ttest_1samp(x, bound, axis=-1, alternative="less").pvalue
    spread = np.ptp(x, axis=-1) > 0  # without spread t is infinite or NaN: no evidence either way
    return np.where(spread, above, 1.0), np.where(spread, below, 1.0)


def mean_t_p(lo, hi, band: tuple[float, float], bounds, step: float,
             looks: Looks | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """(p_sup, p_con, check) of the t-test on seed units [lo, hi] (..., seeds): SUPPORTED "mean inside
    ``band``" (a one-sided band (b, b): "mean > b"; a two-sided one: two one-sided tests, the larger
    p), CONTRADICTED "outside it" (Bonferroni over a two-sided band's two sides), on the lowest values
    for "mean > ..." and the highest for "mean < ...". ``check``: ``normality`` at the current look,
    whose p the caller must not use unless it is ``HOLDS``. ``looks`` (an adaptive design): the
    smallest p over the round ends so far at which the check held, times ``looks.count``."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    b0, b1 = band
    ends = looks.ends if looks is not None else [lo.shape[-1]]
    rounds = np.asarray(looks.rounds) if looks is not None else np.zeros(lo.shape[-1], dtype=int)
    # sorted within each round: every order of a round's seeds gives the same p to the last bit
    lo_sorted, hi_sorted = sequential.in_round_order(lo, rounds), sequential.in_round_order(hi, rounds)
    best_sup, best_con = np.ones(lo.shape[:-1]), np.ones(lo.shape[:-1])
    check = np.full(lo.shape[:-1], TOO_FEW)
    for e in ends:
        check = normality(lo[..., :e], hi[..., :e], bounds, step)
        x_lo, x_hi = lo_sorted[..., :e], hi_sorted[..., :e]
        above_b0, _ = _t_p(x_lo, b0)
        _, below_b0 = _t_p(x_hi, b0)
        if b1 == b0:
            p_sup, p_con = above_b0, below_b0
        else:
            _, below_b1 = _t_p(x_hi, b1)
            above_b1, _ = _t_p(x_lo, b1)
            p_sup, p_con = np.maximum(above_b0, below_b1), np.minimum(1.0, 2 * np.minimum(below_b0, above_b1))
        held = check == HOLDS
        best_sup = np.where(held, np.minimum(best_sup, p_sup), best_sup)
        best_con = np.where(held, np.minimum(best_con, p_con), best_con)
    k = looks.count if looks is not None else 1
    return np.minimum(1.0, k * best_sup), np.minimum(1.0, k * best_con), check


def condition_p(condition: Condition, estimand: str, share: float, lo, hi, step: float, bounds, sequential: bool,
                alpha: float, test: str = "t", looks: Looks | None = None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(p_sup, p_con) of one condition on seed units [lo, hi] (..., seeds) on a ``step`` grid: the
    claim's estimand by its test (``mean``: the t-test, or the share test where the t-test's
    assumption fails; ``test`` "betting": the e-process), or, for ``share``, the exact test or
    (``sequential``: an adaptive study) the e-process. ``looks``: the adaptive design's (None in an
    adaptive study: a look after every seed); a fixed design looks once, after its seeds."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    n = lo.shape[-1]
    if sequential:
        looks = looks if looks is not None else Looks.every_seed(n)
        if len(looks.rounds) != n:
            raise ValueError(f"the looks name the rounds of {len(looks.rounds)} seeds, the cell has {n}")
    rounds = np.asarray(looks.rounds, dtype=int) if sequential else np.zeros(n, dtype=int)  # a fixed design: one look
    if estimand == "mean" and test == "betting":
        return mean_p(lo, hi, condition.band, bounds, alpha, rounds)
    counted = condition.counted(lo, hi, step)
    sure, possible = condition.sure(lo, hi) & counted, condition.possible(lo, hi) & counted
    if sequential:
        p_sup, p_con = share_p_sequential(sure, possible, counted, share, alpha, rounds)
    else:
        p_sup, p_con = share_p(sure.sum(axis=-1), possible.sum(axis=-1), counted.sum(axis=-1), share)
    if estimand != "mean":
        return p_sup, p_con
    t_sup, t_con, check = mean_t_p(lo, hi, condition.band, bounds, step, looks if sequential else None)
    held = check == HOLDS
    return np.where(held, t_sup, p_sup), np.where(held, t_con, p_con)
