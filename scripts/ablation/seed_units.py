"""A claim's runs and seed units: the first two steps of select -> seed units -> test -> verdict.

``select`` picks the runs a claim's ``where`` names (values cast to the column's type). The seed units
are one number per seed and cell, for each part of the claim (``ablation.kinds.Part``): the runs'
values (a part that compares two levels: their differences, matched on seed and every other factor)
averaged within the seed. Runs that share a seed share data and initialisation, so they are one
replicate. A diverged run's accuracy is unknown, so a seed's unit is the interval [lo, hi] its value
is known to lie in (lo == hi for every seed without a diverged run).

``StudyRuns`` is what a claim is judged on: one study's runs (``summary``), their initial gradients,
the study's factors and, for an adaptive study, its design.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from . import data, measures, stats
from .kinds import Claim, Part
from .outputs import RUN_METRICS


def fail(claim_id: str, problem: str):
    raise ValueError(f"claim {claim_id!r}: {problem}")


@dataclass(frozen=True)
class StudyRuns:
    """One study's results and the claims made about them. ``design``: an adaptive study's
    ``{seeds, max_seeds, batch}`` (its own seeds, then rounds), None for a fixed design."""

    name: str
    summary: pd.DataFrame
    factors: tuple
    init_grads: pd.DataFrame | None = None
    design: dict | None = None
    claims: tuple = ()
    evaluations: pd.DataFrame | None = None  # evaluations.csv: per run, metric and test length
    scope: "StudyRuns | None" = None  # the runs the scopes of its claims train in other universes (design.scope_runs)

    def without_seed(self, seed) -> "StudyRuns":
        """The study without one seed's runs: a leave-one-seed-out evaluation's input."""
        return replace(self, summary=self.summary[self.summary["seed"].astype(str) != str(seed)])

    def without_diverged(self) -> "StudyRuns":
        return replace(self, summary=self.summary[~measures.is_diverged(self.summary)].reset_index(drop=True))

    def first_round(self) -> "StudyRuns":
        """An adaptive study's runs of its own seeds alone (what a claim without rounds reads)."""
        return replace(self, summary=self.summary[self.summary["seed"].isin(self.design["seeds"])].reset_index(drop=True))


# --------------------------------------------------------------------------- selection


def _mask(column: pd.Series, value, cid: str, what: str) -> np.ndarray:
    """Rows of ``column`` equal to ``value`` (or to any of a list), after casting to the column's type."""
    values = value if isinstance(value, (list, tuple)) else [value]
    mask = np.zeros(len(column), dtype=bool)
    numeric = pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)
    for v in values:
        if numeric:
            try:
                fv = float(v)
            except (TypeError, ValueError):
                fail(cid, f"{what}: {v!r} is not a number, but column '{column.name}' is numeric")
            col = column.to_numpy(dtype=float, na_value=np.nan)
            mask |= np.isclose(col, fv, rtol=1e-12, atol=0.0)
        else:
            text = "True" if v is True else "False" if v is False else str(v)
            mask |= column.astype(str).eq(text).to_numpy()
    return mask


def select(summary: pd.DataFrame, where, cid: str) -> pd.DataFrame:
    mask = np.ones(len(summary), dtype=bool)
    for col, value in where.items():
        if col not in summary.columns:
            fail(cid, f"'where' names column {col!r}, which is not in the results")
        m = _mask(summary[col], value, cid, f"'where' {col}")
        if not m.any():
            fail(cid, f"'where' {col}={value!r} selects no runs")
        mask &= m
    if not mask.any():
        fail(cid, f"'where' {where_text(where)} selects no runs")
    return summary[mask].reset_index(drop=True)


def where_text(where) -> str:
    return ", ".join(f"{k}={v}" for k, v in where.items()) if where else "all runs"


def _level(sub: pd.DataFrame, factor: str, value, cid: str, what: str = ""):
    """The value of ``factor`` in the data that the claim's ``value`` names."""
    m = _mask(sub[factor], value, cid, what or f"level of '{factor}'")
    if not m.any():
        fail(cid, f"level {factor}={value!r} selects no runs (after 'where')")
    return sub[factor].to_numpy()[np.flatnonzero(m)[0]]


# --------------------------------------------------------------------------- seed units


@dataclass
class Cell:
    """One cell's seed units: per seed (sorted), the interval its value is known to lie in (lo ==
    hi unless a run of that seed diverged)."""

    label: str
    seeds: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    step: float  # the values' grid: differences within half a step of 0 are ties

    @property
    def n(self) -> int:
        return len(self.seeds)

    def known(self) -> np.ndarray:
        return self.lo == self.hi

    def grown(self, k: int, value: float) -> "Cell":
        """The cell with ``k`` further seeds, each at ``value``, after its own."""
        extra = np.full(k, value)
        return Cell(self.label, np.arange(self.n + k), np.append(self.lo, extra), np.append(self.hi, extra), self.step)


def _mean_grid(step: float, counts: np.ndarray) -> float:
    """The grid of seed means of values on a ``step`` grid: a mean of k of them is a multiple of
    step / k, so means over different numbers of values share the grid step / lcm(k)."""
    return step / int(np.lcm.reduce(np.maximum(counts, 1).astype(np.int64), initial=1))


def _seed_cells(sub: pd.DataFrame, lo: np.ndarray, hi: np.ndarray, strata: list[str], how: str, step: float) -> list[Cell]:
    """Seed means of [lo, hi] per stratum (cells='every') or over strata within each seed ('average').
    A run whose level of a stratum is missing stands in a cell of its own ("heads=nan"), where every
    reader sees it, rather than dropping out of every cell unseen."""
    seeds = sub["seed"].to_numpy()
    strata = [f for f in strata if sub[f].nunique(dropna=False) > 1]
    if how == "average" or not strata:
        groups = {f"mean over {len(sub.groupby(strata, dropna=False)) if strata else 1} cell(s)": np.arange(len(sub))}
    else:
        groups = {}
        for key, idx in sub.groupby(strata, sort=True, dropna=False).indices.items():
            key = key if isinstance(key, tuple) else (key,)
            groups[", ".join(f"{f}={x}" for f, x in zip(strata, key))] = idx
    out = []
    for label, idx in groups.items():
        s, mlo, k = measures.seed_means(seeds[idx], lo[idx])
        _, mhi, _ = measures.seed_means(seeds[idx], hi[idx])
        grid = _mean_grid(step, k)
        out.append(Cell(label, s, measures.quantize(mlo, grid), measures.quantize(mhi, grid), grid))
    return out


def run_values(sub: pd.DataFrame, metric: str, cfg: dict) -> tuple[np.ndarray, np.ndarray]:
    """Per run, the interval [lo, hi] its ``metric`` is known to lie in: the value itself, or the
    metric's whole range [0, 1] for an accuracy a diverged run leaves unknown (``converged`` is
    known: a diverged run did not converge)."""
    v = measures.metric_values(sub, metric, cfg)
    if metric == "converged":
        return v, v
    unknown = measures.is_diverged(sub) | ~np.isfinite(measures.numeric(sub, metric))
    return np.where(unknown, 0.0, v), np.where(unknown, 1.0, v)


def metric_range(metric: str) -> tuple[float, float]:
    """The range of a run's ``metric``: a run metric's (``outputs.RUN_METRICS``), or the range the
    tasks that declare it give."""
    if metric in RUN_METRICS:
        return RUN_METRICS[metric]
    return next((task.metrics[metric].range for task in data.TASKS.values() if metric in task.metrics), (0.0, 1.0))


def slopes(runs: pd.DataFrame, grads: pd.DataFrame) -> pd.Series:
    """Least-squares slope of ln(grad_norm) on layer index, per run_id (runs with < 2 usable layers
    -- a positive, finite norm at a numeric layer index -- get none)."""
    g = grads[grads["run_id"].isin(runs["run_id"])]
    norm = pd.to_numeric(g["grad_norm"], errors="coerce").to_numpy(dtype=float)
    layer = pd.to_numeric(g["layer"], errors="coerce").to_numpy(dtype=float)
    ok = np.isfinite(norm) & (norm > 0) & np.isfinite(layer)
    x = layer[ok]
    with np.errstate(divide="ignore"):
        y = np.log(norm[ok])
    frame = pd.DataFrame({"r": g["run_id"].to_numpy()[ok], "x": x, "y": y, "xx": x * x, "xy": x * y})
    s = frame.groupby("r").agg(n=("x", "size"), sx=("x", "sum"), sy=("y", "sum"), sxx=("xx", "sum"), sxy=("xy", "sum"))
    den = s["n"] * s["sxx"] - s["sx"] ** 2
    good = (s["n"] >= 2) & (den > 1e-12)
    return ((s["n"] * s["sxy"] - s["sx"] * s["sy"])[good] / den[good]).astype(float)


def length_means(claim: Claim, sub: pd.DataFrame, evaluations: pd.DataFrame | None):
    """(per run of ``sub``: the mean of the claim's metric over its lengths, or NaN where the run has
    none or one is not finite; the grid step of those means): the lengths of ``claim.lengths`` the
    study evaluated, or each run's trained lengths. The mean of k_i / t_i over L lengths is a
    multiple of 1 / (lcm(t) L), over the values the means read (those of ``sub``'s runs with a mean);
    0 (no grid: values are compared as they are) where one of their totals is unknown, not a whole
    number or not positive, since a grid of the other totals would round that run's value."""
    if evaluations is None or not len(evaluations):
        fail(claim.id, f"metric {claim.metric!r} is read from the study's evaluations, and it has none")
    ev = evaluations[evaluations["metric"].astype(str) == claim.metric]
    if claim.lengths is None:
        ev = ev[ev["trained"].astype(str).str.lower() == "true"]
    else:
        length = pd.to_numeric(ev["length"], errors="coerce")
        ev = ev[(length >= claim.lengths[0]) & (length <= claim.lengths[1])]
    value = pd.to_numeric(ev["value"], errors="coerce")
    runs = ev["run_id"].astype(str)
    per_run = pd.DataFrame({"v": value.to_numpy(), "bad": (~np.isfinite(value)).to_numpy()}).groupby(runs.to_numpy())
    mean = per_run["v"].mean().where(~per_run["bad"].any())
    counts = per_run.size()
    ours = mean.notna() & mean.index.isin(set(sub["run_id"].astype(str)))  # the runs whose means are read
    read = runs.map(ours).fillna(False).to_numpy(dtype=bool)
    totals = pd.to_numeric(ev["total"], errors="coerce").to_numpy(dtype=float)[read]
    known = np.isfinite(totals) & (totals >= 1) & (totals == np.round(totals))
    grid = (math.lcm(*np.unique(totals).astype(np.int64).tolist(), 1) * math.lcm(*counts[ours].unique().tolist(), 1)
            if read.any() and known.all() else 0)  # fmt: skip
    step = 1.0 / grid if 0 < grid < 1e12 else 0.0
    return sub["run_id"].astype(str).map(mean).to_numpy(dtype=float), step


def _part_values(claim: Claim, part: Part, sub: pd.DataFrame, runs: StudyRuns, cfg: dict):
    """(lo, hi, grid step, runs without a value) of every run of ``sub`` for what ``part`` reads."""
    if part.reads == "slope":
        grads = runs.init_grads
        if grads is None or not {"run_id", "layer", "grad_norm"} <= set(grads.columns):
            fail(claim.id, f"kind {claim.kind.name} needs the initial-gradient table (run_id, layer, grad_norm)")
        sl = sub["run_id"].astype(str).map(slopes(sub, grads).rename(index=str)).to_numpy(dtype=float)
        return sl, sl, 0.0, int((~np.isfinite(sl)).sum())
    if claim.evaluated:
        v, step = length_means(claim, sub, runs.evaluations)
        unknown = measures.is_diverged(sub) | ~np.isfinite(v)
        low, high = metric_range(claim.metric)
        return np.where(unknown, low, v), np.where(unknown, high, v), step, 0
    lo, hi = run_values(sub, claim.metric, cfg)
    return lo, hi, measures.resolution(sub, claim.metric), 0


def part_cells(claim: Claim, part: Part, sub: pd.DataFrame, runs: StudyRuns, cfg: dict) -> tuple[list[Cell], str]:
    """The seed units of one part of a claim, per cell (the strata of the factors the part does not
    read), from ``sub`` (the claim's selected runs), and what they are in words."""
    factors = list(runs.factors)
    lo, hi, step, dropped = _part_values(claim, part, sub, runs, cfg)  # over every selected run
    if part.level is not None:
        factor, value = part.level
        at = _mask(sub[factor], _level(sub, factor, value, claim.id), claim.id, "level")
        sub, lo, hi = sub[at].reset_index(drop=True), lo[at], hi[at]
    others = [f for f in factors if f != part.factor]
    if part.compare is None:
        cells = _seed_cells(sub, lo, hi, others, claim.cells, step)
        if part.reads == "slope":
            desc = f"per seed, least-squares slope of ln(grad_norm at step 0) on layer index ({where_text(claim.where)})"
            if dropped:
                desc += (f"; {dropped} run(s) without a usable slope (< 2 numeric layer indices with a positive, finite "
                         "norm) left out")  # fmt: skip
            return cells, desc
        return cells, f"{_metric_text(claim)} per seed ({where_text(claim.where)})"
    factor, a, b = part.compare
    la, lb = (_level(sub, factor, lev, claim.id) for lev in (a, b))
    keys, alo, blo, unmatched = stats.pair_frame(sub, lo, factor, la, lb, factors)
    _, ahi, bhi, _ = stats.pair_frame(sub, hi, factor, la, lb, factors)
    cells = _seed_cells(keys, blo - ahi, bhi - alo, others, claim.cells, step)
    desc = (f"{_metric_text(claim)} {factor}={lb} minus {factor}={la}, {len(alo)} runs paired on seed and "
            f"{', '.join(others) or 'no other factor'}, averaged within seed ({where_text(claim.where)})")  # fmt: skip
    if unmatched:
        desc += f"; {unmatched} runs without a partner"
    return cells, desc


def _metric_text(claim: Claim) -> str:
    """The metric in the words of a claim's detail: with its lengths, for a metric of the task."""
    if not claim.evaluated:
        return claim.metric
    lo, hi = claim.lengths or (None, None)
    at = "its trained lengths" if lo is None else f"length {lo}" if lo == hi else f"lengths {lo}-{hi}"
    return f"{claim.metric} (mean over {at} per run)"


def claim_cells(claim: Claim, runs: StudyRuns, cfg: dict) -> tuple[list[list[Cell]], str]:
    """Select, then the seed units of every part: per cell, one Cell per part (in the kind's order),
    and what the first part's units are in words."""
    sub = select(runs.summary, claim.where, claim.id)
    per_part, descs = zip(*(part_cells(claim, part, sub, runs, cfg) for part in claim.parts))
    return [list(cells) for cells in zip(*per_part)], descs[0]
