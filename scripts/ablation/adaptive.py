"""Adaptive studies: more seeds, round by round, only where a claim is still open.

A study with ``adaptive: {max_seeds, batch}`` first trains its ``seeds``. Each round then
evaluates its claims with a rule valid at every look the design can take (the betting e-processes of
``ablation.sequential`` read at the round ends, or the mean's t-test with Bonferroni over the looks:
``ablation.seedtests``; in the family's one procedure over its claims and scopes: ``evaluate``) and
gives every claim that is still INCONCLUSIVE, and can still resolve within ``max_seeds`` seeds, its next
``batch`` seeds, in exactly the cells it reads (its ``where`` and,
for a comparison, the two levels it compares). A claim stops when it resolves with a verdict that survives leaving out any one seed
(``resolved``; one that does not, ``fragile``, keeps getting seeds), when
it has ``max_seeds`` seeds (``max_seeds``), or when even the most favourable further seeds could
not decide it (``unreachable``). ``grad_trend`` claims have no bounded statistic and no rounds
(``fixed design``). Seeds continue the study's list: max(seeds) + 1, + 2, ... in order, so the
same results always give the same rounds.

``plan_round`` is the pure planner; ``python -m ablation.adaptive plan`` is what the workflow's
checkpoint (workflow/rules/adaptive.smk, one per study and round) runs, writing the round's JSON
(claims with their state, and the new runs) that the next round and the study's index read.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from . import aggregate, analyze, io, outputs, scope, seed_units, sequential, settings, verdicts
from .verdicts import HolmStep, Judge
from .config import Run, Study
from .design import claim_combinations, combo_key, index_row, make_run, other_universes, scope_runs, scope_settings
from .outputs import ROBUST
from .seed_units import StudyRuns
# the workflow and the plan read a study's design as ablation.adaptive's too
from .design import seed_sequence

STATES = ("resolved", "fragile", "max_seeds", "unreachable", "open", "fixed design", "exact")
ROUND_CLAIM_COLUMNS = [
    "round", "id", "kind", "inference", "n_seeds", "p_sup", "p_con", "p_family", "verdict", "state", "why", "next_seeds",
    "scope", "scope_next", "scope_why",
]  # fmt: skip


def check(study: Study, adaptive: dict) -> None:
    """A clear one-line error for an adaptive block the schema cannot judge alone."""
    if adaptive["max_seeds"] < len(study.seeds):
        raise ValueError(
            f"study {study.name!r}: adaptive.max_seeds ({adaptive['max_seeds']}) is below its {len(study.seeds)} seeds"
        )


def round_runs(study: Study, max_seeds: int) -> list[Run]:
    """The most the rounds can add: every cell a claim with rounds reads, in the study's own universe
    and in each other universe of its scope (which takes rounds of its own, ``plan_round``), at each
    seed after the study's own up to ``max_seeds`` (the worst case: every such claim and universe open
    to the last round). A run two claims share is listed once."""
    more = seed_sequence(study, max_seeds)[len(study.seeds):]
    runs: dict[str, Run] = {}
    for claim in study.claims:
        if claim.exact or not claim.sequential:
            continue
        for universe in [None, *other_universes(claim, study)]:
            for combo in claim_combinations(claim, study):
                for seed in more:
                    run = make_run(study, combo, seed, universe)
                    runs.setdefault(run.hash, run)
    return list(runs.values())


def evaluate(study: Study, summary: pd.DataFrame, stats_cfg: dict, adaptive: dict, family_size=None,
             scope_summary: pd.DataFrame | None = None) -> list[dict]:  # fmt: skip
    """Each claim's anytime-valid p-values, its verdict and its state (``STATES``).

    A round decides a claim as the claims rule does (``verdicts.decided``), at its step of the family's
    one procedure over its claims and their scopes (``scope.family_steps``, Holm's step-down without
    scopes) on the p-values the seeds give so far (``p_family``: the adjusted p). Every p only falls
    as seeds arrive (1 / the largest capital so far; the mean's t-test: K times the smallest p at a
    round end so far, while its assumption holds on the seeds -- where a later round breaks it, the
    cell falls back to the share test and its p may rise; a fixed-design grad_trend's p is that of the
    first round's seeds), and an adjusted p only falls when any p of its family does, so a claim the
    rounds stop as resolved keeps its verdict in the claims table, whatever later rounds add. A
    family wider than the study (``family_size`` above the study's non-exact claims: ``stats.family:
    config``) has p-values this round cannot see: they count as 1, which can only make this round's
    steps harder than the claims table's. Reachability asks for Holm's next step: alpha over the
    number of claims still undecided (over ``family_size`` in a wider family); a claim no further
    seeds could decide gets none (``unreachable``, its ``why`` in one sentence).
    Exact claims are checked on every run and need no rounds.

    A claim with ``robust_over`` is also judged in each of its universes (``scope_summary``: the
    scope's runs so far), each on its own e-process; while its scope is UNSETTLED and its verdict at
    the study's setting is reached, the undecided universe whose p is largest (the weakest) among
    those further seeds could still decide is its ``scope_target``, to get seeds."""
    judge = Judge.of(stats_cfg)
    design_ = {"seeds": list(study.seeds), **adaptive}
    scope_runs = None if scope_summary is None else StudyRuns(study.name, scope_summary, tuple(study.factor_names), None,
                                                              design_, tuple(study.claims))  # fmt: skip
    runs = StudyRuns(study.name, summary, tuple(study.factor_names), None, design_, tuple(study.claims), scope=scope_runs)
    rows, tested = [], {}
    for i, c in enumerate(runs.claims):
        row = {"id": c.id, "kind": c.kind.name, "claim": c, "n_seeds": len(study.seeds), "p_sup": np.nan,
               "p_con": np.nan, "p_family": np.nan, "verdict": "", "state": "fixed design",
               "inference": "fixed design (first round's seeds)", "why": ""}  # fmt: skip
        rows.append(row)
        if c.exact:
            row.update(state="exact", inference="exact (every run's twin certificate)")
            continue
        tested[i] = verdicts.claim_test(c, runs, judge) if c.sequential else None
    scoped = {i: scope.test_universes(runs.claims[i], runs, judge) for i, r in tested.items()
              if r is not None and runs.claims[i].robust_over and runs.scope is not None}  # fmt: skip
    holm, scope_steps = _family_positions(tested, scoped, family_size)
    for i, r in tested.items():
        if r is not None:  # no bounded statistic (grad_trend): no anytime-valid rule, no rounds
            rows[i].update(inference=inference(runs.claims[i], design_), n_seeds=r.n, p_sup=r.p_sup, p_con=r.p_con,
                           p_family=holm[i].adjusted, verdict=verdicts.decided(r.p_sup, r.p_con, holm[i], judge.alpha))  # fmt: skip
    # the claims still undecided share Holm's remaining steps: the next one is at alpha / their number
    # (Bonferroni over a family wider than the study: alpha / its size)
    undecided = sum(rows[i]["verdict"] in ("", "INCONCLUSIVE") for i in tested)
    if family_size and family_size > len(tested):
        undecided = family_size
    for i, r in tested.items():
        if r is None:
            continue
        claim, verdict = runs.claims[i], rows[i]["verdict"]
        rows[i]["state"] = round_state(
            verdict, r.n, adaptive["max_seeds"],
            robustness=lambda: verdicts.robustness(claim, runs, judge, holm[i], verdict, r.seeds),
            can_resolve=lambda: verdicts.reachable(claim, runs, judge, judge.alpha / undecided),
        )  # fmt: skip
        if rows[i]["state"] in ("unreachable", "max_seeds"):
            rows[i]["why"] = verdicts.futility(claim, runs, r, judge, HolmStep(undecided))[1]
        if i in scoped:  # no scope summary: its universes are not judged
            rows[i].update(_scope_round(claim, scoped[i], judge, holm[i], scope_steps[i]))
    return rows


def inference(claim, design_: dict) -> str:
    """How a round judges a claim with rounds, in words: valid at every look the design can take."""
    if claim.estimand == "mean" and claim.test == "t":
        k = verdicts.looks_of(design_, []).count
        return (f"t-test at the round ends, Bonferroni over the design's {k} looks (its assumption checked; where it "
                "fails, the share of seeds by the betting e-process)")  # fmt: skip
    return "anytime-valid (betting e-process, read at the round ends)"


def _scope_round(claim, tested: list, judge: Judge, step: HolmStep, scope_step: HolmStep) -> dict:
    """A scoped claim's scope after a round and, while it is UNSETTLED with its verdict at the study's
    setting reached (a scope describes that verdict: before it, no universe can settle), the weakest
    universe still undecided whose remaining seeds could still decide it (``scope_target``: its
    settings and whether it is the study's own). A universe no further seeds could decide within
    max_seeds (the futility rule) gets none; ``scope_why`` says so."""
    s = scope.judge_scope(tested, judge, step, scope_step)
    out = {"scope": s.label, "scope_target": None}
    if s.label != "UNSETTLED" or s.verdict == "INCONCLUSIVE":
        return out
    live, why = [], []
    for k, v in enumerate(s.verdicts):
        if v != "INCONCLUSIVE":
            continue
        stopped, stop = verdicts.futility(claim, s.runs[k], s.results[k], judge, HolmStep())
        if stopped:
            why.append(f"{scope.universe_text(s.universes[k])}: {stop}")
        else:
            live.append(k)
    if live:
        k = max(live, key=lambda j: min(s.results[j].p_sup, s.results[j].p_con))
        out["scope_target"] = (s.universes[k], s.own[k])
    out["scope_why"] = "; ".join(why)
    return out


def round_state(verdict: str, n: int, max_seeds: int, robustness, can_resolve) -> str:
    """Where a claim with rounds stands after one: ``resolved`` (a verdict that survives leaving
    out any one seed), ``fragile`` (a verdict one seed carries, with room for more seeds),
    ``max_seeds``, ``unreachable`` (even the most favourable further seeds could not decide it) or
    ``open``. ``robustness`` and ``can_resolve`` are called only where the state needs them."""
    if verdict != "INCONCLUSIVE":
        share = robustness() if n < max_seeds else 1.0
        return "fragile" if np.isfinite(share) and share < ROBUST else "resolved"
    if n >= max_seeds:
        return "max_seeds"
    return "open" if can_resolve() else "unreachable"


def _family_positions(tested: dict, scoped: dict, family_size) -> tuple[dict, dict]:
    """Claim index -> its step at this round, and scoped claim index -> its scope's step: the claims
    table's one procedure (``scope.family_steps``) on the
    p-values so far. A claim without rounds (grad_trend: its gradients are not read here) counts with
    p = 1, and so does each claim of a family wider than the study (``family_size``) that this round
    cannot see: an adjusted p never falls when another p rises, so their true p-values can only make
    these steps easier."""
    raw = {i: min(r.p_sup, r.p_con) if r is not None else 1.0 for i, r in tested.items()}
    order = list(raw)
    padded = list(raw.values()) + [1.0] * max(0, (family_size or 0) - len(raw))
    steps, scope_steps = scope.family_steps(padded, {order.index(i): scope.scope_test(t) for i, t in scoped.items()})
    return dict(zip(order, steps)), {i: scope_steps[order.index(i)] for i in scoped}


def plan_round(study: Study, summary: pd.DataFrame, trained: set, stats_cfg: dict, adaptive: dict, family_size=None,
               scope_summary: pd.DataFrame | None = None):  # fmt: skip
    """The next round: (claim rows with ``next_seeds``, new runs of the study, new runs of its scope).
    ``summary``: every trained run of the study (the pipeline's summary columns); ``scope_summary``:
    its scope's (``design.scope_runs``); ``trained``: the hashes of both. Every open claim gets the
    first ``batch`` seeds of ``seed_sequence`` that some cell it reads lacks (at most up to
    ``max_seeds``), in every cell it reads that lacks them; so does the weakest universe of an
    UNSETTLED scope, in its own cells. A pure function of its arguments."""
    rows = evaluate(study, summary, stats_cfg, adaptive, family_size, scope_summary)
    new: dict[str, Run] = {}
    new_scope: dict[str, Run] = {}
    for r in rows:
        r["next_seeds"], r["scope_next"] = [], ""
        if r["state"] in ("open", "fragile"):
            r["next_seeds"] = _next_seeds(study, r["claim"], None, trained, adaptive, new)
        target = r.pop("scope_target", None)
        if target is not None:
            universe, own = target
            seeds = _next_seeds(study, r["claim"], None if own else universe, trained, adaptive, new if own else new_scope)
            r["scope_next"] = f"{scope.universe_text(universe)}: seeds {' '.join(map(str, seeds))}" if seeds else ""
    order = {combo_key(c): i for i, c in enumerate(study.combinations())}
    key = lambda run: (run.run_id.count("/"), order[combo_key(run.factors)], run.settings.seed)  # noqa: E731
    return rows, sorted(new.values(), key=key), sorted(new_scope.values(), key=lambda run: (run.run_id, run.settings.seed))


def _next_seeds(study: Study, claim, universe: dict | None, trained: set, adaptive: dict, new: dict) -> list[int]:
    """The first ``batch`` seeds of the study's sequence that some cell the claim reads (in
    ``universe``: a scope's) lacks, up to ``max_seeds``; their runs go into ``new``."""
    sequence = seed_sequence(study, adaptive["max_seeds"])
    cells = claim_combinations(claim, study)
    complete = [s for s in sequence if all(make_run(study, combo, s, universe).hash in trained for combo in cells)]
    room = adaptive["max_seeds"] - len(complete)
    seeds = [s for s in sequence if s not in complete][: min(adaptive["batch"], room)]
    for combo in cells:
        for s in seeds:
            run = make_run(study, combo, s, universe)
            if run.hash not in trained:
                new.setdefault(run.hash, run)
    return seeds


def read_round_runs(paths, key: str = "new_runs") -> list[dict]:
    """The index rows of the runs that round files planned, in round order (``new_scope_runs``: of
    the study's scope)."""
    rows = []
    for path in paths:
        rows += json.loads(Path(path).read_text(encoding="utf-8")).get(key, [])
    return rows


def summary_of(study: Study, index: list[dict], store: Path) -> pd.DataFrame:
    """The study's summary table of the runs in ``index`` (as the summarize rule writes it, typed
    as the claims rule reads it)."""
    rows, header = aggregate.aggregate(study.name, study.factor_names, index, store)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "summary.csv"
        io.write_csv(path, rows, header)
        return analyze.read_table(path, study.factor_names)


def round_table(rows: list[dict], k: int) -> pd.DataFrame:
    out = pd.DataFrame([{key: r.get(key) for key in ROUND_CLAIM_COLUMNS if key != "round"} for r in rows])
    out.insert(0, "round", k)
    out["next_seeds"] = [" ".join(map(str, r["next_seeds"])) for r in rows]
    return out[ROUND_CLAIM_COLUMNS]


SEQUENCE_COLUMNS = ["id", "cell", "n_seeds", "mean", "cs_lo", "cs_hi", "bound_lo", "bound_hi"]
COST_COLUMNS = [
    "runs_trained", "runs_at_max_seeds", "train_seconds", "train_seconds_at_max_seeds", "train_seconds_saved",
]  # fmt: skip


def rounds_table(round_files) -> pd.DataFrame:
    """Every round's claim rows (``ROUND_CLAIM_COLUMNS``): seeds, p-values, verdict, state and the
    seeds it asked for; a claim's last row says why it stopped."""
    rows = [row for path in round_files for row in json.loads(Path(path).read_text(encoding="utf-8"))["claims"]]
    return pd.DataFrame(rows, columns=ROUND_CLAIM_COLUMNS)


def sequences_table(study: Study, summary: pd.DataFrame, stats_cfg: dict) -> pd.DataFrame:
    """The confidence sequence of every sequential claim's cells after each seed (``SEQUENCE_COLUMNS``),
    beside the claim's decision bounds: for the estimand ``share`` of the share of seeds that meet
    the claim's condition (bounds: ``share``), for ``mean`` of the mean (bounds: the claim's band)."""
    judge = Judge.of(stats_cfg)
    runs = StudyRuns(study.name, summary, tuple(study.factor_names))
    rows = []
    for c in study.claims:
        if not c.sequential or c.exact:
            continue
        part = c.parts[0]
        cond = part.condition
        cells, _ = seed_units.claim_cells(c, runs, judge.cfg)
        for (cell,) in cells:
            if c.estimand == "mean":
                x, bounds, (lo_b, hi_b) = cell.lo, verdicts.bounds(c, part), cond.band
            else:
                counted = cond.counted(cell.lo, cell.hi, cell.step)
                x, bounds, lo_b, hi_b = cond.sure(cell.lo, cell.hi)[counted].astype(float), (0.0, 1.0), c.share, c.share
            if not len(x):
                continue
            lo, hi = sequential.confidence_sequence(x, bounds, 1 - judge.confidence)
            means = np.cumsum(x) / np.arange(1, len(x) + 1)
            for k in range(len(x)):
                rows.append([c.id, cell.label, k + 1, means[k], lo[k], hi[k], lo_b, hi_b])
    return pd.DataFrame(rows, columns=SEQUENCE_COLUMNS)


def cost_table(study: Study, summary: pd.DataFrame, max_seeds: int) -> pd.DataFrame:
    """Training seconds the rounds spent against every cell at ``max_seeds`` seeds (estimated from
    each cell's mean seconds per run)."""
    seconds = pd.to_numeric(summary["train_seconds"], errors="coerce")
    per_cell = seconds.groupby([summary[f] for f in study.factor_names] or np.zeros(len(summary))).mean()
    n_cells = len(list(study.combinations()))
    at_max = float(per_cell.mean() * n_cells * max_seeds)
    spent = float(seconds.sum())
    return pd.DataFrame([[len(summary), n_cells * max_seeds, spent, at_max, at_max - spent]], columns=COST_COLUMNS)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ablation.adaptive", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plan", help="evaluate a study's claims after a round; write the next round's runs")
    p.add_argument("--spec-json", required=True, help="the study (with claims), the stats settings, its adaptive block")
    p.add_argument("--round", required=True, type=int, help="this round (1: after the study's own seeds)")
    p.add_argument("--previous", nargs="*", type=Path, default=[], help="the earlier rounds' JSON files, in order")
    p.add_argument("--store", required=True, type=Path)
    p.add_argument("--out", required=True, type=Path)
    p = sub.add_parser("tables", help="an adaptive study's rounds, confidence sequences and training cost")
    p.add_argument("--spec-json", required=True)
    p.add_argument("--rounds", nargs="+", type=Path, required=True, help="the study's round files, in order")
    p.add_argument("--summary", required=True, type=Path)
    p.add_argument("--study-dir", required=True, type=Path, help="results/<study>: the tables go where outputs says")
    args = ap.parse_args(argv)
    spec = json.loads(args.spec_json)
    if args.command == "tables":
        study = Study.from_dict(spec["study"])
        summary = analyze.read_table(args.summary, study.factor_names)
        tables = {
            "adaptive_rounds": rounds_table(args.rounds),
            "adaptive_sequences": sequences_table(study, summary, spec["stats"]),
            "adaptive_cost": cost_table(study, summary, spec["adaptive"]["max_seeds"]),
        }
        for table in outputs.ADAPTIVE_TABLES:
            io.write_dataframe(args.study_dir / table.file, tables[table.name])
        return 0
    study = Study.from_dict(spec["study"])
    study.factors = {name: study.factors[name] for name in settings.setting_specs() if name in study.factors}
    adaptive = spec["adaptive"]
    try:
        check(study, adaptive)
    except ValueError as exc:
        print(f"adaptive: {exc}", file=sys.stderr)
        return 1
    if len(args.previous) != args.round - 1:
        ap.error(f"round {args.round} needs the {args.round - 1} earlier round file(s), got {len(args.previous)}")
    index = [index_row(run, study.factor_names) for run in study.runs()] + read_round_runs(args.previous)
    summary = summary_of(study, index, args.store)
    extra = scope_settings(study)
    scope_index = [index_row(run, study.factor_names, extra) for run in scope_runs(study, study.seeds)]
    scope_index += read_round_runs(args.previous, "new_scope_runs")
    scope_summary = summary_of(study, scope_index, args.store) if scope_index else None
    trained = {r["hash"] for r in index + scope_index}
    rows, runs, new_scope = plan_round(study, summary, trained, spec["stats"], adaptive, spec.get("family_size"),
                                       scope_summary)  # fmt: skip
    table = round_table(rows, args.round)
    record = {
        "study": study.name, "round": args.round, "n_runs_before": len(index),
        "claims": json.loads(table.to_json(orient="records")),
        "new_runs": [index_row(run, study.factor_names) for run in runs],
        "new_scope_runs": [index_row(run, study.factor_names, extra) for run in new_scope],
    }  # fmt: skip
    with io.atomic_open(args.out, "w", encoding="utf-8") as fh:
        json.dump(record, fh, indent=1, sort_keys=True)
    for r in rows:
        print(f"round {args.round} {r['id']}: {r['state']} ({r['verdict'] or 'fixed design'}, {r['n_seeds']} seeds)"
              + (f" -> seeds {r['next_seeds']}" if r["next_seeds"] else ""))  # fmt: skip
    print(f"round {args.round}: {len(runs)} new run(s)" + (f", {len(new_scope)} in other universes" if new_scope else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
