"""The claims table: every claim of a config, its verdict at its step of Holm over its family, in words.

A study's claims live in the config (``studies.<name>.claims``); each is one of the registered claim
kinds (``ablation.kinds``: at_value, at_least, equivalent, not_worse, better, grad_trend, and any a
plugin registers), built once into a frozen ``kinds.Claim``. Each claim is tested once
(``ablation.verdicts``: select -> seed units -> test); here the tests of one family (``stats.family``:
each study, the default, or the whole config) go through Holm's step-down together, each verdict is
decided at its step, and each row says in words what the seeds show, the test, its p-values, the
rule, the leave-one-seed-out robustness and, where runs diverged, the verdict without them.

An ``exact`` claim (at_value 0.5 on a model that cannot see order) is not estimated: every run's
twin certificate (identical predictions for each test sequence and its A/B-swapped twin) is checked,
SUPPORTED when every run holds it, CONTRADICTED when one breaks it (naming the run); it has no
p-value and belongs to no family.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats

from . import analyze, io, measures, plugins, scope, seed_units, sequential
from .config import check_claims
from .kinds import Claim
from .outputs import ROBUST
from .seed_units import StudyRuns
from .verdicts import (
    SEEDS_TO_DECIDE_LIMIT, HolmStep, Judge, Result, bounds, certificate, claim_test, decided, direction, futility,
    looks_of, robustness, seeds_to_decide, test_words, verdict_alone,
)  # fmt: skip

CLAIM_COLUMNS = [
    "id", "statement", "source", "kind", "cells", "estimand", "verdict", "estimate", "ci_lo", "ci_hi", "share",
    "share_lo", "share_hi", "n", "p_value", "p_holm", "family", "robustness", "verdict_without_diverged",
    "evidence", "rule", "detail", "sentence", "scope", "scope_p", "scope_detail",
    "registered", "changed_after_runs", "verdict_registered",
]  # fmt: skip


def _share_ci(k: int, n: int, confidence: float) -> tuple[float, float]:
    """The exact interval of the share of seeds meeting the claim: scipy's own, which rounds its
    upper end otherwise than ``intervals.clopper_pearson_ci`` (a last bit in some rows)."""
    if n == 0:
        return np.nan, np.nan
    ci = scipy_stats.binomtest(k, n).proportion_ci(confidence, method="exact")
    return float(ci.low), float(ci.high)


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
    return evaluate_all(studies, stats)[0]


def evaluate_all(studies: list[StudyRuns], stats: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The claims table (``evaluate_family``), the scope table (a row per universe of each claim with
    ``robust_over``: ``scope.SCOPE_COLUMNS``, with the study first) and its seeds' values
    (``scope.SEED_COLUMNS``). A family's claims and their scopes' hypotheses are judged by one
    procedure (``scope.family_steps``: Holm's step-down when no claim has a scope)."""
    judge = Judge.of(stats)
    judged = [Judged(runs, c, None if c.exact else claim_test(c, runs, judge)) for runs in studies for c in runs.claims]
    families: dict[str, list[int]] = {}
    for i, j in enumerate(judged):
        if not j.claim.exact:
            families.setdefault("config" if judge.cfg.get("family") == "config" else j.runs.name, []).append(i)
    steps, scopes = {}, {}
    for members in families.values():
        raw = [min(judged[i].result.p_sup, judged[i].result.p_con) for i in members]
        tested = {k: scope.test_universes(judged[i].claim, judged[i].runs, judge) for k, i in enumerate(members)
                  if judged[i].claim.robust_over}  # fmt: skip
        claim_steps, scope_steps = scope.family_steps(raw, {k: scope.scope_test(t) for k, t in tested.items()})
        for i, step in zip(members, claim_steps):
            steps[i] = step
        for k, t in tested.items():
            scopes[members[k]] = scope.judge_scope(t, judge, claim_steps[k], scope_steps[k])
    rows, scope_rows, seed_rows = [], [], []
    for i, j in enumerate(judged):
        rows.append(_row(j, steps.get(i, HolmStep()), judge) | _scope_columns(j.claim, scopes.get(i), judge))
        if i in scopes:
            universe_rows, universe_seeds = scope.table_rows(j.claim, scopes[i], judge)
            scope_rows += [{"study": j.runs.name} | r for r in universe_rows]
            seed_rows += [{"study": j.runs.name} | r for r in universe_seeds]
    return (pd.DataFrame(rows, columns=["study"] + CLAIM_COLUMNS),
            pd.DataFrame(scope_rows, columns=["study"] + scope.SCOPE_COLUMNS),
            pd.DataFrame(seed_rows, columns=["study"] + scope.SEED_COLUMNS))  # fmt: skip


def _scope_columns(claim: Claim, s: "scope.Scope | None", judge: Judge) -> dict:
    if s is None:
        return {"scope": "", "scope_p": np.nan, "scope_detail": ""}
    return {"scope": s.label, "scope_p": s.p, "scope_detail": s.detail(claim, judge)}


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
                   detail=f"{n} runs ({seed_units.where_text(claim.where)})",
                   sentence=f"{evidence.split(': ', 1)[0]}; {verdict}, exact (checked on every run).")  # fmt: skip
        seeds = sorted(sub["seed"].unique(), key=str)
    else:
        verdict = decided(r.p_sup, r.p_con, step, judge.alpha)
        row.update(verdict=verdict, **_evidence_columns(runs, claim, r, step, verdict, judge))
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


def test_name(claim: Claim, sequential_rule: bool, design: dict | None = None) -> str:
    """The test a claim's seeds are put to, in words (``design``: an adaptive study's, whose looks
    the mean's t-test pays Bonferroni over)."""
    return test_words(claim, sequential_rule, looks_of(design, []) if sequential_rule else None)


def procedure_words(step: HolmStep) -> str:
    """The family's multiplicity procedure in words."""
    if step.scoped:
        return (f"one step-down over the {step.size} claim(s) of its family and their scopes' {step.scoped} "
                "hypotheses (graphical procedure)")  # fmt: skip
    return f"Holm over the {step.size} claim(s) of its family"


def _evidence_columns(runs: StudyRuns, claim: Claim, r: Result, step: HolmStep, verdict: str, judge: Judge) -> dict:
    """A non-exact claim's row but its verdict: the deciding cell's evidence, the p-values, the
    rule in words, every cell in the detail."""
    alpha = judge.alpha
    ev, cell = r.evidence[r.deciding], r.cells[r.deciding][0]
    p = min(r.p_sup, r.p_con)
    towards = direction(r.p_sup, r.p_con) or "neither verdict (equal p-values)"
    tests = "; ".join(dict.fromkeys(e.test for e in ev))  # the deciding cell's test (the t-test: its check)
    evidence = (f"{cell.label}: {'; '.join(e.words for e in ev)}; {tests}: p = {p:.3g} for "
                f"{towards}, {procedure_words(step)} ({judge.family_name(runs.name)}): {step.adjusted:.3g} vs alpha "
                f"{alpha:g}")  # fmt: skip
    if r.n < 2:
        evidence = f"{r.n} seed(s): no verdict from fewer than 2 seeds. " + evidence
    if verdict == "INCONCLUSIVE":
        stopped, stop = futility(claim, runs, r, judge, step)
        evidence += f". No more seeds: {stop}" if stopped else _what_would_decide(claim, r, step, alpha)
        evidence += f" ({stop})" if stop and not stopped else ""
    lo, hi = mean_interval(claim, r, ev[0], cell, judge.confidence)
    share_lo, share_hi = _share_ci(ev[0].met, ev[0].n, judge.confidence)
    others = " | ".join(f"{parts[0].label}: " + "; ".join(e.words for e in evs) for parts, evs in zip(r.cells, r.evidence))
    cells = "every cell must pass" if claim.cells == "every" else "on the mean over cells within each seed"
    where = f" ({cell.label})" if len(r.cells) > 1 else ""
    # the report's first screen: what the seeds show and the verdict; its p and Holm step are one click away
    sentence = f"{'; '.join(e.words for e in ev)}{where}; {verdict}."
    return dict(estimate=ev[0].mean, ci_lo=lo, ci_hi=hi, share=ev[0].met / ev[0].n if ev[0].n else np.nan, sentence=sentence,
                share_lo=share_lo, share_hi=share_hi, n=r.n, p_value=p, p_holm=step.adjusted,
                family=judge.family_name(runs.name), evidence=evidence,
                rule=(f"{claim.rule()}; {test_name(claim, r.sequential, r.design)}; {cells}; decisive when the p survives Holm "
                      f"over its family at alpha {alpha:g}"),
                detail=f"{r.desc}. {others}")  # fmt: skip


def mean_interval(claim: Claim, r: Result, ev, cell, confidence: float) -> tuple[float, float]:
    """The deciding cell's interval for the mean (estimand mean): the t-interval where its t-test was
    used (an adaptive study: at 1 - (1 - confidence) / K, Bonferroni over its K looks), the betting
    confidence sequence for ``test: betting``; NaN otherwise (the share columns carry the share)."""
    if claim.estimand != "mean" or not cell.n:
        return np.nan, np.nan
    x = cell.lo[cell.known()]
    if claim.test == "betting" and claim.sequential and len(x):
        cs_lo, cs_hi = sequential.confidence_sequence(x, bounds(claim, claim.parts[0]), 1 - confidence)
        return float(cs_lo[-1]), float(cs_hi[-1])
    if not ev.t_held:
        return np.nan, np.nan
    looks = looks_of(r.design, []) if r.sequential else None
    level = 1 - (1 - confidence) / (looks.count if looks is not None else 1)
    lo, hi = scipy_stats.t.interval(level, len(x) - 1, loc=float(np.mean(x)), scale=float(scipy_stats.sem(x)))
    return float(lo), float(hi)


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
    ap.add_argument("--evaluations", nargs="*", type=Path, default=[], help="evaluations.csv of each study (or none)")
    ap.add_argument("--scope", action="append", default=[], metavar="STUDY=DIR",
                    help="a study's scope runs: DIR holds their summary.csv, init_grads.csv and evaluations.csv")
    ap.add_argument("--registration", action="append", default=[], metavar="STUDY=FILE",
                    help="a study's registration: its claims as they were before its runs (ablation.registration)")
    ap.add_argument("--study", required=True, help="the study whose rows to write")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--scope-out", type=Path, help="the study's scope table (scope.SCOPE_COLUMNS)")
    ap.add_argument("--scope-seeds-out", type=Path, help="its seeds' values in each universe (scope.SEED_COLUMNS)")
    args = ap.parse_args(argv)
    spec = json.loads(args.family_json)
    names = list(spec["studies"])
    if not len(names) == len(args.summaries) == len(args.init_grads) or len(args.evaluations) not in (0, len(names)):
        ap.error(f"{len(names)} studies but {len(args.summaries)} summaries, {len(args.init_grads)} gradient tables and "
                 f"{len(args.evaluations)} evaluation tables")  # fmt: skip
    plugins.load(spec.get("plugins", []))  # a plugin's claim kinds
    scope_dirs = dict(item.split("=", 1) for item in args.scope)
    studies = []
    for i, (name, summary, grads) in enumerate(zip(names, args.summaries, args.init_grads)):
        own = spec["studies"][name]
        factors = own["factors"]
        table = analyze.read_table(summary, factors)
        claims = check_claims(own["claims"], factors, list(table.columns))
        evaluations = analyze.read_table(args.evaluations[i], factors) if args.evaluations else None
        scope_runs = None
        if name in scope_dirs:
            folder = Path(scope_dirs[name])
            scope_runs = StudyRuns(name, analyze.read_table(folder / "summary.csv", factors), tuple(factors),
                                   analyze.read_table(folder / "init_grads.csv", factors), own.get("adaptive"),
                                   tuple(claims), analyze.read_table(folder / "evaluations.csv", factors))  # fmt: skip
        studies.append(StudyRuns(name, table, tuple(factors), analyze.read_table(grads, factors), own.get("adaptive"),
                                 tuple(claims), evaluations, scope_runs))  # fmt: skip
    table, scope_table, seeds_table = evaluate_all(studies, spec["stats"])
    from . import registration  # noqa: PLC0415 (the registered claims are judged by evaluate_all too)

    table = registration.annotate(table, studies, spec, dict(i.split("=", 1) for i in args.registration), evaluate_all)
    mine = table[table["study"] == args.study]
    io.write_dataframe(args.out, mine[CLAIM_COLUMNS])
    if args.scope_out is not None:
        io.write_dataframe(args.scope_out, scope_table[scope_table["study"] == args.study][scope.SCOPE_COLUMNS])
    if args.scope_seeds_out is not None:
        io.write_dataframe(args.scope_seeds_out, seeds_table[seeds_table["study"] == args.study][scope.SEED_COLUMNS])
    for row in mine.itertuples():
        print(f"claim {row.id}: {row.verdict}" + (f", scope {row.scope}" if row.scope else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
