"""What every statistic of a study reads: a run's values, the grid they lie on, the seed as the unit,
and the runs grouped into cells.

Input is the study's ``summary`` (one row per training run, as ``ablation.aggregate`` writes it) and
``factors`` (the columns the study varies; ``seed`` is never a factor).

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
  runs first averages within each seed (``seed_means``): n is the number of seeds.
* **Ties and zeros at the metric's resolution** (``resolution``: 1 / test_total for accuracies):
  accuracies are k / n, so values are rounded to that grid before they are compared.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .outputs import RUN_METRICS

DEFAULT_CFG = {
    "confidence": 0.95, "n_resamples": 9999, "bootstrap_max_n": 1000, "converged_threshold": 0.95, "alpha": 0.05,
    "family": "study",
}  # fmt: skip
CHANCE = 0.5
"""Accuracy of a model blind to order (or with NaN/constant outputs) on the swap-paired test set."""
BATCH_ELEMENTS = 2_000_000  # elements gathered per vectorised resampling batch (memory bound)
METRICS = tuple(RUN_METRICS)
BOUNDS = RUN_METRICS


def resolve_cfg(cfg: dict | None) -> dict:
    """``cfg`` (the config's ``stats`` section) over the defaults."""
    out = dict(DEFAULT_CFG)
    out.update(cfg or {})
    return out


def numeric(summary: pd.DataFrame, column: str) -> np.ndarray:
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
    acc = numeric(summary, "final_train_acc")
    with np.errstate(invalid="ignore"):
        return ok & (acc >= threshold)


def run_accuracy(summary: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(test accuracy per run, imputed?) with the diverged/NaN rule of the module docstring."""
    acc = numeric(summary, "test_acc")
    missing = ~np.isfinite(acc)
    if missing.any():
        correct, total = numeric(summary, "test_correct"), numeric(summary, "test_total")
        with np.errstate(invalid="ignore", divide="ignore"):
            from_counts = correct / total
        usable = np.isfinite(from_counts) & (total > 0)
        acc = np.where(missing & usable, from_counts, acc)
        acc = np.where(~np.isfinite(acc), CHANCE, acc)
    return acc, missing


def run_counts(summary: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(correct, total) test counts per run; NaN totals -> 2 * n_test; NaN correct -> acc * total."""
    total = numeric(summary, "test_total")
    total = np.where(np.isfinite(total), total, 2 * numeric(summary, "n_test"))
    correct = numeric(summary, "test_correct")
    acc, _ = run_accuracy(summary)
    correct = np.where(np.isfinite(correct), correct, np.round(acc * total))
    return correct, total


def metric_values(summary: pd.DataFrame, metric: str, cfg: dict | None = None) -> np.ndarray:
    """Per-run values of ``metric``: test_acc (diverged rule above), converged (0/1), final_train_acc
    (NaN -> 0.5, chance, like test_acc)."""
    cfg = resolve_cfg(cfg)
    if metric == "test_acc":
        return run_accuracy(summary)[0]
    if metric == "converged":
        return converged_mask(summary, cfg["converged_threshold"]).astype(float)
    if metric == "final_train_acc":
        acc = numeric(summary, "final_train_acc")
        return np.where(np.isfinite(acc), acc, CHANCE)
    raise ValueError(f"unknown metric {metric!r} (one of {', '.join(METRICS)})")


def resolution(summary: pd.DataFrame, metric: str = "test_acc") -> float:
    """The smallest step of ``metric`` between two runs: for test_acc 1 / the least common multiple of
    the runs' test_total (k / n over test sets of unequal sizes differ by multiples of it; 0 when the
    counts are missing), 1 for converged, 0 (unknown) for final_train_acc. Differences smaller than
    half a step are ties (float noise of k / n), and a difference below half a step is a zero."""
    if metric == "converged":
        return 1.0
    if metric == "test_acc":
        total = numeric(summary, "test_total")
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


def check_columns(summary: pd.DataFrame, factors) -> list[str]:
    factors = list(factors)
    missing = [f for f in factors if f not in summary.columns]
    if missing:
        raise ValueError(f"factor column(s) not in summary: {', '.join(missing)}")
    if "seed" in factors:
        raise ValueError("'seed' is never a factor")
    return factors


def group_cells(summary: pd.DataFrame, factors: list[str]) -> tuple[pd.DataFrame, np.ndarray]:
    """(one row per cell with the factor values, in sorted order; cell code per run)."""
    if not factors:
        return pd.DataFrame(index=[0]), np.zeros(len(summary), dtype=int)
    g = summary.groupby(factors, sort=True, dropna=False)
    codes = g.ngroup().to_numpy()
    keys = g.size().reset_index()[factors]
    return keys, codes


def split_by_cell(values: np.ndarray, codes: np.ndarray, n_cells: int) -> list[np.ndarray]:
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(n_cells + 1))
    v = values[order]
    return [v[bounds[i] : bounds[i + 1]] for i in range(n_cells)]
