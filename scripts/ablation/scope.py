"""Where a verdict holds: a claim judged in every universe of the settings its study holds fixed.

A claim with ``robust_over: {lr: [0.003, 0.01]}`` (one or two run settings, the study's own value among
each one's levels) is judged in every universe: every combination of the levels
(``kinds.Claim.universes``). The study's own universe is its own runs; every other universe trains
only the combinations the claim reads, at the same seeds (``design.scope_runs``), so a seed's outcomes
stay paired across universes. In each universe the claim is put to its own test
(``verdicts.claim_test``: the study's rule, the e-process in an adaptive study). The claim's row keeps
its verdict at the study's setting and gains a scope:

- ROBUST: SUPPORTED in every universe. An intersection-union test: p = the largest of the universes'
  p_sup. It pays no multiplicity for the number of universes and is valid whatever their dependence
  through shared seeds (each universe's test is valid on its own). Holm over the claim's family
  applies to it as to any claim: the family's Holm step-down is run again with each scoped claim's
  p replaced by this one (``robust_steps``), and ROBUST needs it at alpha there.
- LIMITED: CONTRADICTED in at least one universe, each universe decided at Holm over the
  universes (``decide``): the row names where the claim fails and where it holds.
- UNSETTLED: otherwise. The row names the weakest universe (the largest p_sup) and how many further
  seeds, every one meeting the claim, would settle it there.

Each universe's verdict, its p-values, seeds, share and leave-one-seed-out robustness are the rows
of the study's scope table (``tables/scope.csv``, "Where it holds"); its seeds' values are
``tables/scope_seeds.csv``, which the scope figure draws.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from . import seed_units, verdicts
from .config import format_value, same_value
from .kinds import Claim
from .seed_units import StudyRuns
from .verdicts import HolmStep, Judge, Result

SCOPE_COLUMNS = ["id", "universe", "own", "verdict", "p_sup", "p_con", "p_holm", "n", "share", "robustness", "evidence"]
SEED_COLUMNS = ["id", "universe", "own", "cell", "seed", "lo", "hi", "met", "band_lo", "band_hi"]


def universe_text(universe: dict) -> str:
    """'lr=0.003' (or 'lr=0.003, epochs=600'): a universe in a table's cell."""
    return ", ".join(f"{k}={format_value(v)}" for k, v in universe.items())


def universe_words(universes: list[dict]) -> str:
    """'lr 0.003 and 0.01' for one setting; 'lr=0.003, epochs=600 and lr=0.01, epochs=600' for two."""
    if not universes:
        return ""
    if len(universes[0]) == 1:
        name = next(iter(universes[0]))
        values = [format_value(u[name]) for u in universes]
        said = values[0] if len(values) == 1 else f"{', '.join(values[:-1])} and {values[-1]}"
        return f"{name} {said}"
    texts = [universe_text(u) for u in universes]
    return texts[0] if len(texts) == 1 else f"{'; '.join(texts[:-1])} and {texts[-1]}"


def universe_runs(claim: Claim, runs: StudyRuns, scope: StudyRuns | None) -> list[tuple[dict, bool, StudyRuns]]:
    """(universe, is the study's own, its runs) for every universe of the claim: the study's own runs
    where the study's summary holds the universe's values, else the scope's runs at them."""
    out = []
    for universe in claim.universes():
        own = all(_holds(runs.summary, name, value) for name, value in universe.items())
        if own:
            out.append((universe, True, runs))
            continue
        if scope is None or not len(scope.summary):
            seed_units.fail(claim.id, f"robust_over: no runs of universe {universe_text(universe)} (the scope's summary is empty)")
        mask = np.ones(len(scope.summary), dtype=bool)
        for name, value in universe.items():
            column = scope.summary[name] if name in scope.summary else pd.Series([None] * len(scope.summary))
            mask &= np.array([same_value(_typed(v), value) for v in column], dtype=bool)
        summary = scope.summary[mask].reset_index(drop=True)
        if not len(summary):
            seed_units.fail(claim.id, f"robust_over: no runs of universe {universe_text(universe)} in the scope's summary")
        out.append((universe, False, replace(scope, summary=summary, design=runs.design, claims=runs.claims)))
    return out


def _holds(summary: pd.DataFrame, name: str, value) -> bool:
    """Whether every run of ``summary`` has ``name`` at ``value`` (a setting's column of summary.csv)."""
    return name in summary and len(summary) > 0 and all(same_value(_typed(v), value) for v in summary[name])


def _typed(v):
    """A summary cell as the config would write it: numbers as numbers (a CSV reads 0.01 as 0.01)."""
    if isinstance(v, str):
        try:
            return int(v) if v.strip().lstrip("-").isdigit() else float(v)
        except ValueError:
            return v
    return v.item() if hasattr(v, "item") else v


def decide(p_sup, p_con, robust_step: HolmStep, alpha: float) -> tuple[str, list[str], list[HolmStep]]:
    """The scope from each universe's p-values: (ROBUST, LIMITED or UNSETTLED; each universe's verdict
    at Holm over the universes; their Holm steps). ROBUST needs every universe's p_sup below its p_con
    and the intersection-union p (the largest p_sup) at alpha at the claim's ``robust_step``."""
    p_sup, p_con = [float(p) for p in p_sup], [float(p) for p in p_con]
    steps = verdicts.holm_steps([min(s, c) for s, c in zip(p_sup, p_con)])
    each = [verdicts.decided(s, c, step, alpha) for s, c, step in zip(p_sup, p_con, steps)]
    robust = all(s < c for s, c in zip(p_sup, p_con)) and max(robust_step.floor, robust_step.factor * max(p_sup)) <= alpha
    if robust:
        return "ROBUST", each, steps
    return ("LIMITED" if "CONTRADICTED" in each else "UNSETTLED"), each, steps


@dataclass
class Scope:
    """A claim's verdict in each of its universes, and what they say together."""

    label: str
    universes: list  # dict per universe
    own: list  # bool per universe
    results: list  # verdicts.Result per universe
    verdicts: list  # str per universe, at Holm over the universes
    steps: list  # HolmStep per universe
    robust_step: HolmStep
    runs: list  # StudyRuns per universe

    @property
    def p_robust(self) -> float:
        """The intersection-union p of ROBUST: the largest p_sup over the universes."""
        return max(r.p_sup for r in self.results)

    @property
    def p(self) -> float:
        """The scope's p: ROBUST's Holm-adjusted intersection-union p, or for LIMITED the smallest Holm-
        adjusted p of a universe where the claim fails."""
        if self.label == "LIMITED":
            return min(s.adjusted for s, v in zip(self.steps, self.verdicts) if v == "CONTRADICTED")
        return self.robust_step.adjusted

    @property
    def weakest(self) -> int:
        """The universe whose p_sup is largest: the one that holds ROBUST back."""
        return int(np.argmax([r.p_sup for r in self.results]))

    def detail(self, claim: Claim, judge: Judge) -> str:
        """The scope in words: where the claim holds and fails, and for UNSETTLED what would settle it."""
        holds = [u for u, v in zip(self.universes, self.verdicts) if v == "SUPPORTED"]
        fails = [u for u, v in zip(self.universes, self.verdicts) if v == "CONTRADICTED"]
        open_ = [u for u, v in zip(self.universes, self.verdicts) if v == "INCONCLUSIVE"]
        parts = ([f"holds at {universe_words(holds)}"] if holds else []) + ([f"fails at {universe_words(fails)}"] if fails else [])
        parts += [f"undecided at {universe_words(open_)}"] if open_ else []
        text = "; ".join(parts)
        if self.label == "ROBUST":
            return (f"SUPPORTED in every universe ({text}): intersection-union p = {self.p_robust:.3g}, Holm-adjusted "
                    f"{self.robust_step.adjusted:.3g} vs alpha {judge.alpha:g}")  # fmt: skip
        if self.label == "LIMITED":
            return f"{text} (each universe at Holm over the {len(self.universes)} universes)"
        w = self.weakest
        need = verdicts.seeds_to_decide(claim, self.results[w], self.robust_step, judge.alpha).get("SUPPORTED")
        settle = (f"; at least {need} more seed(s) per cell there, every one meeting the claim, would make it ROBUST"
                  if need else "")  # fmt: skip
        return (f"{text}; weakest: {universe_text(self.universes[w])} (p_sup = {self.results[w].p_sup:.3g}){settle}")


def test_universes(claim: Claim, runs: StudyRuns, judge: Judge) -> list[tuple[dict, bool, StudyRuns, Result]]:
    """(universe, is the study's own, its runs, the claim's test there) for every universe of the claim;
    ``runs.scope``: the study's scope runs."""
    return [(u, own, r, verdicts.claim_test(claim, r, judge)) for u, own, r in universe_runs(claim, runs, runs.scope)]


def judge_scope(tested: list, judge: Judge, robust_step: HolmStep) -> Scope:
    """The scope the claim's tests in its universes (``test_universes``) give at ``robust_step``."""
    results = [result for *_, result in tested]
    label, each, steps = decide([r.p_sup for r in results], [r.p_con for r in results], robust_step, judge.alpha)
    return Scope(label, [u for u, *_ in tested], [own for _, own, *_ in tested], results, each, steps, robust_step,
                 [r for _, _, r, _ in tested])  # fmt: skip


def robust_steps(raw: list[float], robust: dict[int, float]) -> dict[int, HolmStep]:
    """Holm's steps of a family's scoped claims (index -> its ROBUST p in ``robust``), with every other
    claim at its own p (``raw``): the family's step-down with the scope's hypothesis in the claim's place."""
    steps = verdicts.holm_steps([robust.get(i, p) for i, p in enumerate(raw)])
    return {i: steps[i] for i in robust}


def table_rows(claim: Claim, s: Scope, judge: Judge) -> tuple[list[dict], list[dict]]:
    """The claim's rows of the scope table (one per universe) and of the scope seeds table."""
    rows, seeds = [], []
    for universe, own, result, verdict, step, runs in zip(s.universes, s.own, s.results, s.verdicts, s.steps, s.runs):
        ev = result.evidence[result.deciding][0] if result.evidence else None
        rows.append({
            "id": claim.id, "universe": universe_text(universe), "own": own, "verdict": verdict, "p_sup": result.p_sup,
            "p_con": result.p_con, "p_holm": step.adjusted, "n": result.n,
            "share": ev.met / ev.n if ev is not None and ev.n else np.nan,
            "robustness": verdicts.robustness(claim, runs, judge, step, verdict, result.seeds) if result.n >= 2 else np.nan,
            "evidence": "; ".join(e.words for e in result.evidence[result.deciding]) if result.evidence else "",
        })  # fmt: skip
        condition = claim.parts[0].condition
        for parts in result.cells:
            cell = parts[0]
            met = condition.sure(cell.lo, cell.hi)
            for seed, lo, hi, m in zip(cell.seeds, cell.lo, cell.hi, met):
                seeds.append({"id": claim.id, "universe": universe_text(universe), "own": own, "cell": cell.label,
                              "seed": seed, "lo": lo, "hi": hi, "met": bool(m), "band_lo": condition.low,
                              "band_hi": condition.high if np.isfinite(condition.high) else np.nan})  # fmt: skip
    return rows, seeds
