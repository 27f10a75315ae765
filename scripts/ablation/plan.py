"""Before any training: which verdicts can each claim of a config reach with its configured seeds?

A verdict that the design cannot reach is a warning, not an error: the claims table will say
INCONCLUSIVE whatever the runs show, so more seeds (or a wider margin) are needed first. The rules
are those of ``ablation.claims``: a claim is one of the m non-exact claims of its Holm family, so
a claim that must be decisive wherever it falls in Holm's order needs p <= alpha / m; CONTRADICTED
in every cell is Bonferroni over the cells. With the estimand ``share`` the most favourable seeds
(all meeting the condition, or none) give p = share**n (or (1 - share)**n); a verdict that rests on
exactly that many seeds falls with any one of them, so the plan asks for one seed of slack, which
leave-one-seed-out robustness needs. Exact claims need no seeds: they are checked on every run.

    python -m ablation.plan config/config.yaml
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from . import REPO_DIR, adaptive, design, measures, seedtests, verdicts
from . import config as ablation_config
from . import store as run_store
from .kinds import Claim
from .settings import cost_estimate, from_dict

PLAN_COLUMNS = ["study", "claim", "kind", "seeds", "cells", "supported", "contradicted", "seeds_needed", "note"]
COST_COLUMNS = ["study", "runs", "in_store", "to_train", "cpu_minutes", "wall_minutes"]
CALIBRATION_RUNS = 400
"""At most this many finished runs of the store calibrate the cost model (they agree to a few per cent)."""
MAX_SEEDS = 10_000


def _n_cells(study, claim: Claim) -> int:
    """Cells a claim is judged in: combinations of the factors it neither compares nor fixes."""
    if claim.cells == "average":
        return 1
    counts = []
    for f, levels in study.factors.items():
        if f == claim.factor:
            continue
        where = claim.where.get(f)
        counts.append(len(where) if isinstance(where, list) else 1 if where is not None else len(levels))
    return math.prod(counts)


def _fewest(p_at, level: float, limit: int) -> int | None:
    """The fewest seeds n <= ``limit`` with ``p_at(n) <= level``, for a p that never rises as
    seeds that all agree arrive (a binary search); None where even ``limit`` seeds do not reach it."""
    if limit < 1 or p_at(limit) > level:
        return None
    lo, hi = 1, limit
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if p_at(mid) <= level else (mid + 1, hi)
    return lo


def agreeing_seeds(claim: Claim, level: float, conditions: int, sequential: bool, alpha: float,
                   limit: int) -> tuple[int | None, int | None]:  # fmt: skip
    """Fewest seeds, every one at the value most favourable to SUPPORTED (or to CONTRADICTED), with
    which the claim's own test (``ablation.seedtests``) reaches ``level``; CONTRADICTED of one of
    ``conditions`` cell conditions pays Bonferroni over them, as ``verdicts.combine`` does. None beyond
    ``limit``. The share estimand counts seeds that meet every condition (or none)."""
    part = claim.parts[0]

    def contradicted(p):
        return min(1.0, conditions * p)

    if claim.estimand == "mean":
        values = verdicts.favourable(claim)
        bounds = verdicts.bounds(claim, part)

        def mean_p(n, value, which):
            x = np.full(n, value)
            return float(seedtests.mean_p(x, x, part.condition.band, bounds, alpha)[which])

        sup = _fewest(lambda n: mean_p(n, values["SUPPORTED"][0], 0), level, limit)
        con = [_fewest(lambda n, v=v: contradicted(mean_p(n, v, 1)), level, limit) for v in values["CONTRADICTED"]]
        return sup, min((c for c in con if c is not None), default=None)

    def share_p(n, met, which):
        if sequential:
            outcome = np.full(n, float(met))
            return float(seedtests.share_p_sequential(outcome, outcome, np.ones(n, bool), claim.share, alpha)[which])
        return float(seedtests.share_p(n * met, n * met, n, claim.share)[which])

    return (_fewest(lambda n: share_p(n, True, 0), level, limit),
            _fewest(lambda n: contradicted(share_p(n, False, 1)), level, limit))  # fmt: skip


def _sequential_robust_seeds(share: float, level: float, alpha: float, max_seeds: int) -> int | None:
    """Fewest seeds n at which SUPPORTED by the e-process on the seeds' outcomes, with one seed
    outside the claim, survives leaving any one seed out: every order of n - 1 outcomes with one
    0 among them reaches ``level`` (where the 0 falls changes the capital). None beyond ``max_seeds``."""
    for n in range(3, max_seeds + 1):
        z = np.ones((n - 1, n - 1))
        z[np.arange(n - 1), np.arange(n - 1)] = 0.0  # row j: the outcome outside the claim at place j
        p_sup, _ = seedtests.share_p_sequential(z, z, np.ones_like(z, dtype=bool), share, alpha)
        if np.all(p_sup <= level):
            return n
    return None


def claim_plan(study, claim: Claim, m: int, alpha: float, adaptive_block: dict | None = None) -> dict:
    """Reachability of SUPPORTED and CONTRADICTED for one claim of a family of ``m`` claims:
    alpha / m is the Holm level a claim meets wherever it ranks. ``adaptive_block``: the study's
    ``{max_seeds, batch}`` when its rounds add seeds."""
    seeds = claim.where.get("seed", study.seeds)
    n = len(seeds) if isinstance(seeds, list) else 1
    cells = _n_cells(study, claim)
    row = dict(study=study.name, claim=claim.id, kind=claim.kind.name, seeds=n, cells=cells)
    if claim.exact:
        row.update(supported="yes", contradicted="yes", seeds_needed=None,
                   note="exact: every run's twin certificate is checked; no p-value, no family")  # fmt: skip
        return row
    a_m = alpha / max(m, 1)
    conds = len(claim.parts)
    sequential = adaptive_block is not None and claim.sequential
    limit = adaptive_block["max_seeds"] if sequential else MAX_SEEDS
    sup, con = agreeing_seeds(claim, a_m, cells * conds, sequential, alpha, limit)
    if claim.estimand == "mean":
        how = "the mean over seeds (betting e-process), with every seed at the most favourable value"
    elif sequential:
        how = f"share > {claim.share:g} by the e-process on the seeds' outcomes, every seed agreeing"
    else:
        how = f"share > {claim.share:g} by the exact binomial test, every seed agreeing"
    if n < 2:
        row.update(supported="no", contradicted="no", seeds_needed=max(2, (sup or 2) + 1),
                   note="no verdict from fewer than 2 seeds")  # fmt: skip
        return row
    available = adaptive_block["max_seeds"] if sequential else n
    row["supported"] = "yes" if sup is not None and sup <= available else "no"
    row["contradicted"] = "yes" if con is not None and con <= available else "no"
    robust = [k + 1 for k in (sup, con) if k is not None]  # a seed of slack for leave-one-seed-out
    row["seeds_needed"] = sup if sequential else max(robust) if robust else None
    row["note"] = (f"{how}: SUPPORTED after {sup or f'more than {available}'} seeds, CONTRADICTED after "
                   f"{con or f'more than {available}'} (Holm level alpha / m = {a_m:.4g} over the {m} claim(s) "
                   f"of its family" + (f", Bonferroni over {cells * conds} cell condition(s)" if cells * conds > 1 else "") + ")")  # fmt: skip
    if sequential:
        row["seeds"] = f"{n}-{adaptive_block['max_seeds']}"
        row["note"] = "adaptive (anytime-valid): " + row["note"]
        if claim.estimand != "mean":
            dissent = _sequential_robust_seeds(claim.share, a_m, alpha, adaptive_block["max_seeds"])
            row["note"] += (f"; with one seed of a cell outside the claim, SUPPORTED survives leaving any seed out from "
                            f"{dissent} seeds" if dissent else f"; with one seed of a cell outside the claim, no "
                            f"SUPPORTED within {adaptive_block['max_seeds']} seeds survives leaving any seed out")  # fmt: skip
    elif row["supported"] == "yes" and row["contradicted"] == "yes" and max(robust) > n:
        row["note"] += f"; {max(robust)} seeds keep a verdict without any one seed"
    return row


def plan(cfg) -> pd.DataFrame:
    """One row per claim of the config: PLAN_COLUMNS."""
    alpha = cfg.stats.get("alpha", measures.DEFAULT_CFG["alpha"])
    family = cfg.stats.get("family", measures.DEFAULT_CFG["family"])
    by_study = {name: study.claims for name, study in cfg.studies.items()}
    rows = []
    for name, study in cfg.studies.items():
        m = ablation_config.family_size(by_study, name, family)
        block = design.adaptive_block(cfg.raw["studies"][name])
        rows += [claim_plan(study, claim, m, alpha, block) for claim in study.claims]
    return pd.DataFrame(rows, columns=PLAN_COLUMNS).astype({"seeds_needed": "Int64"})


def seconds_per_unit(store: Path, limit: int = CALIBRATION_RUNS) -> tuple[float, int]:
    """(training seconds per unit of ``settings.cost_estimate``, runs measured): the median over the
    store's finished runs; (nan, 0) for an empty store."""
    ratios = []
    for metrics in sorted(Path(store).glob("*/metrics.csv"))[:limit]:
        try:
            settings = from_dict(json.loads((metrics.parent / "settings.json").read_text(encoding="utf-8")))
            seconds = float(pd.read_csv(metrics)["train_seconds"].iloc[0])
        except (OSError, ValueError, KeyError, IndexError):
            continue
        if np.isfinite(seconds):
            ratios.append(seconds / cost_estimate(settings))
    return (float(np.median(ratios)), len(ratios)) if ratios else (float("nan"), 0)


def _designs(cfg, name: str) -> list[list]:
    """A study's runs: its first round and, for an adaptive study, every round to max_seeds too."""
    study, block = cfg.studies[name], design.adaptive_block(cfg.raw["studies"][name])
    return [study.runs()] + ([study.runs() + adaptive.round_runs(study, block["max_seeds"])] if block else [])


def reference_seconds_per_unit(cfg, reference: Path) -> tuple[float, int, str]:
    """(seconds per cost unit, runs, the machine) from a reference folder's train_seconds
    (``ablation.compare reference`` keeps them), for the runs of ``cfg`` it holds: what the plan
    reads before a store has any run. (nan, 0, "") when it holds none of them."""
    settings = {r.hash: r.settings for name in cfg.studies for runs in _designs(cfg, name) for r in runs}
    ratios, machines = [], set()
    for name in cfg.studies:
        path = Path(reference) / name / "summary.csv"
        try:
            ref = pd.read_csv(path, dtype={"hash": str}, usecols=["hash", "train_seconds"])
            machines.add(json.loads((path.parent / "environment.json").read_text(encoding="utf-8"))["cpu_model"])
        except (OSError, ValueError, KeyError):
            continue
        ratios += [sec / cost_estimate(settings[h]) for h, sec in zip(ref["hash"], ref["train_seconds"])
                   if h in settings and np.isfinite(sec)]  # fmt: skip
    if not ratios:
        return float("nan"), 0, ""
    return float(np.median(ratios)), len(ratios), ", ".join(sorted(machines))


def cost(cfg, store: Path = run_store.STORE, cores: int = 1, reference: Path | None = None) -> tuple[pd.DataFrame, str]:
    """Per study the runs its design trains (an adaptive study: its first round, and at most every
    cell its claims' rounds read at max_seeds), how many the store holds, and the expected training
    CPU-minutes and wall minutes at ``cores`` parallel jobs of what is still to train, from the cost
    model the DAG schedules by, calibrated on the store's runs, or on ``reference``'s where the
    store has none yet. Returns (COST_COLUMNS table, what it is calibrated on, in words; "" when
    on nothing: no minutes)."""
    per_unit, n_cal = seconds_per_unit(store)
    basis = f"{n_cal} finished run(s) of {store}" if n_cal else ""
    if not n_cal and reference is not None:
        per_unit, n_ref, machine = reference_seconds_per_unit(cfg, reference)
        if n_ref:
            basis = f"{n_ref} run(s) of {reference} (trained on {machine}: this machine may be faster or slower)"
    rows = []
    for name in cfg.studies:
        designs = _designs(cfg, name)
        counts, minutes = [], []
        for runs in designs:
            todo = [r for r in runs if not run_store.is_complete(Path(store) / r.hash)]
            counts.append((len(runs), len(runs) - len(todo), len(todo)))
            minutes.append(sum(cost_estimate(r.settings) for r in todo) * per_unit / 60)
        span = lambda xs, f="{:d}": "-".join(dict.fromkeys(f.format(x) for x in xs))  # noqa: E731
        rows.append([name, span([c[0] for c in counts]), span([c[1] for c in counts]), span([c[2] for c in counts]),
                     span(minutes, "{:.1f}"), span([m / cores for m in minutes], "{:.1f}")])  # fmt: skip
    return pd.DataFrame(rows, columns=COST_COLUMNS), basis


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m ablation.plan CONFIG.yaml", file=sys.stderr)
        return 2
    try:
        cfg = ablation_config.load(argv[0])
    except ablation_config.ConfigError as exc:
        print(f"config error: {exc}", file=sys.stderr)
        return 1
    table = plan(cfg)
    m = len(table)
    family = cfg.stats.get("family", measures.DEFAULT_CFG["family"])
    print(f"Plan for {argv[0]}: {m} claim(s), Holm over the claims of each {family} at alpha {cfg.stats.get('alpha', 0.05):g}")
    print(table.to_string(index=False) if m else "(no claims)")
    cores = os.cpu_count() or 1
    costs, basis = cost(cfg, cores=cores, reference=REPO_DIR / "reference")
    print(f"\nTraining still to do, at {cores} parallel job(s) (the cost model the DAG schedules by, calibrated on "
          + (basis or f"no finished run: none in {run_store.STORE} nor in the reference, so no minutes")
          + "; an adaptive study: its first round-every round to max_seeds):")  # fmt: skip
    print(costs.to_string(index=False))
    blocked = table[(table["supported"] == "no") | (table["contradicted"] == "no")]
    for row in blocked.itertuples():
        print(f"warning: claim {row.claim}: with {row.seeds} seeds SUPPORTED is {row.supported}, CONTRADICTED is "
              f"{row.contradicted}" + (f"; {row.seeds_needed} seeds would reach them" if pd.notna(row.seeds_needed) else ""))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
