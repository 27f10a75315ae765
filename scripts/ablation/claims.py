"""Claims about a study, checked against its results: select -> seed units -> test -> verdict.

A study's claims live in the config (``studies.<name>.claims``); each is one of the registered claim
kinds (``ablation.kinds``: at_value, at_least, equivalent, not_worse, better, grad_trend, and any a
plugin registers), built once into a frozen ``kinds.Claim``. A claim travels down once:

1. Select (``seed_units.select``): ``where`` picks the runs (values cast to the column's type).
2. Seed units (``seed_units.claim_cells``): per part of the claim (its kind's per-seed conditions),
   values (a comparison: differences matched on seed and every other factor) averaged within each
   seed, per cell (``cells: every``) or over cells (``average``). The seed is the unit. A diverged
   run's accuracy is unknown, so its seed's value is an interval over the metric's range, and it
   counts against whichever verdict is being tested.
3. Test (``seedtests.condition_p``): the estimand ``share`` (default) tests the share of seeds that
   meet the condition against ``share`` (default 1/2, the typical seed) with the exact binomial
   test; ``mean`` tests the mean over seeds with the betting e-process; an adaptive study takes the
   e-process for both. SUPPORTED and CONTRADICTED are one-sided tests of complementary hypotheses.
   Over cells and parts (``combine``): SUPPORTED needs every condition of every cell (intersection-
   union: the largest p, and the row shows that cell), CONTRADICTED one (Bonferroni).
4. Verdict (``decided``): Holm over the claims of one family (``stats.family``: each study, or the
   whole config), decisive when the adjusted p <= alpha; equal p-values point nowhere (INCONCLUSIVE).

An ``exact`` claim (at_value 0.5 on a model that cannot see order) is not estimated: every run's
twin certificate (identical predictions for each test sequence and its A/B-swapped twin) is checked,
SUPPORTED when every run holds it, CONTRADICTED when one breaks it (naming the run); it has no
p-value and belongs to no family. Each verdict carries its robustness (``robustness``: the share of
leave-one-seed-out evaluations that repeat it, at the same Holm step) and, where runs diverged, the
verdict without them.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats

from . import analyze, io, measures, plugins, seed_units, seedtests, sequential, significance
from .config import check_claims
from .kinds import Claim, Part
from .outputs import CERTIFICATE_COLUMNS, ROBUST
from .seed_units import Cell, StudyRuns

VERDICTS = ("SUPPORTED", "CONTRADICTED", "INCONCLUSIVE")
CLAIM_COLUMNS = [
    "id", "statement", "source", "kind", "cells", "estimand", "verdict", "estimate", "ci_lo", "ci_hi", "share",
    "share_lo", "share_hi", "n", "p_value", "p_holm", "family", "robustness", "verdict_without_diverged",
    "evidence", "rule", "detail",
]  # fmt: skip
EXACT_GAP = 1e-3
"""The largest |logit - twin logit| a run blind to order may show: float32 rounding of sums taken in
another order, which grows with the logits' size; an exact claim's evidence prints the largest gap
its runs show, and a model that sees order gives its twins gaps orders of magnitude larger."""
SEEDS_TO_DECIDE_LIMIT = 100
"""The most further seeds per cell an undecided claim's row counts up to."""


@dataclass(frozen=True)
class Judge:
    """The config's statistics settings that decide verdicts (its ``stats``, defaults filled in)."""

    cfg: dict = field(default_factory=dict)

    @classmethod
    def of(cls, stats: dict | None) -> "Judge":
        return cls(measures.resolve_cfg(stats))

    @property
    def alpha(self) -> float:
        return self.cfg["alpha"]

    @property
    def confidence(self) -> float:
        return self.cfg["confidence"]

    def family_name(self, study: str) -> str:
        if self.cfg.get("family") == "config":
            return "every claim of the config"
        return f"study {study}" if study else "these claims"


@dataclass(frozen=True)
class HolmStep:
    """A claim's step in Holm's step-down over its family: its factor, the floor (the largest
    adjusted p ranked before it), its adjusted p and the family's size. A claim alone: factor 1."""

    factor: float = 1
    floor: float = 0.0
    adjusted: float = np.nan
    size: int = 1


# --------------------------------------------------------------------------- the test of one cell


def bounds(claim: Claim, part: Part) -> tuple[float, float]:
    """The range of one seed's value: the metric's, or its differences' for a comparison."""
    lo, hi = measures.BOUNDS[claim.metric]
    return (lo - hi, hi - lo) if part.compare else (lo, hi)


def p_values(claim: Claim, part: Part, lo, hi, step: float, sequential_rule: bool, alpha: float):
    """(p_sup, p_con) of one part's condition on seed units [lo, hi] (..., seeds): the test the claims
    table puts one cell to, and the simulations thousands of simulated cells at once."""
    bounded = bounds(claim, part) if part.bounded else None
    return seedtests.condition_p(part.condition, claim.estimand, claim.share, lo, hi, step, bounded, sequential_rule, alpha)


@dataclass
class Evidence:
    """What one cell's seeds show about one condition, and the two one-sided p-values."""

    words: str
    p_sup: float
    p_con: float
    n: int  # seeds counted
    met: int  # seeds that surely meet the condition
    mean: float  # of the seeds' known values


def cell_evidence(claim: Claim, part: Part, cell: Cell, sequential_rule: bool, alpha: float) -> Evidence:
    cond = part.condition
    counted = cond.counted(cell.lo, cell.hi, cell.step)
    sure, possible = cond.sure(cell.lo, cell.hi) & counted, cond.possible(cell.lo, cell.hi) & counted
    n, k = int(counted.sum()), int(sure.sum())
    known = cell.known()
    mean = float(cell.lo[known].mean()) if known.any() else np.nan
    unsure = int((possible & ~sure).sum())
    ties = cell.n - n
    words = f"{k} of {n} seeds {cond.words}" + (f" ({ties} tied)" if ties else "")
    if unsure:
        words += f"; {unsure} seed(s) with a diverged run count against each verdict"
    if claim.estimand == "mean":
        words = f"mean {mean:.4g} over {cell.n} seeds; " + words
    p_sup, p_con = p_values(claim, part, cell.lo, cell.hi, cell.step, sequential_rule, alpha)
    return Evidence(words, float(p_sup), float(p_con), n, k, mean)


def combine(p_sup, p_con) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A claim's (p_sup, p_con, deciding cell) from its cells' and parts' p-values (cells, parts, ...):
    SUPPORTED needs every condition of every cell (intersection-union: the largest p); CONTRADICTED
    one (Bonferroni over the cells and conditions). The deciding cell: the one with the largest
    p_sup, or the smallest p_con when that is the smaller."""
    p_sup, p_con = np.asarray(p_sup, dtype=float), np.asarray(p_con, dtype=float)
    n_cells, n_parts = p_sup.shape[:2]
    sup = p_sup.max(axis=1)
    con = np.minimum(1.0, n_parts * p_con.min(axis=1))
    claim_sup, claim_con = sup.max(axis=0), np.minimum(1.0, n_cells * con.min(axis=0))
    deciding = np.where(claim_con < claim_sup, np.argmin(con, axis=0), np.argmax(sup, axis=0))
    return claim_sup, claim_con, deciding


@dataclass
class Result:
    """A claim's p-values over its cells, the cell that decides, and what the seeds show there."""

    p_sup: float
    p_con: float
    n: int
    deciding: int
    evidence: list  # per cell: [Evidence per part]
    cells: list  # per cell: [Cell per part]
    desc: str = ""
    seeds: tuple = ()
    sequential: bool = False  # judged by the anytime-valid e-process


def claim_test(claim: Claim, runs: StudyRuns, judge: Judge) -> Result:
    """Select -> seed units -> test, for one (non-exact) claim. An adaptive study (``runs.design``)
    judges a claim with the e-process; one without a bounded statistic on its first round's seeds."""
    sequential_rule = runs.design is not None and claim.sequential
    if runs.design is not None and not sequential_rule:
        runs = runs.first_round()
    cells, desc = seed_units.claim_cells(claim, runs, judge.cfg)
    evidence = [[cell_evidence(claim, part, cell, sequential_rule, judge.alpha) for part, cell in zip(claim.parts, parts)]
                for parts in cells]  # fmt: skip
    p_sup, p_con, deciding = combine([[e.p_sup for e in ev] for ev in evidence], [[e.p_con for e in ev] for ev in evidence])
    p_sup, p_con = float(p_sup), float(p_con)
    n = min(cell.n for parts in cells for cell in parts)
    if n < 2:  # no verdict from fewer than 2 seeds: equal p-values point nowhere (decided)
        p_sup = p_con = 1.0
    seeds = tuple(sorted({s for parts in cells for cell in parts for s in cell.seeds}, key=str))
    return Result(p_sup, p_con, n, int(deciding), evidence, cells, desc, seeds, sequential_rule)


# --------------------------------------------------------------------------- exact claims


def certificate(claim: Claim, summary: pd.DataFrame) -> tuple[str, str, int]:
    """An exact claim's verdict from every selected run's twin certificate: (verdict, evidence in
    words, runs). A run holds it when no twin pair is predicted differently and its logits differ
    from its twins' by at most EXACT_GAP; a run without a certificate (diverged, or trained before
    runs recorded one) leaves the claim INCONCLUSIVE."""
    sub = seed_units.select(summary, claim.where, claim.id)
    missing_cols = [col for col in CERTIFICATE_COLUMNS if col not in sub]
    if missing_cols:
        return "INCONCLUSIVE", f"no run has a twin certificate ({', '.join(missing_cols)} missing)", len(sub)
    gap, differ = measures.numeric(sub, "twin_logit_gap"), measures.numeric(sub, "twin_pairs_differ")
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


def direction(p_sup: float, p_con: float) -> str | None:
    """The verdict with the smaller p; None at a tie (equal p-values point nowhere)."""
    if p_sup < p_con:
        return "SUPPORTED"
    if p_con < p_sup:
        return "CONTRADICTED"
    return None


def decided(p_sup: float, p_con: float, step: HolmStep, alpha: float) -> str:
    """The verdict whose p, at its Holm step (times the step's factor, at least its floor: the
    adjusted p of the claims ranked before it), is at most alpha; INCONCLUSIVE at a tie of the two
    p-values. The adaptive rounds decide with the same function."""
    toward = direction(p_sup, p_con)
    if toward is None or max(step.floor, step.factor * min(p_sup, p_con)) > alpha:
        return "INCONCLUSIVE"
    return toward


def holm_steps(raw) -> list[HolmStep]:
    """Each p-value's step in Holm's step-down over one family, in the given order."""
    raw = np.asarray(raw, dtype=float)
    adjusted, order, m = significance.holm(raw), np.argsort(raw, kind="stable"), len(raw)
    out = [None] * m
    for rank, j in enumerate(order):
        floor = float(np.max(np.minimum(1.0, (m - np.arange(rank)) * raw[order[:rank]]), initial=0.0))
        out[j] = HolmStep(m - rank, floor, float(adjusted[j]), m)
    return out


def verdict_alone(claim: Claim, runs: StudyRuns, judge: Judge, step: HolmStep) -> tuple[str, int]:
    """A claim's verdict (and its seeds, or runs for an exact claim) on ``runs`` at its Holm step."""
    if claim.exact:
        verdict, _, n = certificate(claim, runs.summary)
        return verdict, n
    r = claim_test(claim, runs, judge)
    return decided(r.p_sup, r.p_con, step, judge.alpha), r.n


def robustness(claim: Claim, runs: StudyRuns, judge: Judge, step: HolmStep, verdict: str, seeds) -> float:
    """The share of leave-one-seed-out evaluations that repeat ``verdict`` at the claim's Holm step
    (NaN without seeds): the claims table's robustness, and what makes an adaptive round call a
    verdict fragile."""
    same = []
    for seed in seeds:
        try:
            left, _ = verdict_alone(claim, runs.without_seed(seed), judge, step)
        except ValueError:  # the seed was the last of a cell
            left = "INCONCLUSIVE"
        same.append(left == verdict)
    return float(np.mean(same)) if same else float("nan")


def _share_ci(k: int, n: int, confidence: float) -> tuple[float, float]:
    """The exact interval of the share of seeds meeting the claim: scipy's own, which rounds its
    upper end otherwise than ``intervals.clopper_pearson_ci`` (a last bit in some rows)."""
    if n == 0:
        return np.nan, np.nan
    ci = scipy_stats.binomtest(k, n).proportion_ci(confidence, method="exact")
    return float(ci.low), float(ci.high)


# --------------------------------------------------------------------------- what would decide it


def _grown(cells: list[list[Cell]], k, value: float) -> list[list[Cell]]:
    """Every cell with further seeds at ``value``: ``k`` each, or one count per cell."""
    ks = k if isinstance(k, list) else [k] * len(cells)
    return [[cell.grown(n_more, value) for cell in parts] for parts, n_more in zip(cells, ks)]


def _p_with(claim: Claim, cells: list[list[Cell]], sequential_rule: bool, alpha: float) -> tuple[float, float]:
    per = [[p_values(claim, part, c.lo, c.hi, c.step, sequential_rule, alpha) for part, c in zip(claim.parts, parts)]
           for parts in cells]  # fmt: skip
    p_sup, p_con, _ = combine([[p[0] for p in ps] for ps in per], [[p[1] for p in ps] for ps in per])
    return float(p_sup), float(p_con)


def favourable(claim: Claim) -> dict[str, list[float]]:
    """Per verdict, the per-seed values most favourable to it (one condition on bounded values)."""
    part = claim.parts[0]
    return part.condition.favourable(bounds(claim, part))


def seeds_to_decide(claim: Claim, result: Result, step: HolmStep, alpha: float,
                    limit: int = SEEDS_TO_DECIDE_LIMIT) -> dict[str, int | None]:  # fmt: skip
    """Per verdict, the fewest further seeds per cell, every one at the value most favourable to
    it, with which the claim's rule gives that verdict at its Holm step; None beyond ``limit``. What
    an undecided claim's row says would decide it, and (on cells without seeds) what the plan says
    a design needs. Not given for a claim of several conditions or unbounded values."""
    if not claim.sequential or not result.cells:
        return {}
    out = {}
    for verdict, values in favourable(claim).items():
        out[verdict] = None
        for k in range(1, limit + 1):
            at_step = HolmStep(step.factor, 0.0, step.adjusted, step.size)
            if any(decided(*_p_with(claim, _grown(result.cells, k, v), result.sequential, alpha), at_step, alpha) == verdict
                   for v in values):  # fmt: skip
                out[verdict] = k
                break
    return out


def reachable(claim: Claim, runs: StudyRuns, judge: Judge, level: float) -> bool:
    """Could an adaptive claim's p reach ``level`` by ``max_seeds``? Optimistically: every further
    seed of every cell takes the value most favourable to one verdict."""
    cells, _ = seed_units.claim_cells(claim, runs, judge.cfg)
    n_more = [runs.design["max_seeds"] - parts[0].n for parts in cells]
    if min(n_more, default=0) <= 0:
        return False
    for value in (v for values in favourable(claim).values() for v in values):
        if min(_p_with(claim, _grown(cells, n_more, value), True, judge.alpha)) <= level:
            return True
    return False


# --------------------------------------------------------------------------- the claims table


@dataclass
class Judged:
    """One claim of one study with its test (None for an exact claim)."""

    runs: StudyRuns
    claim: Claim
    result: Result | None


def evaluate_family(studies: list[StudyRuns], stats: dict | None = None) -> pd.DataFrame:
    """Every claim of a config: one row per claim (CLAIM_COLUMNS, with the study first).

    ``studies``: each study's runs with its claims. Holm runs over the non-exact claims of each
    family (``stats.family``: ``study``, the default, or ``config``); a verdict is decisive when its
    Holm-adjusted p is at most ``alpha``. An adaptive study's claims take anytime-valid p-values.
    Every test here is exact or deterministic: no random seed."""
    judge = Judge.of(stats)
    judged = [Judged(runs, c, None if c.exact else claim_test(c, runs, judge)) for runs in studies for c in runs.claims]
    families: dict[str, list[int]] = {}
    for i, j in enumerate(judged):
        if not j.claim.exact:
            families.setdefault("config" if judge.cfg.get("family") == "config" else j.runs.name, []).append(i)
    steps = {}
    for members in families.values():
        for i, step in zip(members, holm_steps([min(judged[i].result.p_sup, judged[i].result.p_con) for i in members])):
            steps[i] = step
    rows = [_row(j, steps.get(i, HolmStep()), judge) for i, j in enumerate(judged)]
    return pd.DataFrame(rows, columns=["study"] + CLAIM_COLUMNS)


def _row(judged: Judged, step: HolmStep, judge: Judge) -> dict:
    claim, runs, r = judged.claim, judged.runs, judged.result
    row = {"study": runs.name, "id": claim.id, "statement": claim.statement, "source": claim.source,
           "kind": claim.kind.name, "cells": claim.cells, "estimand": "exact" if claim.exact else claim.estimand}  # fmt: skip
    if claim.exact:
        verdict, evidence, n = certificate(claim, runs.summary)
        sub = seed_units.select(runs.summary, claim.where, claim.id)
        acc = measures.metric_values(sub, claim.metric, judge.cfg)
        row.update(verdict=verdict, estimate=float(np.mean(acc)), n=int(sub["seed"].nunique()), p_value=np.nan,
                   p_holm=np.nan, family="", evidence=evidence, rule=EXACT_TEXT,
                   detail=f"{n} runs ({seed_units.where_text(claim.where)})")  # fmt: skip
        seeds = sorted(sub["seed"].unique(), key=str)
    else:
        verdict = decided(r.p_sup, r.p_con, step, judge.alpha)
        row.update(verdict=verdict, **_evidence_columns(runs.name, claim, r, step, verdict, judge))
        seeds = list(r.seeds)
    row["robustness"] = robustness(claim, runs, judge, step, verdict, seeds) if row["n"] >= 2 else float("nan")
    if np.isfinite(row["robustness"]) and row["robustness"] < ROBUST:
        row["detail"] += f". Fragile: only {row['robustness']:.0%} of leave-one-seed-out evaluations give {verdict}"
    row["verdict_without_diverged"] = ""
    if measures.is_diverged(runs.summary).any():
        try:
            row["verdict_without_diverged"] = verdict_alone(claim, runs.without_diverged(), judge, step)[0]
        except ValueError as e:
            row["verdict_without_diverged"] = f"INCONCLUSIVE ({e})"
    return row


EXACT_TEXT = "exact by construction, checked on every run: each run's twin certificate (no twin pair predicted differently)"


def test_name(claim: Claim, sequential_rule: bool) -> str:
    """The test a claim's seeds are put to, in words."""
    share = f"share > {claim.share:g}"
    if claim.estimand == "mean":
        return "mean over seeds, betting e-process (anytime-valid), p = 1 / largest capital"
    if sequential_rule:
        return f"{share}, betting e-process on the seeds' outcomes (anytime-valid), p = 1 / largest capital"
    ties = any(part.condition.ties for part in claim.parts)
    return f"{share}, exact binomial test over seeds" + (" (the sign test)" if ties else "")


def _evidence_columns(study: str, claim: Claim, r: Result, step: HolmStep, verdict: str, judge: Judge) -> dict:
    """A non-exact claim's row but its verdict: the deciding cell's evidence, the p-values, the
    rule in words, every cell in the detail."""
    alpha = judge.alpha
    ev, cell = r.evidence[r.deciding], r.cells[r.deciding][0]
    p = min(r.p_sup, r.p_con)
    towards = direction(r.p_sup, r.p_con) or "neither verdict (equal p-values)"
    evidence = (f"{cell.label}: {'; '.join(e.words for e in ev)}; {test_name(claim, r.sequential)}: p = {p:.3g} for "
                f"{towards}, Holm over the {step.size} claim(s) of its family ({judge.family_name(study)}): "
                f"{step.adjusted:.3g} vs alpha {alpha:g}")  # fmt: skip
    if r.n < 2:
        evidence = f"{r.n} seed(s): no verdict from fewer than 2 seeds. " + evidence
    if verdict == "INCONCLUSIVE":
        evidence += _what_would_decide(claim, r, step, alpha)
    lo, hi = np.nan, np.nan
    if claim.estimand == "mean" and claim.sequential and cell.n:
        cs_lo, cs_hi = sequential.confidence_sequence(cell.lo[cell.known()], bounds(claim, claim.parts[0]), 1 - judge.confidence)
        lo, hi = float(cs_lo[-1]), float(cs_hi[-1])
    share_lo, share_hi = _share_ci(ev[0].met, ev[0].n, judge.confidence)
    others = " | ".join(f"{parts[0].label}: " + "; ".join(e.words for e in evs) for parts, evs in zip(r.cells, r.evidence))
    cells = "every cell must pass" if claim.cells == "every" else "on the mean over cells within each seed"
    return dict(estimate=ev[0].mean, ci_lo=lo, ci_hi=hi, share=ev[0].met / ev[0].n if ev[0].n else np.nan,
                share_lo=share_lo, share_hi=share_hi, n=r.n, p_value=p, p_holm=step.adjusted,
                family=judge.family_name(study), evidence=evidence,
                rule=(f"{claim.rule()}; {test_name(claim, r.sequential)}; {cells}; decisive when the p survives Holm "
                      f"over its family at alpha {alpha:g}"),
                detail=f"{r.desc}. {others}")  # fmt: skip


def _what_would_decide(claim: Claim, r: Result, step: HolmStep, alpha: float) -> str:
    """An undecided claim's row, in words: how many further seeds per cell would decide it."""
    need = seeds_to_decide(claim, r, step, alpha)
    if not need:
        return ""
    said = {v: (f"at least {k} more seed(s)" if k else f"more than {SEEDS_TO_DECIDE_LIMIT} more seeds") for v, k in need.items()}
    text = (f". To decide it: {said['SUPPORTED']} per cell, every one meeting the claim, for SUPPORTED; "
            f"{said['CONTRADICTED']} per cell, none meeting it, for CONTRADICTED")  # fmt: skip
    if step.floor > alpha:
        text += " (once the claims before it in Holm's order are decided)"
    return text


def evaluate_claims(claims, summary: pd.DataFrame, init_grads: pd.DataFrame | None, factors,
                    stats: dict | None = None) -> pd.DataFrame:  # fmt: skip
    """The claims of one study (mappings as a config gives them, or built claims) as a family of
    their own (``evaluate_family``); CLAIM_COLUMNS.

    Raises ValueError naming the claim for a malformed claim, a ``where`` naming a column not in
    the results or selecting no runs, or a level selecting no runs.
    """
    built = check_claims(list(claims), list(factors), list(summary.columns))
    out = evaluate_family([StudyRuns("", summary, tuple(factors), init_grads, claims=tuple(built))], stats)
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
    plugins.load(spec.get("plugins", []))  # a plugin's claim kinds
    studies = []
    for name, summary, grads in zip(names, args.summaries, args.init_grads):
        own = spec["studies"][name]
        factors = own["factors"]
        table = analyze.read_table(summary, factors)
        claims = check_claims(own["claims"], factors, list(table.columns))
        design = own.get("adaptive")
        studies.append(StudyRuns(name, table, tuple(factors), analyze.read_table(grads, factors), design, tuple(claims)))
    table = evaluate_family(studies, spec["stats"])
    mine = table[table["study"] == args.study]
    io.write_dataframe(args.out, mine[CLAIM_COLUMNS])
    for row in mine.itertuples():
        print(f"claim {row.id}: {row.verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
