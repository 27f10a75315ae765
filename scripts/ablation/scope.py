"""Where a verdict holds: a claim judged in every universe of the settings its study holds fixed.

A claim with ``robust_over: {lr: [0.003, 0.01]}`` (one or two run settings, the study's own value among
each one's levels) is judged in every universe: every combination of the levels
(``kinds.Claim.universes``). The study's own universe is its own runs; every other universe trains
only the combinations the claim reads, at the same seeds (``design.scope_runs``), so a seed's outcomes
stay paired across universes. In each universe the claim is put to its own test
(``verdicts.claim_test``: the study's rule, the e-process in an adaptive study). The claim's row keeps
its verdict at the study's setting and gains a scope that describes that verdict:

- ROBUST: the verdict at the study's setting holds in every universe (SUPPORTED everywhere, or
  CONTRADICTED everywhere). An intersection-union test: p = the largest of the universes' p-values
  in the verdict's direction. It pays nothing for the number of universes and is valid whatever
  their dependence through shared seeds (each universe's test is valid on its own).
- LIMITED: the opposite verdict in some universe; the row names where the claim holds and where it
  fails. One hypothesis per other universe ("the opposite verdict there").
- UNSETTLED: otherwise; the row names what is open and why (every seed tied, no further seeds could
  decide it within max_seeds, or how many would).

One multiplicity procedure judges a family's claims and their scopes together (``family_steps``):
the graphical procedure of Bretz et al. (2009) over every claim and every scoped claim's scope, its
family-wise error rate at most alpha over both. Each claim starts with an equal share of alpha; a
scope starts with none and inherits its claim's whole share once the claim's verdict is reached (a
scope describes a verdict, so it is tested only after it: a gate); a rejected claim or scope passes
its share on to the other claims, so no alpha is spent twice and none is lost. Without scopes the
graph is Holm's step-down. Like a verdict, a scope is a directional decision on one hypothesis:
ROBUST on the intersection-union p, LIMITED on the universes' p-values toward the opposite verdict
at Holm over the universes besides the study's own, the smaller of the two at the scope's step; as
with SUPPORTED and CONTRADICTED, each direction's error is at most alpha.

Each universe's verdict, its p-values, seeds, share and leave-one-seed-out robustness are the rows
of the study's scope table (``tables/scope.csv``, "Where it holds"); its seeds' values are
``tables/scope_seeds.csv``, which the scope figure draws.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from . import seed_units, significance, verdicts
from .config import format_value, same_value
from .kinds import Claim
from .seed_units import StudyRuns
from .verdicts import HolmStep, Judge, Result

SCOPE_COLUMNS = ["id", "universe", "own", "verdict", "p_sup", "p_con", "p_holm", "n", "share", "robustness", "evidence",
                 "why"]  # fmt: skip
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
        # the universe's settings, and the study's own value of every other setting a scope of the
        # study varies: another claim's universes (lr x epochs beside lr alone) share the scope's runs
        wanted = {name: _own_value(runs.summary, name) for name in _varied(runs)
                  if name in scope.summary and name in runs.summary} | universe  # fmt: skip
        mask = np.ones(len(scope.summary), dtype=bool)
        for name, value in wanted.items():
            column = scope.summary[name] if name in scope.summary else pd.Series([None] * len(scope.summary))
            mask &= np.array([same_value(_typed(v), value) for v in column], dtype=bool)
        summary = scope.summary[mask].reset_index(drop=True)
        if not len(summary):
            seed_units.fail(claim.id, f"robust_over: no runs of universe {universe_text(universe)} in the scope's summary")
        out.append((universe, False, replace(scope, summary=summary, design=runs.design, claims=runs.claims)))
    return out


def _varied(runs: StudyRuns) -> set[str]:
    """The settings some claim of the study holds at other values in its universes."""
    return {name for claim in runs.claims for name in claim.robust_over}


def _own_value(summary: pd.DataFrame, name: str):
    """The study's own value of a setting it holds fixed (its runs' one value)."""
    return _typed(summary[name].iloc[0]) if name in summary and len(summary) else None


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


@dataclass(frozen=True)
class ScopeTest:
    """What the family's procedure reads of one scoped claim: the direction of its verdict at the
    study's setting (None while its p-values point nowhere) and each universe's p-values."""

    direction: str | None
    p_sup: tuple
    p_con: tuple
    own: tuple

    def _toward(self, verdict: str | None) -> list[float]:
        if verdict is None:
            return [1.0] * len(self.own)
        return list(self.p_sup if verdict == "SUPPORTED" else self.p_con)

    @property
    def p_robust(self) -> float:
        """ROBUST's intersection-union p: the largest p toward the claim's verdict over the universes."""
        return max(self._toward(self.direction))

    @property
    def p_fails(self) -> list[float]:
        """LIMITED's p per universe but the study's own: the opposite verdict's p there, Holm-adjusted
        over those universes."""
        opposite = {"SUPPORTED": "CONTRADICTED", "CONTRADICTED": "SUPPORTED"}.get(self.direction)
        raw = [p for p, own in zip(self._toward(opposite), self.own) if not own]
        return [float(p) for p in significance.holm(raw)]

    @property
    def p(self) -> float:
        """The scope's p: the smaller of ROBUST's and LIMITED's (the smallest universe's)."""
        return min(self.p_robust, *self.p_fails)


def family_steps(claim_p: list[float], scoped: dict[int, ScopeTest]) -> tuple[list[HolmStep], dict[int, HolmStep]]:
    """One procedure for a family: each claim's step (p = the smaller of its two p-values) and, per
    scoped claim (index into ``claim_p``), its scope's step. Without scopes this is Holm's step-down
    over the claims."""
    if not scoped:  # the graph is Holm's: statsmodels' adjusted p-values, to the last bit
        return verdicts.holm_steps(claim_p), {}
    m = len(claim_p)
    order = sorted(scoped)
    p = list(claim_p) + [scoped[i].p for i in order]
    weights = np.zeros(len(p))
    weights[:m] = 1.0 / m
    g = np.zeros((len(p), len(p)))
    for i in range(m):
        others = [j for j in range(m) if j != i]
        if i in scoped:
            g[i, m + order.index(i)] = 1.0  # the scope inherits its claim's share: a gate
        elif others:
            g[i, others] = 1.0 / len(others)
    for k, i in enumerate(order):
        others = [j for j in range(m) if j != i]
        if others:
            g[m + k, others] = 1.0 / len(others)
    steps = verdicts.graph_steps(p, weights, g, m)
    return steps[:m], {i: steps[m + k] for k, i in enumerate(order)}


@dataclass
class Scope:
    """A claim's verdict in each of its universes, and what they say together."""

    label: str
    verdict: str  # the claim's verdict at the study's setting
    universes: list  # dict per universe
    own: list  # bool per universe
    results: list  # verdicts.Result per universe
    verdicts: list  # str per universe: the verdict the family's procedure reaches there
    steps: list  # HolmStep per universe: the claim's own at the study's setting, the scope's elsewhere
    scope_step: HolmStep
    runs: list  # StudyRuns per universe
    test: ScopeTest

    @property
    def p_robust(self) -> float:
        """The intersection-union p of ROBUST: the largest p toward the verdict over the universes."""
        return self.test.p_robust

    @property
    def p(self) -> float:
        """The scope's adjusted p in the family's procedure."""
        return self.scope_step.adjusted

    def detail(self, claim: Claim, judge: Judge) -> str:
        """The scope in words: where the claim holds and fails, and for UNSETTLED what is open and why."""
        if self.verdict == "INCONCLUSIVE":
            k = self.own.index(True)
            why = verdicts.open_reason(claim, self.runs[k], self.results[k], judge, self.steps[k])
            return (f"the verdict at the study's setting ({universe_text(self.universes[k])}) is open ({why}), so no "
                    "universe is judged against it")  # fmt: skip
        said = {"SUPPORTED": "holds", "CONTRADICTED": "fails"}
        groups = {}
        for universe, v in zip(self.universes, self.verdicts):
            groups.setdefault(v, []).append(universe)
        order = [self.verdict] + [v for v in said if v != self.verdict]
        parts = [f"{said[v]} at {universe_words(groups[v])}" for v in order if v in groups]
        if self.label == "ROBUST":
            return (f"{self.verdict} in every universe ({'; '.join(parts)}): intersection-union p = {self.p_robust:.3g}, "
                    f"adjusted {self.p:.3g} vs alpha {judge.alpha:g} in the family's procedure")  # fmt: skip
        toward = self.test._toward(self.verdict)
        open_ = sorted((k for k, v in enumerate(self.verdicts) if v == "INCONCLUSIVE"), key=lambda k: -toward[k])
        name = "p_sup" if self.verdict == "SUPPORTED" else "p_con"
        if open_:
            parts.append("not yet at " + ", ".join(f"{universe_text(self.universes[k])} ({name} {toward[k]:.3g})" for k in open_))
            w = open_[0]
            parts.append(f"weakest {universe_text(self.universes[w])}: "
                         f"{verdicts.open_reason(claim, self.runs[w], self.results[w], judge, HolmStep())}")  # fmt: skip
        if self.label == "LIMITED":
            return "; ".join(parts) + (f" (Holm over the {len(self.test.p_fails)} other universe(s), adjusted p "
                                       f"{self.p:.3g} vs alpha {judge.alpha:g} in the family's procedure)")  # fmt: skip
        return "; ".join(parts) + (f"; ROBUST needs every universe's {name} at the scope's step (intersection-union "
                                   f"p = {self.p_robust:.3g}, adjusted {self.p:.3g} vs alpha {judge.alpha:g})")  # fmt: skip


def test_universes(claim: Claim, runs: StudyRuns, judge: Judge) -> list[tuple[dict, bool, StudyRuns, Result]]:
    """(universe, is the study's own, its runs, the claim's test there) for every universe of the claim;
    ``runs.scope``: the study's scope runs."""
    return [(u, own, r, verdicts.claim_test(claim, r, judge)) for u, own, r in universe_runs(claim, runs, runs.scope)]


def scope_test(tested: list) -> ScopeTest:
    """The family procedure's view of a claim's tested universes (``test_universes``)."""
    results = [result for *_, result in tested]
    own = next(result for _, is_own, _, result in tested if is_own)
    return ScopeTest(verdicts.direction(own.p_sup, own.p_con), tuple(r.p_sup for r in results),
                     tuple(r.p_con for r in results), tuple(is_own for _, is_own, *_ in tested))  # fmt: skip


def judge_scope(tested: list, judge: Judge, claim_step: HolmStep, scope_step: HolmStep) -> Scope:
    """The scope the claim's tests in its universes give, at the steps the family's procedure gave the
    claim (``claim_step``) and its scope (``scope_step``): ROBUST or LIMITED, whichever p is smaller,
    when it is decided at the scope's step, else UNSETTLED."""
    test = scope_test(tested)
    own_result = tested[test.own.index(True)][3]
    verdict = verdicts.decided(own_result.p_sup, own_result.p_con, claim_step, judge.alpha)
    rejected = lambda p: max(scope_step.floor, scope_step.factor * p) <= judge.alpha  # noqa: E731
    fails = test.p_fails
    robust = verdict != "INCONCLUSIVE" and test.p_robust < min(fails) and rejected(test.p_robust)
    limited = verdict != "INCONCLUSIVE" and min(fails) < test.p_robust and rejected(min(fails))
    opposite = {"SUPPORTED": "CONTRADICTED", "CONTRADICTED": "SUPPORTED"}.get(verdict)
    each, steps, others = [], [], iter(fails)
    for is_own in test.own:
        if is_own:
            each.append(verdict)
            steps.append(claim_step)
            continue
        p = next(others)
        steps.append(replace(scope_step, adjusted=max(scope_step.floor, min(1.0, scope_step.factor * (test.p_robust if robust else p)))))
        each.append(verdict if robust else opposite if limited and rejected(p) else "INCONCLUSIVE")
    label = "ROBUST" if robust else "LIMITED" if limited else "UNSETTLED"
    return Scope(label, verdict, [u for u, *_ in tested], list(test.own), [r for *_, r in tested], each, steps,
                 scope_step, [r for _, _, r, _ in tested], test)  # fmt: skip


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
            "why": verdicts.open_reason(claim, runs, result, judge, HolmStep()) if verdict == "INCONCLUSIVE" else "",
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
