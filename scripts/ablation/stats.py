"""Statistics of one study: tidy tables of cells, paired comparisons, stability and main effects.

Input is the study's ``summary`` (one row per training run, as ``ablation.aggregate`` writes it) and
``factors`` (the columns the study varies; ``seed`` is never a factor). Every function returns a
tidy ``pandas.DataFrame`` and is deterministic for a given ``seed`` argument.

The decisions every table shares stand with the code that makes them: a run's values, diverged
runs, resolution and the seed as the unit in ``ablation.measures``; the intervals in
``ablation.intervals``; the sign-flip test, Holm, effect size and mde in ``ablation.significance``.
Here: paired differences are matched on seed and every other factor, then averaged within seed;
marginal means are means over seeds of the level's cells; the spread of marginal means is
bootstrapped by resampling seeds jointly across cells. The seed variance and interactions tables
are ``ablation.variance``'s.
"""

from __future__ import annotations

import itertools
import warnings
from collections import defaultdict

import numpy as np
import pandas as pd

from .intervals import bootstrap_mean_ci, clopper_pearson_ci, direction_share_ci, mean_ci, mean_cis, wilson_ci
from .measures import (
    BATCH_ELEMENTS, group_cells, check_columns, split_by_cell, converged_mask, is_diverged, quantize, resolution, resolve_cfg,
    run_accuracy, run_counts, seed_means,
)  # fmt: skip
from .settings import sorted_levels
from .significance import sample_sd, cohen_dz, holm, mde, reachable_p, sign_flip_test

# The package and its tests read the statistics below the tables as ``stats.NAME`` as well.
from .intervals import anderson_ci, skew_t_ci, t_mean_ci, tango_ci  # noqa: F401, E402
from .measures import CHANCE, DEFAULT_CFG, METRICS, metric_values  # noqa: F401, E402
from .significance import EXACT_SIGN_FLIP_MAX_N, POWER, seeds_to_reach  # noqa: F401, E402

ALL_PAIRS_MAX_LEVELS = 4
"""Up to this many levels every pair of levels is compared; above it, numeric levels are compared
with the next level only (non-numeric levels: still every pair)."""
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


def _cell_cis(values, seeds, codes, n_cells: int, confidence: float, step: float) -> list[tuple]:
    """``mean_ci`` of every cell over its seeds, (lo, hi, method) per cell; cells of equal size in
    one vectorised call (a 10,000-run grid has thousands of cells)."""
    frame = pd.DataFrame({"c": codes, "s": seeds, "v": values}).groupby(["c", "s"], sort=True)["v"].mean()
    cell_of = frame.index.get_level_values("c").to_numpy()
    cells = split_by_cell(quantize(frame.to_numpy(), step), cell_of, n_cells)
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
    factors = check_columns(summary, factors)
    keys, codes = group_cells(summary, factors)
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
        split_by_cell(acc, codes, n_cells), cfg["confidence"], cfg["n_resamples"], seed, max_n=cfg["bootstrap_max_n"]
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
    factors = check_columns(summary, factors)
    keys, codes = group_cells(summary, factors)
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


def pair_frame(
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
    factors = check_columns(summary, factors)
    if values is None:
        values = run_accuracy(summary)[0]
    keys, a, b, unmatched = pair_frame(summary, np.asarray(values, dtype=float), factor, level_a, level_b, factors)
    keys["value_a"], keys["value_b"], keys["diff"] = a, b, b - a
    return keys, unmatched


def level_pairs(levels: list) -> list[tuple]:
    """Pairs (a, b) compared for a factor: every pair up to ALL_PAIRS_MAX_LEVELS levels (or for
    non-numeric levels), else each numeric level with the next."""
    numeric = all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in levels)
    if len(levels) <= ALL_PAIRS_MAX_LEVELS or not numeric:
        return list(itertools.combinations(levels, 2))
    return list(zip(levels[:-1], levels[1:]))


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
    factors = check_columns(summary, factors)
    values = run_accuracy(summary)[0]
    step = resolution(summary, "test_acc")
    rows = []
    for factor in factors:
        for a, b in level_pairs(sorted_levels(summary[factor])):
            keys, va, vb, unmatched = pair_frame(summary, values, factor, a, b, factors)
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
                sd=sample_sd(d) if n >= 2 else float("nan"), unmatched=unmatched,
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
    chunk = max(1, BATCH_ELEMENTS // max(1, n_cells * 4))
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
    factors = check_columns(summary, factors)
    acc = run_accuracy(summary)[0]
    keys, codes = group_cells(summary, factors)
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
