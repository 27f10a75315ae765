"""Statistics of one study: tidy tables of cells, paired comparisons, stability and main effects.

Input is the study's ``summary`` (one row per training run, see ``ablation.io``/the pipeline) and
``factors`` (the columns the study varies; ``seed`` is never a factor). Every function returns a
tidy ``pandas.DataFrame`` and is deterministic for a given ``seed`` argument.

Decisions shared by every table
-------------------------------
* **Diverged runs** (``status == 'diverged'``) stay in every accuracy statistic as *chance-level*
  runs: a recorded finite ``test_acc`` is used as is; a missing one (NaN) becomes
  ``test_correct / test_total`` when the counts are there, else ``0.5`` -- exactly what a model
  with NaN/constant outputs scores on the swap-paired test set (every sequence appears with A and
  B swapped, so a constant prediction gets half right). Pooled counts impute ``test_total / 2``
  correct. Excluding them instead would make an unstable setting look better than it is
  (survivorship) and unbalance the seed pairing. ``n_diverged`` / ``n_imputed`` say how many.
  For stability a diverged run is ``diverged`` and *not converged*.
* **Converged** = ``status == 'ok'`` and ``final_train_acc >= converged_threshold`` (NaN -> no).
* **The seed is the unit.** A seed fixes the data and the initialisation of every cell it runs in,
  so runs of one seed are one replicate however many cells they fill. Every interval and test over
  runs first averages within each seed (``seed_means``): n is the number of seeds. Paired
  differences are matched on seed and every other factor, then averaged within seed; marginal
  means are means over seeds of the level's cells; the spread of marginal means is bootstrapped
  by resampling seeds jointly across cells.
* **Intervals over seeds** (``mean_ci``, what verdicts and the ``ci_*`` columns rest on): none
  below 2 seeds; Clopper-Pearson when each seed's value is 0 or 1; Anderson's nonparametric bound
  for a bounded mean when every seed has the same value (a t or bootstrap interval would be
  [v, v]); Tango's score interval for paired differences of a 0/1 metric; else Hall's
  skewness-corrected t (Student t for symmetric seeds). Clipped to the metric's range ([0, 1] for accuracies and fractions,
  [-1, 1] for differences). tests/test_stats_simulation.py measures their coverage on
  seed-clustered, tied, bounded data.
* **Ties and zeros at the metric's resolution** (``resolution``: 1 / test_total for accuracies):
  accuracies are k / n, so values are rounded to that grid before they are compared.
* **Tests**: the sign-flip test of the mean seed difference (``sign_flip_test``), exact up to
  EXACT_SIGN_FLIP_MAX_N non-zero differences; zeros carry no evidence, so ``min_p`` counts only the
  non-zero ones.
* **Test-set sampling only**: the cell table's ``testset_lo`` / ``testset_hi`` are the Wilson
  interval of the pooled test counts of a cell. They describe how precisely the test set measures
  those runs, not the mean over seeds, and no verdict uses them. ``boot_lo`` / ``boot_hi`` are a
  BCa bootstrap over the cell's seeds (``bootstrap_mean_ci``), descriptive: it under-covers at a
  handful of seeds (nominal 95 %: ~0.85 at n = 5 on Beta data) and is [v, v] for equal seeds.
  Binomial intervals (Wilson, Clopper-Pearson) are the closed forms that
  ``scipy.stats.binomtest(k, n).proportion_ci(method='wilson' | 'exact')`` computes, vectorised.
"""

from __future__ import annotations

import itertools
import warnings
from collections import defaultdict

import numpy as np
import pandas as pd
from scipy import special, stats

from .settings import sorted_levels

DEFAULT_CFG = {
    "confidence": 0.95, "n_resamples": 9999, "bootstrap_max_n": 1000, "converged_threshold": 0.95, "alpha": 0.05,
    "family": "study",
}  # fmt: skip
CHANCE = 0.5
"""Accuracy of a model blind to order (or with NaN/constant outputs) on the swap-paired test set."""
POWER = 0.8
"""Power of the minimum detectable effect (``mde``) of the paired comparisons."""
ALL_PAIRS_MAX_LEVELS = 4
"""Up to this many levels every pair of levels is compared; above it, numeric levels are compared
with the next level only (non-numeric levels: still every pair)."""
_BATCH_ELEMENTS = 2_000_000  # elements gathered per vectorised resampling batch (memory bound)

CELL_COLUMNS = [
    "n", "n_ok", "n_diverged", "n_imputed", "mean", "std", "min", "max", "boot_lo", "boot_hi",
    "boot_method", "ci_lo", "ci_hi", "ci_method", "pooled_correct", "pooled_total", "testset_lo", "testset_hi",
    "converged_frac",
]  # fmt: skip
PAIRED_COLUMNS = [
    "factor", "level_a", "level_b", "n_pairs", "n_seeds", "mean_diff", "ci_lo", "ci_hi", "ci_method",
    "n_up", "n_down", "share_lo", "share_hi", "seed_min", "seed_max",
    "effect_size", "test", "p_value", "p_holm", "significant", "min_p", "mde", "note",
]  # fmt: skip
STABILITY_COLUMNS = [
    "n", "converged", "conv_frac", "conv_lo", "conv_hi", "diverged", "div_frac", "div_lo", "div_hi",
]  # fmt: skip
MAIN_EFFECT_COLUMNS = [
    "rank", "factor", "eta_sq", "spread", "spread_lo", "spread_hi", "n_levels", "best_level",
    "worst_level", "marginal_means",
]  # fmt: skip
MARGINAL_COLUMNS = ["factor", "level", "n", "n_seeds", "mean", "ci_lo", "ci_hi", "ci_method"]


# --------------------------------------------------------------------------- configuration, runs


def resolve_cfg(cfg: dict | None) -> dict:
    """``cfg`` (the config's ``stats`` section) over the defaults."""
    out = dict(DEFAULT_CFG)
    out.update(cfg or {})
    return out


def _num(summary: pd.DataFrame, column: str) -> np.ndarray:
    if column not in summary:
        return np.full(len(summary), np.nan)
    return pd.to_numeric(summary[column], errors="coerce").to_numpy(dtype=float)


def is_diverged(summary: pd.DataFrame) -> np.ndarray:
    if "status" not in summary:
        return np.zeros(len(summary), dtype=bool)
    return summary["status"].astype(str).str.lower().eq("diverged").to_numpy()


def converged_mask(summary: pd.DataFrame, threshold: float) -> np.ndarray:
    """status ok and final_train_acc >= threshold (NaN accuracy: not converged)."""
    ok = summary["status"].astype(str).str.lower().eq("ok").to_numpy() if "status" in summary else True
    acc = _num(summary, "final_train_acc")
    with np.errstate(invalid="ignore"):
        return ok & (acc >= threshold)


def run_accuracy(summary: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(test accuracy per run, imputed?) with the diverged/NaN rule of the module docstring."""
    acc = _num(summary, "test_acc")
    missing = ~np.isfinite(acc)
    if missing.any():
        correct, total = _num(summary, "test_correct"), _num(summary, "test_total")
        with np.errstate(invalid="ignore", divide="ignore"):
            from_counts = correct / total
        usable = np.isfinite(from_counts) & (total > 0)
        acc = np.where(missing & usable, from_counts, acc)
        acc = np.where(~np.isfinite(acc), CHANCE, acc)
    return acc, missing


def run_counts(summary: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(correct, total) test counts per run; NaN totals -> 2 * n_test; NaN correct -> acc * total."""
    total = _num(summary, "test_total")
    total = np.where(np.isfinite(total), total, 2 * _num(summary, "n_test"))
    correct = _num(summary, "test_correct")
    acc, _ = run_accuracy(summary)
    correct = np.where(np.isfinite(correct), correct, np.round(acc * total))
    return correct, total


METRICS = ("test_acc", "converged", "final_train_acc")


def metric_values(summary: pd.DataFrame, metric: str, cfg: dict | None = None) -> np.ndarray:
    """Per-run values of ``metric``: test_acc (diverged rule above), converged (0/1), final_train_acc
    (NaN -> 0.5, chance, like test_acc)."""
    cfg = resolve_cfg(cfg)
    if metric == "test_acc":
        return run_accuracy(summary)[0]
    if metric == "converged":
        return converged_mask(summary, cfg["converged_threshold"]).astype(float)
    if metric == "final_train_acc":
        acc = _num(summary, "final_train_acc")
        return np.where(np.isfinite(acc), acc, CHANCE)
    raise ValueError(f"unknown metric {metric!r} (one of {', '.join(METRICS)})")


# --------------------------------------------------------------------------- small helpers


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


def holm(pvalues) -> np.ndarray:
    """Holm step-down adjusted p-values (NaN entries stay NaN and do not count in m)."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = len(ok)
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out[order] = np.minimum(adjusted, 1.0)
    return out


def mde(sd: float, n: int, alpha: float = 0.05, power: float = POWER) -> float:
    """Minimum detectable mean paired difference: (t_{1-alpha/2, n-1} + t_{power, n-1}) * sd / sqrt(n)
    (normal-theory paired t test, two-sided alpha); NaN when n < 2 or sd is not finite."""
    if n < 2 or not np.isfinite(sd):
        return float("nan")
    df = n - 1
    return float((stats.t.ppf(1 - alpha / 2, df) + stats.t.ppf(power, df)) * sd / np.sqrt(n))


def _sd(d: np.ndarray) -> float:
    """The ddof-1 sd of ``d`` (n >= 2), exactly 0 when every value is equal: numpy's sd of equal
    values is a rounding error above 0 where their mean is inexact (seven 0.1s: 1.5e-17)."""
    return float(d.std(ddof=1)) if np.ptp(d) > 0 else 0.0


def cohen_dz(d) -> float:
    """Paired effect size mean(d) / sd(d) (ddof 1); 0 when every difference is 0, NaN when the sd
    is 0 but the mean is not (or n < 2)."""
    d = np.asarray(d, dtype=float)
    if len(d) < 2:
        return float("nan")
    mean, sd = d.mean(), _sd(d)
    if sd > 0:
        return float(mean / sd)
    return 0.0 if mean == 0 else float("nan")


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
            batch=max(1, _BATCH_ELEMENTS // (Y.shape[0] * n)),
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


# --------------------------------------------------------------------------- the seed as the unit

BOUNDS = {"test_acc": (0.0, 1.0), "converged": (0.0, 1.0), "final_train_acc": (0.0, 1.0)}
EXACT_SIGN_FLIP_MAX_N = 16
"""Up to this many non-zero seed differences the sign-flip test enumerates all 2**n sign patterns."""


def resolution(summary: pd.DataFrame, metric: str = "test_acc") -> float:
    """The smallest step of ``metric`` between two runs: for test_acc 1 / the least common multiple of
    the runs' test_total (k / n over test sets of unequal sizes differ by multiples of it; 0 when the
    counts are missing), 1 for converged, 0 (unknown) for final_train_acc. Differences smaller than
    half a step are ties (float noise of k / n), and a difference below half a step is a zero."""
    if metric == "converged":
        return 1.0
    if metric == "test_acc":
        total = _num(summary, "test_total")
        total = total[np.isfinite(total) & (total > 0)]
        return float(1.0 / np.lcm.reduce(np.rint(total).astype(np.int64))) if len(total) else 0.0
    return 0.0


def quantize(x, step: float) -> np.ndarray:
    """``x`` rounded to multiples of ``step`` (unchanged when step is 0): k / n accuracies and their
    means become exact multiples, so equal values compare equal."""
    x = np.asarray(x, dtype=float)
    return x if not step > 0 else np.round(x / step) * step


def seed_means(seeds, values) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(seeds, mean of ``values`` per seed, number of values per seed), seeds sorted: the unit of
    every interval and test. Runs sharing a seed share the data and the initialisation, so they
    are one replicate, however many cells they sit in."""
    seeds, values = np.asarray(seeds), np.asarray(values, dtype=float)
    ok = np.isfinite(values)
    seeds, values = seeds[ok], values[ok]
    ids, inverse = np.unique(seeds, return_inverse=True)
    count = np.bincount(inverse, minlength=len(ids))
    return ids, np.bincount(inverse, weights=values, minlength=len(ids)) / np.maximum(count, 1), count


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
    lower tail; there the t interval sits too high (tests/test_stats_simulation.py shows it)."""
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
    chunk = max(1, _BATCH_ELEMENTS // n)
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


# --------------------------------------------------------------------------- grouping


def _check_columns(summary: pd.DataFrame, factors) -> list[str]:
    factors = list(factors)
    missing = [f for f in factors if f not in summary.columns]
    if missing:
        raise ValueError(f"factor column(s) not in summary: {', '.join(missing)}")
    if "seed" in factors:
        raise ValueError("'seed' is never a factor")
    return factors


def _cells(summary: pd.DataFrame, factors: list[str]) -> tuple[pd.DataFrame, np.ndarray]:
    """(one row per cell with the factor values, in sorted order; cell code per run)."""
    if not factors:
        return pd.DataFrame(index=[0]), np.zeros(len(summary), dtype=int)
    g = summary.groupby(factors, sort=True, dropna=False)
    codes = g.ngroup().to_numpy()
    keys = g.size().reset_index()[factors]
    return keys, codes


def _split(values: np.ndarray, codes: np.ndarray, n_cells: int) -> list[np.ndarray]:
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(n_cells + 1))
    v = values[order]
    return [v[bounds[i] : bounds[i + 1]] for i in range(n_cells)]


# --------------------------------------------------------------------------- tables


def _cell_cis(values, seeds, codes, n_cells: int, confidence: float, step: float) -> list[tuple]:
    """``mean_ci`` of every cell over its seeds, (lo, hi, method) per cell; cells of equal size in
    one vectorised call (a 10,000-run grid has thousands of cells)."""
    frame = pd.DataFrame({"c": codes, "s": seeds, "v": values}).groupby(["c", "s"], sort=True)["v"].mean()
    cell_of = frame.index.get_level_values("c").to_numpy()
    cells = _split(quantize(frame.to_numpy(), step), cell_of, n_cells)
    out: list[tuple] = [(np.nan, np.nan, "n < 2")] * n_cells
    by_n: dict[int, list[int]] = defaultdict(list)
    for c, v in enumerate(cells):
        by_n[len(v)].append(c)
    for n, cs in by_n.items():
        if n == 0:
            continue
        lo, hi, how = mean_cis(np.stack([cells[c] for c in cs]), confidence, (0.0, 1.0), step)
        for i, c in enumerate(cs):
            out[c] = (float(lo[i]), float(hi[i]), str(how[i]))
    return out


def cell_table(summary: pd.DataFrame, factors, cfg: dict | None = None, seed: int = 0) -> pd.DataFrame:
    """One row per cell (combination of factor values; one row if there are no factors).

    Columns: the factors, then n (runs), n_ok (status ok), n_diverged, n_imputed (runs whose
    test_acc was NaN, counted as chance), mean / std (ddof 1; NaN for n == 1) / min / max of
    test_acc, boot_lo / boot_hi and boot_method (descriptive bootstrap over seeds, see
    ``bootstrap_mean_ci``), ci_lo / ci_hi and ci_method (the interval over seeds that claims use,
    ``mean_ci``), pooled_correct / pooled_total (summed test counts) with their Wilson interval
    testset_lo / testset_hi (test-set sampling only), and converged_frac.
    """
    cfg = resolve_cfg(cfg)
    factors = _check_columns(summary, factors)
    keys, codes = _cells(summary, factors)
    n_cells = len(keys)
    acc, imputed = run_accuracy(summary)
    correct, total = run_counts(summary)
    div = is_diverged(summary)
    ok = summary["status"].astype(str).str.lower().eq("ok").to_numpy() if "status" in summary else ~div
    conv = converged_mask(summary, cfg["converged_threshold"])

    frame = pd.DataFrame({"c": codes, "acc": acc, "ok": ok, "div": div, "imp": imputed,
                          "k": correct, "t": total, "conv": conv})  # fmt: skip
    g = frame.groupby("c", sort=True)
    agg = g.agg(
        n=("acc", "size"), n_ok=("ok", "sum"), n_diverged=("div", "sum"), n_imputed=("imp", "sum"),
        mean=("acc", "mean"), std=("acc", "std"), min=("acc", "min"), max=("acc", "max"),
        pooled_correct=("k", "sum"), pooled_total=("t", "sum"), converged_frac=("conv", "mean"),
    )  # fmt: skip
    lo, hi, method = bootstrap_mean_ci(
        _split(acc, codes, n_cells), cfg["confidence"], cfg["n_resamples"], seed, max_n=cfg["bootstrap_max_n"]
    )
    seeds = summary["seed"].to_numpy() if "seed" in summary else np.arange(len(summary))
    step = resolution(summary, "test_acc")
    cis = _cell_cis(acc, seeds, codes, n_cells, cfg["confidence"], step)
    blo, bhi = wilson_ci(agg["pooled_correct"], agg["pooled_total"], cfg["confidence"])
    out = keys.reset_index(drop=True).copy()
    for col in ["n", "n_ok", "n_diverged", "n_imputed", "mean", "std", "min", "max"]:
        out[col] = agg[col].to_numpy()
    out["boot_lo"], out["boot_hi"], out["boot_method"] = lo, hi, method
    out["ci_lo"], out["ci_hi"], out["ci_method"] = ([c[i] for c in cis] for i in range(3))
    out["pooled_correct"] = agg["pooled_correct"].to_numpy().astype(int)
    out["pooled_total"] = agg["pooled_total"].to_numpy().astype(int)
    out["testset_lo"], out["testset_hi"] = blo, bhi
    out["converged_frac"] = agg["converged_frac"].to_numpy()
    for col in ["n", "n_ok", "n_diverged", "n_imputed"]:
        out[col] = out[col].astype(int)
    return out[factors + CELL_COLUMNS]


def stability_table(summary: pd.DataFrame, factors, cfg: dict | None = None) -> pd.DataFrame:
    """Per cell: n, converged (count; status ok and final_train_acc >= converged_threshold),
    conv_frac with its Clopper-Pearson interval conv_lo / conv_hi, diverged (count), div_frac,
    div_lo / div_hi (Clopper-Pearson)."""
    cfg = resolve_cfg(cfg)
    factors = _check_columns(summary, factors)
    keys, codes = _cells(summary, factors)
    frame = pd.DataFrame({"c": codes, "conv": converged_mask(summary, cfg["converged_threshold"]),
                          "div": is_diverged(summary)})  # fmt: skip
    agg = frame.groupby("c", sort=True).agg(n=("conv", "size"), converged=("conv", "sum"),
                                            diverged=("div", "sum"))  # fmt: skip
    out = keys.reset_index(drop=True).copy()
    n = agg["n"].to_numpy()
    for name, short in [("converged", "conv"), ("diverged", "div")]:
        k = agg[name].to_numpy()
        lo, hi = clopper_pearson_ci(k, n, cfg["confidence"])
        out[name], out[f"{short}_frac"], out[f"{short}_lo"], out[f"{short}_hi"] = k.astype(int), k / n, lo, hi
    out["n"] = n.astype(int)
    return out[factors + STABILITY_COLUMNS]


def _pair_frame(
    summary: pd.DataFrame, values: np.ndarray, factor: str, level_a, level_b, factors: list[str]
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, int]:
    """Runs at level_a and level_b of ``factor`` matched on seed and every other factor.

    Returns (the matched keys, sorted; value at a; value at b; number of runs of the two levels
    left without a partner). Runs sharing a key within one level are an error.
    """
    keys = ["seed"] + [f for f in factors if f != factor]
    col = summary[factor].to_numpy()
    rows_a, rows_b = (np.flatnonzero(col == level) for level in (level_a, level_b))
    # one code per distinct key of the two levels' runs, numbered in the keys' sorted order
    both = summary[keys].iloc[np.concatenate([rows_a, rows_b])]
    codes = both.groupby(keys, sort=True, dropna=False, observed=True).ngroup().to_numpy()
    code_a, code_b = codes[: len(rows_a)], codes[len(rows_a) :]
    for level, code in ((level_a, code_a), (level_b, code_b)):
        _, inverse, counts = np.unique(code, return_inverse=True, return_counts=True)
        shared = counts[inverse] > 1
        if shared.any():
            raise ValueError(
                f"{int(shared.sum())} runs at {factor}={level!r} share seed and every other factor value; "
                "cannot pair them (is a varying setting missing from the factors?)"
            )
    matched, ia, ib = np.intersect1d(code_a, code_b, assume_unique=True, return_indices=True)  # sorted by code
    merged = summary[keys].iloc[rows_a[ia]].reset_index(drop=True)
    unmatched = len(rows_a) + len(rows_b) - 2 * len(matched)
    a = np.asarray(values[rows_a[ia]], dtype=float)
    b = np.asarray(values[rows_b[ib]], dtype=float)
    return merged, a, b, unmatched


def pair_runs(summary, factor, level_a, level_b, factors, values=None) -> tuple[pd.DataFrame, int]:
    """Runs at ``level_a`` / ``level_b`` of ``factor`` matched on seed and every other factor:
    (frame with seed, the other factors, value_a, value_b, diff = b - a; count of unmatched runs).
    ``values`` is one number per run of ``summary`` (default: test_acc, see ``run_accuracy``)."""
    factors = _check_columns(summary, factors)
    if values is None:
        values = run_accuracy(summary)[0]
    keys, a, b, unmatched = _pair_frame(summary, np.asarray(values, dtype=float), factor, level_a, level_b, factors)
    keys["value_a"], keys["value_b"], keys["diff"] = a, b, b - a
    return keys, unmatched


def level_pairs(levels: list) -> list[tuple]:
    """Pairs (a, b) compared for a factor: every pair up to ALL_PAIRS_MAX_LEVELS levels (or for
    non-numeric levels), else each numeric level with the next."""
    numeric = all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in levels)
    if len(levels) <= ALL_PAIRS_MAX_LEVELS or not numeric:
        return list(itertools.combinations(levels, 2))
    return list(zip(levels[:-1], levels[1:]))


def direction_share_ci(up: int, down: int, confidence: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval over seeds of the share of moving seeds (ties left out)
    that move the way the majority does: what a mixture of seeds that learn and seeds that fail still
    says exactly. NaN when no seed moves."""
    n, k = up + down, max(up, down)
    if n == 0:
        return float("nan"), float("nan")
    lo, hi = clopper_pearson_ci(k, n, confidence)
    return float(lo), float(hi)


def paired_comparisons(summary: pd.DataFrame, factors, cfg: dict | None = None, seed: int = 0) -> pd.DataFrame:
    """Paired comparisons of test_acc between levels of each factor (``level_pairs``), runs matched
    on seed and every other factor, then averaged within each seed: the seed is the unit.

    Columns: factor, level_a, level_b, n_pairs (matched runs), n_seeds (the n of the interval and
    the test), mean_diff (b - a, mean of the seed differences), ci_lo / ci_hi (``mean_ci`` over
    seeds: t, or Anderson's bound when every seed difference is equal; NaN below 2 seeds),
    effect_size (Cohen's d_z of the seed differences), test and p_value (``sign_flip_test`` on the
    seed differences, ties and zeros at 1 / test_total), p_holm (Holm over every comparison of the
    study), significant (p_holm < alpha), min_p (smallest p the test reaches with this many
    non-zero seed differences), mde (mean seed difference a paired t test at the strictest Holm
    level alpha / m detects with 80 % power given the observed sd; NaN when unreachable) and note.
    """
    cfg = resolve_cfg(cfg)
    factors = _check_columns(summary, factors)
    values = run_accuracy(summary)[0]
    step = resolution(summary, "test_acc")
    rows = []
    for factor in factors:
        for a, b in level_pairs(sorted_levels(summary[factor])):
            keys, va, vb, unmatched = _pair_frame(summary, values, factor, a, b, factors)
            _, d, per_seed = seed_means(keys["seed"].to_numpy(), vb - va)
            n = len(d)
            dstep = step / per_seed.max() if n else 0.0  # a mean of c differences moves in steps of 1/(c T)
            d = quantize(d, dstep)
            p, n_nonzero, test = sign_flip_test(d, dstep, cfg["n_resamples"], seed)
            lo, hi, how = mean_ci(d, cfg["confidence"], (-1.0, 1.0), dstep)
            up, down = int((d > dstep / 2).sum()), int((d < -dstep / 2).sum())
            share_lo, share_hi = direction_share_ci(up, down, cfg["confidence"])
            rows.append(dict(
                factor=factor, level_a=a, level_b=b, n_pairs=len(va), n_seeds=n,
                mean_diff=float(d.mean()) if n else float("nan"), ci_lo=lo, ci_hi=hi, ci_method=how,
                n_up=up, n_down=down, share_lo=share_lo, share_hi=share_hi,
                seed_min=float(d.min()) if n else float("nan"), seed_max=float(d.max()) if n else float("nan"),
                effect_size=cohen_dz(d), test=test if n else "none", p_value=p if n else float("nan"),
                min_p=reachable_p(n_nonzero) if n else float("nan"),
                sd=_sd(d) if n >= 2 else float("nan"), unmatched=unmatched,
            ))  # fmt: skip
    if not rows:
        return pd.DataFrame(columns=PAIRED_COLUMNS)
    out = pd.DataFrame(rows)
    out["p_holm"] = holm(out["p_value"])
    out["significant"] = (out["p_holm"] < cfg["alpha"]).fillna(False).astype(bool)
    strictest = cfg["alpha"] / max(1, int(out["p_value"].notna().sum()))
    notes, mdes = [], []
    for r in out.itertuples():
        note = []
        if r.n_seeds == 0:
            note.append("no matched pairs")
        elif r.n_seeds < 2:
            note.append("one seed: no interval")
        if r.n_seeds and r.min_p > cfg["alpha"]:
            note.append(f"unreachable: min p {r.min_p:.4g} > alpha {cfg['alpha']:g} with {r.n_seeds} seeds")
            mdes.append(float("nan"))
        else:
            mdes.append(mde(r.sd, r.n_seeds, strictest) if r.sd > 0 else float("nan"))
        if r.unmatched:
            note.append(f"{r.unmatched} runs without a partner")
        notes.append("; ".join(note))
    out["mde"], out["note"] = mdes, notes
    return out[PAIRED_COLUMNS]


def _seed_bootstrap_level_means(
    acc: np.ndarray, codes: np.ndarray, seeds: np.ndarray, n_cells: int, level_of_cell: list[np.ndarray],
    n_resamples: int, seed: int,
) -> list[np.ndarray]:
    """Bootstrap of marginal level means resampling *seeds*, the same seeds in every cell.

    A seed fixes the data and the initialisation of every cell, so cells of one seed move together;
    resampling seeds jointly keeps that correlation (resampling each cell on its own would treat
    them as independent and make the interval too narrow). ``level_of_cell[f]`` gives, per cell,
    the index of factor f's level; a level's mean is the mean of its cells' means. Returns per
    factor a (levels x n_resamples) array. Missing (cell, seed) runs are left out of that cell's mean.
    """
    seed_ids, seed_code = np.unique(seeds, return_inverse=True)
    n_seeds = len(seed_ids)
    total = np.zeros((n_cells, n_seeds))
    count = np.zeros((n_cells, n_seeds))
    np.add.at(total, (codes, seed_code), acc)
    np.add.at(count, (codes, seed_code), 1.0)
    rng = np.random.default_rng([seed, n_seeds, 1])
    out = [np.empty((int(lev.max()) + 1 if len(lev) else 0, n_resamples)) for lev in level_of_cell]
    chunk = max(1, _BATCH_ELEMENTS // max(1, n_cells * 4))
    for start in range(0, n_resamples, chunk):
        b = min(chunk, n_resamples - start)
        picks = rng.integers(0, n_seeds, (b, n_seeds))
        weights = np.zeros((b, n_seeds))
        np.add.at(weights, (np.repeat(np.arange(b), n_seeds), picks.ravel()), 1.0)
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a level none of whose seeds was drawn: NaN
            cell_means = (total @ weights.T) / (count @ weights.T)  # (cells, b)
            for f, lev in enumerate(level_of_cell):
                for i in range(out[f].shape[0]):
                    out[f][i, start : start + b] = np.nanmean(cell_means[lev == i], axis=0)
    return out


def _main_effects_core(summary, factors, cfg, seed):
    cfg = resolve_cfg(cfg)
    factors = _check_columns(summary, factors)
    acc = run_accuracy(summary)[0]
    keys, codes = _cells(summary, factors)
    n_cells = len(keys)
    grand = acc.mean() if len(acc) else float("nan")
    # runs all equal: nothing varies (their mean can be off by rounding, leaving sums of float noise)
    ss_total = float(((acc - grand) ** 2).sum()) if len(acc) and np.ptp(acc) > 0 else 0.0
    level_of_cell, level_lists = [], []
    for f in factors:
        if keys[f].isna().any():
            raise ValueError(f"factor {f!r} has missing values")
        levels = sorted_levels(keys[f])
        cell_level = keys[f].to_numpy()
        idx = np.full(n_cells, -1)
        for i, lev in enumerate(levels):
            idx[cell_level == lev] = i
        level_of_cell.append(idx)
        level_lists.append(levels)
    seeds = summary["seed"].to_numpy() if "seed" in summary else np.arange(len(summary))
    boots = (
        _seed_bootstrap_level_means(acc, codes, seeds, n_cells, level_of_cell, cfg["n_resamples"], seed)
        if factors
        else []
    )
    a = (1 - cfg["confidence"]) / 2
    rows, marg = [], []
    for f, levels, boot in zip(factors, level_lists, boots):
        col = summary[f].to_numpy()
        means, ns = [], []
        for i, lev in enumerate(levels):
            sel = col == lev
            ns.append(int(sel.sum()))
            means.append(float(acc[sel].mean()))
            _, level_by_seed, _ = seed_means(seeds[sel], acc[sel])
            step = resolution(summary, "test_acc") / max(1, n_cells)
            lo, hi, how = mean_ci(quantize(level_by_seed, step), cfg["confidence"], (0.0, 1.0), step)
            marg.append(dict(factor=f, level=lev, n=ns[-1], n_seeds=len(level_by_seed), mean=means[-1],
                             ci_lo=lo, ci_hi=hi, ci_method=how))  # fmt: skip
        means_arr, ns_arr = np.asarray(means), np.asarray(ns)
        ss_between = float((ns_arr * (means_arr - grand) ** 2).sum())
        spread_boot = np.nanmax(boot, axis=0) - np.nanmin(boot, axis=0)
        slo, shi = np.nanquantile(spread_boot, [a, 1 - a])
        rows.append(dict(
            factor=f, eta_sq=ss_between / ss_total if ss_total > 0 else 0.0,
            spread=float(means_arr.max() - means_arr.min()), spread_lo=float(max(0.0, slo)), spread_hi=float(shi),
            n_levels=len(levels), best_level=levels[int(np.argmax(means_arr))],
            worst_level=levels[int(np.argmin(means_arr))],
            marginal_means="; ".join(f"{lev}={m:.4f}" for lev, m in zip(levels, means)),
        ))  # fmt: skip
    if rows:
        main = pd.DataFrame(rows)
        main["_order"] = np.arange(len(main))
        main = main.sort_values(["eta_sq", "_order"], ascending=[False, True], kind="stable").drop(columns="_order")
        main["rank"] = np.arange(1, len(main) + 1)
        main = main[MAIN_EFFECT_COLUMNS].reset_index(drop=True)
    else:
        main = pd.DataFrame(columns=MAIN_EFFECT_COLUMNS)
    marginal = pd.DataFrame(marg, columns=MARGINAL_COLUMNS)
    return main, marginal


def main_effects(summary: pd.DataFrame, factors, cfg: dict | None = None, seed: int = 0) -> pd.DataFrame:
    """One row per factor, ranked by how much it moves test accuracy (descending eta_sq).

    Columns: rank, factor, eta_sq (sum of squares between the factor's levels / total sum of
    squares over all runs, seeds included: a one-way ANOVA share; additive over factors in a
    balanced full factorial; 0 when nothing varies), spread (max - min marginal mean) with
    spread_lo / spread_hi (percentile CI from a bootstrap of seeds, the same seeds in every cell,
    see ``_seed_bootstrap_level_means``; note max - min is biased upward when the true spread is ~0),
    n_levels, best_level, worst_level and marginal_means ("level=mean; ..."; the long form, with
    CIs, is ``marginal_means``). Marginal means average runs (= cell means in a balanced design).
    """
    return _main_effects_core(summary, factors, cfg, seed)[0]


def marginal_means(summary: pd.DataFrame, factors, cfg: dict | None = None, seed: int = 0) -> pd.DataFrame:
    """Long table: factor, level, n, mean test_acc, boot_lo / boot_hi (same seed bootstrap as
    ``main_effects``)."""
    return _main_effects_core(summary, factors, cfg, seed)[1]


# --------------------------------------------------------------------------- seed variance, interactions

SEED_VARIANCE_COLUMNS = ["n_runs", "n_seeds", "runs_per_seed", "var_seed", "var_residual", "icc", "n_eff", "method"]
MIXEDLM_OPTIMIZERS = ("lbfgs", "powell", "nm")  # statsmodels' default first, then derivative-free ones
INTERACTION_COLUMNS = ["factor_a", "factor_b", "eta_sq", "simple_spreads"]


def seed_variance(summary: pd.DataFrame, factors) -> pd.DataFrame:
    """The share of test-accuracy variance due to the seed, beside the factors' fixed effects.

    A linear mixed model (``statsmodels`` MixedLM, REML): test_acc ~ every factor (levels as
    dummies) + a random intercept per seed. icc = var_seed / (var_seed + var_residual); n_eff =
    n_runs / (1 + (runs_per_seed - 1) icc), the number of independent runs the study is worth (the
    design effect of runs clustered in seeds). One row; NaN with the reason in ``method`` when the
    model cannot be fitted (fewer than 2 seeds, or no residual variance).
    """
    factors = _check_columns(summary, factors)
    acc = run_accuracy(summary)[0]
    seeds = summary["seed"].to_numpy() if "seed" in summary else np.zeros(len(summary))
    n_seeds = len(pd.unique(seeds))
    per_seed = len(acc) / max(1, n_seeds)
    row = dict(n_runs=len(acc), n_seeds=n_seeds, runs_per_seed=per_seed, var_seed=np.nan, var_residual=np.nan,
               icc=np.nan, n_eff=np.nan, method="MixedLM (REML): test_acc ~ factors + (1 | seed)")  # fmt: skip
    if n_seeds < 2 or np.ptp(acc) == 0:
        row["method"] += "; not fitted: " + ("fewer than 2 seeds" if n_seeds < 2 else "every run has the same accuracy")
        return pd.DataFrame([row], columns=SEED_VARIANCE_COLUMNS)
    from statsmodels.regression.mixed_linear_model import MixedLM  # noqa: PLC0415 (slow import)

    dummies = pd.get_dummies(summary[factors].astype(str), drop_first=True, dtype=float) if factors else None
    exog = np.column_stack([np.ones(len(acc))] + ([dummies.to_numpy()] if dummies is not None else []))
    fit = None
    for optimizer in MIXEDLM_OPTIMIZERS:  # L-BFGS can meet a singular matrix near var_seed = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # boundary fits (var_seed = 0) warn; the estimate stands
            try:
                fit = MixedLM(acc, exog, groups=seeds).fit(reml=True, method=optimizer)
            except np.linalg.LinAlgError:
                continue
        if fit.converged:
            break
    if fit is None or not fit.converged:
        row["method"] += f"; not fitted: no optimizer converged ({', '.join(MIXEDLM_OPTIMIZERS)})"
        return pd.DataFrame([row], columns=SEED_VARIANCE_COLUMNS)
    if optimizer != MIXEDLM_OPTIMIZERS[0]:
        row["method"] += f"; fitted with {optimizer} ({', '.join(MIXEDLM_OPTIMIZERS[:MIXEDLM_OPTIMIZERS.index(optimizer)])} failed)"
    var_seed, var_res = float(np.asarray(fit.cov_re)[0, 0]), float(fit.scale)
    icc = var_seed / (var_seed + var_res) if var_seed + var_res > 0 else np.nan
    row.update(var_seed=var_seed, var_residual=var_res, icc=icc, n_eff=len(acc) / (1 + (per_seed - 1) * icc))
    return pd.DataFrame([row], columns=SEED_VARIANCE_COLUMNS)


def interactions(summary: pd.DataFrame, factors) -> pd.DataFrame:
    """Two-factor interactions of test accuracy: for each pair of factors, eta_sq (the interaction
    sum of squares of the two-way table of means, sum n_ij (m_ij - m_i. - m_.j + m..)^2, over the
    total sum of squares) and simple_spreads (the spread of factor_a's means at each level of
    factor_b: unequal spreads are the interaction, e.g. a factor that matters only with
    positional encoding)."""
    factors = _check_columns(summary, factors)
    acc = run_accuracy(summary)[0]
    frame = summary[factors].copy()
    frame["__acc__"] = acc
    ss_total = float(((acc - acc.mean()) ** 2).sum()) if len(acc) and np.ptp(acc) > 0 else 0.0  # as in main effects
    rows = []
    for fa, fb in itertools.combinations(factors, 2):
        g = frame.groupby([fa, fb], sort=True)["__acc__"].agg(["mean", "size"]).reset_index()
        ma = frame.groupby(fa)["__acc__"].mean()
        mb = frame.groupby(fb)["__acc__"].mean()
        resid = g["mean"] - g[fa].map(ma) - g[fb].map(mb) + acc.mean()
        ss = float((g["size"] * resid**2).sum())
        spreads = g.groupby(fb)["mean"].agg(lambda m: m.max() - m.min())
        rows.append(dict(factor_a=fa, factor_b=fb, eta_sq=ss / ss_total if ss_total > 0 else 0.0,
                         simple_spreads="; ".join(f"{fb}={lev}: {v:.4f}" for lev, v in spreads.items())))  # fmt: skip
    out = pd.DataFrame(rows, columns=INTERACTION_COLUMNS)
    return out.sort_values("eta_sq", ascending=False, kind="stable").reset_index(drop=True)
