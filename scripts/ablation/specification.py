"""A scoped claim's specifications, for its specification curve (Simonsohn et al. 2020): every universe
(and cell) it is judged in with the mean of its seeds' values and an interval, sorted; and in words, how
many universes keep the claim's verdict and which settings change it. Read from the scope tables the
claims rule writes (tables/scope_seeds.csv, tables/scope.csv)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .intervals import anderson_ci, bootstrap_mean_ci


def pairs(text: str) -> dict[str, str]:
    """'lr=0.003, epochs=100' as {setting: level}; {} for a label of no settings ('mean over 4 cell(s)')."""
    parts = [p.split("=", 1) for p in str(text).split(", ")]
    return {k: v for k, v in parts} if all(len(p) == 2 for p in parts) else {}


def _value_bounds(values: np.ndarray, band_lo: float) -> tuple[float, float] | None:
    """The range a claim's seed values live in: [0, 1] for a metric, [-1, 1] for a paired difference
    (a band reaching 0 or below, or a value below 0); None when unbounded (a gradient slope)."""
    if np.any(np.abs(values) > 1):
        return None
    return (-1.0, 1.0) if band_lo <= 0 or np.any(values < 0) else (0.0, 1.0)


def specifications(rows: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """A scoped claim's specifications (one per universe and cell it is judged in), each with the mean
    of its seeds' values and its interval, sorted by that mean: Anderson's interval for a bounded mean
    (valid for any distribution of seeds on the bounds, also when every seed is equal), a BCa
    bootstrap over seeds for an unbounded slope."""
    rows = rows.assign(value=(pd.to_numeric(rows["lo"]) + pd.to_numeric(rows["hi"])) / 2)  # a diverged run: the middle
    bounds = _value_bounds(rows["value"].to_numpy(float), float(rows["band_lo"].iloc[0]))
    out = []
    for (universe, cell), spec in rows.groupby(["universe", "cell"], sort=False):
        x = spec["value"].to_numpy(float)
        x = x[np.isfinite(x)]
        if bounds and len(x):
            lo, hi = (float(v[0]) for v in anderson_ci(x, confidence, bounds))
        else:
            lo, hi = (float(v[0]) for v in bootstrap_mean_ci([x], confidence, bounds=(-np.inf, np.inf))[:2])
        out.append({"universe": universe, "cell": cell, "own": str(spec["own"].iloc[0]).lower() == "true",
                    "mean": float(np.mean(x)) if len(x) else np.nan, "lo": lo, "hi": hi, "n": len(x)})  # fmt: skip
    return pd.DataFrame(out).sort_values("mean", kind="stable").reset_index(drop=True)


def scope_title(claim: str, table: pd.DataFrame | None, verdict: str | None = None, most: int = 2) -> str:
    """How many universes keep the claim's ``verdict`` (its claims row's; without one, that of the study's
    own universe), each universe's verdict as the family's one procedure reaches it, and which settings change it
    (the universes where it fails first)."""
    rows = None if table is None else table[table["id"] == claim]
    if rows is None or not len(rows):
        return claim
    own_rows = rows[rows["own"].astype(str).str.lower().eq("true")]
    verdict = verdict or (own_rows["verdict"].iloc[0] if len(own_rows) else None)
    if verdict is None:
        return claim
    keep = rows["verdict"] == verdict
    base = pairs(own_rows["universe"].iloc[0]) if len(own_rows) else {}
    order = {"CONTRADICTED": 0, "SUPPORTED": 1, "INCONCLUSIVE": 2}
    changed = sorted(rows[~keep].itertuples(), key=lambda r: order.get(r.verdict, 3))
    changes = []
    for r in changed[:most]:
        moved = ", ".join(f"{k} {base[k]}→{v}" if k in base else f"{k}={v}" for k, v in pairs(r.universe).items()
                          if base.get(k) != v)  # fmt: skip
        changes.append(f"{moved or r.universe}: {r.verdict}")
    more = f" and {len(changed) - most} more" if len(changed) > most else ""
    tail = f"\nchanged by {'; '.join(changes)}{more}" if changes else ""
    return f"{claim}: {int(keep.sum())} of {len(rows)} universes keep {verdict} (in the family's procedure){tail}"
