"""A study's statistics: the cell table (CSV, Markdown, HTML), paired comparisons, stability, main
effects, the seeds' share of the variance and two-factor interactions, from ``summary.csv``. The claims' verdicts are one family over every study of the
config: ``ablation.claims`` evaluates them."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

from . import io, outputs, stats, variance


def read_table(path: Path, factors: list[str]) -> pd.DataFrame:
    """Read a study CSV. Factor columns keep their levels as written: numbers when every value is
    one, else text, never missing (pandas alone would read a level named "NA" or "None" as NaN,
    and the runs at it would drop out of every cell)."""
    table = pd.read_csv(path, dtype={"run_id": str})
    present = [f for f in factors if f in table.columns]
    if present:
        raw = pd.read_csv(path, usecols=present, dtype=str, keep_default_na=False)
        for f in present:
            as_number = pd.to_numeric(raw[f], errors="coerce")
            table[f] = as_number if as_number.notna().all() else raw[f]
    return table


def analyze(summary, factors, cfg, seed: int = 0) -> dict[str, pd.DataFrame]:
    return {
        "cells": stats.cell_table(summary, factors, cfg, seed=seed),
        "comparisons": stats.paired_comparisons(summary, factors, cfg, seed=seed),
        "stability": stats.stability_table(summary, factors, cfg),
        "main_effects": stats.main_effects(summary, factors, cfg, seed=seed),
        "seed_variance": variance.seed_variance(summary, factors),
        "interaction_effects": variance.interactions(summary, factors),
    }


def write_tables(tables: dict[str, pd.DataFrame], outdir: Path) -> None:
    outdir = Path(outdir)
    files = {t.name: Path(t.file).name for t in outputs.TABLES}  # the declared files, in outdir (tables/)
    for name, df in tables.items():
        io.write_dataframe(outdir / files[name], df)
    cells = tables["cells"]
    io.write_text(outdir / "cells.md", cells.to_markdown(index=False, floatfmt=".4f") + "\n")
    io.write_text(outdir / "cells.html", cells.to_html(index=False, float_format=lambda v: f"{v:.4f}", border=0))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--analysis-json", required=True, help="factors and stats settings as JSON")
    ap.add_argument("--summary", required=True, type=Path)
    ap.add_argument("--outdir", required=True, type=Path)
    args = ap.parse_args(argv)
    spec = json.loads(args.analysis_json)
    factors = spec["factors"]
    tables = analyze(read_table(args.summary, factors), factors, spec["stats"])
    write_tables(tables, args.outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
