#!/usr/bin/env python3
"""How many seeds does the mean's t-test need to decide a margin claim, beside the betting e-process?

    .venv/bin/python benchmarks/probes/mean_test_power.py [--sims 2000] [--most 60] [--most-betting 400]

The default config's margin claims (equivalent and not_worse, margin 2 pp) compare test accuracies on
300 test sequences: a seed's paired difference lies on the grid 1/300. Each simulated study draws its
seeds' differences from Normal(delta, sd), rounded to that grid, at true differences 0, margin/2 and
2 x margin (toward the boundary: -margin/2 and -2 x margin for not_worse) and paired noise sd 0.1,
0.5 and 1.1 pp per seed (the spread per cell the runs show), and puts them through the claims table's
own test (``ablation.verdicts.p_values``, a fixed design: one look after its seeds) twice: the claim
with ``test: t`` (the default: the paired t-test, its assumption checked on the seeds, the share of
seeds where it fails) and with ``test: betting``. For each case it prints the fewest seeds with which
the right verdict (SUPPORTED inside the band, CONTRADICTED at 2 x margin) comes in at least 80 % of
the studies, one claim alone at ``--alpha``, and how often the t-test's assumption failed there (the
share test judged those studies). ">" a number: not within ``--most`` seeds (``--most-betting`` for
the betting e-process, which needs hundreds).

tests/simulation/test_mean_test_simulation.py asserts what this table shows: the t-test decides at
5-11 seeds where the betting e-process needs more than 60.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "benchmarks"))  # measured.py

from ablation import seedtests, verdicts  # noqa: E402 (the package lives under scripts/)
from ablation.config import check_claims  # noqa: E402
from measured import line, stamp  # noqa: E402

GRID = 300
MARGIN = 0.02
POWER = 0.8
SDS = (0.001, 0.005, 0.011)
KINDS = ("equivalent", "not_worse")


def claim(kind: str, test: str, margin: float = MARGIN):
    """A margin claim on the paired difference of two levels, estimand mean, with ``test``."""
    raw = {"id": kind, "statement": kind, "kind": kind, "factor": "variant", "levels": ["a", "b"], "margin": margin,
           "estimand": "mean", "test": test}  # fmt: skip
    return check_claims([raw], {"variant": ["a", "b"]}, [])[0]


def truths(kind: str, margin: float = MARGIN) -> list[tuple[str, float, str]]:
    """(the true difference in words, its value, the right verdict) of each case of ``kind``."""
    sign = 1 if kind == "equivalent" else -1
    return [("0", 0.0, "SUPPORTED"), (f"{'' if sign > 0 else '-'}margin/2", sign * margin / 2, "SUPPORTED"),
            (f"{'' if sign > 0 else '-'}2 x margin", sign * 2 * margin, "CONTRADICTED")]  # fmt: skip


def draw(rng, delta: float, sd: float, size) -> np.ndarray:
    """Paired per-seed differences: Normal(delta, sd) on the grid 1/300."""
    return np.round(rng.normal(delta, sd, size) * GRID) / GRID


def verdicts_of(c, d: np.ndarray, alpha: float) -> np.ndarray:
    """The claims table's verdict (``verdicts.decided``, one claim alone) per simulated study, seeds on
    the last axis."""
    p_sup, p_con = verdicts.p_values(c, c.parts[0], d, d, 1 / GRID, False, alpha)
    pairs, inverse = np.unique(np.stack([p_sup, p_con], -1), axis=0, return_inverse=True)
    each = np.array([verdicts.decided(float(s), float(q), verdicts.HolmStep(), alpha) for s, q in pairs], dtype=object)
    return each[inverse.ravel()]


def power(c, d: np.ndarray, right: str, alpha: float) -> float:
    """The share of studies (rows of ``d``) that reach ``right``."""
    return float(np.mean(verdicts_of(c, d, alpha) == right))


def seeds_needed(c, d: np.ndarray, right: str, alpha: float, bisect: bool = False) -> tuple[int | None, float]:
    """(the fewest seeds n whose first n seeds give ``right`` in at least POWER of the studies, or None
    within d's seeds; the share of studies whose t-test assumption failed at that n). Seed by seed,
    or (``bisect``: the betting e-process, whose power rises with n and which needs hundreds) by
    bisection between 2 and d's seeds."""
    most = d.shape[-1]
    if bisect:
        if power(c, d, right, alpha) < POWER:
            return None, float("nan")
        lo, hi = 2, most  # power(hi) >= POWER
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if power(c, d[:, :mid], right, alpha) >= POWER else (mid + 1, hi)
        return lo, float("nan")
    bounds = verdicts.bounds(c, c.parts[0])
    for n in range(2, most + 1):
        x = d[:, :n]
        if power(c, x, right, alpha) >= POWER:
            failed = float(np.mean(seedtests.normality(x, x, bounds, 1 / GRID) != seedtests.HOLDS))
            return n, failed
    return None, float("nan")


def table(sims: int = 2000, most: int = 60, most_betting: int = 400, alpha: float = 0.05, seed: int = 0,
          kinds=KINDS, sds=SDS) -> list[dict]:  # fmt: skip
    """One row per claim kind, true difference and noise sd: the seeds each test needs (the same
    simulated seeds for both, in the same order; a case's seeds do not depend on the others asked)."""
    rows = []
    for kind in kinds:
        k = KINDS.index(kind)
        t_claim, betting_claim = claim(kind, "t"), claim(kind, "betting")
        for j, (words, delta, right) in enumerate(truths(kind)):
            for sd in sds:
                i = SDS.index(sd)
                d = draw(np.random.default_rng([seed, k, j, i]), delta, sd, (sims, max(most, most_betting)))
                t_n, failed = seeds_needed(t_claim, d[:, :most], right, alpha)
                betting_n, _ = seeds_needed(betting_claim, d[:, :most_betting], right, alpha, bisect=True)
                rows.append({"claim": f"{kind} (margin {100 * MARGIN:g} pp)", "truth": words, "sd_pp": 100 * sd,
                             "right": right, "t": t_n, "failed": failed, "betting": betting_n})  # fmt: skip
    return rows


def markdown(rows: list[dict], most: int, most_betting: int, sims: int, alpha: float) -> str:
    head = [f"Seeds per cell with which the right verdict comes in at least {POWER:.0%} of {sims} simulated studies "
            f"(one claim alone, alpha {alpha:g}, a fixed design); paired differences Normal(truth, sd) on the grid "
            f"1/{GRID}.", "",
            "| claim | true difference | noise sd | right verdict | t-test (default) | its assumption failed | betting |",
            "| --- | --- | --- | --- | --- | --- | --- |"]  # fmt: skip

    def n(v, limit):
        return f"> {limit}" if v is None else str(v)

    body = [f"| {r['claim']} | {r['truth']} | {r['sd_pp']:.1f} pp | {r['right']} | {n(r['t'], most)} | "
            + ("–" if r["t"] is None else f"{r['failed']:.0%}") + f" | {n(r['betting'], most_betting)} |" for r in rows]  # fmt: skip
    return "\n".join(head + body) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Seeds the mean's t-test and the betting e-process need to decide.")
    ap.add_argument("--sims", type=int, default=2000)
    ap.add_argument("--most", type=int, default=60, help="the most seeds per cell searched for the t-test")
    ap.add_argument("--most-betting", type=int, default=400, help="the most seeds per cell searched for the betting test")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None, help="also write the table, with when it was measured")
    args = ap.parse_args(argv)
    rows = table(args.sims, args.most, args.most_betting, args.alpha, args.seed)
    text = markdown(rows, args.most, args.most_betting, args.sims, args.alpha)
    print(text, end="")
    if args.out is not None:
        command = (f"python benchmarks/probes/mean_test_power.py --sims {args.sims} --most {args.most} "
                   f"--most-betting {args.most_betting} --alpha {args.alpha:g} --seed {args.seed}")  # fmt: skip
        args.out.write_text(f"# The mean's t-test beside the betting e-process: seeds to a verdict\n\n{line(stamp())}\n\n"
                            f"Written by `{command}`.\n\n{text}", encoding="utf-8")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
