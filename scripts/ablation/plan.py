"""Before any training: which verdicts can each claim of a config reach with its configured seeds?

A verdict that the design cannot reach is a warning, not an error: the claims table will say
INCONCLUSIVE whatever the runs show, so more seeds (or a wider margin) are needed first. The rules
mirror ``ablation.claims``: every claim of the config is one Holm family of m claims, so a claim
that must be decisive wherever it falls in Holm's order needs p <= alpha / m; a claim judged in
every cell needs Bonferroni over the cells for CONTRADICTED.

    python -m ablation.plan config/config.yaml
"""

from __future__ import annotations

import math
import sys

import pandas as pd
from scipy import special
from scipy.stats import ksone

from . import config as ablation_config
from . import stats

PLAN_COLUMNS = ["study", "claim", "kind", "seeds", "cells", "supported", "contradicted", "seeds_needed", "note"]
MAX_SEEDS = 10_000


def _seeds_for(ok) -> int | None:
    """Fewest seeds n (2..MAX_SEEDS) with ok(n) true, ok monotone in n; None if none."""
    if not ok(MAX_SEEDS):
        return None
    lo, hi = 2, MAX_SEEDS
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid + 1, hi)
    return lo


def _ks(n: int, alpha: float) -> float:
    """Half-width factor of Anderson's bound (every seed equal) at two-sided level alpha."""
    return float(ksone.ppf(1 - alpha / 2, n))


def _n_cells(study, claim: dict) -> int:
    """Cells a claim is judged in: combinations of the factors it neither compares nor fixes."""
    if claim.get("cells", "every") == "average":
        return 1
    skip = {claim.get("factor")}
    counts = []
    for f, levels in study.factors.items():
        if f in skip:
            continue
        where = claim.get("where", {}).get(f)
        counts.append(len(where) if isinstance(where, list) else 1 if where is not None else len(levels))
    return math.prod(counts)


def claim_plan(study, claim: dict, m: int, alpha: float) -> dict:
    """Reachability of SUPPORTED and CONTRADICTED for one claim; alpha_m = alpha / m is the Holm
    level a claim meets wherever it ranks."""
    seeds = claim.get("where", {}).get("seed", study.seeds)
    n = len(seeds) if isinstance(seeds, list) else 1
    cells = _n_cells(study, claim)
    kind, metric = claim["kind"], claim.get("metric", "test_acc")
    a_m = alpha / m
    row = dict(study=study.name, claim=claim["id"], kind=kind, seeds=n, cells=cells)
    if kind == "better":
        # the sign-flip test's floor 2 / 2**n against the Holm level; every cell for SUPPORTED,
        # Bonferroni over cells for CONTRADICTED
        floor = stats.reachable_p(n)
        row["supported"] = "yes" if floor <= a_m else "only early in Holm's order" if floor <= alpha else "no"
        row["contradicted"] = "yes" if floor * cells <= a_m else "no" if floor * cells > alpha else "only early in Holm's order"
        row["seeds_needed"] = stats.seeds_to_reach(a_m / cells)
        row["note"] = f"smallest p with {n} seeds: {floor:.4g}; Holm level alpha / m = {a_m:.4g} over {m} claims"
        return row
    if n < 2:
        row.update(supported="no", contradicted="no", seeds_needed=2, note="an interval over seeds needs 2 seeds")
        return row
    row.update(supported="yes", contradicted="yes")
    # what every seed equal (the degenerate outcome) can decide: Clopper-Pearson for a 0/1 metric,
    # Tango's score interval for paired 0/1 differences, else Anderson's bound
    if kind in ("at_value", "at_least") and metric == "converged":
        target = claim["threshold"] if kind == "at_least" else claim["target"] - claim["tolerance"]
        ok = lambda k: (a_m / 2) ** (1 / k) >= target  # noqa: E731 (all seeds converge: CP lower bound)
        row["supported"] = "yes" if ok(n) else "no"
        row["seeds_needed"] = _seeds_for(ok)
        row["note"] = "with every seed converged, Clopper-Pearson's lower bound must clear the bound"
        return row
    if kind == "at_value":
        v, tol = claim["target"], claim["tolerance"]
        ok = lambda k: _ks(k, a_m) * max(v, 1 - v) <= tol  # noqa: E731
    elif kind == "at_least":
        ok = lambda k: (a_m / 2) ** (1 / k) >= claim["threshold"]  # noqa: E731 (every seed at 1.0)
    elif kind in ("equivalent", "not_worse") and metric == "converged" and claim.get("cells", "every") == "every":
        z2 = special.ndtri(1 - a_m / 2) ** 2
        ok = lambda k: z2 / (k + z2) <= claim["margin"]  # noqa: E731 (every pair concordant: Tango's bound)
    elif kind in ("equivalent", "not_worse"):
        ok = lambda k: _ks(k, a_m) <= claim["margin"]  # noqa: E731 (every seed difference 0)
    else:
        ok = None
    if ok is not None:
        needed = _seeds_for(ok)
        row["seeds_needed"] = needed if needed is not None and needed > n else None
        if needed is None:
            equal = f"SUPPORTED needs more than {MAX_SEEDS:,} seeds"
        elif needed > n:
            equal = f"SUPPORTED needs {needed} seeds"
        else:
            equal = "that decides too"
        row["note"] = "reachable when the seeds differ (skew-corrected t); if every seed gives the same value, " + equal
    else:
        row["seeds_needed"], row["note"] = None, "reachable when the slopes' intervals are narrow enough"
    return row


def _adaptive_plan(cfg, row: dict, m: int, alpha: float) -> None:
    """An adaptive study's claim with an anytime-valid rule: what its rounds can reach by max_seeds
    (``ablation.adaptive``: p <= alpha / m, Bonferroni over the config's claims)."""
    from . import adaptive, sequential  # noqa: PLC0415 (scipy-free, but the claims code is not needed otherwise)

    block = adaptive.settings(cfg.raw["studies"][row["study"]])
    study = cfg.studies[row["study"]]
    claim = next(c for c in study.claims if c["id"] == row["claim"])
    if block is None or claim["kind"] not in sequential.SEQUENTIAL_KINDS:
        return
    n_cells = row["cells"] if claim.get("cells", "every") == "every" else 1
    sup, con = sequential.seeds_to_resolve(claim, alpha, alpha / m, block["max_seeds"], n_cells)
    row.update(
        seeds=f"{row['seeds']}-{block['max_seeds']}", supported="yes" if sup else "no",
        contradicted="yes" if con else "no", seeds_needed=sup,
        note=f"adaptive (anytime-valid): with the most favourable seeds SUPPORTED after {sup or 'more than max_seeds'}"
        f", CONTRADICTED after {con or 'more than max_seeds'} seeds, at alpha / m = {alpha / m:.4g}",
    )  # fmt: skip


def plan(cfg) -> pd.DataFrame:
    """One row per claim of the config: PLAN_COLUMNS."""
    m = sum(len(study.claims) for study in cfg.studies.values())
    alpha = cfg.stats.get("alpha", stats.DEFAULT_CFG["alpha"])
    rows = [claim_plan(study, claim, m, alpha) for study in cfg.studies.values() for claim in study.claims]
    for row in rows:
        _adaptive_plan(cfg, row, m, alpha)
    return pd.DataFrame(rows, columns=PLAN_COLUMNS).astype({"seeds_needed": "Int64"})


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
    print(f"Plan for {argv[0]}: {m} claim(s), one Holm family at alpha {cfg.stats.get('alpha', 0.05):g}")
    print(table.to_string(index=False) if m else "(no claims)")
    blocked = table[(table["supported"] == "no") | (table["contradicted"] == "no")]
    for row in blocked.itertuples():
        print(f"warning: claim {row.claim}: with {row.seeds} seeds SUPPORTED is {row.supported}, CONTRADICTED is "
              f"{row.contradicted}" + (f"; {row.seeds_needed} seeds would reach them" if pd.notna(row.seeds_needed) else ""))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
