"""The tests of the paired comparisons and what they can reach: the sign-flip test of the mean seed
difference, Holm's adjustment and the graphical procedure, the paired effect size and the minimum
detectable effect.

**Tests**: the sign-flip test of the mean seed difference (``sign_flip_test``), exact up to
EXACT_SIGN_FLIP_MAX_N non-zero differences; zeros carry no evidence, so ``min_p``
(``reachable_p``) counts only the non-zero ones.
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests

from .measures import BATCH_ELEMENTS, quantize

POWER = 0.8
"""Power of the minimum detectable effect (``mde``) of the paired comparisons."""
EXACT_SIGN_FLIP_MAX_N = 16
"""Up to this many non-zero seed differences the sign-flip test enumerates all 2**n sign patterns."""


def sign_flip_test(d, step: float = 0.0, n_resamples: int = 9999, seed: int = 0) -> tuple[float, int, str]:
    """Two-sided sign-flip test of "mean seed difference is 0": ``(p, n_nonzero, test)``.

    ``d`` holds one difference per seed, quantized to ``step`` (differences within half a step of 0
    are zeros: a sign flip leaves them unchanged, so they carry no evidence). The statistic is the
    mean, so p and the verdict's direction speak of the same quantity. p = P(|T| >= |t|) under
    random signs: exact enumeration up to EXACT_SIGN_FLIP_MAX_N non-zero differences, else
    ``n_resamples`` random sign patterns. For 0/1 metrics of one cell (differences -1, 0, 1) this
    is the exact McNemar test.
    """
    d = quantize(np.asarray(d, dtype=float)[np.isfinite(d)], step)
    tol = max(step, 1e-12) / 2
    nz = d[np.abs(d) > tol]
    n = len(nz)
    if n == 0:
        return 1.0, 0, "sign-flip (no non-zero difference)"
    obs = abs(nz.sum())
    eps = 1e-9 * max(1.0, obs) + (tol / 4 if step > 0 else 0.0)
    if n <= EXACT_SIGN_FLIP_MAX_N:
        signs = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
        null = np.abs(signs @ nz)
        return float((null >= obs - eps).mean()), n, "sign-flip exact"
    rng = np.random.default_rng([seed, n, 11])
    hits = 0
    chunk = max(1, BATCH_ELEMENTS // n)
    for start in range(0, n_resamples, chunk):
        b = min(chunk, n_resamples - start)
        signs = rng.integers(0, 2, (b, n)) * 2 - 1
        hits += int((np.abs(signs @ nz) >= obs - eps).sum())
    return float((hits + 1) / (n_resamples + 1)), n, "sign-flip permutation"


def reachable_p(n_nonzero: int) -> float:
    """Smallest two-sided p the sign-flip test reaches with ``n_nonzero`` non-zero seed differences:
    2 / 2**n (5 -> 0.0625); 1 when there is none."""
    return float(min(1.0, 2.0 ** (1 - min(n_nonzero, 1100)))) if n_nonzero > 0 else 1.0


def seeds_to_reach(alpha: float) -> int:
    """Fewest non-zero seed differences with which the sign-flip test can reach p <= alpha."""
    n = 1
    while reachable_p(n) > alpha:
        n += 1
    return n


def holm(pvalues) -> np.ndarray:
    """Holm step-down adjusted p-values, statsmodels' ``multipletests(method="holm")`` (NaN entries
    stay NaN and do not count in m)."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    if ok.any():
        out[ok] = multipletests(p[ok], method="holm")[1]
    return out


def graphical(pvalues, weights, transitions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The graphical procedure of Bretz et al. (2009), Bonferroni-based: a sequentially rejective
    test of several hypotheses whose family-wise error rate is at most alpha, whatever their
    dependence (a closed test of weighted Bonferroni tests). ``weights`` (summing to at most 1) split
    alpha among the hypotheses; ``transitions[j, k]`` is the share of j's weight k inherits once j
    is rejected (rows sum to at most 1, a zero diagonal). Holm's step-down is the complete graph of
    equal weights.

    Returns per hypothesis (factor, floor, adjusted p), in the order given: the hypothesis is
    rejected at level alpha when max(floor, factor * p) <= alpha, where ``factor`` is 1 / its weight
    when its turn comes in the order of the adjusted p-values and ``floor`` the largest adjusted p
    before it (Bretz et al.'s Algorithm 2). A hypothesis whose weight stays 0 has factor inf and
    adjusted p 1. Ties in p / weight go to the earlier hypothesis."""
    p = np.asarray(pvalues, dtype=float)
    w = np.array(weights, dtype=float)
    g = np.array(transitions, dtype=float).reshape(len(p), len(p))
    factor, floor, adjusted = np.full(len(p), np.inf), np.zeros(len(p)), np.ones(len(p))
    active, running = np.ones(len(p), dtype=bool), 0.0
    while True:
        candidates = np.flatnonzero(active & (w > 0))
        if not len(candidates):
            break
        j = candidates[np.argmin(p[candidates] / w[candidates])]
        factor[j], floor[j] = 1.0 / w[j], running
        running = adjusted[j] = max(running, min(1.0, p[j] / w[j]))
        active[j] = False
        w = np.where(active, w + w[j] * g[j], 0.0)
        through = np.outer(g[:, j], g[j])  # l -> j -> k
        denominator = 1.0 - g[:, j] * g[j, :]  # 1 - g[l, j] * g[j, l], per l
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(denominator[:, None] > 0, (g + through) / denominator[:, None], 0.0)
        g[~active] = 0.0
        g[:, ~active] = 0.0
        np.fill_diagonal(g, 0.0)
    floor[active] = running
    return factor, floor, adjusted


def mde(sd: float, n: int, alpha: float = 0.05, power: float = POWER) -> float:
    """Minimum detectable mean paired difference: (t_{1-alpha/2, n-1} + t_{power, n-1}) * sd / sqrt(n)
    (normal-theory paired t test, two-sided alpha); NaN when n < 2 or sd is not finite."""
    if n < 2 or not np.isfinite(sd):
        return float("nan")
    df = n - 1
    return float((stats.t.ppf(1 - alpha / 2, df) + stats.t.ppf(power, df)) * sd / np.sqrt(n))


def sample_sd(d: np.ndarray) -> float:
    """The ddof-1 sd of ``d`` (n >= 2), exactly 0 when every value is equal: numpy's sd of equal
    values is a rounding error above 0 where their mean is inexact (seven 0.1s: 1.5e-17)."""
    return float(d.std(ddof=1)) if np.ptp(d) > 0 else 0.0


def cohen_dz(d) -> float:
    """Paired effect size mean(d) / sd(d) (ddof 1); 0 when every difference is 0, NaN when the sd
    is 0 but the mean is not (or n < 2)."""
    d = np.asarray(d, dtype=float)
    if len(d) < 2:
        return float("nan")
    mean, sd = d.mean(), sample_sd(d)
    if sd > 0:
        return float(mean / sd)
    return 0.0 if mean == 0 else float("nan")
