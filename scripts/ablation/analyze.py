"""A study's statistics: the cell table (CSV, Markdown, HTML), paired comparisons, stability,
main effects and the verdicts of its claims, from ``summary.csv`` and ``init_grads.csv``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

from . import claims as C
from . import io
from . import stats as St


def read_table(path: Path, factors: list[str]) -> pd.DataFrame:
    """Read a study CSV; factor columns keep their natural type (numbers numeric, names as text)."""
    return pd.read_csv(path, dtype={"run_id": str})


def analyze(summary, init_grads, factors, claims, cfg, seed: int = 0) -> dict[str, pd.DataFrame]:
    return {
        "cells": St.cell_table(summary, factors, cfg, seed=seed),
        "comparisons": St.paired_comparisons(summary, factors, cfg, seed=seed),
        "stability": St.stability_table(summary, factors, cfg),
        "main_effects": St.main_effects(summary, factors, cfg, seed=seed),
        "claims": C.evaluate_claims(claims, summary, init_grads, factors, cfg, seed=seed),
    }


def write_tables(tables: dict[str, pd.DataFrame], outdir: Path) -> None:
    outdir = Path(outdir)
    for name, df in tables.items():
        io.write_dataframe(outdir / f"{name}.csv", df)
    cells = tables["cells"]
    io.write_text(outdir / "cells.md", cells.to_markdown(index=False, floatfmt=".4f") + "\n")
    io.write_text(outdir / "cells.html", cells.to_html(index=False, float_format=lambda v: f"{v:.4f}", border=0))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--analysis-json", required=True, help="factors, claims and stats settings as JSON")
    ap.add_argument("--summary", required=True, type=Path)
    ap.add_argument("--init-grads", required=True, type=Path)
    ap.add_argument("--outdir", required=True, type=Path)
    args = ap.parse_args(argv)
    spec = json.loads(args.analysis_json)
    factors = spec["factors"]
    summary = read_table(args.summary, factors)
    init_grads = read_table(args.init_grads, factors)
    tables = analyze(summary, init_grads, factors, spec["claims"], spec["stats"])
    write_tables(tables, args.outdir)
    for _, row in tables["claims"].iterrows():
        print(f"claim {row['id']}: {row['verdict']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
