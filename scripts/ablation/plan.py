"""Before any training: which verdicts can each claim of a config reach with its configured seeds?

Each verdict is priced at a plausible truth (``ablation.pricing``, docs/plan-noise.md): seeds drawn
with the noise and the effect the study's runs show (the run store's, else ``reference/``; stated
defaults where there are none), put through the claims table's own test and combination, and a
verdict counts as reachable with probability POWER (0.8). The rules are those of ``ablation.claims``:
a claim is one of the m non-exact claims of its Holm family, so a claim that must be decisive
wherever it falls in Holm's order needs p <= alpha / m; CONTRADICTED in one cell pays Bonferroni
over the cells. A claim whose seeds (an adaptive study's max_seeds) cannot reach both verdicts at
alpha / m is an error, one line naming the seeds per cell it needs, unless the claim says why that
is accepted (``undecidable_ok``). Exact claims need no seeds: they are checked on every run.

Then the training still to do and the wall time of the Snakemake run at ``--cores`` on this
machine (``ablation.timing``: a few seconds of the design's own training timed here, or the
store's finished runs of the design). Printed in at most WIDTH columns: the numbers as columns,
the tests' legend once, at most one line of words a claim.

    python -m ablation.plan config/config.yaml [--cores N] [--wide | --csv] [--no-timing] [--studies a,b]

Last, the training code of the design's runs in the store (``store.check_code``): a line per class,
the runs trained by other training code among them, and the command that retrains those.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

from . import design, measures, pricing, seedtests, selection, verdicts
from . import config as ablation_config
from . import store as run_store
from . import timing
from .kinds import Claim
from .settings import cost_estimate, from_dict, run_hash

PLAN_COLUMNS = [
    "study", "claim", "kind", "seeds", "cells", "test", "family", "level", "bonferroni", "supported_after",
    "contradicted_after", "robust_from", "limit", "supported", "contradicted", "supported_step",
    "contradicted_step", "seeds_needed", "searched", "fixed_needs", "limited_after", "margin", "noise", "runs",
    "supported_at", "contradicted_at", "undecidable_ok", "note",
]  # fmt: skip
"""One row per claim. seeds: its seeds (an adaptive study: first round-max_seeds); test: a key of
TESTS; family, level: the Holm family's size m and alpha / m; bonferroni: the cell conditions
CONTRADICTED-in-one-cell pays for; supported_after, contradicted_after: the fewest seeds per cell
that reach each verdict at that level with probability ``pricing.POWER``, drawn at the truths of
supported_at and contradicted_at (empty: not within ``pricing.LIMIT``); robust_from: the seeds from
which a verdict survives leaving any one seed out (one seed of slack; an adaptive study's share
claims: SUPPORTED, with one seed of a cell outside the claim; empty: not within ``limit``, or not
known); limit: the most seeds the claim may have (its seeds, or the study's max_seeds); supported,
contradicted: reachable with its limit at every Holm step (yes/no); supported_step,
contradicted_step: the first of Holm's m steps at whose level alpha / (m - step + 1) they are
reachable (1: wherever the claim ranks; m: only once every other claim of its family is decided;
empty: not even there, or exact); seeds_needed: the seeds per cell that make both reachable at
every step and robust (an adaptive study: SUPPORTED's); searched: the most seeds per cell the prices
count up to (``pricing.LIMIT``; an adaptive study's rounds: max_seeds); fixed_needs: an adaptive
claim that cannot reach both within max_seeds: the seeds per cell a fixed design of one look needs
(empty: more than ``pricing.LIMIT``, or not asked); limited_after: a claim with robust_over: the seeds
per universe that make its scope LIMITED (CONTRADICTED's truth in one universe, at Holm over the
universes besides the study's own; empty: beyond the search); margin: the claim's; noise: the largest
sd over seeds of a cell's per-seed values its runs show (the mean estimand without runs: the default
it is priced with; empty: none); runs: where the runs come from; supported_at, contradicted_at: the
truths in words; undecidable_ok: the claim's reason to accept seeds that cannot reach both; note:
what the other columns do not say."""
TESTS = {
    "exact": "exact claim: every run's twin certificate is checked; no p-value, no family",
    "sign": "share of seeds meeting the claim > 1/2, exact test over seeds (the sign test)",
    "e-share": "the same share, the test of an adaptive study's rounds",
    "mean": "mean over seeds (estimand: mean), by the claim's own test as the claims table runs it",
}
"""The tests a claim's seeds are put to, as the plan's legend explains them (the claims table names
each test in full; the plan prices whatever ``verdicts.p_values`` runs)."""
COST_COLUMNS = ["study", "runs", "in_store", "to_train", "cpu_minutes"]
COST_HEADERS = {"in_store": "in store", "to_train": "to train", "cpu_minutes": "CPU minutes"}
WIDTH = 100
"""The plan's printed lines are at most this wide (--wide: unwrapped)."""
CALIBRATION_RUNS = 400
"""At most this many finished runs of the store calibrate the cost model (they agree to a few per cent)."""
MAX_SEEDS = 10_000
"""The most seeds ``agreeing_seeds`` counts up to."""


def _wrap(text: str, width: int, **kw) -> list[str]:
    """textwrap.wrap that never breaks a claim's name at its hyphens, so a name reads (and greps) whole."""
    return textwrap.wrap(text, width, break_on_hyphens=False, **kw)


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
    ``limit``. The share estimand counts seeds that meet every condition (or none). A bound no design
    beats, which the adaptive rounds' futility rule shares; the plan prices at plausible truths
    (``claim_plan``), not at it."""
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


def _holm_step(sim: pricing.Simulation, m: int, alpha: float, available: int) -> int | None:
    """The first of Holm's ``m`` steps (its level alpha / (m - step + 1)) at which ``available`` seeds
    per cell reach the simulation's verdict with probability POWER; None where not even at the last,
    alpha. One simulation serves every step: its p-values at ``available`` seeds are drawn once."""
    m = max(m, 1)
    return next((step for step in range(1, m + 1) if sim.power(available, alpha / (m - step + 1)) >= pricing.POWER), None)


def claim_plan(study, claim: Claim, m: int, alpha: float, adaptive_block: dict | None = None,
               sources: list[pricing.Source] = ()) -> dict:  # fmt: skip
    """Reachability of SUPPORTED and CONTRADICTED for one claim of a family of ``m`` claims:
    alpha / m is the Holm level a claim meets wherever it ranks. ``adaptive_block``: the study's
    ``{max_seeds, batch}`` when its rounds add seeds; ``sources``: where the study's runs are
    (``pricing.study_runs``; none: every truth at its default). The row's numbers are fields
    (PLAN_COLUMNS; TESTS says what ``test`` names); ``note`` holds only what they do not say."""
    seeds = claim.where.get("seed", study.seeds)
    n = len(seeds) if isinstance(seeds, list) else 1
    cells = _n_cells(study, claim)
    row = dict(study=study.name, claim=claim.id, kind=claim.kind.name, seeds=n, cells=cells, family=m,
               level=alpha / max(m, 1), bonferroni=None, supported_after=None, contradicted_after=None,
               robust_from=None, limit=None, searched=None, fixed_needs=None, limited_after=None,
               margin=claim.keys.get("margin"), noise=None, runs="", supported_at="", contradicted_at="",
               undecidable_ok=claim.undecidable_ok, note="")  # fmt: skip
    if claim.exact:
        row.update(test="exact", supported="yes", contradicted="yes", seeds_needed=None, family=None, level=None)
        return row
    a_m = alpha / max(m, 1)
    conds = len(claim.parts)
    sequential = adaptive_block is not None and claim.sequential
    sims, measured = pricing.simulations(study, claim, _n_cells(study, claim), alpha, adaptive_block, list(sources))
    sup, con = (sims[v].fewest(a_m, start=2) for v in pricing.VERDICTS)
    test = "mean" if claim.estimand == "mean" else "e-share" if sequential else "sign"
    notes = [f"share > {claim.share:g}"] if claim.estimand != "mean" and claim.share != 0.5 else []
    if conds > 1:
        notes.append(f"{conds} conditions a cell")
    row.update(test=test, bonferroni=cells * conds, supported_after=sup, contradicted_after=con,
               searched=sims["SUPPORTED"].limit,
               supported_at=sims["SUPPORTED"].truth.words, contradicted_at=sims["CONTRADICTED"].truth.words,
               runs=measured.words, noise=measured.largest_sd() if measured.cells else
               float(sims["SUPPORTED"].truth.noise.max()) if claim.estimand == "mean" else None)  # fmt: skip
    if n < 2:
        row.update(supported="no", contradicted="no", seeds_needed=max(2, max(sup or 2, con or 2) + 1),
                   limit=n, note="; ".join(["no verdict from fewer than 2 seeds", *notes]))  # fmt: skip
        return row
    available = adaptive_block["max_seeds"] if sequential else n
    row["limit"] = available
    # whether the design can decide, at the truths of a clear answer: a truth in the margin's zone of doubt makes
    # INCONCLUSIVE honest, not the design too small; the row also reports the seeds priced at the runs' own truths
    clear, _ = pricing.simulations(study, claim, cells, alpha, adaptive_block, list(sources), design=True)
    for verdict, sim in zip(("supported", "contradicted"), clear.values()):
        step = _holm_step(sim, m, alpha, available)  # the first step is alpha / m: reachable wherever it ranks
        row[verdict] = "yes" if step == 1 else "no"
        row[f"{verdict}_step"] = step
        if step is not None and step > 1:
            notes.append(f"{verdict.upper()} from Holm step {step} of {m}")
    if claim.robust_over:  # the scope inherits the claim's level: LIMITED at Holm over the other universes
        row["limited_after"] = sims["CONTRADICTED"].fewest(a_m / max(1, len(claim.universes()) - 1), start=2)
    if sequential and "no" in (row["supported"], row["contradicted"]):
        # past max_seeds the rounds cannot go: what the claim needs, priced as a fixed design (one look)
        fixed, _ = pricing.simulations(study, claim, cells, alpha, None, list(sources))
        needs = [fixed[v].fewest(a_m, start=2) for v in pricing.VERDICTS]
        row["fixed_needs"] = None if None in needs else max(needs)
    robust = [k + 1 for k in (sup, con) if k is not None]  # a seed of slack for leave-one-seed-out
    row["seeds_needed"] = sup if sequential else max(robust) if len(robust) == 2 else None
    if sequential:
        row["seeds"] = f"{n}-{adaptive_block['max_seeds']}"
        if claim.estimand != "mean":
            # with one seed outside the claim: the seeds from which SUPPORTED survives leaving any one out (never before it)
            robust = pricing.sequential_robust_seeds(claim.share, a_m, alpha, adaptive_block["max_seeds"])
            row["robust_from"] = max(robust, sup) if robust is not None and sup is not None else None
    else:
        row["robust_from"] = max(robust) if len(robust) == 2 else None
    row["note"] = "; ".join(notes)
    return row


def plan(cfg, store: Path = run_store.STORE, reference: Path | None = None) -> pd.DataFrame:
    """One row per claim of the config: PLAN_COLUMNS. Each study's runs (``pricing.study_runs``: the
    run store ``store``, then ``reference``, by default the repository's reference/) set the truths
    each verdict is priced at."""
    alpha = cfg.stats.get("alpha", measures.DEFAULT_CFG["alpha"])
    family = cfg.stats.get("family", measures.DEFAULT_CFG["family"])
    by_study = {name: study.claims for name, study in cfg.studies.items()}
    rows = []
    for name, study in cfg.studies.items():
        m = ablation_config.family_size(by_study, name, family)
        block = design.adaptive_block(cfg.raw["studies"][name])
        sources = pricing.study_runs(study, block, store, reference) if any(not c.exact for c in study.claims) else []
        rows += [_planned(study, claim, m, alpha, block, sources) for claim in study.claims]
    ints = ("family", "bonferroni", "supported_after", "contradicted_after", "robust_from", "limit", "seeds_needed",
            "searched", "fixed_needs", "limited_after")
    return pd.DataFrame(rows, columns=PLAN_COLUMNS).astype(dict.fromkeys(ints, "Int64"))


_PLANNED: dict[tuple, dict] = {}
"""Each claim's row, by everything it is priced from: a process that plans one config twice (the
terminal's plan, then the report's; the tests) simulates it once."""


def _planned(study, claim: Claim, m: int, alpha: float, block: dict | None, sources: list[pricing.Source]) -> dict:
    """``claim_plan``'s row, from _PLANNED when this claim of this design was priced from these runs."""
    design_key = json.dumps({k: v for k, v in study.to_dict().items() if k != "claims"}, sort_keys=True, default=str)
    key = (study.name, design_key, repr(claim), m, alpha, json.dumps(block, sort_keys=True), tuple(s.key for s in sources))
    if key not in _PLANNED:
        _PLANNED[key] = claim_plan(study, claim, m, alpha, block, sources)
    return dict(_PLANNED[key])


def scope_plan(cfg, table: pd.DataFrame, cal: timing.Calibration | None = None,
               store: Path = run_store.STORE) -> list[dict]:  # fmt: skip
    """Per claim with robust_over: its universes, the runs its other universes add (at the study's
    seeds), their CPU minutes (``cal``), the seeds per universe that make it ROBUST (the verdict in
    every universe at the claim's level, which the scope inherits: the plan's supported_after) and
    those that make it LIMITED in one universe (CONTRADICTED's truth there, at Holm over the universes
    besides the study's own: the plan's limited_after), each with probability POWER, priced as the
    claim's verdicts are."""
    rows = []
    for name, study in cfg.studies.items():
        for claim in study.claims:
            if not claim.robust_over:
                continue
            universes = claim.universes()
            runs = {r.hash: r for u in design.other_universes(claim, study) for combo in design.claim_combinations(claim, study)
                    for r in [design.make_run(study, combo, s, u) for s in study.seeds]}  # fmt: skip
            todo = [r for r in runs.values() if not run_store.is_complete(Path(store) / r.hash)]
            row = table[(table["study"] == name) & (table["claim"] == claim.id)].iloc[0]
            limited = row["limited_after"] if pd.notna(row["limited_after"]) else None
            rows.append({"study": name, "claim": claim.id, "over": ", ".join(claim.robust_over),
                         "universes": len(universes), "runs": len(runs), "to_train": len(todo),
                         "cpu_minutes": sum(cal.run_seconds(r.settings) for r in todo) / 60 if cal else None,
                         "robust_after": row["supported_after"], "limited_after": limited, "seeds": row["seeds"]})  # fmt: skip
    return rows


def scope_lines(rows: list[dict], width: int = WIDTH) -> list[str]:
    """The scoped claims' universes and what they cost and can reach, in at most ``width`` columns."""
    if not rows:
        return []
    out = ["Where it holds (claims with robust_over):"]
    for r in rows:
        minutes = f", {r['cpu_minutes']:.1f} CPU min" if r["cpu_minutes"] is not None else ""
        robust = f"ROBUST from {r['robust_after']} seeds per universe" if pd.notna(r["robust_after"]) else "ROBUST unreachable"
        limited = (f"LIMITED from {r['limited_after']} with the claim failing in one universe" if r["limited_after"] is not None
                   else "LIMITED unreachable")  # fmt: skip
        out += _wrap(f"- scope of {r['claim']}: {r['universes']} universes over {r['over']}; {r['to_train']} of {r['runs']} "
                             f"runs to train{minutes}; {robust}, {limited} (seeds: {r['seeds']})", width,
                             subsequent_indent="  ")  # fmt: skip
    out += _wrap("A universe gets further seeds only once the verdict at the study's setting is reached, and none "
                         "that no further seeds within max_seeds could decide (the claims table says why).", width)  # fmt: skip
    return out


def price_lines(table: pd.DataFrame, width: int = WIDTH, steps: dict[str, float] | None = None) -> list[str]:
    """How each verdict is priced, in words: per claim (claims priced alike on one line) the truths
    SUPPORTED and CONTRADICTED are priced at and where they come from; a warning where a share claim's
    margin lies below the per-seed noise its runs show. ``steps``: each claim's metric step
    (``measures.resolution``): where the step exceeds the margin (``converged``, 0 or 1 per seed) a
    seed's difference is a tie or a whole step, so no seed lies near the margin for noise to carry
    across it, and the spread of its seeds is the effect varying between them, not noise."""
    rows = table[table["test"] != "exact"]
    if not len(rows):
        return []
    out = _wrap(f"How each verdict is priced (docs/plan-noise.md): seeds per cell drawn at a plausible truth, "
                        f"put to the claims table's own test, reach the verdict with probability {pricing.POWER:g}; "
                        "per-seed values are a comparison's paired differences:", width)  # fmt: skip
    groups: dict[tuple, list[str]] = {}
    for r in rows.itertuples():
        groups.setdefault((r.supported_at, r.contradicted_at, r.runs), []).append(r.claim)
    for (sup, con, runs), ids in groups.items():
        out += _wrap(f"- {', '.join(ids)} ({runs}): SUPPORTED: {sup}; CONTRADICTED: {con}", width,
                             subsequent_indent="  ")  # fmt: skip
    for r in rows.itertuples():
        margin = r.margin
        step = (steps or {}).get(r.claim, 0.0)
        if r.test != "mean" and pd.notna(margin) and pd.notna(r.noise) and step <= margin < r.noise:
            out += _wrap(f"warning: {r.claim}: its margin ({100 * margin:.3g} pp) is below the per-seed noise its "
                                 f"runs show (sd {100 * r.noise:.2g} pp): under the share estimand identical models miss "
                                 "it in many seeds; the mean estimand tests the average difference", width,
                                 subsequent_indent="  ")  # fmt: skip
    return out


def seconds_per_unit(store: Path, limit: int = CALIBRATION_RUNS) -> tuple[float, int]:
    """(training seconds per unit of ``settings.cost_estimate``, runs measured): the median over the
    store's finished runs, whatever config they belong to; (nan, 0) for an empty store."""
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


# ---------------------------------------------------------------- what the design costs here

def _span(values, fmt: str = "{:d}") -> str:
    """``first-every``, or one value when both are equal."""
    return "-".join(dict.fromkeys(fmt.format(v) for v in values))


def _minutes(values) -> str:
    """Minutes to a tenth below 10, whole above."""
    return _span(values, "{:.1f}" if max(values) < 10 else "{:.0f}")


def cost(cfg, cal: timing.Calibration | None, store: Path = run_store.STORE) -> pd.DataFrame:
    """COST_COLUMNS per study and for ``all`` (a run two studies list counted once): the runs of
    its design (an adaptive study: its first round-every round to max_seeds in the cells its claims
    read, in each universe of their scopes), how many the store holds, what is left to train and its CPU minutes on this machine
    (``cal``; empty without one)."""
    rows, every = [], {}
    firsts: dict = {}
    for name in cfg.studies:
        first = {r.hash: r for r in timing.first_round(cfg, name) + timing.scope_first_round(cfg, name)}
        more = {r.hash: r for batch in timing.rounds(cfg, name) for r in batch}
        firsts |= first
        every |= first | more
        rows.append([name, *_cost_row([first] + ([first | more] if more else []), cal, store)])
    rows.append(["all", *_cost_row([firsts] + ([every] if len(every) > len(firsts) else []), cal, store)])
    return pd.DataFrame(rows, columns=COST_COLUMNS)


def _cost_row(designs: list[dict], cal, store: Path) -> list[str]:
    counts, minutes = [], []
    for runs in designs:
        todo = [r for r in runs.values() if not run_store.is_complete(Path(store) / r.hash)]
        counts.append((len(runs), len(runs) - len(todo), len(todo)))
        minutes.append(sum(cal.run_seconds(r.settings) for r in todo) / 60 if cal else float("nan"))
    return [_span([c[0] for c in counts]), _span([c[1] for c in counts]), _span([c[2] for c in counts]),
            _span(minutes, "{:.1f}") if cal else ""]  # fmt: skip


def estimate(cfg, cores: int, store: Path = run_store.STORE, time_here: bool = True) -> dict:
    """What the config's Snakemake run costs on this machine at ``cores``: ``table`` (``cost``),
    ``calibration`` (None: nothing to train, or no timing and too few runs in the store),
    ``wall_minutes`` (first round, every round to max_seeds; on free cores) and ``busy_minutes``
    (the same at the share of the CPU other processes used while timing)."""
    slots = max(1, cores // max(1, cfg.train_threads))
    left = any(not run_store.is_complete(Path(store) / run_hash(s)) for runs in timing.design_settings(cfg).values()
               for s in runs)  # fmt: skip
    cal = timing.calibrate(cfg, store, slots, time_here) if left else None
    out = {"cores": cores, "table": cost(cfg, cal, store), "calibration": cal, "left": left}
    if cal:
        walls = [timing.wall_seconds(cfg, store, cal, cores, every) / 60 for every in (False, True)]
        out["wall_minutes"] = tuple(walls)
        out["busy_minutes"] = tuple(w / max(1e-9, 1 - cal.other_share) for w in walls)
    return out


# ---------------------------------------------------------------- the plan in 100 columns

def _seeds(value, limit, searched=None) -> str:
    """A number of seeds as the table prints it: "!" past what the claim may have, ">N" when not
    within the N seeds the plan searches (``searched``; else ``limit``), "-" where nothing applies."""
    if pd.isna(value):
        return "-" if pd.isna(limit) else f">{int(searched) if pd.notna(searched) else int(limit)}"
    return f"{value}!" if not pd.isna(limit) and value > limit else f"{value}"


def display(table: pd.DataFrame) -> pd.DataFrame:
    """The plan as people read it (the terminal and the report): one row per claim, the numbers as
    columns under the headers of HEADERS."""
    rows = []
    for r in table.itertuples():
        robust = "-" if r.test in ("exact", "mean") or pd.isna(r.limit) else _seeds(r.robust_from, r.limit)
        rows.append([r.study, r.claim, r.kind, str(r.seeds), str(r.cells), r.test, _seeds(r.supported_after, r.limit, r.searched),
                     _seeds(r.contradicted_after, r.limit, r.searched), robust, r.note])  # fmt: skip
    return pd.DataFrame(rows, columns=["study", *HEADERS, "note"])


HEADERS = ("claim", "kind", "seeds", "cells", "test", "SUPPORTED", "CONTRADICTED", "robust")
"""The plan's columns. SUPPORTED and CONTRADICTED: seeds per cell after which the verdict is reached
with probability ``pricing.POWER``."""


def legend(table: pd.DataFrame) -> list[str]:
    """What the columns mean, once: the tests the plan names, then the seed columns."""
    used = [t for t in TESTS if t in set(table["test"])]
    return ["test: " + "; ".join(f"{t} = {TESTS[t]}" for t in used) + ".",
            f"SUPPORTED, CONTRADICTED: the fewest seeds per cell that reach the verdict with probability "
            f"{pricing.POWER:g} at the study's Holm level, drawn at the truths priced below (CONTRADICTED in one cell "
            "pays Bonferroni over the claim's cells); N! = more seeds than the claim may have; >N = not within N; "
            "\"from Holm step k of m\": within its seeds only at a later Holm level, alpha / (m - k + 1), once k - 1 "
            "claims of the family are decided.",
            "robust: seeds from which the verdict survives leaving any one seed out (one seed of slack; adaptive: "
            "SUPPORTED with one seed of a cell outside the claim)."]  # fmt: skip


def _family_words(group: pd.DataFrame, alpha: float) -> str:
    m = group["family"].dropna()
    if not len(m):
        return "exact claims only: no Holm family"
    return f"Holm level alpha / m = {alpha:g} / {int(m.iloc[0])} = {alpha / int(m.iloc[0]):.4g}"


def layout(table: pd.DataFrame, alpha: float, width: int = WIDTH) -> list[str]:
    """The plan's claims in at most ``width`` columns: a header, per study a line with its Holm
    level, then a row of numbers per claim and at most one line of words; a claim id too long for
    its column stands on its own line above its numbers."""
    shown = display(table)
    cols = list(HEADERS[1:])
    widths = [max([len(h)] + [len(v) for v in shown[h]]) for h in cols]
    claim_w = min(max([len(HEADERS[0])] + [len(c) + 2 for c in shown["claim"]]), width - sum(widths) - len(cols))
    claim_w = max(claim_w, len(HEADERS[0]))

    def line(first: str, values) -> str:
        cells = [v.rjust(w) if h not in ("kind", "test") else v.ljust(w) for h, v, w in zip(cols, values, widths)]
        return (first.ljust(claim_w) + " " + " ".join(cells)).rstrip()

    out = [line(HEADERS[0], cols)]
    for study, group in shown.groupby("study", sort=False):
        out += _wrap(f"{study}: {_family_words(table[table['study'] == study], alpha)}", width)
        for r in group.itertuples(index=False):
            values = [getattr(r, h) for h in cols]
            if len(r.claim) + 2 > claim_w:
                out += _wrap(r.claim, width, initial_indent="  ", subsequent_indent="  ")
                out.append(line("", values))
            else:
                out.append(line("  " + r.claim, values))
            if r.note:
                out.append("    " + textwrap.shorten(r.note, width - 4, placeholder=" ..."))
    return out


def cost_lines(est: dict, width: int = WIDTH) -> list[str]:
    """The training still to do and the wall time, in at most ``width`` columns."""
    cal, table = est["calibration"], est["table"]
    if not est["left"]:
        return ["Nothing left to train: every run of the design is in the store."]
    if cal is None:
        head = f"Training still to do (no minutes: fewer than {timing.STORE_MIN_RUNS} runs in the store, timing off):"
    else:
        head = f"Training still to do ({cal.basis}, {cal.seconds:.1f} s):"
    out = _wrap(head, width) + table.rename(columns=COST_HEADERS).to_string(index=False).splitlines()
    if cal is not None:
        first, every = est["wall_minutes"]
        out += _wrap(f"Wall time at {est['cores']} cores: about {_minutes([first, every])} minutes "
                             f"(adaptive studies: first round-every round).", width)  # fmt: skip
        if cal.other_share > timing.BUSY:
            out += _wrap(f"Other processes used {100 * cal.other_share:.0f} % of the CPU while timing: at that "
                                 f"load, if it lasts: about {_minutes(est['busy_minutes'])} minutes.", width)  # fmt: skip
    return out


def _needs(r) -> str:
    """The seeds per cell a plan row needs for both verdicts at Holm's first step, in words."""
    need = [getattr(r, f"{v}_after") for v in ("supported", "contradicted")]
    if not any(pd.isna(k) for k in need):
        return f"{max(need)} seeds per cell"
    if r.test == "e-share" or (r.test == "mean" and "-" in str(r.seeds)):  # an adaptive study's rounds
        fixed = f"{r.fixed_needs}" if pd.notna(r.fixed_needs) else f"more than {pricing.LIMIT}"
        return f"more than its max_seeds ({r.limit}) per cell; as a fixed design of one look, {fixed}"
    return f"more than {int(r.searched) if pd.notna(r.searched) else pricing.LIMIT} seeds per cell"


def refusals(table: pd.DataFrame) -> tuple[list[str], list[str]]:
    """(errors, accepted): a line for each non-exact claim whose seeds (an adaptive study's max_seeds)
    cannot reach both verdicts at Holm's first step, alpha / m, with probability POWER at its priced
    truths, naming the seeds per cell it needs. An error unless the claim gives ``undecidable_ok``:
    then its reason, as a note. Not wrapped: one line a claim."""
    errors, accepted = [], []
    short = table[(table["test"] != "exact") & ((table["supported"] == "no") | (table["contradicted"] == "no"))]
    for r in short.itertuples():
        missing = [v for v in ("SUPPORTED", "CONTRADICTED") if getattr(r, v.lower()) == "no"]
        later = [f"{v} only from Holm step {int(getattr(r, f'{v.lower()}_step'))} of {int(r.family)}" for v in missing
                 if pd.notna(getattr(r, f"{v.lower()}_step"))]  # fmt: skip
        what = "reach neither verdict" if len(missing) == 2 else f"cannot reach {missing[0]}"
        words = (f"{r.claim}: its {r.seeds} seeds per cell {what} at Holm's first step (alpha / {int(r.family)}) "
                 f"with probability {pricing.POWER:g}: it needs {_needs(r)}" + "".join(f"; {w}" for w in later))  # fmt: skip
        if r.undecidable_ok:
            accepted.append(f"accepted: {words}; undecidable_ok: {r.undecidable_ok}")
        else:
            errors.append(f"error: {words}. Add seeds, or say why in the claim's undecidable_ok")
    return errors, accepted


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ablation.plan", description=__doc__.splitlines()[0])
    ap.add_argument("config")
    ap.add_argument("--cores", default="all", help="the cores Snakemake will use (a number, or all: this machine's)")
    ap.add_argument("--wide", action="store_true", help="every column, unwrapped")
    ap.add_argument("--csv", action="store_true", help="the claims table, then the cost table, as CSV")
    ap.add_argument("--no-timing", action="store_true", help="price the design from the store's runs alone")
    ap.add_argument("--studies", default="", help="a comma list of study names (default: every study)")
    args = ap.parse_args(argv)
    try:
        cores = (os.cpu_count() or 1) if args.cores == "all" else int(args.cores)
    except ValueError:
        ap.error(f"--cores: a number or all, not {args.cores!r}")
    try:
        cfg = ablation_config.load(args.config)
        chosen = selection.names(cfg, args.studies)
    except ablation_config.ConfigError as exc:
        print(f"config error: {exc}", file=sys.stderr)
        return 1
    table = plan(cfg)
    table = table[table["study"].isin(chosen)].reset_index(drop=True)  # their claims, in the config's family
    trains = selection.judged_with(cfg, chosen)  # the studies whose runs their claims read
    alpha = cfg.stats.get("alpha", measures.DEFAULT_CFG["alpha"])
    family = cfg.stats.get("family", measures.DEFAULT_CFG["family"])
    est = estimate(selection.restrict(cfg, trains), cores, time_here=not args.no_timing)
    errors, accepted = refusals(table)
    if args.csv:
        print(table.to_csv(index=False))
        print(est["table"].to_csv(index=False), end="")
        print("\n".join(errors), file=sys.stderr)
        return 1 if errors else 0
    title = f"Plan for {args.config}: {len(table)} claims, Holm over the claims of each {family} at alpha {alpha:g}"
    if selection.left_out(cfg, chosen):
        title += f"; the studies {', '.join(chosen)} (left out: {', '.join(selection.left_out(cfg, chosen))})"
    print(title if args.wide else "\n".join(_wrap(title, WIDTH, subsequent_indent="  ")))
    if args.wide:
        print(table.to_string(index=False) if len(table) else "(no claims)")
    else:
        print("\n".join(layout(table, alpha)) if len(table) else "(no claims)")
    print("\n".join(["", *(legend(table) if args.wide else
                            [w for line in legend(table) for w in _wrap(line, WIDTH, subsequent_indent="  ")])]))  # fmt: skip
    scoped = scope_lines(scope_plan(selection.restrict(cfg, chosen), table, est["calibration"]),
                         10**6 if args.wide else WIDTH)  # fmt: skip
    if scoped:
        print("\n" + "\n".join(scoped))
    steps = {c.id: measures.resolution(pd.DataFrame(), c.metric) for s in cfg.studies.values() for c in s.claims}
    priced = price_lines(table, 10**6 if args.wide else WIDTH, steps)
    if priced:
        print("\n" + "\n".join(priced))
    print("\n" + "\n".join(cost_lines(est, 10**6 if args.wide else WIDTH)))
    for line in accepted:
        print("\n".join(_wrap(line, 10**6 if args.wide else WIDTH, subsequent_indent="  ")))
    why = selection.why_every_study(cfg, chosen)
    checked = run_store.check_code(run_store.config_hashes(cfg, trains), cfg.train_threads)
    retrain = run_store.retrain_command(args.config, args.studies)
    code = ([why] if why else []) + run_store.code_lines(checked, retrain.replace(" ", "\xa0"))  # one piece
    print("\n" + "\n".join(w.replace("\xa0", " ") for line in code
                            for w in (_wrap(line, WIDTH, subsequent_indent="  ")
                                      if not args.wide else [line])))  # fmt: skip
    if errors:  # last, where a terminal shows them: the plan refuses the design
        print("\n".join(errors), file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
