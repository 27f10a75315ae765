"""Before any training: which verdicts can each claim of a config reach with its configured seeds?

A verdict that the design cannot reach is a warning, not an error: the claims table will say
INCONCLUSIVE whatever the runs show, so more seeds (or a wider margin) are needed first. The rules
are those of ``ablation.claims``: a claim is one of the m non-exact claims of its Holm family, so
a claim that must be decisive wherever it falls in Holm's order needs p <= alpha / m; CONTRADICTED
in every cell is Bonferroni over the cells. With the estimand ``share`` the most favourable seeds
(all meeting the condition, or none) give p = share**n (or (1 - share)**n); a verdict that rests on
exactly that many seeds falls with any one of them, so the plan asks for one seed of slack, which
leave-one-seed-out robustness needs. Exact claims need no seeds: they are checked on every run.

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
from scipy import stats as scipy_stats

from . import data, design, measures, seedtests, selection, verdicts
from . import config as ablation_config
from . import store as run_store
from . import timing
from .kinds import Claim
from .settings import cost_estimate, from_dict, run_hash

PLAN_COLUMNS = [
    "study", "claim", "kind", "seeds", "cells", "test", "family", "level", "bonferroni", "supported_after",
    "contradicted_after", "robust_from", "limit", "supported", "contradicted", "supported_step",
    "contradicted_step", "seeds_needed", "note",
]  # fmt: skip
"""One row per claim. seeds: its seeds (an adaptive study: first round-max_seeds); test: a key of
TESTS; family, level: the Holm family's size m and alpha / m; bonferroni: the cell conditions
CONTRADICTED-in-one-cell pays for; supported_after, contradicted_after: the fewest seeds, all
agreeing, that reach each verdict at that level (empty: not within the seeds searched, ``limit``
for an adaptive study); robust_from: the seeds from which a verdict survives leaving any one seed
out (an adaptive study's share claims: SUPPORTED, with one seed of a cell outside the claim; empty:
not within ``limit``, or not known); limit: the most seeds the claim may have (its seeds, or the
study's max_seeds); supported, contradicted: reachable within them at every Holm step (yes/no);
supported_step, contradicted_step: the first of Holm's m steps at whose level alpha / (m - step + 1)
they are reachable (1: wherever the claim ranks; m: only once every other claim of its family is
decided; empty: not even there, or exact); seeds_needed: the seeds that make both reachable at
every step and robust (an adaptive study: SUPPORTED's); note: what the other columns do not say."""
TESTS = {
    "exact": "exact claim: every run's twin certificate is checked; no p-value, no family",
    "sign": "share of seeds meeting the claim > 1/2, exact binomial test over seeds (the sign test)",
    "e-share": "the same share, anytime-valid e-process on the seeds' outcomes (adaptive rounds)",
    "e-mean": "mean over seeds, anytime-valid betting e-process (estimand: mean)",
}
"""The tests a claim's seeds are put to, as the plan's legend explains them."""
COST_COLUMNS = ["study", "runs", "in_store", "to_train", "cpu_minutes"]
COST_HEADERS = {"in_store": "in store", "to_train": "to train", "cpu_minutes": "CPU minutes"}
WIDTH = 100
"""The plan's printed lines are at most this wide (--wide: unwrapped)."""
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


def _holm_step(claim: Claim, which: int, m: int, alpha: float, conditions: int, sequential: bool, limit: int,
               available: int) -> int | None:  # fmt: skip
    """The first of Holm's ``m`` steps (its level alpha / (m - step + 1)) at which ``available`` agreeing
    seeds reach SUPPORTED (``which`` 0) or CONTRADICTED (1); None where not even at the last, alpha."""
    for step in range(1, max(m, 1) + 1):
        needed = agreeing_seeds(claim, alpha / (max(m, 1) - step + 1), conditions, sequential, alpha, limit)[which]
        if needed is not None and needed <= available:
            return step
    return None


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
    ``{max_seeds, batch}`` when its rounds add seeds. The row's numbers are fields (PLAN_COLUMNS;
    TESTS says what ``test`` names); ``note`` holds only what they do not say."""
    seeds = claim.where.get("seed", study.seeds)
    n = len(seeds) if isinstance(seeds, list) else 1
    cells = _n_cells(study, claim)
    row = dict(study=study.name, claim=claim.id, kind=claim.kind.name, seeds=n, cells=cells, family=m,
               level=alpha / max(m, 1), bonferroni=None, supported_after=None, contradicted_after=None,
               robust_from=None, limit=None, note="")  # fmt: skip
    if claim.exact:
        row.update(test="exact", supported="yes", contradicted="yes", seeds_needed=None, family=None, level=None)
        return row
    a_m = alpha / max(m, 1)
    conds = len(claim.parts)
    sequential = adaptive_block is not None and claim.sequential
    limit = adaptive_block["max_seeds"] if sequential else MAX_SEEDS
    sup, con = agreeing_seeds(claim, a_m, cells * conds, sequential, alpha, limit)
    test = "e-mean" if claim.estimand == "mean" else "e-share" if sequential else "sign"
    notes = [f"share > {claim.share:g}"] if claim.estimand != "mean" and claim.share != 0.5 else []
    if conds > 1:
        notes.append(f"{conds} conditions a cell")
    row.update(test=test, bonferroni=cells * conds, supported_after=sup, contradicted_after=con)
    if n < 2:
        row.update(supported="no", contradicted="no", seeds_needed=max(2, (sup or 2) + 1),
                   limit=n, note="; ".join(["no verdict from fewer than 2 seeds", *notes]))  # fmt: skip
        return row
    available = adaptive_block["max_seeds"] if sequential else n
    row["limit"] = available
    row["supported"] = "yes" if sup is not None and sup <= available else "no"
    row["contradicted"] = "yes" if con is not None and con <= available else "no"
    for which, verdict in enumerate(("supported", "contradicted")):
        step = 1 if row[verdict] == "yes" else _holm_step(claim, which, m, alpha, cells * conds, sequential, limit, available)
        row[f"{verdict}_step"] = step
        if step is not None and step > 1:
            notes.append(f"{verdict.upper()} from Holm step {step} of {m}")
    robust = [k + 1 for k in (sup, con) if k is not None]  # a seed of slack for leave-one-seed-out
    row["seeds_needed"] = sup if sequential else max(robust) if robust else None
    if sequential:
        row["seeds"] = f"{n}-{adaptive_block['max_seeds']}"
        if claim.estimand != "mean":
            # with one seed of a cell outside the claim: from how many seeds SUPPORTED survives leaving any seed out
            row["robust_from"] = _sequential_robust_seeds(claim.share, a_m, alpha, adaptive_block["max_seeds"])
    else:
        row["robust_from"] = max(robust) if len(robust) == 2 else None
    row["note"] = "; ".join(notes)
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
    ints = ("family", "bonferroni", "supported_after", "contradicted_after", "robust_from", "limit", "seeds_needed")
    return pd.DataFrame(rows, columns=PLAN_COLUMNS).astype(dict.fromkeys(ints, "Int64"))


def scope_plan(cfg, table: pd.DataFrame, cal: timing.Calibration | None = None,
               store: Path = run_store.STORE) -> list[dict]:  # fmt: skip
    """Per claim with robust_over: its universes, the runs its other universes add (at the study's
    seeds), their CPU minutes (``cal``), the agreeing seeds per universe that make it ROBUST (the
    verdict in every universe at the claim's level, which the scope inherits: the plan's
    supported_after) and the seeds, every one against the verdict, that make it LIMITED in one
    universe (at Holm over the universes besides the study's own)."""
    alpha = cfg.stats.get("alpha", measures.DEFAULT_CFG["alpha"])
    rows = []
    for name, study in cfg.studies.items():
        block = design.adaptive_block(cfg.raw["studies"][name])
        for claim in study.claims:
            if not claim.robust_over:
                continue
            universes = claim.universes()
            runs = {r.hash: r for u in design.other_universes(claim, study) for combo in design.claim_combinations(claim, study)
                    for r in [design.make_run(study, combo, s, u) for s in study.seeds]}  # fmt: skip
            todo = [r for r in runs.values() if not run_store.is_complete(Path(store) / r.hash)]
            row = table[(table["study"] == name) & (table["claim"] == claim.id)].iloc[0]
            sequential = block is not None and claim.sequential
            limit = block["max_seeds"] if sequential else MAX_SEEDS
            # the scope inherits its claim's level once the claim is decided: LIMITED at Holm over the other universes
            level = alpha / max(int(row["family"]), 1) / (len(universes) - 1)
            _, limited = agreeing_seeds(claim, level, _n_cells(study, claim) * len(claim.parts), sequential, alpha, limit)
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
        robust = f"ROBUST from {r['robust_after']} agreeing seeds per universe" if pd.notna(r["robust_after"]) else "ROBUST unreachable"
        limited = (f"LIMITED from {r['limited_after']} seeds failing in one universe" if r["limited_after"] is not None
                   else "LIMITED unreachable")  # fmt: skip
        out += textwrap.wrap(f"- scope of {r['claim']}: {r['universes']} universes over {r['over']}; {r['to_train']} of {r['runs']} "
                             f"runs to train{minutes}; {robust}, {limited} (seeds: {r['seeds']})", width,
                             subsequent_indent="  ")  # fmt: skip
    out += textwrap.wrap("A universe gets further seeds only once the verdict at the study's setting is reached, and none "
                         "that no further seeds within max_seeds could decide (the claims table says why).", width)  # fmt: skip
    return out


NOISE_ACCURACY = 0.8
"""The accuracy at which the plan states how often two identical models differ by more than a margin."""


def test_items(study, claim: Claim) -> int:
    """Test sequences one seed's value rests on, per run: the test set (with its twins), or for a
    metric of the task the sequences at every evaluated length in the claim's range."""
    s = study.runs()[0].settings
    task = data.task_of(s)
    if not claim.evaluated:
        return s.n_test * (2 if task.twins else 1)
    lo, hi = claim.lengths or (1, 10**6)
    lengths = [n for n in data.evaluated_lengths(s, study.eval_lengths) if lo <= n <= hi] or [s.seq_len]
    return s.n_test * len(lengths)


def identical_miss(margin: float, items: int, accuracy: float) -> float:
    """How often two identical models (each test item right with probability ``accuracy``, apart)
    differ by more than ``margin`` on ``items`` test items: exact, the difference of two binomials."""
    k = np.arange(items + 1)
    pmf = scipy_stats.binom.pmf(k, items, accuracy)
    diff = np.convolve(pmf, pmf[::-1])  # P(X - Y = d), d from -items to items
    d = np.arange(-items, items + 1) / items
    return float(diff[np.abs(d) > margin + 1e-12].sum())


def estimand_plan(cfg, table: pd.DataFrame) -> list[dict]:
    """Per claim with a margin on a metric's difference (equivalent, not_worse): its estimand, the
    per-seed noise of its test set (the sd of two identical models' difference at accuracy 0.5, the
    largest), how often identical models miss the margin at NOISE_ACCURACY, whether the margin is
    below that noise under the share estimand (a warning), and the price of the mean test: the
    fewest seeds, every one at difference 0, with which it reaches SUPPORTED at the claim's level."""
    alpha = cfg.stats.get("alpha", measures.DEFAULT_CFG["alpha"])
    rows = []
    for name, study in cfg.studies.items():
        block = design.adaptive_block(cfg.raw["studies"][name])
        for claim in study.claims:
            margin = claim.keys.get("margin")
            if margin is None or claim.exact or claim.scale != "difference" or claim.metric not in ("test_acc", "accuracy",
                                                                                                  "exact_match", "token_accuracy", "final_train_acc"):  # fmt: skip
                continue
            row = table[(table["study"] == name) & (table["claim"] == claim.id)].iloc[0]
            items = test_items(study, claim)
            sd = math.sqrt(2 * 0.25 / items)
            level = alpha / max(int(row["family"]), 1)
            price = _fewest(lambda n, c=claim: _mean_p_at_zero(c, n, alpha), level, MAX_SEEDS)
            rows.append({"study": name, "claim": claim.id, "estimand": claim.estimand, "margin": margin, "items": items,
                         "sd": sd, "miss": identical_miss(margin, items, NOISE_ACCURACY),
                         "warn": claim.estimand == "share" and margin < sd, "mean_seeds": price, "limit": row["limit"]})  # fmt: skip
    return rows


def _mean_p_at_zero(claim: Claim, n: int, alpha: float) -> float:
    """The mean test's SUPPORTED p on ``n`` seeds whose every difference is exactly 0."""
    part = claim.parts[0]
    x = np.zeros(n)
    return float(seedtests.mean_p(x, x, part.condition.band, verdicts.bounds(claim, part), alpha)[0])


def estimand_lines(rows: list[dict], width: int = WIDTH) -> list[str]:
    """Each margin claim's estimand, its test set's noise and the mean test's price, in words."""
    if not rows:
        return []
    out = ["Estimands and test-set noise (claims with a margin on a difference):"]
    for r in rows:
        price = (f"the mean test reaches SUPPORTED from {r['mean_seeds']} seeds per cell, every one at difference 0"
                 if r["mean_seeds"] is not None else f"the mean test needs more than {MAX_SEEDS} seeds per cell")
        text = (f"- {r['claim']}: estimand {r['estimand']}; {r['items']} test sequences per run: two identical models "
                f"differ with sd {100 * r['sd']:.2g} pp at accuracy 0.5, and by more than {100 * r['margin']:.3g} pp in "
                f"{100 * r['miss']:.0f} % of seeds at accuracy {NOISE_ACCURACY:g}; {price}")  # fmt: skip
        out += textwrap.wrap(text, width, subsequent_indent="  ")
        if r["warn"]:
            out += textwrap.wrap(f"warning: {r['claim']}: its margin ({100 * r['margin']:.3g} pp) is below the per-seed noise "
                                 f"of its test set ({100 * r['sd']:.2g} pp): under the share estimand identical models "
                                 "miss it in many seeds; the mean estimand tests the average difference", width,
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
    read), how many the store holds, what is left to train and its CPU minutes on this machine
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


def _seeds(value, limit) -> str:
    """A number of seeds as the table prints it: "!" past what the claim may have, ">N" when not
    within its N seeds, "-" where nothing applies."""
    if pd.isna(value):
        return "-" if pd.isna(limit) else f">{limit}"
    return f"{value}!" if not pd.isna(limit) and value > limit else f"{value}"


def display(table: pd.DataFrame) -> pd.DataFrame:
    """The plan as people read it (the terminal and the report): one row per claim, the numbers as
    columns under the headers of HEADERS."""
    rows = []
    for r in table.itertuples():
        robust = "-" if r.test in ("exact", "e-mean") or pd.isna(r.limit) else _seeds(r.robust_from, r.limit)
        rows.append([r.study, r.claim, r.kind, str(r.seeds), str(r.cells), r.test, _seeds(r.supported_after, r.limit),
                     _seeds(r.contradicted_after, r.limit), robust, r.note])  # fmt: skip
    return pd.DataFrame(rows, columns=["study", *HEADERS, "note"])


HEADERS = ("claim", "kind", "seeds", "cells", "test", "SUPPORTED", "CONTRADICTED", "robust")
"""The plan's columns. SUPPORTED and CONTRADICTED: seeds after which the verdict can be reached."""


def legend(table: pd.DataFrame) -> list[str]:
    """What the columns mean, once: the tests the plan names, then the seed columns."""
    used = [t for t in TESTS if t in set(table["test"])]
    return ["test: " + "; ".join(f"{t} = {TESTS[t]}" for t in used) + ".",
            "SUPPORTED, CONTRADICTED: the fewest seeds, every one agreeing, that reach the verdict at the study's "
            "Holm level (CONTRADICTED in one cell pays Bonferroni over the claim's cells); "
            "N! = more seeds than the claim may have; >N = not within its N seeds; \"from Holm step k of m\": "
            "within them only at a later Holm level, alpha / (m - k + 1), once k - 1 claims of the family are decided.",
            "robust: seeds from which the verdict survives leaving any one seed out (adaptive: SUPPORTED with one "
            "seed of a cell outside the claim)."]  # fmt: skip


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
        out += textwrap.wrap(f"{study}: {_family_words(table[table['study'] == study], alpha)}", width)
        for r in group.itertuples(index=False):
            values = [getattr(r, h) for h in cols]
            if len(r.claim) + 2 > claim_w:
                out += textwrap.wrap(r.claim, width, initial_indent="  ", subsequent_indent="  ")
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
    out = textwrap.wrap(head, width) + table.rename(columns=COST_HEADERS).to_string(index=False).splitlines()
    if cal is not None:
        first, every = est["wall_minutes"]
        out += textwrap.wrap(f"Wall time at {est['cores']} cores: about {_minutes([first, every])} minutes "
                             f"(adaptive studies: first round-every round).", width)  # fmt: skip
        if cal.other_share > timing.BUSY:
            out += textwrap.wrap(f"Other processes used {100 * cal.other_share:.0f} % of the CPU while timing: at that "
                                 f"load, if it lasts: about {_minutes(est['busy_minutes'])} minutes.", width)  # fmt: skip
    return out


def warnings(table: pd.DataFrame, width: int = WIDTH) -> list[str]:
    """A line for each claim whose seeds cannot reach a verdict at every Holm step: a warning where
    not even at the family's last step, a note where only from a later step (once other claims of its
    family are decided, which the run shows)."""
    out = []
    for r in table[(table["supported"] == "no") | (table["contradicted"] == "no")].itertuples():
        never = [v for v in ("SUPPORTED", "CONTRADICTED") if pd.isna(getattr(r, f"{v.lower()}_step"))]
        later = [f"{v} only from Holm step {int(getattr(r, f'{v.lower()}_step'))} of {int(r.family)}"
                 for v in ("SUPPORTED", "CONTRADICTED")
                 if getattr(r, v.lower()) == "no" and v not in never]  # fmt: skip
        everywhere = f"{r.seeds_needed} would reach both at every step" if pd.notna(r.seeds_needed) else ""
        if never:
            missing = "reach neither verdict" if len(never) == 2 else f"cannot reach {never[0]}"
            words = f"warning: {r.claim}: its {r.seeds} seeds {missing}" + "".join(f"; {w}" for w in (*later, everywhere) if w)
        else:
            words = f"note: {r.claim}: its {r.seeds} seeds reach " + "; ".join(later) + (f"; {everywhere}" if everywhere else "")
        out += textwrap.wrap(words, width, subsequent_indent="  ")
    return out


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
    if args.csv:
        print(table.to_csv(index=False))
        print(est["table"].to_csv(index=False), end="")
        return 0
    title = f"Plan for {args.config}: {len(table)} claims, Holm over the claims of each {family} at alpha {alpha:g}"
    if selection.left_out(cfg, chosen):
        title += f"; the studies {', '.join(chosen)} (left out: {', '.join(selection.left_out(cfg, chosen))})"
    print(title if args.wide else "\n".join(textwrap.wrap(title, WIDTH, subsequent_indent="  ")))
    if args.wide:
        print(table.to_string(index=False) if len(table) else "(no claims)")
    else:
        print("\n".join(layout(table, alpha)) if len(table) else "(no claims)")
    print("\n".join(["", *(legend(table) if args.wide else
                            [w for line in legend(table) for w in textwrap.wrap(line, WIDTH, subsequent_indent="  ")])]))  # fmt: skip
    scoped = scope_lines(scope_plan(selection.restrict(cfg, chosen), table, est["calibration"]),
                         10**6 if args.wide else WIDTH)  # fmt: skip
    if scoped:
        print("\n" + "\n".join(scoped))
    estimands = estimand_lines(estimand_plan(selection.restrict(cfg, chosen), table), 10**6 if args.wide else WIDTH)
    if estimands:
        print("\n" + "\n".join(estimands))
    print("\n" + "\n".join(cost_lines(est, 10**6 if args.wide else WIDTH)))
    text = warnings(table, 10**6 if args.wide else WIDTH)
    if text:
        print("\n".join(text))
    why = selection.why_every_study(cfg, chosen)
    checked = run_store.check_code(run_store.config_hashes(cfg, trains), cfg.train_threads)
    retrain = run_store.retrain_command(args.config, args.studies)
    code = ([why] if why else []) + run_store.code_lines(checked, retrain.replace(" ", "\xa0"))  # one piece
    print("\n" + "\n".join(w.replace("\xa0", " ") for line in code
                            for w in (textwrap.wrap(line, WIDTH, subsequent_indent="  ", break_on_hyphens=False)
                                      if not args.wide else [line])))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
