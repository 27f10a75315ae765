"""The tests a claim's seeds are put to: one-sided p-values for SUPPORTED and for CONTRADICTED.

A claim's seed units (one value per seed, or the interval a seed's value is known to lie in when a
run diverged) meet the claim's per-seed condition or do not. Two estimands:

``share`` (the default)
    the share q of seeds that meet the condition, against the claim's ``share`` (default 1/2, "the
    typical seed"). SUPPORTED tests q > share, CONTRADICTED q < share, each with the exact binomial
    test over the seeds (``scipy.stats.binomtest``): a seed learns the task or it does not, and a
    count of seeds is exact whatever mixture the seeds come from. A seed whose value is uncertain
    (a diverged run) counts against the verdict being tested: as failing the condition for
    SUPPORTED, as meeting it for CONTRADICTED.
``mean``
    the mean over seeds of a bounded value, against the claim's boundary, with the betting
    e-process (``ablation.sequential``): valid for any distribution on the metric's range, bound-
    touching seeds and mixtures included, and under any stopping rule. Uncertain values take the
    end of their interval that is worst for the verdict being tested.

An adaptive study takes the e-process for both estimands (for ``share`` on the seeds' 0/1
outcomes in seed order), since its seeds stop when a verdict is reached. The two verdicts are one-
sided tests of complementary hypotheses, so neither pays for the other: p = 1 / (largest capital).
"""

from __future__ import annotations

import numpy as np
from scipy import stats as st

from . import sequential as Q

ESTIMANDS = ("share", "mean")


def share_p(k_sure, k_possible, n, share: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact one-sided binomial p-values over seeds (vectorised): ``p_sup`` for "q > share" from the
    ``k_sure`` seeds that surely meet the condition, ``p_con`` for "q < share" from the
    ``k_possible`` that may; ``n`` seeds in all. No seed: p = 1 both ways."""
    k_sure, k_possible, n = (np.asarray(a, dtype=float) for a in (k_sure, k_possible, n))
    p_sup = np.where(n > 0, st.binom.sf(k_sure - 1, n, share), 1.0)
    p_con = np.where(n > 0, st.binom.cdf(k_possible, n, share), 1.0)
    return np.minimum(p_sup, 1.0), np.minimum(p_con, 1.0)


def share_p_sequential(sure, possible, counted, share: float, alpha: float) -> tuple[float, float]:
    """Anytime-valid p-values for "q > share" and "q < share" from 0/1 outcomes in seed order: the
    betting e-process on the seeds' outcomes (``counted`` False: a tie, skipped)."""
    sure, possible = np.asarray(sure, dtype=float)[counted], np.asarray(possible, dtype=float)[counted]
    if not len(sure):
        return 1.0, 1.0
    above, _ = Q.directional_p(sure, share, (0.0, 1.0), alpha)
    _, below = Q.directional_p(possible, share, (0.0, 1.0), alpha)
    return float(above[-1]), float(below[-1])


def mean_p(lo, hi, band: tuple[float, float], bounds: tuple[float, float], alpha: float) -> tuple[float, float]:
    """Anytime-valid p-values for "the mean lies inside ``band``" (SUPPORTED) and "outside it"
    (CONTRADICTED) from per-seed values known to lie in [lo, hi], in seed order. A one-sided
    kind's band is (boundary, inf): SUPPORTED is "mean > boundary", CONTRADICTED "mean < boundary".
    Outside a two-sided band means below it or above it: Bonferroni over the two sides."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    if not len(lo):
        return 1.0, 1.0
    b0, b1 = band
    above_b0, _ = Q.directional_p(lo, b0, bounds, alpha)  # SUPPORTED on the lowest values
    _, below_b0 = Q.directional_p(hi, b0, bounds, alpha)  # CONTRADICTED on the highest
    if not np.isfinite(b1):
        return float(above_b0[-1]), float(below_b0[-1])
    _, below_b1 = Q.directional_p(hi, b1, bounds, alpha)
    above_b1, _ = Q.directional_p(lo, b1, bounds, alpha)
    p_sup = max(float(above_b0[-1]), float(below_b1[-1]))
    p_con = min(1.0, 2 * min(float(below_b0[-1]), float(above_b1[-1])))
    return p_sup, p_con


def least_seeds(share: float, level: float, max_seeds: int = 10_000) -> tuple[int | None, int | None]:
    """Fewest seeds, all agreeing, with which the exact share test reaches ``level``: (for
    SUPPORTED: every seed meets the condition, share**n; for CONTRADICTED: none does,
    (1 - share)**n); None when ``max_seeds`` are not enough (a share of 0 or 1 is never shown)."""

    def fewest(p_one: float) -> int | None:
        if not 0 < p_one < 1:
            return None
        n = int(np.ceil(np.log(level) / np.log(p_one) - 1e-12))
        return max(n, 1) if n <= max_seeds else None

    return fewest(share), fewest(1 - share)
