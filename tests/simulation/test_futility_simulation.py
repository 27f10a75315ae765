"""The futility rule never stops a cell that its remaining seeds could still decide, by brute force.

An adaptive study stops giving seeds to an open claim when ``verdicts.reachable(claim, runs, judge,
level)`` says that even the most favourable further seeds, up to ``max_seeds``, could not bring
either verdict's p to ``level`` (``verdicts.futility`` and the adaptive rounds use it). It asks only
the most favourable value per verdict; this simulation checks that shortcut against every outcome.
Many partial seed sequences (n < max_seeds seeds, drawn from ties-heavy, all-tied, unimodal,
bound-touching and mixture distributions) are put into summaries and ``seed_units.StudyRuns`` with
an adaptive ``design``; for each, ``reachable`` is asked at a level, and every continuation of the
remaining seeds over a grid of values is judged by the sequential rule (the e-process read at the
design's round ends, ``verdicts.p_values`` on the cell's seeds and the continuation; its p only falls
as seeds arrive, so p at max_seeds is the smallest along the way):

- a 0/1 metric (``converged``): each further seed's difference in {-1, 0, 1} (or value in {0, 1}),
  every sequence, for up to 8 remaining seeds;
- test accuracy: differences in {-1, -0.5, 0, 0.5, 1} (values in {0, 0.5, 0.9, 1}), every sequence,
  for up to 5 remaining seeds; some runs diverged (their seed's value an interval).

Where ``reachable`` says False no continuation reaches p <= level for either verdict (the rule never
stops a cell its seeds could decide); where it says True one does (the favourable values are on the
grid), so the rule and the brute force agree exactly. Claims: ``better`` with ties counted and with
``ties: exclude``, ``not_worse`` (both tie rules) and ``at_least``. The rule does stop cells (an
all-tied ``better`` under ``ties: exclude`` with 3 seeds left, among others), so the test can fail.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from ablation import config as ablation_config
from ablation import seed_units, verdicts

ALPHA = 0.05
GRID = 300
FACTORS = ("cell", "norm")
LEVELS = ["post", "pre"]  # [baseline, other]
JUDGE = verdicts.Judge.of({"alpha": ALPHA})
LEVELS_TESTED = (0.05, 0.025, 0.0125)  # alpha / the claims still open in the study's family


def build(kind: str, metric: str, **keys):
    raw = {"id": f"c-{kind}", "statement": f"a {kind} claim", "source": "simulation", "kind": kind, "metric": metric,
           **keys}  # fmt: skip
    if kind in ("better", "not_worse"):
        raw |= {"factor": "norm", "levels": LEVELS}
    return ablation_config.check_claims([raw], list(FACTORS), ["run_id", "test_acc", "test_total", "status"])[0]


# --------------------------------------------------------------------------- summaries of partial sequences


def run(rows, seed, level, correct=GRID, converged=True, diverged=False):
    rows.append(dict(run_id=f"r{len(rows)}", seed=seed, cell="c0", norm=level,
                     status="diverged" if diverged else "ok", final_train_acc=1.0 if converged else 0.5,
                     test_correct=correct, test_total=GRID,
                     test_acc=np.nan if diverged else correct / GRID))  # fmt: skip


def paired_summary(d: np.ndarray, metric: str, diverged: np.ndarray) -> pd.DataFrame:
    """Two levels per seed whose difference other - baseline is ``d`` (in GRID-ths for test_acc, in
    {-1, 0, 1} for converged); a seed with ``diverged`` has its baseline run diverged."""
    rows = []
    for seed, (x, div) in enumerate(zip(d, diverged)):
        if metric == "converged":
            both = bool(seed % 2)  # a tie: both converged or both not, alternately
            run(rows, seed, LEVELS[0], converged=x < 0 or (x == 0 and both))
            run(rows, seed, LEVELS[1], converged=x > 0 or (x == 0 and both))
        else:
            base = GRID - max(int(x), 0)
            run(rows, seed, LEVELS[0], base, diverged=bool(div))
            run(rows, seed, LEVELS[1], base + int(x))
    return pd.DataFrame(rows)


def one_level_summary(v: np.ndarray, metric: str, diverged: np.ndarray) -> pd.DataFrame:
    rows = []
    for seed, (x, div) in enumerate(zip(v, diverged)):
        if metric == "converged":
            run(rows, seed, LEVELS[0], converged=bool(x))
        else:
            run(rows, seed, LEVELS[0], int(x), diverged=bool(div))
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- partial sequences
# Each draws n seeds' values: a paired claim's difference (GRID-ths, or {-1, 0, 1} for converged),
# an at_least claim's test_correct out of GRID (or 0/1 for converged).


def converged_diffs(rng, n):
    family = rng.integers(3)
    if family == 0:  # ties-heavy: 60-90 % ties
        tie = rng.uniform(0.6, 0.9)
        u = rng.random(n)
        return "ties-heavy", np.where(u < tie, 0, np.where(rng.random(n) < 0.5, 1, -1))
    if family == 1:
        return "all-tied", np.zeros(n, dtype=int)
    pb, po = rng.uniform(0.1, 0.95, 2)  # mixture: each level converges independently
    return "mixture", (rng.random(n) < po).astype(int) - (rng.random(n) < pb).astype(int)


def accuracy_diffs(rng, n):
    family = rng.integers(5)
    if family == 0:  # ties-heavy: 40-80 % exact ties
        tie = rng.uniform(0.4, 0.8)
        return "ties-heavy", np.where(rng.random(n) < tie, 0, rng.integers(-20, 21, n))
    if family == 1:
        return "all-tied", np.zeros(n, dtype=int)
    if family == 2:  # unimodal on the grid
        return "unimodal", rng.binomial(40, rng.uniform(0.2, 0.8), n) - 20
    if family == 3:  # bound-touching: each level exactly 1.0 or exactly chance
        fb, fo = rng.uniform(0, 0.6, 2)
        return "bound", np.where(rng.random(n) < fo, GRID // 2, GRID) - np.where(rng.random(n) < fb, GRID // 2, GRID)
    fb, fo = rng.uniform(0, 0.6, 2)  # mixture: learn near 1.0 or fail at chance

    def level(f):
        return np.where(rng.random(n) < f, rng.binomial(GRID, 0.5, n), GRID - rng.binomial(10, 0.1, n))

    return "mixture", level(fo) - level(fb)


def converged_values(rng, n):
    family = rng.integers(2)
    if family == 0:
        return "all-converged", np.ones(n, dtype=int)
    return "mixture", (rng.random(n) < rng.uniform(0.1, 0.95)).astype(int)


def accuracy_values(rng, n):
    family = rng.integers(3)
    if family == 0:  # unimodal about the threshold (270)
        return "unimodal", rng.binomial(GRID, rng.uniform(0.85, 0.95), n)
    if family == 1:  # bound-touching
        return "bound", np.where(rng.random(n) < rng.uniform(0.1, 0.9), GRID, GRID // 2)
    return "mixture", np.where(rng.random(n) < rng.uniform(0.1, 0.9), GRID - rng.binomial(10, 0.1, n),
                               rng.binomial(GRID, 0.5, n))  # fmt: skip


# (name, claim, draw, paired, grid of a further seed's value, most remaining seeds brute-forced)
CASES = [
    ("better, converged, ties count", build("better", "converged"), converged_diffs, True, (-1.0, 0.0, 1.0), 8),
    ("better, converged, ties exclude", build("better", "converged", ties="exclude"), converged_diffs, True,
     (-1.0, 0.0, 1.0), 8),
    ("not_worse 0.1, converged, ties count", build("not_worse", "converged", margin=0.1), converged_diffs, True,
     (-1.0, 0.0, 1.0), 8),
    ("not_worse 0.1, converged, ties exclude", build("not_worse", "converged", margin=0.1, ties="exclude"),
     converged_diffs, True, (-1.0, 0.0, 1.0), 8),
    ("at_least 1, converged", build("at_least", "converged", threshold=1.0), converged_values, False, (0.0, 1.0), 8),
    ("better, test_acc, ties count", build("better", "test_acc"), accuracy_diffs, True, (-1, -0.5, 0, 0.5, 1), 5),
    ("better, test_acc, ties exclude", build("better", "test_acc", ties="exclude"), accuracy_diffs, True,
     (-1, -0.5, 0, 0.5, 1), 5),
    ("not_worse 0.02, test_acc, ties count", build("not_worse", "test_acc", margin=0.02), accuracy_diffs, True,
     (-1, -0.5, 0, 0.5, 1), 5),
    ("at_least 0.9, test_acc", build("at_least", "test_acc", threshold=0.9), accuracy_values, False,
     (0.0, 0.5, 0.9, 1.0), 5),
]  # fmt: skip
PARTIALS = 150  # partial sequences per claim, each asked at every level


def continuations(grid, r: int) -> np.ndarray:
    """Every sequence of r further seeds' values on ``grid``: (len(grid) ** r, r)."""
    return np.array(list(itertools.product(grid, repeat=r)), dtype=float).reshape(-1, r)


def best_p(c, cell: seed_units.Cell, grid, r: int, design: dict) -> float:
    """The smallest min(p_sup, p_con) any continuation of r further seeds reaches: the sequential
    rule (``verdicts.p_values``, the e-process read at the design's round ends) on the cell's seeds
    followed by the continuation."""
    more = continuations(grid, r)
    lo = np.concatenate([np.broadcast_to(cell.lo, (len(more), cell.n)), more], axis=1)
    hi = np.concatenate([np.broadcast_to(cell.hi, (len(more), cell.n)), more], axis=1)
    looks = verdicts.looks_of(design, np.arange(cell.n + r))
    p_sup, p_con = verdicts.p_values(c, c.parts[0], lo, hi, cell.step, True, ALPHA, looks)
    return float(np.minimum(p_sup, p_con).min())


@pytest.mark.parametrize("name, c, draw, paired, grid, most", CASES, ids=[case[0] for case in CASES])
def test_futility_never_stops_a_cell_its_remaining_seeds_could_decide(name, c, draw, paired, grid, most):
    """For partial seed sequences of every distribution family, ``verdicts.reachable`` agrees with
    the brute force over every continuation to max_seeds: False only where no continuation brings
    either verdict's p to the level (never a cell its remaining seeds could decide), True only where
    one does."""
    rng = np.random.default_rng([31, [case[0] for case in CASES].index(name)])
    stopped, open_, by_family = 0, 0, {}
    for _ in range(PARTIALS):
        max_seeds = int(rng.choice([8, 10, 12, 15]))
        n = int(rng.integers(max(2, max_seeds - most), max_seeds))
        family, values = draw(rng, n)
        diverged = (rng.random(n) < 0.1) if c.metric == "test_acc" else np.zeros(n, dtype=bool)
        summary = (paired_summary if paired else one_level_summary)(values, c.metric, diverged)
        runs = seed_units.StudyRuns("s", summary, FACTORS, None, {"seeds": list(range(n)), "max_seeds": max_seeds,
                                                                  "batch": 5}, (c,))  # fmt: skip
        (cell,), = seed_units.claim_cells(c, runs, JUDGE.cfg)[0]
        assert cell.n == n
        best = best_p(c, cell, grid, max_seeds - n, runs.design)
        for level in LEVELS_TESTED:
            says = verdicts.reachable(c, runs, JUDGE, level)
            where = (name, family, values.tolist(), diverged.tolist(), max_seeds, level, best)
            assert says or best > level, where  # a stopped cell: no continuation decides it
            assert not says or best <= level, where  # an open cell: some continuation does
            stopped += not says
            open_ += says
            key = (family, says)
            by_family[key] = by_family.get(key, 0) + 1
    print(f"\n{name}: {PARTIALS} partial sequences x {len(LEVELS_TESTED)} levels: reachable False {stopped} "
          f"(every continuation checked), True {open_}; by family: "
          + ", ".join(f"{f} {'open' if s else 'stopped'} {k}" for (f, s), k in sorted(by_family.items())))  # fmt: skip
    assert open_ > 0


def test_futility_stops_cells_no_seeds_could_decide():
    """The rule does stop cells, so the brute-force test can fail: an all-tied ``better`` under
    ``ties: exclude`` with 3 seeds left (3 improvements give p = 1/1.9^3 > alpha) is stopped, and
    with 5 left it is not; with ties counted the same all-tied cell is not stopped (its ties already
    speak against it). Every one is checked against the brute force."""
    exclude, count = CASES[1][1], CASES[0][1]
    rows = []
    cases = [(exclude, 3, False), (exclude, 4, False), (exclude, 5, True), (count, 3, True), (count, 1, True)]
    for c, left, want in cases:
        n = 7
        summary = paired_summary(np.zeros(n, dtype=int), "converged", np.zeros(n, dtype=bool))
        runs = seed_units.StudyRuns("s", summary, FACTORS, None, {"seeds": list(range(n)), "max_seeds": n + left,
                                                                  "batch": 5}, (c,))  # fmt: skip
        (cell,), = seed_units.claim_cells(c, runs, JUDGE.cfg)[0]
        says = verdicts.reachable(c, runs, JUDGE, ALPHA)
        best = best_p(c, cell, (-1.0, 0.0, 1.0), left, runs.design)
        rows.append((c.keys["ties"], left, says, best))
        assert says == want, (c.keys["ties"], left, best)
        assert says == (best <= ALPHA), (c.keys["ties"], left, best)
    print("\nall-tied better, 7 seeds: " + "; ".join(f"ties {t}, {k} left: reachable {s} (best p {b:.4f})"
                                                    for t, k, s, b in rows))  # fmt: skip
