"""What a study's claims read, in words: each claim's metric and test lengths and the figure of the
study that shows them (the report's study sections open with these), and what a claim's n counts
where its cells hold different numbers of seeds."""

from __future__ import annotations

import math
import re

from .kinds import Claim

METRIC_WORDS = {"test_acc": "test accuracy", "converged": "share of runs that converged",
                "final_train_acc": "final training accuracy"}  # fmt: skip


def seeds_text(c: dict) -> str:
    """What a claim's n counts: its seeds, or their range where the cells it is judged in hold different
    numbers of seeds (an adaptive study's rounds add seeds to some cells only; its ``detail`` counts
    "k of n seeds" per cell)."""
    per_cell = [int(m) for m in re.findall(r"\b\d+ of (\d+) seeds", str(c.get("detail") or ""))]
    if per_cell and min(per_cell) != max(per_cell):
        return f"{min(per_cell)}-{max(per_cell)} seeds (by cell)"
    n = c.get("n")
    return "" if n is None or (isinstance(n, float) and math.isnan(n)) else f"{int(n)} seeds"


def claim_reads(claim: Claim) -> tuple[str, str]:
    """(what the claim reads in words, the figure of the study that shows it)."""
    if claim.scale == "slope":
        return "the slope of ln(gradient norm at step 0) over the layers", "grad_norms_init"
    words = METRIC_WORDS.get(claim.metric, claim.metric)
    if claim.evaluated:
        lo, hi = claim.lengths or (None, None)
        at = "each run's trained lengths" if lo is None else f"test length {lo}" if lo == hi else f"test lengths {lo} to {hi}"
        return f"{words} at {at}", "length_generalization"
    if claim.metric == "test_acc":
        return f"{words} at the trained length", "accuracy_by_factor"
    return words, ""


def study_lead(study) -> dict:
    """What a study's claims read, each reading with the claims that read it, and the figures that show
    them (shown first in its section); whether any claim reads test accuracy at the trained length, which
    the generic tables show (otherwise they come folded, after)."""
    reads: dict[str, list[str]] = {}
    figures = []
    for claim in study.claims:
        words, figure = claim_reads(claim)
        reads.setdefault(words, []).append(claim.id)
        if figure and figure not in figures:
            figures.append(figure)
    return {"reads": [{"words": w, "claims": ids} for w, ids in reads.items()], "lead_figures": tuple(figures),
            "generic_read": any(c.metric == "test_acc" and not c.evaluated for c in study.claims) or not study.claims}  # fmt: skip
