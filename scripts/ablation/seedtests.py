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
    the mean over seeds of a bounded value, against the condition's band, with the betting
    e-process (``ablation.sequential``): valid for any distribution on the metric's range, bound-
    touching seeds and mixtures included, and under any stopping rule. Uncertain values take the
    end of their interval that is worst for the verdict being tested.

An adaptive study takes the e-process for both estimands (for ``share`` on the seeds' 0/1
outcomes in seed order), since its seeds stop when a verdict is reached. The two verdicts are one-
sided tests of complementary hypotheses, so neither pays for the other: p = 1 / (largest capital).

Every test here reads its seeds along the last axis and any leading axes as independent copies, so
the simulations (tests/simulation) put thousands of simulated studies through the very functions the
claims table calls.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as scipy_stats

from . import sequential
from .kinds import Condition

ESTIMANDS = ("share", "mean")


def share_p(k_sure, k_possible, n, share: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact one-sided binomial p-values over seeds: ``p_sup`` for "q > share" from the ``k_sure``
    seeds that surely meet the condition, ``p_con`` for "q < share" from the ``k_possible`` that
    may; ``n`` seeds in all. No seed: p = 1 both ways."""
    k_sure, k_possible, n = (np.asarray(a, dtype=float) for a in (k_sure, k_possible, n))
    p_sup = np.where(n > 0, scipy_stats.binom.sf(k_sure - 1, n, share), 1.0)
    p_con = np.where(n > 0, scipy_stats.binom.cdf(k_possible, n, share), 1.0)
    return np.minimum(p_sup, 1.0), np.minimum(p_con, 1.0)


def share_p_sequential(sure, possible, counted, share: float, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Anytime-valid p-values for "q > share" and "q < share" from 0/1 outcomes in seed order: the
    betting e-process on the counted seeds' outcomes (``counted`` False: a tie, skipped). The
    counted seeds move to the front, in their order: a capital after the last of them depends on
    them alone."""
    sure, possible, counted = np.broadcast_arrays(np.asarray(sure, dtype=float), np.asarray(possible, dtype=float),
                                                  np.asarray(counted, dtype=bool))  # fmt: skip
    if sure.shape[-1] == 0:
        return np.ones(sure.shape[:-1]), np.ones(sure.shape[:-1])
    order = np.argsort(~counted, axis=-1, kind="stable")
    above, _ = sequential.directional_p(np.take_along_axis(sure, order, -1), share, (0.0, 1.0), alpha)
    _, below = sequential.directional_p(np.take_along_axis(possible, order, -1), share, (0.0, 1.0), alpha)
    n = counted.sum(axis=-1)
    last = np.maximum(n - 1, 0)[..., None]
    p_sup = np.take_along_axis(above, last, -1)[..., 0]
    p_con = np.take_along_axis(below, last, -1)[..., 0]
    return np.where(n > 0, p_sup, 1.0), np.where(n > 0, p_con, 1.0)


def mean_p(lo, hi, band: tuple[float, float], bounds: tuple[float, float], alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Anytime-valid p-values for "the mean lies inside ``band``" (SUPPORTED) and "outside it"
    (CONTRADICTED) from per-seed values known to lie in [lo, hi], in seed order. A one-sided
    condition's band is (boundary, boundary): SUPPORTED is "mean > boundary", CONTRADICTED "mean <
    boundary". Outside a two-sided band means below it or above it: Bonferroni over the two sides."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    if lo.shape[-1] == 0:
        return np.ones(lo.shape[:-1]), np.ones(lo.shape[:-1])
    b0, b1 = band
    above_b0, _ = sequential.directional_p(lo, b0, bounds, alpha)  # SUPPORTED on the lowest values
    _, below_b0 = sequential.directional_p(hi, b0, bounds, alpha)  # CONTRADICTED on the highest
    if b1 == b0:
        return above_b0[..., -1], below_b0[..., -1]
    _, below_b1 = sequential.directional_p(hi, b1, bounds, alpha)
    above_b1, _ = sequential.directional_p(lo, b1, bounds, alpha)
    p_sup = np.maximum(above_b0[..., -1], below_b1[..., -1])
    p_con = np.minimum(1.0, 2 * np.minimum(below_b0[..., -1], above_b1[..., -1]))
    return p_sup, p_con


def condition_p(condition: Condition, estimand: str, share: float, lo, hi, step: float, bounds, sequential: bool,
                alpha: float) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(p_sup, p_con) of one condition on seed units [lo, hi] (..., seeds) on a ``step`` grid:
    the claim's estimand, by the exact test, or (``sequential``: an adaptive study) the e-process."""
    if estimand == "mean":
        return mean_p(lo, hi, condition.band, bounds, alpha)
    counted = condition.counted(lo, hi, step)
    sure, possible = condition.sure(lo, hi) & counted, condition.possible(lo, hi) & counted
    if sequential:
        return share_p_sequential(sure, possible, counted, share, alpha)
    return share_p(sure.sum(axis=-1), possible.sum(axis=-1), counted.sum(axis=-1), share)
