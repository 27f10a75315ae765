"""Intervals of a mean or a proportion, vectorised over many samples at once.

* **Intervals over seeds** (``mean_ci``, what verdicts and the ``ci_*`` columns rest on): none
  below 2 seeds; Clopper-Pearson when each seed's value is 0 or 1; Anderson's nonparametric bound
  for a bounded mean when every seed has the same value (a t or bootstrap interval would be
  [v, v]); Tango's score interval for paired differences of a 0/1 metric; else Hall's
  skewness-corrected t (Student t for symmetric seeds). Clipped to the metric's range ([0, 1] for accuracies and fractions,
  [-1, 1] for differences). tests/simulation/test_stats_simulation.py measures their coverage on
  seed-clustered, tied, bounded data.
* **Test-set sampling only**: the cell table's ``testset_lo`` / ``testset_hi`` are the Wilson
  interval of the pooled test counts of a cell. They describe how precisely the test set measures
  those runs, not the mean over seeds, and no verdict uses them. ``boot_lo`` / ``boot_hi`` are a
  BCa bootstrap over the cell's seeds (``bootstrap_mean_ci``), descriptive: it under-covers at a
  handful of seeds (nominal 95 %: ~0.85 at n = 5 on Beta data) and is [v, v] for equal seeds.
  Binomial intervals (Wilson, Clopper-Pearson) are the closed forms that
  ``scipy.stats.binomtest(k, n).proportion_ci(method='wilson' | 'exact')`` computes, vectorised.
"""

from __future__ import annotations

import warnings
from collections import defaultdict

import numpy as np
from scipy import special, stats

from .measures import BATCH_ELEMENTS, DEFAULT_CFG

def wilson_ci(k, n, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval (no continuity correction), vectorised; equals
    ``scipy.stats.binomtest(k, n).proportion_ci(confidence, method='wilson')``."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    z = special.ndtri(0.5 + 0.5 * confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 2 * (n + z**2)
        center = (2 * n * p + z**2) / denom
        delta = z / denom * np.sqrt(4 * n * p * (1 - p) + z**2)
        lo = np.where(k <= 0, 0.0, center - delta)
        hi = np.where(k >= n, 1.0, center + delta)
    return np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)


def clopper_pearson_ci(k, n, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson ('exact') interval, vectorised via the beta quantiles; equals
    ``scipy.stats.binomtest(k, n).proportion_ci(confidence, method='exact')``."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    a = (1 - confidence) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(k <= 0, 0.0, stats.beta.ppf(a, np.maximum(k, 1e-300), n - k + 1))
        hi = np.where(k >= n, 1.0, stats.beta.ppf(1 - a, k + 1, np.maximum(n - k, 1e-300)))
    return np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)


def direction_share_ci(up: int, down: int, confidence: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval over seeds of the share of moving seeds (ties left out)
    that move the way the majority does: what a mixture of seeds that learn and seeds that fail still
    says exactly. NaN when no seed moves."""
    n, k = up + down, max(up, down)
    if n == 0:
        return float("nan"), float("nan")
    lo, hi = clopper_pearson_ci(k, n, confidence)
    return float(lo), float(hi)


def _mean_stat(x, axis=-1):
    return np.mean(x, axis=axis)


def bootstrap_mean_ci(
    samples,
    confidence: float = 0.95,
    n_resamples: int = 9999,
    seed: int = 0,
    bounds: tuple[float, float] = (0.0, 1.0),
    max_n: int | None = DEFAULT_CFG["bootstrap_max_n"],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bootstrap CI of the mean of each sample in ``samples`` (a list of 1-D arrays; NaNs dropped).

    Returns (lo, hi, method) arrays, one entry per sample. BCa via ``scipy.stats.bootstrap``
    (vectorised over all samples of one size), percentile when n < 3 or BCa is not finite,
    'constant' -> [v, v], 'single' (n == 1) -> [x, x], 'empty' (n == 0) -> NaN. Clipped to ``bounds``.
    Samples of more than ``max_n`` values (config ``stats.bootstrap_max_n``; None: no limit) get the
    Student-t interval, method 't (n > max_n)': the mean of that many bounded values is normal to
    well within the bootstrap's own Monte Carlo error, while resampling it costs
    n x n_resamples draws (seconds per comparison on a 10,000-run grid) and BCa's jackknife n^2.
    """
    samples = [np.asarray(s, dtype=float).ravel() for s in samples]
    samples = [s[np.isfinite(s)] for s in samples]
    k = len(samples)
    lo, hi = np.full(k, np.nan), np.full(k, np.nan)
    method = np.full(k, "empty", dtype=object)
    by_n: dict[int, list[int]] = defaultdict(list)
    for i, s in enumerate(samples):
        by_n[len(s)].append(i)
    for n, idx in sorted(by_n.items()):
        if n == 0:
            continue
        idx = np.asarray(idx)
        X = np.stack([samples[i] for i in idx])
        const = np.ptp(X, axis=1) == 0
        lo[idx[const]] = hi[idx[const]] = X[const, 0]
        method[idx[const]] = "single" if n == 1 else "constant"
        rows = ~const
        if not rows.any():
            continue
        Y, at = X[rows], idx[rows]
        if max_n is not None and n > max_n:
            lo[at], hi[at] = t_mean_ci(Y, confidence, bounds=(-np.inf, np.inf))
            method[at] = f"t (n > {max_n})"
            continue
        use_bca = n >= 3
        kwargs = dict(
            statistic=_mean_stat,
            axis=-1,
            vectorized=True,
            confidence_level=confidence,
            batch=max(1, BATCH_ELEMENTS // (Y.shape[0] * n)),
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = stats.bootstrap(
                (Y,),
                n_resamples=n_resamples,
                method="BCa" if use_bca else "percentile",
                rng=np.random.default_rng([seed, n]),
                **kwargs,
            )
            l, h = np.atleast_1d(res.confidence_interval.low), np.atleast_1d(res.confidence_interval.high)
            m = np.full(len(at), "BCa" if use_bca else "percentile", dtype=object)
            bad = ~(np.isfinite(l) & np.isfinite(h))
            if bad.any():
                pct = stats.bootstrap(
                    (Y,), n_resamples=0, bootstrap_result=res, method="percentile", **kwargs
                )
                l = np.where(bad, np.atleast_1d(pct.confidence_interval.low), l)
                h = np.where(bad, np.atleast_1d(pct.confidence_interval.high), h)
                m[bad] = "percentile"
        lo[at], hi[at], method[at] = l, h, m
    lo, hi = np.clip(lo, *bounds), np.clip(hi, *bounds)
    return lo, hi, method


def t_mean_ci(samples, confidence: float = 0.95, bounds: tuple[float, float] = (0.0, 1.0)):
    """Student-t CI of the mean of each sample (NaNs dropped); [v, v] for n == 1 or constant data.

    With 5-10 seeds the bootstrap interval of the mean under-covers (about 85 % actual coverage
    for a nominal 95 % at n = 5 in simulation); the t-interval is the textbook small-n interval.
    """
    lo, hi = [], []
    for s in samples:
        s = np.asarray(s, dtype=float).ravel()
        s = s[np.isfinite(s)]
        if len(s) == 0:
            lo.append(np.nan), hi.append(np.nan)
            continue
        m = s.mean()
        half = 0.0 if len(s) < 2 else stats.t.ppf(0.5 + confidence / 2, len(s) - 1) * s.std(ddof=1) / np.sqrt(len(s))
        lo.append(m - half), hi.append(m + half)
    return np.clip(np.array(lo), *bounds), np.clip(np.array(hi), *bounds)


def anderson_ci(x, confidence: float = 0.95, bounds: tuple[float, float] = (0.0, 1.0)) -> tuple[np.ndarray, np.ndarray]:
    """Anderson's nonparametric interval of the mean of a variable bounded in ``bounds``: the means
    of the extreme distributions inside the one-sided Kolmogorov-Smirnov band of the empirical CDF
    (alpha / 2 each side). Valid for any distribution on ``bounds`` and any n >= 1, also when every
    value is equal, at the price of width (5 seeds all at 1.0: [0.437, 1]). An infinite end of
    ``bounds`` (a gradient slope) gives an infinite end of the interval; the other end stays finite.

    ``x``: one sample (n,) or many samples of one size (m, n); returns arrays of lo and hi."""
    x = np.sort(np.atleast_2d(np.asarray(x, dtype=float)), axis=1)
    m, n = x.shape
    a, b = bounds
    d = float(stats.ksone.ppf(0.5 + confidence / 2, n))
    edges = np.concatenate([np.full((m, 1), a), x, np.full((m, 1), b)], axis=1)
    widths = np.diff(edges, axis=1)  # widths[:, i]: where the empirical CDF is i / n
    frac = np.arange(n + 1) / n
    lo = a + _band_area(widths, np.clip(1 - frac - d, 0, 1)) if np.isfinite(a) else np.full(m, -np.inf)
    hi = b - _band_area(widths, np.clip(frac - d, 0, 1)) if np.isfinite(b) else np.full(m, np.inf)
    return lo, hi


def _band_area(widths: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """Sum of widths * heights per row, over the steps of positive height only: the step at an
    unbounded side is infinitely wide but of height 0 there, and adds nothing (not inf * 0 = NaN)."""
    return (np.where(heights > 0, widths, 0.0) * heights).sum(axis=1)


def skew_t_ci(X, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Hall's skewness-corrected t interval of the mean of each row of ``X`` (samples, n), n >= 2.

    Hall (1992, JRSS B 54:221) transforms the t statistic T = (mean - mu) / se by the monotone
    g(T) = T + a T^2 / 3 + a^2 T^3 / 27 + a / 6, a = skewness / sqrt(n) (moment skewness with the
    ddof-1 sd), which removes its first-order skewness; the interval is {mu : |g(T)| <= t_{1-alpha/2,
    n-1}}, inverted in closed form (g(T) = ((1 + a T / 3)^3 - 1) / a + a / 6). For symmetric seeds
    (a = 0) it is the Student t interval. Seed means of a cell near the ceiling pile up at 1.0 with a
    lower tail; there the t interval sits too high (tests/simulation/test_stats_simulation.py shows it)."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    n = X.shape[1]
    mean, sd = X.mean(axis=1), X.std(axis=1, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        skew = np.where(sd > 0, ((X - mean[:, None]) ** 3).mean(axis=1) / sd**3, 0.0)
    a = skew / np.sqrt(n)
    q = special.stdtrit(n - 1, 0.5 + confidence / 2)  # stats.t.ppf's own quantile, without its checks
    flat = np.abs(a) < 1e-9
    safe = np.where(flat, 1.0, a)

    def g_inverse(c):
        return np.where(flat, c - a / 6, 3 / safe * (np.cbrt(1 + safe * (c - safe / 6)) - 1))

    se = sd / np.sqrt(n)
    return mean - se * g_inverse(q), mean - se * g_inverse(-q)


def tango_ci(b, c, n: int, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Tango's score interval (Stat Med 1998, 17:891) of a paired difference of proportions, vectorised.

    ``b`` pairs went 0 -> 1 and ``c`` went 1 -> 0 out of ``n`` pairs (differences +1, -1, the rest
    0). The interval is {D : |T(D)| <= z}, T(D) = (b - c - n D) / sqrt(n (2 q + D (1 - D))), q the
    restricted maximum-likelihood P(1 -> 0) given D; T(0) is McNemar's statistic. It needs only the
    discordant counts and stays valid when every pair is concordant (10 of 10: [-0.278, 0.278],
    from z^2 / (n + z^2))."""
    b, c = np.asarray(b, dtype=float), np.asarray(c, dtype=float)
    z = special.ndtri(0.5 + confidence / 2)

    # both bounds bisected at once, row 0 the lower (T = z) and row 1 the upper (T = -z): T decreases in D
    est = (b - c) / n
    b, c = np.stack([b, b]), np.stack([c, c])
    # the terms of T(D) free of D, once: B = -b - c + (2 n - b + c) D, C = -c D (1 - D), numerator b - c - n D
    b0, b1, minus_c, diff = -b - c, 2 * n - b + c, -c, b - c

    def score(d):
        B = b0 + b1 * d
        C = minus_c * d * (1 - d)
        q = (np.sqrt(np.maximum(B * B - 8 * n * C, 0.0)) - B) / (4 * n)
        return (diff - n * d) / np.sqrt(n * np.maximum(2 * q + d * (1 - d), 0.0))

    side = np.stack([np.full(est.shape, -1.0), np.full(est.shape, 1.0)])
    inner, outer = np.stack([est, est]), side.copy()
    with np.errstate(invalid="ignore", divide="ignore"):
        for _ in range(60):
            mid = (inner + outer) / 2
            t = score(mid)
            beyond = np.where(side < 0, t > z, t < -z)
            outer, inner = np.where(beyond, mid, outer), np.where(beyond, inner, mid)
    lo, hi = np.where(est == side, side, (inner + outer) / 2)
    return lo, hi


def mean_cis(X, confidence: float = 0.95, bounds: tuple[float, float] = (0.0, 1.0), step: float = 0.0):
    """``mean_ci`` for many samples of one size at once: ``X`` is (samples, seeds), no NaN.
    Returns (lo, hi, method) arrays."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    m, n = X.shape
    lo, hi = np.full(m, np.nan), np.full(m, np.nan)
    method = np.full(m, "n < 2", dtype=object)
    if n < 2:
        return lo, hi, method
    binary = np.all((X == 0) | (X == 1), axis=1) if bounds == (0.0, 1.0) else np.zeros(m, dtype=bool)
    # one paired difference of a 0/1 metric per seed (-1, 0 or 1, at resolution 1)
    paired01 = np.all(np.isin(X, (-1.0, 0.0, 1.0)), axis=1) if bounds == (-1.0, 1.0) and step == 1 else np.zeros(m, dtype=bool)
    equal = ~binary & ~paired01 & (np.ptp(X, axis=1) <= max(step, 1e-12) / 2)
    t = ~binary & ~paired01 & ~equal
    if binary.any():
        lo[binary], hi[binary] = clopper_pearson_ci(X[binary].sum(axis=1), n, confidence)
        method[binary] = "Clopper-Pearson over seeds"
    if paired01.any():
        lo[paired01], hi[paired01] = tango_ci((X[paired01] == 1).sum(axis=1), (X[paired01] == -1).sum(axis=1), n, confidence)
        method[paired01] = "Tango score over seeds (paired 0/1)"
    if equal.any():
        lo[equal], hi[equal] = anderson_ci(X[equal], confidence, bounds)
        method[equal] = "Anderson bound (seeds all equal)"
    if t.any():
        lo[t], hi[t] = skew_t_ci(X[t], confidence)
        method[t] = "skew-corrected t over seeds"
    return np.clip(lo, *bounds), np.clip(hi, *bounds), method


def mean_ci(x, confidence: float = 0.95, bounds: tuple[float, float] = (0.0, 1.0), step: float = 0.0) -> tuple[float, float, str]:
    """The interval of a mean over seeds that every verdict rests on: ``(lo, hi, method)``.

    ``x`` holds one value per seed (NaN dropped). n < 2: no interval (NaN, 'n < 2'). Values all 0
    or 1 (a 0/1 metric, one per seed): Clopper-Pearson. Paired differences of a 0/1 metric (bounds
    (-1, 1), step 1, values -1, 0, 1): Tango's score interval (``tango_ci``). Values all equal at the
    metric's resolution ``step`` (a t-interval would be [v, v]): Anderson's bound, valid for any
    bounded variable. Otherwise Hall's skewness-corrected t interval over seeds (``skew_t_ci``; the
    Student t interval when the seeds are symmetric). Clipped to ``bounds``.
    """
    x = np.asarray(x, dtype=float)
    lo, hi, method = mean_cis(x[np.isfinite(x)][None, :], confidence, bounds, step)
    return float(lo[0]), float(hi[0]), str(method[0])
