"""The report's largest effects: the paired comparisons with the largest mean seed difference, each with
every seed counted (up, down, tied: a tie moves neither way), the exact interval of the share of seeds
that move its way and the exact sign test over seeds."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from . import intervals, outputs
from .seedtests import share_p

LARGEST_EFFECTS = 3
EMPTY = ""


def _isnan(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _moves(r: dict) -> tuple[int, int, int] | None:
    """(up, down, tied) seeds of a comparison row, or None where it has no counts."""
    up, down, n = r.get("n_up"), r.get("n_down"), r.get("n_seeds")
    if _isnan(up) or _isnan(down) or _isnan(n) or n == 0:
        return None
    return int(up), int(down), int(n) - int(up) - int(down)


def direction_text(r: dict) -> str:
    """'1 up, 0 down, 9 tied of 10: 1 of 10 move up (0-45 %)': every seed counted, a tie among those
    that do not move the effect's way, with the exact interval of that share."""
    moves = _moves(r)
    if moves is None:
        return "no seed counted"
    up, down, tied = moves
    n = up + down + tied
    k, way = (up, "up") if up >= down else (down, "down")
    lo, hi = intervals.clopper_pearson_ci(k, n, 0.95)
    return f"{up} up, {down} down, {tied} tied of {n}: {k} of {n} move {way} ({100 * lo:.0f}-{100 * hi:.0f} %)"


def sign_test_p(r: dict) -> float:
    """Two-sided exact test of "more than half the seeds move one way", every seed counted (a tie
    moves neither way): the binomial test the claims put a share of seeds to (``seedtests.share_p``,
    one-sided), on both sides."""
    moves = _moves(r)
    if moves is None:
        return float("nan")
    up, down, tied = moves
    k = max(up, down)
    return float(min(1.0, 2 * share_p(k, k, up + down + tied, 0.5)[0]))


def largest_effects(results: Path, studies: list[str], k: int = LARGEST_EFFECTS) -> list[dict]:
    """The ``k`` paired comparisons with the largest mean seed difference, each with the share of
    seeds that move its way (exact interval), the range over seeds and the exact sign test over
    seeds: exact whatever mixture the seeds come from, where an interval of the mean over a few
    bound-touching seeds says little. The sign test is the claims' own test of a share of seeds,
    unadjusted: these rows are the largest of all comparisons, not claims."""
    rows = []
    for name in studies:
        path = results / name / outputs.table("comparisons").file
        if path.is_file():
            df = pd.read_csv(path, dtype={"level_a": str, "level_b": str})
            rows += [r | {"study": name} for r in df.to_dict("records") if not _isnan(r.get("mean_diff"))]
    rows.sort(key=lambda r: -abs(r["mean_diff"]))
    return [
        {
            "study": r["study"],
            "what": f"{r['factor']} = {r['level_b']} instead of {r['level_a']}",
            "effect": f"{100 * r['mean_diff']:+.1f} pp",
            "direction": direction_text(r),
            "range": EMPTY if _isnan(r.get("seed_min")) else f"{100 * r['seed_min']:+.1f} to {100 * r['seed_max']:+.1f} pp",
            "n": f"{int(r['n_seeds'])} seeds",
            "sign_p": EMPTY if _isnan(sign_test_p(r)) else f"{sign_test_p(r):.2g}",
        }
        for r in rows[:k]
    ]
