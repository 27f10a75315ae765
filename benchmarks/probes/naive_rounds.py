#!/usr/bin/env python3
"""Do an adaptive study's rounds keep their error rate, and would re-testing a fixed-n interval?

    python benchmarks/probes/naive_rounds.py [--n-sims 2000] [--start 10] [--batch 5] [--max-seeds 40]

An adaptive study (``adaptive: {max_seeds, batch}``) looks at its claims after every round and stops
a claim when it resolves. This probe simulates one single-cell claim of each kind with a bounded
statistic on many sequences of seeds, under a sampler whose mean lies exactly on the claim's
decision boundary (where either verdict is wrong), and puts each sequence through two procedures
with the same looks:

- the adaptive rule the pipeline runs: at each look the claim's anytime-valid p-values, computed by
  the claims table's own function (``ablation.verdicts.p_values``, the betting e-process on the mean),
  stop at p <= alpha, or stop open once even the most favourable further seeds
  (``ablation.verdicts.favourable``) could not reach alpha by the last look;
- the naive rule: the fixed-design interval over seeds (``ablation.intervals.mean_cis`` at 1 - alpha)
  re-computed after every round, stopping at the first decisive verdict.

It prints each rule's wrong-verdict rate with its Monte-Carlo standard error, and, where SUPPORTED
is right (the depth study's 0/1 convergence differences), how often each resolves and after how
many seeds. The answer backs the adaptive design (config/README.md, "Adaptive seeds"): the rounds
keep alpha, re-testing the interval does not.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "benchmarks"))  # measured.py

from ablation import intervals, verdicts  # noqa: E402 (the package lives under scripts/)
from measured import line, stamp  # noqa: E402
from ablation.config import check_claims  # noqa: E402
from ablation.kinds import Claim  # noqa: E402

FACTORS = {"variant": ["a", "b"]}


def claim(kind: str, **keys) -> Claim:
    """A single-cell claim of ``kind`` on the mean over seeds (a comparison compares the levels a and b
    of one factor)."""
    if kind in ("equivalent", "not_worse", "better"):
        keys = {"factor": "variant", "levels": ["a", "b"], **keys}
    return check_claims([{"id": kind, "statement": kind, "kind": kind, "estimand": "mean", **keys}], FACTORS, [])[0]


def looks(start: int, batch: int, max_seeds: int) -> list[int]:
    """The seed counts at which an adaptive study evaluates its claims: start, start + batch, ...,
    capped at max_seeds."""
    if start < 1 or batch < 1 or max_seeds < start:
        raise ValueError(f"need 1 <= start ({start}) <= max_seeds ({max_seeds}) and batch >= 1 ({batch})")
    return list(range(start, max_seeds, batch)) + [max_seeds]


def _p(c: Claim, X: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The claims table's anytime-valid (p_sup, p_con) of a single-cell claim, per sequence."""
    return verdicts.p_values(c, c.parts[0], X, X, 0.0, True, alpha)


def adaptive_rounds(c: Claim, X: np.ndarray, schedule: list[int], alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The adaptive procedure on simulated single-cell sequences ``X`` (sims, seeds) in seed order:
    (verdict, seeds used) per sequence."""
    S = X.shape[0]
    verdict, used = np.full(S, "INCONCLUSIVE", dtype=object), np.full(S, schedule[-1])
    open_ = np.ones(S, dtype=bool)
    for n in schedule:
        ps, pc = _p(c, X[:, :n], alpha)
        decided = open_ & (np.minimum(ps, pc) <= alpha)
        verdict[decided] = np.where(ps[decided] <= pc[decided], "SUPPORTED", "CONTRADICTED")
        used[decided] = n
        open_ &= ~decided
        if n == schedule[-1] or not open_.any():
            break
        can = np.zeros(S, dtype=bool)
        for value in (v for values in verdicts.favourable(c).values() for v in values):
            es, ec = _p(c, np.concatenate([X[:, :n], np.full((S, schedule[-1] - n), value)], axis=1), alpha)
            can |= np.minimum(es, ec) <= alpha
        used[open_ & ~can] = n
        open_ &= can
    return verdict, used


def naive_rounds(c: Claim, X: np.ndarray, schedule: list[int], alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The naive procedure: the fixed-design interval (``intervals.mean_cis`` at 1 - alpha)
    re-computed after every round, stopping at the first decisive verdict."""
    part = c.parts[0]
    lo_b, hi_b = part.condition.band
    verdict, used = np.full(X.shape[0], "INCONCLUSIVE", dtype=object), np.full(X.shape[0], schedule[-1])
    open_ = np.ones(X.shape[0], dtype=bool)
    for n in schedule:
        lo, hi, _ = intervals.mean_cis(X[:, :n], 1 - alpha, verdicts.bounds(c, part))
        if lo_b == hi_b:
            sup, con = lo > lo_b, hi < lo_b
        else:
            sup, con = (lo >= lo_b) & (hi <= hi_b), (hi < lo_b) | (lo > hi_b)
        for mask, name in ((sup, "SUPPORTED"), (con, "CONTRADICTED")):
            hit = open_ & mask
            verdict[hit], used[hit] = name, n
            open_ &= ~hit
    return verdict, used


def _beta(rng, mean: float, concentration: float, size) -> np.ndarray:
    return rng.beta(mean * concentration, (1 - mean) * concentration, size)


def _ternary(rng, mean: float, p_zero: float, size) -> np.ndarray:
    """Paired 0/1 outcomes' differences in {-1, 0, 1} with the given mean."""
    p_pos = (1 - p_zero + mean) / 2
    return rng.choice([-1.0, 0.0, 1.0], size=size, p=[1 - p_zero - p_pos, p_zero, p_pos])


def boundary_nulls() -> dict[str, tuple[Claim, object]]:
    """One claim of each kind with a bounded statistic, with a sampler of per-seed values whose mean
    lies exactly on the claim's decision boundary."""
    return {
        "at_least": (claim("at_least", threshold=0.9), lambda rng, s: _beta(rng, 0.9, 30, s)),
        "at_value": (claim("at_value", target=0.5, tolerance=0.05), lambda rng, s: _beta(rng, 0.45, 40, s)),
        "equivalent": (claim("equivalent", margin=0.02), lambda rng, s: _beta(rng, 0.92, 60, s) - _beta(rng, 0.9, 60, s)),
        "not_worse": (claim("not_worse", margin=0.1), lambda rng, s: _ternary(rng, -0.1, 0.4, s)),
        "better": (claim("better"), lambda rng, s: _ternary(rng, 0.0, 0.4, s)),
    }


def alternatives() -> dict[str, tuple[Claim, object]]:
    """Where SUPPORTED is right, on the depth study's 0/1 convergence differences."""
    return {
        "better, half the seeds +1, rest tied": (claim("better"), lambda rng, s: _ternary(rng, 0.5, 0.5, s)),
        "better, every seed +1": (claim("better"), lambda rng, s: np.ones(s)),
        "not_worse (margin 0.1), every seed tied": (claim("not_worse", margin=0.1), lambda rng, s: np.zeros(s)),
        "not_worse (margin 0.1), every seed +1": (claim("not_worse", margin=0.1), lambda rng, s: np.ones(s)),
    }


def simulate(n_sims=2000, start=10, batch=5, max_seeds=40, alpha=0.05, seed=0, kinds=None) -> list[dict]:
    """Wrong-verdict rates of the adaptive and the naive procedure under each kind's boundary null."""
    schedule = looks(start, batch, max_seeds)
    rows = []
    for i, (kind, (c, sample)) in enumerate(boundary_nulls().items()):
        if kinds is not None and kind not in kinds:
            continue
        X = sample(np.random.default_rng([seed, i]), (n_sims, max_seeds))
        adaptive, used = adaptive_rounds(c, X, schedule, alpha)
        naive, naive_used = naive_rounds(c, X, schedule, alpha)
        rows.append({
            "kind": kind, "n_sims": n_sims, "schedule": "/".join(map(str, schedule)), "alpha": alpha,
            "adaptive_error": float(np.mean(adaptive != "INCONCLUSIVE")), "adaptive_mean_seeds": float(used.mean()),
            "naive_error": float(np.mean(naive != "INCONCLUSIVE")), "naive_mean_seeds": float(naive_used.mean()),
            "mc_se": float(np.sqrt(alpha * (1 - alpha) / n_sims)),
        })  # fmt: skip
    return rows


def power(n_sims=2000, start=10, batch=5, max_seeds=40, alpha=0.05, seed=0) -> list[dict]:
    """Share of sequences resolved SUPPORTED, and seeds used, under each of ``alternatives``."""
    schedule = looks(start, batch, max_seeds)
    rows = []
    for i, (name, (c, sample)) in enumerate(alternatives().items()):
        X = sample(np.random.default_rng([seed, 100 + i]), (n_sims, max_seeds)).astype(float)
        adaptive, used = adaptive_rounds(c, X, schedule, alpha)
        naive, naive_used = naive_rounds(c, X, schedule, alpha)
        rows.append({
            "scenario": name, "adaptive_supported": float(np.mean(adaptive == "SUPPORTED")),
            "adaptive_mean_seeds": float(used.mean()), "naive_supported": float(np.mean(naive == "SUPPORTED")),
            "naive_mean_seeds": float(naive_used.mean()),
        })  # fmt: skip
    return rows


def render(args) -> str:
    """The two tables, as printed, under a line that says when and where they were measured."""
    rows = simulate(args.n_sims, args.start, args.batch, args.max_seeds, args.alpha, args.seed)
    power_rows = power(args.n_sims, args.start, args.batch, args.max_seeds, args.alpha, args.seed)
    return ("Wrong SUPPORTED or CONTRADICTED under each kind's boundary null:\n"
            + pd.DataFrame(rows).to_string(index=False) + "\n"
            + "\nWhere SUPPORTED is right (one claim alone; the naive rate is not error-controlled):\n"
            + pd.DataFrame(power_rows).to_string(index=False) + "\n")  # fmt: skip


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Simulated wrong-verdict rates of the adaptive rounds and of naive re-testing.")
    ap.add_argument("--n-sims", type=int, default=2000)
    ap.add_argument("--start", type=int, default=10)
    ap.add_argument("--batch", type=int, default=5)
    ap.add_argument("--max-seeds", type=int, default=40)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None, help="also write the tables, with when and where, to this file")
    args = ap.parse_args(argv)
    text = render(args)
    print(text, end="")
    if args.out is not None:
        command = (f"python benchmarks/probes/naive_rounds.py --n-sims {args.n_sims} --start {args.start} "
                   f"--batch {args.batch} --max-seeds {args.max_seeds} --alpha {args.alpha:g} --seed {args.seed}")  # fmt: skip
        args.out.write_text(f"# Adaptive rounds against re-testing a fixed-n interval\n\n{line(stamp())}\n\n```\n$ {command}\n"
                            f"{text}```\n", encoding="utf-8")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
