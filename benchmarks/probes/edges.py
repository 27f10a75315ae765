#!/usr/bin/env python3
"""Each default claim's estimand, verdict and scope before and after a change of the rules, on a full run.

    .venv/bin/python benchmarks/probes/edges.py --before REV --results RESULTS [--rounds] \\
        --out benchmarks/probes/edges.md

Before: the claims tables committed in ``reference/`` at ``REV`` (the previous full run, judged by
the rules of its day); after: ``RESULTS/<study>/tables/claims.csv`` of a full run judged by the rules
here. A row per claim of config/config.yaml: its estimand, verdict and scope before and after, and
what the seeds show now. ``--rounds`` adds, per adaptive study, the runs its rounds trained (its
``runs.csv`` and its scope's) against the runs of the reference at ``REV`` (its ``summary.csv``).
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(HERE.parent))  # benchmarks/: measured.py

from ablation import config  # noqa: E402 (the package lives under scripts/)
from measured import line, stamp  # noqa: E402


def committed(rev: str, path: str) -> pd.DataFrame | None:
    """A CSV file as committed at ``rev``; None where it was not."""
    proc = subprocess.run(["git", "-C", str(REPO), "show", f"{rev}:{path}"], capture_output=True, text=True)
    return pd.read_csv(io.StringIO(proc.stdout)) if proc.returncode == 0 else None


def cell(value) -> str:
    return "" if pd.isna(value) else str(value)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="the commit whose reference/ holds the verdicts before")
    ap.add_argument("--results", required=True, type=Path, help="the full run's results folder, judged by the rules here")
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--rounds", action="store_true", help="also the runs each study trained, before and after")
    ap.add_argument("--out", type=Path, default=HERE / "edges.md")
    args = ap.parse_args(argv)
    cfg = config.load(args.config)
    rows, runs = [], []
    for name, study in cfg.studies.items():
        before = committed(args.before, f"reference/{name}/claims.csv")
        after_path = args.results / name / "tables" / "claims.csv"
        after = pd.read_csv(after_path) if after_path.is_file() else None
        for claim in study.claims:
            b = before.set_index("id").loc[claim.id] if before is not None and claim.id in set(before["id"]) else None
            a = after.set_index("id").loc[claim.id] if after is not None and claim.id in set(after["id"]) else None
            rows.append([name, claim.id, cell(b["estimand"]) if b is not None else "", cell(b["verdict"]) if b is not None else "",
                         cell(b.get("scope")) if b is not None else "", cell(a["estimand"]) if a is not None else "not run",
                         cell(a["verdict"]) if a is not None else "", cell(a.get("scope")) if a is not None else "",
                         cell(a["sentence"]).replace("|", "/") if a is not None else ""])  # fmt: skip
        if args.rounds:
            old = committed(args.before, f"reference/{name}/summary.csv")
            new = [args.results / name / "runs.csv", args.results / name / "scope" / "runs.csv"]
            runs.append([name, len(old) if old is not None else 0,
                         sum(len(pd.read_csv(p)) for p in new[:1] if p.is_file()),
                         sum(len(pd.read_csv(p)) for p in new[1:] if p.is_file())])  # fmt: skip
    st = stamp()
    out = [f"# Verdicts at their edges: each default claim before ({args.before}) and after", "", line(st), "",
           f"Written by `python benchmarks/probes/edges.py --before {args.before} --results RESULTS"
           f"{' --rounds' if args.rounds else ''}`, RESULTS the results folder of a full default run judged by the "
           "rules of this commit; before: the claims committed in reference/ at that commit.", "",
           "| study | claim | estimand before | verdict before | scope before | estimand after | verdict after | "
           "scope after | what the seeds show now |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]  # fmt: skip
    out += ["| " + " | ".join(r) + " |" for r in rows]
    if runs:
        out += ["", "Runs each study trained: the reference before (its own runs, rounds included), and after (its own "
                "runs, rounds included, and its scopes' universes).", "", "| study | before | after | after, scopes |",
                "| --- | ---: | ---: | ---: |"] + [f"| {n} | {b} | {a} | {s} |" for n, b, a, s in runs]  # fmt: skip
    args.out.write_text("\n".join(out) + "\n", encoding="utf-8")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
