"""How much of a study's test-accuracy variance the seed holds (a mixed model), and how pairs of
factors interact (the two-way tables of means): the seed variance and interactions tables."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd

from .measures import check_columns, run_accuracy

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
    factors = check_columns(summary, factors)
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
    factors = check_columns(summary, factors)
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
