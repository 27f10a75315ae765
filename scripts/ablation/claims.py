"""Claims about a study, checked against its results with an explicit decision rule.

A study's claims live in the config (``studies.<name>.claims``), one dict per claim, so a claim is
added without touching code. Every claim has ``id``, ``statement``, ``kind``, optionally
``source``, ``where``, ``metric`` and ``cells``, plus the keys of its kind (declared in the config
schema, ``definitions.claim``, and checked by ``ablation.config.check_claims``):

=============  =====================================  =============================================
kind           keys                                   SUPPORTED / CONTRADICTED (else INCONCLUSIVE)
=============  =====================================  =============================================
at_value       target, tolerance                      interval of the mean inside / entirely outside
                                                      [target - tolerance, target + tolerance]
at_least       threshold                              interval lower >= threshold / upper < threshold
equivalent     factor, levels [a, b], margin          interval of the mean seed difference (b - a)
                                                      inside / entirely outside [-margin, margin]
not_worse      factor, levels [baseline, other],      interval lower of (other - baseline) >= -margin
               margin                                 / interval upper < -margin
better         factor, levels [baseline, treatment]   sign-flip test of the mean seed difference
                                                      decisive with mean > 0 / with mean < 0
grad_trend     factor, growing, flat, flat_margin     slope interval of `growing` > 0 and `flat`
                                                      inside +-flat_margin / `growing` <= 0 or `flat`
                                                      entirely outside +-flat_margin
=============  =====================================  =============================================

``where`` (column -> value, or -> list of values) selects runs first; values are compared after
casting to the column's type (numbers as floats, anything else as text). ``metric`` is
``test_acc`` (default), ``converged`` (0/1: status ok and final_train_acc >= converged_threshold)
or ``final_train_acc``. Diverged runs count as chance-level runs (see ``ablation.stats``); where
any diverged, the verdict without them is given too.

The seed is the unit. Values (or paired differences, matched on seed and every other factor) are
averaged within each seed, and intervals are over seeds (``stats.mean_ci``: none below 2 seeds,
Clopper-Pearson for 0/1 values, Tango's score interval for paired 0/1 differences, Anderson's bound
when every seed is equal, else Hall's skewness-corrected t). ``cells``
says how a claim spanning several cells (combinations of the other factors) is judged: ``every``
(default; intersection-union: SUPPORTED when each cell passes on its own, CONTRADICTED when some
cell fails clearly, Bonferroni over cells) or ``average`` (on the mean over cells within each seed).

One error family: each claim gets a p-value (``better``: the test's; the other kinds: the smallest
alpha at which the interval rule decides), and Holm's adjustment runs over every claim of the
config (``evaluate_family``); a verdict is decisive when its adjusted p <= alpha. Robustness: the
share of leave-one-seed-out evaluations that repeat the verdict; below ROBUST it is fragile.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from . import sequential as Q
from . import stats
from .config import check_claims
from .outputs import ROBUST

VERDICTS = ("SUPPORTED", "CONTRADICTED", "INCONCLUSIVE")
CLAIM_COLUMNS = [
    "id", "statement", "source", "kind", "cells", "verdict", "estimate", "ci_lo", "ci_hi", "n", "p_value", "p_holm",
    "robustness", "verdict_without_diverged", "rule", "detail",
]  # fmt: skip
PAIRED_KINDS = ("equivalent", "not_worse", "better")


def _fail(claim_id: str, problem: str):
    raise ValueError(f"claim {claim_id!r}: {problem}")


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
                _fail(cid, f"{what}: {v!r} is not a number, but column '{column.name}' is numeric")
            col = column.to_numpy(dtype=float, na_value=np.nan)
            mask |= np.isclose(col, fv, rtol=1e-12, atol=0.0)
        else:
            text = "True" if v is True else "False" if v is False else str(v)
            mask |= column.astype(str).eq(text).to_numpy()
    return mask


def _select(summary: pd.DataFrame, where: dict, cid: str) -> pd.DataFrame:
    mask = np.ones(len(summary), dtype=bool)
    for col, value in where.items():
        if col not in summary.columns:
            _fail(cid, f"'where' names column {col!r}, which is not in the results")
        m = _mask(summary[col], value, cid, f"'where' {col}")
        if not m.any():
            _fail(cid, f"'where' {col}={value!r} selects no runs")
        mask &= m
    if not mask.any():
        _fail(cid, f"'where' {_where_text(where)} selects no runs")
    return summary[mask].reset_index(drop=True)


def _where_text(where: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in where.items()) if where else "all runs"


def _level(sub: pd.DataFrame, factor: str, value, cid: str):
    """The value of ``factor`` in the data that the claim's ``value`` names."""
    m = _mask(sub[factor], value, cid, f"level of '{factor}'")
    if not m.any():
        _fail(cid, f"level {factor}={value!r} selects no runs (after 'where')")
    return sub[factor].to_numpy()[np.flatnonzero(m)[0]]


# --------------------------------------------------------------------------- evaluation


def _f(x, digits=4) -> str:
    return "nan" if x is None or not np.isfinite(x) else f"{x:.{digits}f}"


def _p_brackets(ok):
    """Brackets (low, high) around the smallest alpha at which ``ok(alpha)`` holds (1.0 if it holds
    at no alpha up to 0.5), one per step of a bisection over log-alpha, narrowing; the last is the
    value itself, (p, p) (``_exact``).

    Intervals shrink as alpha grows, so a decisive verdict, once reached, holds for every larger
    alpha: this is the claim's p-value, which the family's Holm adjustment takes. A caller that needs
    only the side of a bound that p lies on stops as soon as a bracket tells (``_decided_lazily``).
    A bracket (exp(lo), exp(hi)) holds p = exp(final hi): the final hi is either this hi itself or
    below it, and above lo, by at least the last step (2e-8 in log-alpha), far more than exp's error."""
    if not ok(0.5):
        yield 1.0, 1.0
        return
    if ok(1e-9):
        yield 1e-9, 1e-9
        return
    lo, hi = np.log(1e-9), np.log(0.5)
    for _ in range(30):  # log-alpha to within 2e-8 of its range: p to about 1e-6 relative
        yield float(np.exp(lo)), float(np.exp(hi))
        mid = (lo + hi) / 2
        if ok(float(np.exp(mid))):
            hi = mid
        else:
            lo = mid
    p = float(np.exp(hi))
    yield p, p


def _exact(brackets) -> float:
    """The p-value that ``brackets`` (``_p_brackets``) narrow down to: their last."""
    *_, (p, _) = brackets
    return p


def _known(p: float):
    """The brackets of a p-value known outright: (p, p)."""
    yield p, p


def _bonferroni(brackets, m: int):
    """Brackets of min(1, m p) from brackets of p (both ends: it is monotone in p)."""
    for lo, hi in brackets:
        yield min(1.0, m * lo), min(1.0, m * hi)


class _Units:
    """One cell's numbers, one per seed: what a claim's interval or test is computed on."""

    def __init__(self, label: str, seeds, values, step: float, bounds, per_seed=None):
        self.label, self.seeds, self.values, self.step, self.bounds = label, seeds, values, step, bounds
        self.per_seed = per_seed

    @property
    def n(self) -> int:
        return len(self.values)

    def ci(self, alpha: float):
        return stats.mean_ci(self.values, 1 - alpha, self.bounds, self.step)


def _mean_grid(step: float, counts: np.ndarray) -> float:
    """The grid of seed means of values on a ``step`` grid: a mean of k of them is a multiple of
    step / k, so means over different numbers of values share the grid step / lcm(k)."""
    return step / int(np.lcm.reduce(np.maximum(counts, 1).astype(np.int64), initial=1))


def _cell_units(sub: pd.DataFrame, values: np.ndarray, strata: list[str], how: str, step: float, bounds) -> list[_Units]:
    """Seed means of ``values``: per stratum (cells='every') or averaged over strata within each seed
    (cells='average')."""
    seeds = sub["seed"].to_numpy()
    strata = [f for f in strata if sub[f].nunique(dropna=False) > 1]
    if how == "average" or not strata:
        s, v, k = stats.seed_means(seeds, values)
        label = "mean over " + (f"{len(sub.groupby(strata)) if strata else 1} cell(s)")
        grid = _mean_grid(step, k)
        return [_Units(label, s, stats.quantize(v, grid), grid, bounds)]
    out = []
    for key, idx in sub.groupby(strata, sort=True).indices.items():
        key = key if isinstance(key, tuple) else (key,)
        s, v, k = stats.seed_means(seeds[idx], values[idx])
        label = ", ".join(f"{f}={x}" for f, x in zip(strata, key))
        grid = _mean_grid(step, k)
        out.append(_Units(label, s, stats.quantize(v, grid), grid, bounds))
    return out


def _units_one_level(c, sub, factors, cfg) -> tuple[list[_Units], str]:
    v = stats.metric_values(sub, c["metric"], cfg)
    units = _cell_units(sub, v, list(factors), c["cells"], stats.resolution(sub, c["metric"]), (0.0, 1.0))
    return units, f"mean {c['metric']} over seeds ({_where_text(c['where'])})"


def _units_paired(c, sub, factors, cfg) -> tuple[list[_Units], str]:
    factor = c["factor"]
    la, lb = (_level(sub, factor, lev, c["id"]) for lev in c["levels"])
    values = stats.metric_values(sub, c["metric"], cfg)
    keys, va, vb, unmatched = stats._pair_frame(sub, values, factor, la, lb, list(factors))
    others = [f for f in factors if f != factor]
    units = _cell_units(keys, vb - va, others, c["cells"], stats.resolution(sub, c["metric"]), (-1.0, 1.0))
    desc = (f"{c['metric']} {factor}={lb} minus {factor}={la}, {len(va)} runs paired on seed and "
            f"{', '.join(others) or 'no other factor'}, averaged within seed ({_where_text(c['where'])})")  # fmt: skip
    if unmatched:
        desc += f"; {unmatched} runs without a partner"
    return units, desc


def _slopes(runs: pd.DataFrame, grads: pd.DataFrame) -> pd.Series:
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


def _units_grad(c, sub, factors, init_grads) -> tuple[list[tuple[_Units, _Units]], str]:
    cid = c["id"]
    if init_grads is None or not {"run_id", "layer", "grad_norm"} <= set(init_grads.columns):
        _fail(cid, "kind grad_trend needs the initial-gradient table (run_id, layer, grad_norm)")
    factor = c["factor"]
    slopes = _slopes(sub, init_grads)
    sl = sub["run_id"].astype(str).map(slopes.rename(index=str)).to_numpy(dtype=float)
    out, dropped = [], int((~np.isfinite(sl)).sum())
    for name in ("growing", "flat"):
        m = _mask(sub[factor], _level(sub, factor, c[name], cid), cid, name)
        out.append(_cell_units(sub[m].reset_index(drop=True), sl[m], [f for f in factors if f != factor],
                               c["cells"], 0.0, (-np.inf, np.inf)))  # fmt: skip
    desc = f"per seed, mean least-squares slope of ln(grad_norm at step 0) on layer index ({_where_text(c['where'])})"
    if dropped:
        desc += f"; {dropped} run(s) without a usable slope (< 2 numeric layer indices with a positive, finite norm) left out"
    return list(zip(*out)), desc


def _cis(units: list[_Units], alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lo, hi, method) of every unit at level alpha: units of one size, step and range in one
    vectorised ``stats.mean_cis`` call (a claim judged in every cell of a large grid has hundreds)."""
    lo, hi = np.full(len(units), np.nan), np.full(len(units), np.nan)
    how = np.full(len(units), "n < 2", dtype=object)
    groups: dict[tuple, list[int]] = {}
    for i, u in enumerate(units):
        groups.setdefault((u.n, u.step, u.bounds), []).append(i)
    for (n, step, bounds), idx in groups.items():
        if n == 0:
            continue
        l, h, m = stats.mean_cis(np.stack([units[i].values for i in idx]), 1 - alpha, bounds, step)
        lo[idx], hi[idx], how[idx] = l, h, m
    return lo, hi, how


def _decider(kind: str, c: dict, units):
    """decide(alpha) -> the verdict of every cell at level alpha (an array), for the interval kinds."""
    if kind == "grad_trend":
        growing, flat = [g for g, _ in units], [f for _, f in units]
        fm = float(c["flat_margin"])

        def decide(a):
            (glo, ghi, _), (flo, fhi, _) = _cis(growing, a), _cis(flat, a)
            sup = (glo > 0) & (flo >= -fm) & (fhi <= fm)
            con = (ghi <= 0) | (flo > fm) | (fhi < -fm)
            return np.where(sup, "SUPPORTED", np.where(con, "CONTRADICTED", "INCONCLUSIVE"))

        return decide
    if kind == "at_value":
        band = (float(c["target"]) - float(c["tolerance"]), float(c["target"]) + float(c["tolerance"]))
    elif kind == "equivalent":
        band = (-float(c["margin"]), float(c["margin"]))
    elif kind == "at_least":
        band = (float(c["threshold"]), np.inf)
    elif kind == "not_worse":
        band = (-float(c["margin"]), np.inf)
    else:
        raise AssertionError(kind)

    def decide(a):
        lo, hi, _ = _cis(units, a)
        sup = (lo >= band[0]) & (hi <= band[1])
        con = (hi < band[0]) | (lo > band[1])
        return np.where(sup, "SUPPORTED", np.where(con, "CONTRADICTED", "INCONCLUSIVE"))

    return decide


RULES = {
    "at_value": "interval of the mean over seeds within {target} ± {tolerance} -> SUPPORTED; entirely outside -> CONTRADICTED",
    "at_least": "interval lower bound of the mean over seeds >= {threshold} -> SUPPORTED; upper bound < {threshold} -> CONTRADICTED",
    "equivalent": "interval of the mean seed difference within ±{margin} -> SUPPORTED; entirely outside -> CONTRADICTED",
    "not_worse": "interval lower bound of the mean seed difference >= -{margin} -> SUPPORTED; upper bound < -{margin} -> CONTRADICTED",
    "better": "two-sided sign-flip test of the mean seed difference (exact McNemar for a 0/1 metric), mean > 0 -> SUPPORTED, mean < 0 -> CONTRADICTED",
    "grad_trend": "interval of the `growing` level's mean slope > 0 and the `flat` level's within ±{flat_margin} -> SUPPORTED; growing <= 0 or flat entirely outside -> CONTRADICTED",
}  # fmt: skip
SEQUENTIAL_TEXT = ("anytime-valid betting confidence sequences over seeds (Waudby-Smith & Ramdas; valid under the "
                   "adaptive rounds' stopping rule), p = 2 / largest capital")  # fmt: skip
INTERVALS_TEXT = ("intervals over seeds: skewness-corrected t (Hall); Clopper-Pearson for a 0/1 value per seed; "
                  "Tango's score interval for paired 0/1 differences; Anderson's nonparametric bound when "
                  "every seed has the same value; none below 2 seeds")  # fmt: skip


def _claim_p(c: dict, summary: pd.DataFrame, init_grads, factors, cfg: dict, seed: int, design=None,
             texts: bool = True) -> dict:  # fmt: skip
    """A claim's p-values for SUPPORTED and CONTRADICTED (before the family's Holm adjustment) as
    brackets that narrow down to them (``sup`` and ``con``: ``_p_brackets``; ``_exact`` gives the
    p), its n, the numbers shown with it, and the seeds it rests on. ``design``: an adaptive study's
    ``{seeds, max_seeds, batch}`` (``ablation.adaptive``), else None (fixed design). ``texts``:
    False for the brackets and n alone (a leave-one-seed-out evaluation needs the verdict only)."""
    kind = c["kind"]
    sub = _select(summary, c["where"], c["id"])
    if design is not None and kind not in Q.SEQUENTIAL_KINDS:  # no anytime-valid rule: the first seeds only
        sub = sub[sub["seed"].isin(design["seeds"])].reset_index(drop=True)
    if kind == "grad_trend":
        units, desc = _units_grad(c, sub, factors, init_grads)
        shown = [g for g, _ in units]
        n = min(min(g.n, f.n) for g, f in units)
    else:
        units, desc = (_units_paired if kind in PAIRED_KINDS else _units_one_level)(c, sub, factors, cfg)
        shown = units
        n = min(u.n for u in units)
    if texts:
        desc += _run_note(sub, c.get("metric", "test_acc"))
    sup, con, cells = _known(1.0), _known(1.0), []
    if design is not None and kind in Q.SEQUENTIAL_KINDS:
        ordered = [u.values[np.argsort(np.asarray(u.seeds, dtype=float), kind="stable")] for u in units]
        p_sup, p_con = Q.claim_p(c, ordered, cfg["alpha"])
        sup, con = _known(p_sup), _known(p_con)
        if not texts:
            return dict(sup=sup, con=con, n=n)
        for u, x in zip(units, ordered):
            lo, hi = Q.confidence_sequence(x, Q.bounds_of(kind), 1 - cfg["confidence"])
            cells.append(f"{u.label}: mean {_f(x.mean())}, confidence sequence [{_f(lo[-1])}, {_f(hi[-1])}] "
                         f"({u.n} seeds)")  # fmt: skip
        desc += f"; adaptive study: {SEQUENTIAL_TEXT}"
    elif n >= 2 and kind == "better":
        cell_p = []
        for u in units:
            p, n_nz, test = stats.sign_flip_test(u.values, u.step, cfg["n_resamples"], seed)
            mean = float(u.values.mean())
            cell_p.append((p if mean > 0 else 1.0, p if mean < 0 else 1.0))
            cells.append(f"{u.label}: mean {_f(mean)}, {test} p = {p:.4g} "
                         f"(min p {stats.reachable_p(n_nz):.4g} with {n_nz} non-zero of {u.n} seeds)")  # fmt: skip
        sup, con = _known(max(p for p, _ in cell_p)), _known(min(1.0, len(cell_p) * min(q for _, q in cell_p)))
    elif n >= 2:
        decide = _decider(kind, c, units)
        # every cell must pass for SUPPORTED (intersection-union: no correction); one failing cell
        # contradicts "in every cell", so CONTRADICTED is Bonferroni-corrected over the cells
        sup = _p_brackets(lambda a: (decide(a) == "SUPPORTED").all())
        con = _bonferroni(_p_brackets(lambda a: (decide(a) == "CONTRADICTED").any()), len(units))
        if not texts:
            return dict(sup=sup, con=con, n=n)
        lo, hi, how = _cis(shown, 1 - cfg["confidence"])
        for i, u in enumerate(shown):
            cells.append(f"{u.label}: mean {_f(u.values.mean())} [{_f(lo[i])}, {_f(hi[i])}] ({how[i]}, {u.n} seeds)")
        if kind == "grad_trend":
            flo, fhi, fhow = _cis([f for _, f in units], 1 - cfg["confidence"])
            for i, (_, f) in enumerate(units):
                cells[i] += f"; flat level mean {_f(f.values.mean())} [{_f(flo[i])}, {_f(fhi[i])}] ({fhow[i]})"
    if not texts:
        return dict(sup=sup, con=con, n=n)
    seeds = sorted({s for u in shown for s in u.seeds}, key=str)
    b = shown[_binding(shown)]
    lo, hi, _ = b.ci(1 - cfg["confidence"])
    return dict(sup=sup, con=con, n=n, estimate=float(b.values.mean()) if b.n else np.nan, ci_lo=lo, ci_hi=hi,
                seeds=seeds, cells=cells, desc=desc, n_cells=len(units))  # fmt: skip


def _binding(shown: list[_Units]) -> int:
    """The cell whose numbers a claim shows. Where some cell has fewer than 2 seeds (the claim's n),
    one with the fewest, so the estimate rests on the seeds n counts: the first without any seed, or
    else the lowest of the one-seed cells; otherwise the cell with the lowest mean (the first of equals)."""
    counts = [u.n for u in shown]
    fewest = min(counts)
    if fewest == 0:  # no mean to compare
        return counts.index(0)
    candidates = [i for i, u in enumerate(shown) if u.n == fewest or fewest >= 2]
    return min(candidates, key=lambda i: shown[i].values.mean())


def _run_note(sub: pd.DataFrame, metric: str) -> str:
    n_div = int(stats.is_diverged(sub).sum())
    if not n_div:
        return ""
    as_what = "as not converged" if metric == "converged" else "at chance (0.5) when their value is missing"
    return f"; {n_div} diverged run(s) counted {as_what}"


def _direction(p_sup: float, p_con: float) -> str | None:
    """The verdict with the smaller p; None at a tie (both verdicts reached at the same alpha, or
    neither reached: p = 1), which points nowhere."""
    if p_sup < p_con:
        return "SUPPORTED"
    if p_con < p_sup:
        return "CONTRADICTED"
    return None


def _decided(p_sup: float, p_con: float, holm_factor: float, floor: float, alpha: float) -> str:
    """The verdict whose p, Holm-adjusted (times ``holm_factor``, at least ``floor``: the adjusted p
    of the claims ranked before it), is at most alpha; INCONCLUSIVE at a tie of the two p-values."""
    direction = _direction(p_sup, p_con)
    if direction is None or max(floor, holm_factor * min(p_sup, p_con)) > alpha:
        return "INCONCLUSIVE"
    return direction


def _decided_lazily(sup, con, holm_factor: float, floor: float, alpha: float) -> str:
    """``_decided`` of the p-values that the brackets ``sup`` and ``con`` (``_p_brackets``) narrow
    down to, taking only the bisection steps the verdict needs: the same verdict as from the p-values
    themselves. For the leave-one-seed-out evaluations, which need the verdict alone."""
    if floor > alpha:
        return "INCONCLUSIVE"
    for (s0, s1), (c0, c1) in _in_step(sup, con):
        if s1 < c0 or c1 < s0:  # which p is the smaller is known, and where it lies
            lo, hi = (s0, s1) if s1 < c0 else (c0, c1)
            if holm_factor * hi <= alpha:
                return "SUPPORTED" if s1 < c0 else "CONTRADICTED"
            if holm_factor * lo > alpha:
                return "INCONCLUSIVE"
    return "INCONCLUSIVE"  # both p-values exact and neither below the other: a tie


def _in_step(a, b):
    """The brackets of ``a`` and ``b`` side by side, one step each, the one that ends first staying
    at its last (its exact p) until the other ends too."""
    x, y = next(a), next(b)
    yield x, y
    for x_next, y_next in itertools.zip_longest(a, b):
        x, y = x_next or x, y_next or y
        yield x, y


def evaluate_family(studies, cfg: dict | None = None, seed: int = 0, adaptive: dict | None = None) -> pd.DataFrame:
    """Every claim of a config, one error family: Holm over all their p-values.

    ``studies``: iterable of (study name, claims, summary, init_grads, factors). One row per claim:
    CLAIM_COLUMNS. A claim's p is the smallest alpha at which its rule decides (``better``: its
    sign-flip p); its verdict is decisive when its Holm-adjusted p is at most ``alpha``. Robustness:
    the share of leave-one-seed-out evaluations that give the same verdict (at the same Holm
    position); a verdict below ROBUST is fragile. Where runs diverged, the verdict without them too.
    ``adaptive``: study name -> its design ``{seeds, max_seeds, batch}`` for adaptive studies, whose
    claims take anytime-valid p-values (``ablation.sequential``; Holm stays valid over the mix).
    """
    cfg = stats.resolve_cfg(cfg)
    alpha = cfg["alpha"]
    items = []
    for name, claims, summary, init_grads, factors in studies:
        factors = list(factors)
        for c in check_claims(claims, factors, list(summary.columns)):
            design = (adaptive or {}).get(name)
            r = _claim_p(c, summary, init_grads, factors, cfg, seed, design)
            r["p_sup"], r["p_con"] = _exact(r["sup"]), _exact(r["con"])
            items.append((name, c, summary, init_grads, factors, design, r))
    m = len(items)
    raw = np.array([min(r["p_sup"], r["p_con"]) for *_, r in items])
    adjusted = stats.holm(raw) if m else raw
    order = np.argsort(raw, kind="stable")
    rank = np.empty(m, dtype=int)
    rank[order] = np.arange(m)
    rows = []
    for i, (name, c, summary, init_grads, factors, design, r) in enumerate(items):
        factor = m - rank[i]  # Holm multiplies the claim ranked k-th (from 0) by m - k
        floor = float(np.max(np.minimum(1.0, (m - np.arange(rank[i])) * raw[order[: rank[i]]]), initial=0.0))
        verdict = _decided(r["p_sup"], r["p_con"], factor, floor, alpha) if r["n"] >= 2 else "INCONCLUSIVE"
        same = []
        if r["n"] >= 2:
            for s in r["seeds"]:
                rest = summary[summary["seed"].astype(str) != str(s)]
                try:
                    q = _claim_p(c, rest, init_grads, factors, cfg, seed, design, texts=False)
                except ValueError:
                    same.append(verdict == "INCONCLUSIVE")
                    continue
                v = _decided_lazily(q["sup"], q["con"], factor, floor, alpha) if q["n"] >= 2 else "INCONCLUSIVE"
                same.append(v == verdict)
        robustness = float(np.mean(same)) if same else float("nan")
        without = ""
        div = stats.is_diverged(summary)
        if div.any():
            try:
                q = _claim_p(c, summary[~div].reset_index(drop=True), init_grads, factors, cfg, seed, design, texts=False)
                without = _decided_lazily(q["sup"], q["con"], factor, floor, alpha) if q["n"] >= 2 else "INCONCLUSIVE"
            except ValueError as e:
                without = f"INCONCLUSIVE ({e})"
        p = float(raw[i])
        why = []
        if r["n"] < 2:
            why.append(f"INCONCLUSIVE: {r['n']} seed(s); an interval over seeds needs at least 2")
        towards = _direction(r["p_sup"], r["p_con"]) or "SUPPORTED and CONTRADICTED alike, a tie that decides nothing"
        why.append((f"p = {p:.4g} for {towards} (the smallest alpha at which the rule gives it)" if p < 1 else
                    "p = 1 (the rule decides at no alpha up to 0.5)")
                   + f", Holm-adjusted over the {m} claim(s) of the config: {float(adjusted[i]):.4g} vs alpha {alpha:g}")  # fmt: skip
        if np.isfinite(robustness) and robustness < ROBUST:
            why.append(f"fragile: only {robustness:.0%} of leave-one-seed-out evaluations give {verdict}")
        rule = RULES[c["kind"]].format(**{k: c.get(k) for k in ("target", "tolerance", "threshold", "margin", "flat_margin")})
        intervals = INTERVALS_TEXT
        if design is not None and c["kind"] in Q.SEQUENTIAL_KINDS:
            intervals = f"adaptive study: {SEQUENTIAL_TEXT}"
            if c["kind"] == "better":
                rule = "mean seed difference > 0 -> SUPPORTED, < 0 -> CONTRADICTED (a betting e-process for each direction)"
        elif design is not None:
            intervals += f"; adaptive study, no bounded statistic: fixed design on its first {len(design['seeds'])} seeds"
        cells_text = "every cell must pass" if c["cells"] == "every" else "on the mean over cells within each seed"
        rows.append({
            "study": name, "id": c["id"], "statement": c["statement"], "source": c["source"], "kind": c["kind"],
            "cells": c["cells"], "verdict": verdict, "estimate": r["estimate"], "ci_lo": r["ci_lo"], "ci_hi": r["ci_hi"],
            "n": r["n"], "p_value": p, "p_holm": float(adjusted[i]), "robustness": robustness,
            "verdict_without_diverged": without,
            "rule": (f"{rule} ({cells_text}; {intervals}); decisive when the claim's p survives Holm over "
                     f"all claims of the config at alpha {alpha:g}; else INCONCLUSIVE"),
            "detail": "; ".join(why) + f". {r['desc']}. " + " | ".join(r["cells"][:8])
            + (f" | ... {len(r['cells']) - 8} more cell(s)" if len(r["cells"]) > 8 else ""),
        })  # fmt: skip
    return pd.DataFrame(rows, columns=["study"] + CLAIM_COLUMNS)


def evaluate_claims(claims, summary: pd.DataFrame, init_grads: pd.DataFrame | None, factors, cfg: dict | None = None,
                    seed: int = 0) -> pd.DataFrame:  # fmt: skip
    """The claims of one study as a family of their own (``evaluate_family``); CLAIM_COLUMNS.

    Raises ValueError naming the claim for a malformed claim, a ``where`` naming a column not in
    the results or selecting no runs, or a level selecting no runs.
    """
    out = evaluate_family([("", claims, summary, init_grads, factors)], cfg, seed)
    return out[CLAIM_COLUMNS]


def main(argv=None) -> int:
    """Evaluate every claim of the config as one family; write one study's rows."""
    from . import analyze, io  # noqa: PLC0415 (analyze imports this module)

    ap = argparse.ArgumentParser(description="Verdicts of every claim of the config, Holm over all of them.")
    ap.add_argument("--family-json", required=True, help="stats settings and, per study, factors and claims")
    ap.add_argument("--summaries", required=True, nargs="+", type=Path, help="summary.csv of each study, in order")
    ap.add_argument("--init-grads", required=True, nargs="+", type=Path, help="init_grads.csv of each study")
    ap.add_argument("--study", required=True, help="the study whose rows to write")
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args(argv)
    spec = json.loads(args.family_json)
    names = list(spec["studies"])
    if not len(names) == len(args.summaries) == len(args.init_grads):
        ap.error(f"{len(names)} studies but {len(args.summaries)} summaries and {len(args.init_grads)} gradient tables")
    family = []
    for name, summary, grads in zip(names, args.summaries, args.init_grads):
        factors = spec["studies"][name]["factors"]
        family.append((name, spec["studies"][name]["claims"], analyze.read_table(summary, factors),
                       analyze.read_table(grads, factors), factors))  # fmt: skip
    adaptive = {name: spec["studies"][name]["adaptive"] for name in names if spec["studies"][name].get("adaptive")}
    table = evaluate_family(family, spec["stats"], adaptive=adaptive)
    mine = table[table["study"] == args.study]
    io.write_dataframe(args.out, mine[CLAIM_COLUMNS])
    for row in mine.itertuples():
        print(f"claim {row.id}: {row.verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
