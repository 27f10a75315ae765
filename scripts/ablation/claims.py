"""Claims about a study, checked against its results: select the runs -> seed units -> test -> verdict.

A study's claims live in the config (``studies.<name>.claims``), one dict per claim, so a claim is
added without touching code (its keys: the schema's ``definitions.claim``, checked by
``ablation.config.check_claims``). Each kind is one per-seed condition (``CONDITIONS``):

=============  =====================================  =============================================
kind           keys                                   a seed meets the condition when
=============  =====================================  =============================================
at_value       target, tolerance                      its value lies in target +- tolerance
at_least       threshold                              its value is at least threshold
equivalent     factor, levels [a, b], margin          its difference b - a lies in +- margin
not_worse      factor, levels [baseline, other],      its difference other - baseline is at least
               margin                                 -margin
better         factor, levels [baseline, treatment]   its difference is above 0 (ties left out)
grad_trend     factor, growing, flat, flat_margin,    the `growing` level's slope of ln(initial
               min_slope                              gradient norm) over layers is above min_slope,
                                                      and the `flat` level's lies in +- flat_margin
=============  =====================================  =============================================

1. Select: ``where`` picks the runs (values cast to the column's type).
2. Seed units: values (paired kinds: differences matched on seed and every other factor) averaged
   within each seed, per cell (``cells: every``) or over cells (``average``). The seed is the unit.
   A diverged run's accuracy is unknown, so its seed's value is an interval over the metric's range,
   and it counts against whichever verdict is being tested (``ablation.seedtests``).
3. Test (``ablation.seedtests``): the estimand ``share`` (default) tests the share of seeds that meet
   the condition against ``share`` (default 1/2, the typical seed) with the exact binomial test;
   ``mean`` tests the mean over seeds with the betting e-process; an adaptive study takes the
   e-process for both. SUPPORTED and CONTRADICTED are one-sided tests of complementary hypotheses.
   Over cells: SUPPORTED needs every cell (intersection-union: the largest p, and the row shows
   that cell), CONTRADICTED one (Bonferroni over the cells). grad_trend needs both of its levels.
4. Verdict: Holm over the claims of one family (``stats.family``: each study, or the whole config),
   decisive when the adjusted p <= alpha; equal p-values point nowhere (INCONCLUSIVE).

An ``exact`` claim (at_value 0.5 on a model that cannot see order) is not estimated: every run's
twin certificate (identical predictions for each test sequence and its A/B-swapped twin) is checked,
SUPPORTED when every run holds it, CONTRADICTED when one breaks it (naming the run); it has no
p-value and belongs to no family. Each verdict carries its robustness (the share of leave-one-seed-
out evaluations that repeat it, at the same Holm position) and, where runs diverged, the verdict
without them.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as st

from . import analyze, io
from . import seedtests as T
from . import sequential as Q
from . import measures, significance
from . import units as U
from .units import Cell
from .config import check_claims
from .outputs import CERTIFICATE_COLUMNS, ROBUST

VERDICTS = ("SUPPORTED", "CONTRADICTED", "INCONCLUSIVE")
CLAIM_COLUMNS = [
    "id", "statement", "source", "kind", "cells", "estimand", "verdict", "estimate", "ci_lo", "ci_hi", "share",
    "share_lo", "share_hi", "n", "p_value", "p_holm", "family", "robustness", "verdict_without_diverged",
    "evidence", "rule", "detail",
]  # fmt: skip
PAIRED_KINDS = U.PAIRED_KINDS
EXACT_GAP = 1e-3
"""The largest |logit - twin logit| a run blind to order may show: float32 rounding of sums taken in
another order, which grows with the logits' size; an exact claim's evidence prints the largest gap
its runs show, and a model that sees order gives its twins gaps orders of magnitude larger."""
EPS = 1e-9
"""Values on the metric's grid (k / n) compare to a bound with float noise below this."""


# --------------------------------------------------------------------------- the per-seed condition


@dataclass(frozen=True)
class Condition:
    """What one seed must show: a value in [low, high] (``strict``: above low, not at it); ``ties``:
    a value at 0 (within half the grid step) is a tie and counts for neither verdict."""

    low: float
    high: float
    words: str
    strict: bool = False
    ties: bool = False

    def sure(self, lo, hi) -> np.ndarray:
        above = lo > self.low + EPS if self.strict else lo >= self.low - EPS
        return above & (hi <= self.high + EPS)

    def possible(self, lo, hi) -> np.ndarray:
        above = hi > self.low + EPS if self.strict else hi >= self.low - EPS
        return above & (lo <= self.high + EPS)

    def counted(self, cell: Cell) -> np.ndarray:
        if not self.ties:
            return np.ones(cell.n, dtype=bool)
        tol = max(cell.step, 1e-12) / 2
        return ~(cell.known() & (np.abs(cell.lo) < tol))

    @property
    def band(self) -> tuple[float, float]:
        return self.low, self.high


def _pct(x: float) -> str:
    return f"{100 * x:.4g} %"


def _pp(x: float) -> str:
    return f"{100 * x:.4g} pp"


def conditions(c: dict) -> list[Condition]:
    """The claim's per-seed condition (grad_trend: one per level, growing then flat)."""
    kind = c["kind"]
    if kind == "at_least":
        return [Condition(c["threshold"], np.inf, f"reached {_pct(c['threshold'])}")]
    if kind == "at_value":
        lo, hi = c["target"] - c["tolerance"], c["target"] + c["tolerance"]
        return [Condition(lo, hi, f"within {_pct(c['target'])} ± {_pct(c['tolerance'])}")]
    if kind == "equivalent":
        return [Condition(-c["margin"], c["margin"], f"differed by at most ±{_pp(c['margin'])}")]
    if kind == "not_worse":
        return [Condition(-c["margin"], np.inf, f"lost at most {_pp(c['margin'])}")]
    if kind == "better":
        return [Condition(0.0, np.inf, "improved", strict=True, ties=True)]
    if kind == "grad_trend":
        return [Condition(c["min_slope"], np.inf, f"grew by more than {c['min_slope']:g} per layer", strict=True),
                Condition(-c["flat_margin"], c["flat_margin"], f"stayed within ±{c['flat_margin']:g} per layer")]  # fmt: skip
    raise AssertionError(kind)


# --------------------------------------------------------------------------- the test of one cell


@dataclass
class Evidence:
    """What one cell's seeds show about one condition, and the two one-sided p-values."""

    words: str
    p_sup: float
    p_con: float
    n: int  # seeds counted
    met: int  # seeds that surely meet the condition
    mean: float  # of the seeds' known values


def _cell_test(c: dict, cond: Condition, cell: Cell, sequential: bool, alpha: float) -> Evidence:
    counted = cond.counted(cell)
    sure, possible = cond.sure(cell.lo, cell.hi) & counted, cond.possible(cell.lo, cell.hi) & counted
    n, k = int(counted.sum()), int(sure.sum())
    known = cell.known()
    mean = float(cell.lo[known].mean()) if known.any() else np.nan
    unsure = int((possible & ~sure).sum())
    ties = cell.n - n
    words = f"{k} of {n} seeds {cond.words}" + (f" ({ties} tied)" if ties else "")
    if unsure:
        words += f"; {unsure} seed(s) with a diverged run count against each verdict"
    if c["estimand"] == "mean":
        bounds = Q.bounds_of(c["kind"])
        p_sup, p_con = T.mean_p(cell.lo, cell.hi, cond.band, bounds, alpha)
        words = f"mean {mean:.4g} over {cell.n} seeds; " + words
    elif sequential:
        p_sup, p_con = T.share_p_sequential(sure, possible, counted, c["share"], alpha)
    else:
        p_sup, p_con = (float(p) for p in T.share_p(k, int(possible.sum()), n, c["share"]))
    return Evidence(words, p_sup, p_con, n, k, mean)


def _test_name(c: dict, sequential: bool) -> str:
    share = f"share > {c['share']:g}"
    if c["estimand"] == "mean":
        return "mean over seeds, betting e-process (anytime-valid), p = 1 / largest capital"
    if sequential:
        return f"{share}, betting e-process on the seeds' outcomes (anytime-valid), p = 1 / largest capital"
    return f"{share}, exact binomial test over seeds" + (" (the sign test)" if c["kind"] == "better" else "")


@dataclass
class Result:
    """A claim's p-values over its cells, the cell that decides, and what the seeds show there."""

    p_sup: float
    p_con: float
    n: int
    deciding: int
    evidence: list  # per cell: [Evidence] (grad_trend: [growing, flat])
    cells: list  # per cell: Cell (grad_trend: the growing level's)
    desc: str = ""
    seeds: tuple = ()


def _combine(per_cell: list[list[Evidence]]) -> tuple[float, float, int]:
    """SUPPORTED needs every condition of every cell (intersection-union: the largest p);
    CONTRADICTED one (Bonferroni over the cells and conditions). The deciding cell: the one with
    the largest p_sup, or the smallest p_con when that is the smaller."""
    sup = [max(e.p_sup for e in ev) for ev in per_cell]
    con = [min(1.0, len(ev) * min(e.p_con for e in ev)) for ev in per_cell]
    p_sup, p_con = max(sup), min(1.0, len(con) * min(con))
    deciding = int(np.argmin(con)) if p_con < p_sup else int(np.argmax(sup))
    return p_sup, p_con, deciding


def claim_test(c: dict, summary: pd.DataFrame, init_grads, factors, cfg: dict, design=None) -> Result:
    """Select -> seed units -> test, for one (non-exact) claim. ``design``: an adaptive study's
    ``{seeds, max_seeds, batch}`` (``ablation.adaptive``), else None (fixed design)."""
    kind = c["kind"]
    sub = U.select(summary, c["where"], c["id"])
    sequential = design is not None and kind in Q.SEQUENTIAL_KINDS
    if design is not None and not sequential:  # no anytime-valid rule: the first seeds only
        sub = sub[sub["seed"].isin(design["seeds"])].reset_index(drop=True)
    if kind == "grad_trend":
        pairs, desc = U.cells_grad(c, sub, factors, init_grads)
        levels = [list(p) for p in pairs]
    else:
        cells, desc = U.cells_of(c, sub, factors, cfg)
        levels = [[cell] for cell in cells]
    conds = conditions(c)
    evidence = [[_cell_test(c, cond, cell, sequential, cfg["alpha"]) for cond, cell in zip(conds, lv)] for lv in levels]
    p_sup, p_con, deciding = _combine(evidence)
    n = min(cell.n for lv in levels for cell in lv)
    if n < 2:  # no verdict from fewer than 2 seeds: equal p-values point nowhere (decided)
        p_sup = p_con = 1.0
    seeds = tuple(sorted({s for lv in levels for cell in lv for s in cell.seeds}, key=str))
    return Result(p_sup, p_con, n, deciding, evidence, [lv[0] for lv in levels], desc, seeds)


def _grown(cells: list[Cell], k: int, value: float) -> list[Cell]:
    """Every cell with ``k`` further seeds, each at ``value``, after its own."""
    return [Cell(x.label, np.arange(x.n + k), np.append(x.lo, [value] * k), np.append(x.hi, [value] * k), x.step)
            for x in cells]  # fmt: skip


def _favourable(c: dict) -> dict[str, list[float]]:
    """The per-seed values most favourable to each verdict: beyond the boundary at the range's end
    (one-sided kinds), or the band's centre and either end of the range (two-sided)."""
    lo, hi = Q.band(c)
    blo, bhi = Q.bounds_of(c["kind"])
    if hi == lo:
        return {"SUPPORTED": [bhi], "CONTRADICTED": [blo]}
    return {"SUPPORTED": [(lo + hi) / 2], "CONTRADICTED": [blo, bhi]}


def seeds_to_decide(c: dict, r: Result, sequential: bool, holm_factor: float, alpha: float,
                    limit: int = 100) -> dict[str, int | None]:  # fmt: skip
    """Per verdict, the fewest further seeds per cell, every one at the value most favourable to
    it, with which the claim's rule gives that verdict at its Holm step (``holm_factor``); None
    beyond ``limit``. What an undecided claim's row says would decide it; grad_trend: not given."""
    if c["kind"] == "grad_trend" or not r.cells:
        return {}
    cond = conditions(c)[0]
    out = {}
    for verdict, values in _favourable(c).items():
        out[verdict] = None
        for k in range(1, limit + 1):
            if any(decided(*_combine([[_cell_test(c, cond, x, sequential, alpha)] for x in _grown(r.cells, k, v)])[:2],
                           holm_factor, 0.0, alpha) == verdict for v in values):  # fmt: skip
                out[verdict] = k
                break
    return out


def reachable(c: dict, summary: pd.DataFrame, factors, cfg: dict, design: dict, level: float) -> bool:
    """Could an adaptive claim's p reach ``level`` by ``max_seeds``? Optimistically: every further
    seed of every cell takes the value most favourable to one verdict (the range's end beyond the
    boundary, or the band's centre)."""
    sub = U.select(summary, c["where"], c["id"])
    cells, _ = U.cells_of(c, sub, factors, cfg)
    n_more = [design["max_seeds"] - cell.n for cell in cells]
    if min(n_more, default=0) <= 0:
        return False
    cond = conditions(c)[0]
    for value in (v for values in _favourable(c).values() for v in values):
        grown = [_grown([x], k, value)[0] for x, k in zip(cells, n_more)]
        p_sup, p_con, _ = _combine([[_cell_test(c, cond, x, True, cfg["alpha"])] for x in grown])
        if min(p_sup, p_con) <= level:
            return True
    return False


# --------------------------------------------------------------------------- exact claims


def certificate(c: dict, summary: pd.DataFrame) -> tuple[str, str, int]:
    """An exact claim's verdict from every selected run's twin certificate: (verdict, evidence in
    words, runs). A run holds it when no twin pair is predicted differently and its logits differ
    from its twins' by at most EXACT_GAP; a run without a certificate (diverged, or trained before
    runs recorded one) leaves the claim INCONCLUSIVE."""
    sub = U.select(summary, c["where"], c["id"])
    missing_cols = [col for col in CERTIFICATE_COLUMNS if col not in sub]
    if missing_cols:
        return "INCONCLUSIVE", f"no run has a twin certificate ({', '.join(missing_cols)} missing)", len(sub)
    gap, differ = measures._num(sub, "twin_logit_gap"), measures._num(sub, "twin_pairs_differ")
    absent = ~(np.isfinite(gap) & np.isfinite(differ))
    broken = ~absent & ((differ > 0) | (gap > EXACT_GAP))
    ids = sub["run_id"].astype(str).to_numpy() if "run_id" in sub else np.arange(len(sub)).astype(str)
    if broken.any():
        named = ", ".join(f"{r} ({int(d)} twin pairs predicted differently, logit gap {g:.3g})"
                          for r, d, g in zip(ids[broken][:5], differ[broken][:5], gap[broken][:5]))  # fmt: skip
        more = f" and {int(broken.sum()) - 5} more" if broken.sum() > 5 else ""
        return "CONTRADICTED", f"{int(broken.sum())} of {len(sub)} runs break the twin certificate: {named}{more}", len(sub)
    if absent.any():
        return "INCONCLUSIVE", (f"{int(absent.sum())} of {len(sub)} runs have no twin certificate (diverged or "
                                f"trained without one): {', '.join(ids[absent][:5])}"), len(sub)  # fmt: skip
    return "SUPPORTED", (f"all {len(sub)} runs hold the twin certificate: every twin pair predicted alike, "
                         f"largest logit gap {np.max(gap, initial=0.0):.2g}"), len(sub)  # fmt: skip


# --------------------------------------------------------------------------- verdicts


def _direction(p_sup: float, p_con: float) -> str | None:
    """The verdict with the smaller p; None at a tie (equal p-values point nowhere)."""
    if p_sup < p_con:
        return "SUPPORTED"
    if p_con < p_sup:
        return "CONTRADICTED"
    return None


def decided(p_sup: float, p_con: float, holm_factor: float, floor: float, alpha: float) -> str:
    """The verdict whose p, Holm-adjusted (times ``holm_factor``, at least ``floor``: the adjusted p
    of the claims ranked before it), is at most alpha; INCONCLUSIVE at a tie of the two p-values.
    The adaptive rounds decide with the same function (holm_factor: the family's size)."""
    direction = _direction(p_sup, p_con)
    if direction is None or max(floor, holm_factor * min(p_sup, p_con)) > alpha:
        return "INCONCLUSIVE"
    return direction


def holm_steps(raw) -> list[tuple[int, float, float]]:
    """Each p-value's step in Holm's step-down over one family, in the given order: (its factor,
    the floor -- the largest adjusted p ranked before it --, its adjusted p), what ``decided`` reads."""
    raw = np.asarray(raw, dtype=float)
    adjusted, order, m = significance.holm(raw), np.argsort(raw, kind="stable"), len(raw)
    out = [None] * m
    for rank, j in enumerate(order):
        floor = float(np.max(np.minimum(1.0, (m - np.arange(rank)) * raw[order[:rank]]), initial=0.0))
        out[j] = (m - rank, floor, float(adjusted[j]))
    return out


RULES = {
    "at_value": "a seed meets the claim when its value lies within {target} ± {tolerance}",
    "at_least": "a seed meets the claim when its value is at least {threshold}",
    "equivalent": "a seed meets the claim when its difference lies within ±{margin}",
    "not_worse": "a seed meets the claim when its difference is at least -{margin}",
    "better": "a seed meets the claim when its difference is above 0 (ties left out)",
    "grad_trend": "a seed meets the claim when the growing level's slope is above {min_slope} and the flat level's within ±{flat_margin}",
}  # fmt: skip
EXACT_TEXT = "exact by construction, checked on every run: each run's twin certificate (no twin pair predicted differently)"


def _family_key(study: str, c: dict, cfg: dict) -> str | None:
    return None if c.get("exact") else ("config" if cfg.get("family") == "config" else study)


def without_seed(summary: pd.DataFrame, seed) -> pd.DataFrame:
    """The summary without one seed's runs: a leave-one-seed-out evaluation's input."""
    return summary[summary["seed"].astype(str) != str(seed)]


def verdict_alone(c, summary, init_grads, factors, cfg, design, holm_factor, floor) -> tuple[str, int]:
    """A claim's verdict alone (for leave-one-seed-out and the verdict without diverged runs)."""
    if c.get("exact"):
        verdict, _, n = certificate(c, summary)
        return verdict, n
    r = claim_test(c, summary, init_grads, factors, cfg, design)
    return decided(r.p_sup, r.p_con, holm_factor, floor, cfg["alpha"]), r.n


def _share_ci(k: int, n: int, confidence: float) -> tuple[float, float]:
    if n == 0:
        return np.nan, np.nan
    ci = st.binomtest(k, n).proportion_ci(confidence, method="exact")
    return float(ci.low), float(ci.high)


def evaluate_family(studies, cfg: dict | None = None, adaptive: dict | None = None) -> pd.DataFrame:
    """Every claim of a config: one row per claim (CLAIM_COLUMNS, with the study first).

    ``studies``: iterable of (study name, claims, summary, init_grads, factors). Holm runs over the
    non-exact claims of each family (``stats.family``: ``study``, the default, or ``config``); a
    verdict is decisive when its Holm-adjusted p is at most ``alpha``. ``adaptive``: study name ->
    its design ``{seeds, max_seeds, batch}``, whose claims take anytime-valid p-values. Every test
    here is exact or deterministic: no random seed.
    """
    cfg = measures.resolve_cfg(cfg)
    items = []
    for name, claims, summary, init_grads, factors in studies:
        factors = list(factors)
        for c in check_claims(claims, factors, list(summary.columns)):
            design = (adaptive or {}).get(name)
            r = None if c.get("exact") else claim_test(c, summary, init_grads, factors, cfg, design)
            items.append((name, c, summary, init_grads, factors, design, r))
    families: dict[str, list[int]] = {}
    for i, (name, c, *_rest) in enumerate(items):
        key = _family_key(name, c, cfg)
        if key is not None:
            families.setdefault(key, []).append(i)
    holm_at = {}  # item -> (holm factor, floor, adjusted p, family size)
    for members in families.values():
        steps = holm_steps([min(items[i][-1].p_sup, items[i][-1].p_con) for i in members])
        for i, step in zip(members, steps):
            holm_at[i] = (*step, len(members))
    rows = []
    for i, (name, c, summary, init_grads, factors, design, r) in enumerate(items):
        rows.append(_row(name, c, summary, init_grads, factors, design, r, holm_at.get(i), cfg))
    return pd.DataFrame(rows, columns=["study"] + CLAIM_COLUMNS)


def _row(name, c, summary, init_grads, factors, design, r, holm, cfg) -> dict:
    alpha = cfg["alpha"]
    factor, floor = (holm[0], holm[1]) if holm else (1, 0.0)
    row = {"study": name, "id": c["id"], "statement": c["statement"], "source": c["source"], "kind": c["kind"],
           "cells": c["cells"], "estimand": "exact" if c.get("exact") else c["estimand"]}  # fmt: skip
    if c.get("exact"):
        verdict, evidence, n = certificate(c, summary)
        sub = U.select(summary, c["where"], c["id"])
        acc = measures.metric_values(sub, c["metric"], cfg)
        row.update(verdict=verdict, estimate=float(np.mean(acc)), n=int(sub["seed"].nunique()), p_value=np.nan,
                   p_holm=np.nan, family="", evidence=evidence, rule=EXACT_TEXT, detail=f"{n} runs ({U.where_text(c['where'])})")  # fmt: skip
        seeds = sorted(sub["seed"].unique(), key=str)
    else:
        verdict = decided(r.p_sup, r.p_con, factor, floor, alpha)
        ev, cell = r.evidence[r.deciding], r.cells[r.deciding]
        sequential = design is not None and c["kind"] in Q.SEQUENTIAL_KINDS
        p = min(r.p_sup, r.p_con)
        towards = _direction(r.p_sup, r.p_con) or "neither verdict (equal p-values)"
        words = "; ".join(e.words for e in ev)
        evidence = (f"{cell.label}: {words}; {_test_name(c, sequential)}: p = {p:.3g} for {towards}, Holm over "
                    f"the {holm[3]} claim(s) of its family ({_family_name(name, cfg)}): {holm[2]:.3g} vs alpha {alpha:g}")  # fmt: skip
        if r.n < 2:
            evidence = f"{r.n} seed(s): no verdict from fewer than 2 seeds. " + evidence
        if verdict == "INCONCLUSIVE":
            evidence += _what_would_decide(c, r, sequential, factor, floor, alpha)
        lo, hi = (np.nan, np.nan)
        if c["estimand"] == "mean" and c["kind"] in Q.SEQUENTIAL_KINDS and cell.n:
            known = cell.known()
            cs_lo, cs_hi = Q.confidence_sequence(cell.lo[known], Q.bounds_of(c["kind"]), 1 - cfg["confidence"])
            lo, hi = float(cs_lo[-1]), float(cs_hi[-1])
        share_lo, share_hi = _share_ci(ev[0].met, ev[0].n, cfg["confidence"])
        others = " | ".join(f"{x.label}: " + "; ".join(e.words for e in evs) for x, evs in zip(r.cells, r.evidence))
        row.update(verdict=verdict, estimate=ev[0].mean, ci_lo=lo, ci_hi=hi,
                   share=ev[0].met / ev[0].n if ev[0].n else np.nan, share_lo=share_lo, share_hi=share_hi, n=r.n,
                   p_value=p, p_holm=holm[2], family=_family_name(name, cfg), evidence=evidence,
                   rule=(RULES[c["kind"]].format(**{k: c.get(k) for k in ("target", "tolerance", "threshold", "margin", "flat_margin", "min_slope")})
                         + f"; {_test_name(c, sequential)}; "
                         + ("every cell must pass" if c["cells"] == "every" else "on the mean over cells within each seed")
                         + f"; decisive when the p survives Holm over its family at alpha {alpha:g}"),
                   detail=f"{r.desc}. {others}")  # fmt: skip
        seeds = list(r.seeds)
    same = []
    if row["n"] >= 2:
        for s in seeds:
            try:
                v, _ = verdict_alone(c, without_seed(summary, s), init_grads, factors, cfg, design, factor, floor)
            except ValueError:
                v = "INCONCLUSIVE"
            same.append(v == verdict)
    row["robustness"] = float(np.mean(same)) if same else float("nan")
    if np.isfinite(row["robustness"]) and row["robustness"] < ROBUST:
        row["detail"] += f". Fragile: only {row['robustness']:.0%} of leave-one-seed-out evaluations give {verdict}"
    row["verdict_without_diverged"] = ""
    div = measures.is_diverged(summary)
    if div.any():
        try:
            row["verdict_without_diverged"] = verdict_alone(c, summary[~div].reset_index(drop=True), init_grads, factors,
                                                        cfg, design, factor, floor)[0]  # fmt: skip
        except ValueError as e:
            row["verdict_without_diverged"] = f"INCONCLUSIVE ({e})"
    return row


def _what_would_decide(c: dict, r: Result, sequential: bool, factor: float, floor: float, alpha: float) -> str:
    """An undecided claim's row, in words: how many further seeds per cell would decide it."""
    need = seeds_to_decide(c, r, sequential, factor, alpha)
    if not need:
        return ""
    said = {v: (f"at least {k} more seed(s)" if k else "more than 100 more seeds") for v, k in need.items()}
    text = (f". To decide it: {said['SUPPORTED']} per cell, every one meeting the claim, for SUPPORTED; "
            f"{said['CONTRADICTED']} per cell, none meeting it, for CONTRADICTED")  # fmt: skip
    if floor > alpha:
        text += " (once the claims before it in Holm's order are decided)"
    return text


def _family_name(study: str, cfg: dict) -> str:
    return "every claim of the config" if cfg.get("family") == "config" else f"study {study}" if study else "these claims"


def evaluate_claims(claims, summary: pd.DataFrame, init_grads: pd.DataFrame | None, factors,
                    cfg: dict | None = None) -> pd.DataFrame:  # fmt: skip
    """The claims of one study as a family of their own (``evaluate_family``); CLAIM_COLUMNS.

    Raises ValueError naming the claim for a malformed claim, a ``where`` naming a column not in
    the results or selecting no runs, or a level selecting no runs.
    """
    out = evaluate_family([("", claims, summary, init_grads, factors)], cfg)
    return out[CLAIM_COLUMNS]


def main(argv=None) -> int:
    """Evaluate every claim of the config; write one study's rows."""
    ap = argparse.ArgumentParser(description="Verdicts of every claim of the config, Holm over each family.")
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
