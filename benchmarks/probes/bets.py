#!/usr/bin/env python3
"""Which bets of the betting e-process decide soonest without erring?

    python benchmarks/probes/bets.py [--n-sims 4000] [--max-seeds 40] [--out benchmarks/probes/bets.md]

The e-process in ``ablation.sequential`` truncates its bets at c / m (c = ``C_TRUNCATE``). This
probe compares single truncations from 0.5 to 0.95, equal-weight mixtures over a grid of them, and a
Beta(1, 1) mixture martingale on 0/1 outcomes (``mixture_log_capital``, built here and not a claim's
rule): per rule, the mean number of seeds until the right verdict's p first reaches each level the
default config's claims meet, under unimodal, bound-touching and 5-30 % mixture seeds; and each
rule's wrong-verdict rate under the boundary nulls. Prints the tables (--out: also as Markdown, stamped).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: measured.py

from ablation import sequential  # noqa: E402 (the package lives under scripts/)
from measured import line, stamp  # noqa: E402


def _beta(rng, mean: float, concentration: float, size) -> np.ndarray:
    return rng.beta(mean * concentration, (1 - mean) * concentration, size)


def _p(log_k: np.ndarray) -> np.ndarray:
    """p = 1 / capital, at most 1 (Ville)."""
    return np.minimum(1.0, np.exp(-log_k))


def mixture_log_capital(z, m: float) -> tuple[np.ndarray, np.ndarray]:
    """Running maxima of log K+ and log K- for 0/1 outcomes ``z`` (..., seeds) against a share
    ``m`` in (0, 1): the likelihood ratio of Bernoulli(q) to Bernoulli(m), mixed over q uniform on
    (m, 1] for K+ (Beta(1, 1) restricted to the alternative) and on [0, m) for K-. Each factor
    q^x (1 - q)^(1 - x) / (m^x (1 - m)^(1 - x)) has mean at most 1 under any share on the null's
    side, so the mixture is a nonnegative supermartingale there (Ville: p = 1 / largest capital).
    With k of n outcomes 1:

        K+_n = B(k + 1, n - k + 1) P(Beta(k + 1, n - k + 1) > m) / ((1 - m) m^k (1 - m)^(n - k))
    """
    z = np.asarray(z, dtype=float)
    if np.any((z != 0) & (z != 1)):
        raise ValueError("the mixture martingale reads 0/1 outcomes")
    if not 0 < m < 1:
        raise ValueError(f"the mixture martingale needs a share in (0, 1), got {m:g}")
    n = np.arange(1, z.shape[-1] + 1, dtype=float)
    k = np.cumsum(z, axis=-1)
    log_ratio = special.betaln(k + 1, n - k + 1) - k * np.log(m) - (n - k) * np.log1p(-m)
    with np.errstate(divide="ignore"):
        log_up = log_ratio + np.log(special.betainc(n - k + 1, k + 1, 1 - m)) - np.log1p(-m)
        log_down = log_ratio + np.log(special.betainc(k + 1, n - k + 1, m)) - np.log(m)
    return (np.maximum(np.maximum.accumulate(log_up, axis=-1), 0.0),
            np.maximum(np.maximum.accumulate(log_down, axis=-1), 0.0))  # fmt: skip


def mixture_p(z, m: float) -> tuple[np.ndarray, np.ndarray]:
    """Anytime-valid p-values after every outcome for "share > m" and "share < m" from 0/1
    outcomes (``mixture_log_capital``). Not a claim's rule: ``bets`` measures it beside the
    truncated bets on the same 0/1 outcomes (a share claim's seeds, a paired 0/1 comparison's
    discordant pairs), where it needs more seeds whenever most seeds agree (8 against 6 at alpha / 2
    when every seed does) and about one fewer only when 20-30 % of them disagree."""
    up, down = mixture_log_capital(z, m)
    return _p(up), _p(down)


TRUNCATIONS = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, (0.5, 0.75, 0.9), (0.5, 0.7, 0.8, 0.9, 0.95))
"""The bets' truncations ``bets`` compares: single values and equal-weight mixtures over a grid."""
BET_LEVELS = (0.025, 0.0125, 0.003125)
"""The levels the default config's claims meet: alpha / 2 and alpha / 4 (SUPPORTED at the worst Holm
position in the factorial and position families), alpha / (2 x 8) (C4's CONTRADICTED, 8 cells)."""


def _bernoulli(q):
    return lambda rng, s: (rng.random(s) < q).astype(float)


def _fail_at_half(share):
    """Accuracies: a share ``share`` of seeds fail at 0.5, the rest sit at 1.0."""
    return lambda rng, s: np.where(rng.random(s) < share, 0.5, 1.0)


def bet_scenarios() -> dict[str, tuple[str, float, object, str]]:
    """Where one verdict is right: name -> (data, boundary, sampler, the right side). ``data``
    "outcomes": the 0/1 outcomes a share claim reads (share 1/2; the same shape as paired 0/1
    differences on their discordant pairs); "values": accuracies against at_least 0.7, mean."""
    return {
        "outcomes: every seed meets": ("outcomes", 0.5, _bernoulli(1.0), "up"),
        "outcomes: 5 % fail": ("outcomes", 0.5, _bernoulli(0.95), "up"),
        "outcomes: 10 % fail": ("outcomes", 0.5, _bernoulli(0.9), "up"),
        "outcomes: 20 % fail": ("outcomes", 0.5, _bernoulli(0.8), "up"),
        "outcomes: 30 % fail": ("outcomes", 0.5, _bernoulli(0.7), "up"),
        "outcomes: no seed meets": ("outcomes", 0.5, _bernoulli(0.0), "down"),
        "mean: unimodal, Beta mean 0.8": ("values", 0.7, lambda rng, s: _beta(rng, 0.8, 30, s), "up"),
        "mean: every seed at 1.0": ("values", 0.7, lambda rng, s: np.ones(s), "up"),
        "mean: 10 % fail at 0.5": ("values", 0.7, _fail_at_half(0.1), "up"),
        "mean: 30 % fail at 0.5": ("values", 0.7, _fail_at_half(0.3), "up"),
        "mean: unimodal, Beta mean 0.6": ("values", 0.7, lambda rng, s: _beta(rng, 0.6, 30, s), "down"),
        "mean: every seed at 0.5": ("values", 0.7, lambda rng, s: np.full(s, 0.5), "down"),
    }


def bet_nulls() -> dict[str, tuple[str, float, object]]:
    """On the boundary, where either verdict is wrong: unimodal, bound-touching and mixed seeds."""
    return {
        "outcomes: half the seeds meet": ("outcomes", 0.5, _bernoulli(0.5)),
        "mean: unimodal, Beta mean 0.7": ("values", 0.7, lambda rng, s: _beta(rng, 0.7, 30, s)),
        "mean: 60 % at 0.5, 40 % at 1.0": ("values", 0.7, _fail_at_half(0.6)),
    }


def _bet_capital(rule, data: str, z, m: float, alpha: float):
    if rule == "beta(1,1)":
        return mixture_log_capital(z, m) if data == "outcomes" else None
    return sequential.log_capital(z, m, alpha, rule)


def bets(n_sims: int = 4000, max_seeds: int = 40, alpha: float = 0.05, seed: int = 0,
         truncations=TRUNCATIONS, levels=BET_LEVELS) -> tuple[list[dict], list[dict]]:  # fmt: skip
    """Which bets decide soonest without erring: for each truncation (and the Beta(1, 1) mixture on
    0/1 outcomes), the mean number of seeds after which the right verdict's p first reaches each
    level (a sequence that never does counts max_seeds + 1), under each of ``bet_scenarios``; and
    the rate of a wrong verdict (p <= alpha after any seed up to max_seeds: every look, the
    strictest stopping rule) under each of ``bet_nulls``. Returns (speed rows, error rows)."""
    rules = list(truncations) + ["beta(1,1)"]
    name = lambda r: r if isinstance(r, str) else "c = " + "/".join(f"{c:g}" for c in np.atleast_1d(r))  # noqa: E731
    speed, errors = [], []
    for i, (scenario, (data, m, sample, side)) in enumerate(bet_scenarios().items()):
        z = sample(np.random.default_rng([seed, 200 + i]), (n_sims, max_seeds))
        for rule in rules:
            cap = _bet_capital(rule, data, z, m, alpha)
            if cap is None:
                continue
            log_k = cap[0] if side == "up" else cap[1]
            for level in levels:
                hit = log_k >= -np.log(level)
                first = np.where(hit.any(axis=-1), hit.argmax(axis=-1) + 1, max_seeds + 1)
                speed.append({"rule": name(rule), "scenario": scenario, "level": level, "mean_seeds": float(first.mean()),
                              "decided": float(hit[:, -1].mean())})  # fmt: skip
    for i, (scenario, (data, m, sample)) in enumerate(bet_nulls().items()):
        z = sample(np.random.default_rng([seed, 300 + i]), (n_sims, max_seeds))
        for rule in rules:
            cap = _bet_capital(rule, data, z, m, alpha)
            if cap is None:
                continue
            up, down = (float(np.mean(k[:, -1] >= -np.log(alpha))) for k in cap)
            errors.append({"rule": name(rule), "null": scenario, "wrong_up": up, "wrong_down": down,
                           "limit": alpha + 3 * float(np.sqrt(alpha * (1 - alpha) / n_sims))})  # fmt: skip
    return speed, errors


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-sims", type=int, default=4000)
    ap.add_argument("--max-seeds", type=int, default=40)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, help="also write the output as Markdown here (bets.md), with its stamp")
    args = ap.parse_args(argv)
    load = os.getloadavg()[0]
    speed, errors = bets(args.n_sims, args.max_seeds, args.alpha, args.seed)
    speed = pd.DataFrame(speed)
    out = [f"Mean seeds until the right verdict's p reaches each level ({args.n_sims} sequences of at most "
           f"{args.max_seeds} seeds; never: {args.max_seeds + 1}):"]  # fmt: skip
    for level, rows in speed.groupby("level", sort=False):
        out += [f"\nlevel {level:g}", rows.pivot(index="scenario", columns="rule", values="mean_seeds").round(2).to_string()]
    kind = speed["scenario"].str.split(":").str[0]
    score = speed.groupby([speed["rule"], kind], sort=False)["mean_seeds"].mean().unstack()
    score["all"] = speed.groupby("rule", sort=False)["mean_seeds"].mean()
    out += ["\nMean seeds over the scenarios and levels (fewer is better; beta(1,1) reads 0/1 outcomes only):",
            score.round(3).sort_values("outcomes").to_string(),
            f"\nWrong verdicts under the boundary nulls (p <= {args.alpha:g} after any seed):",
            pd.DataFrame(errors).round(4).to_string(index=False)]  # fmt: skip
    text = "\n".join(out)
    print(text)
    if args.out:
        command = " ".join(["python benchmarks/probes/bets.py", *(argv if argv is not None else sys.argv[1:])])
        args.out.write_text(f"# Bets of the betting e-process: seeds to a verdict and wrong-verdict rates\n\n"
                            f"{line(stamp())}\n\n```\n$ {command}   # load {load:.2f}\n{text}\n```\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
