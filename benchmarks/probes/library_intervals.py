#!/usr/bin/env python3
"""Do statsmodels' Holm and binomial intervals give the package's numbers bit for bit?

    python benchmarks/probes/library_intervals.py [--draws 20000] [--out benchmarks/probes/library_intervals.md]

The package's statistics keep every published number bit-identical across a refactor
(benchmarks/same_numbers.py), so a library replaces hand-written code only where it returns the same
bits. This probe draws binomial counts (n from 1 to 400, every k) and p-value families (ties
included) and compares, value by value: Holm's step-down as the package wrote it by hand against
``multipletests(method="holm")`` (which ``significance.holm`` now calls),
and ``intervals.wilson_ci`` / ``intervals.clopper_pearson_ci`` against ``proportion_confint``
(methods "wilson" and "beta") at the confidences the configs use. It writes the share of values
equal bit for bit and the largest difference.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "benchmarks"))  # measured.py

from ablation import intervals  # noqa: E402 (the package lives under scripts/)
from measured import line, stamp  # noqa: E402

CONFIDENCES = (0.9, 0.95, 0.99)


def handwritten_holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down as the package wrote it before it called statsmodels: the running maximum of
    (m - rank) p over the p-values in order, capped at 1."""
    order = np.argsort(p, kind="stable")
    m = len(p)
    out = np.empty(m)
    out[order] = np.minimum(np.maximum.accumulate((m - np.arange(m)) * p[order]), 1.0)
    return out


def compare(draws: int, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 401, draws)
    k = np.floor(rng.random(draws) * (n + 1)).astype(int)
    rows = []
    for conf in CONFIDENCES:
        for method, ours in (("wilson", intervals.wilson_ci), ("beta", intervals.clopper_pearson_ci)):
            lo, hi = ours(k, n, conf)
            lib_lo, lib_hi = proportion_confint(k, n, alpha=1 - conf, method=method)
            for end, a, b in (("lower", lo, lib_lo), ("upper", hi, lib_hi)):
                rows.append({"what": f"{ours.__name__} {end} end, confidence {conf:g}", "library": f'proportion_confint("{method}")',
                             "equal": float(np.mean(a == b)), "largest_difference": float(np.max(np.abs(a - b)))})  # fmt: skip
    equal, worst = [], 0.0
    for _ in range(max(1, draws // 20)):
        p = rng.uniform(0, 1, int(rng.integers(1, 40))) ** 3
        p[rng.integers(0, len(p), len(p) // 3)] = p[0]  # ties
        a, b = handwritten_holm(p), multipletests(p, method="holm")[1]
        equal.append(np.mean(a == b))
        worst = max(worst, float(np.max(np.abs(a - b))))
    rows.append({"what": "Holm's step-down, hand-written", "library": 'multipletests(method="holm")', "equal": float(np.mean(equal)),
                 "largest_difference": worst})  # fmt: skip
    return rows


def render(rows: list[dict], draws: int) -> str:
    lines = ["# Library intervals against the package's (bit for bit)", "", line(stamp()), "",
             f"{draws} binomial draws per confidence, {max(1, draws // 20)} p-value families. Command: "
             f"`python benchmarks/probes/library_intervals.py --draws {draws}`.",
             "", "| package function | library | values equal bit for bit | largest difference |", "| --- | --- | --- | --- |"]  # fmt: skip
    lines += [f"| {r['what']} | `{r['library']}` | {100 * r['equal']:.2f} % | {r['largest_difference']:.3g} |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=20_000)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_suffix(".md"))
    args = ap.parse_args(argv)
    text = render(compare(args.draws), args.draws)
    args.out.write_text(text, encoding="utf-8")
    print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
