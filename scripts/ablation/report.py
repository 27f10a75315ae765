"""The stand-alone HTML report (``reports/ablation_report.html``): one file, figures embedded.

Order: the headline (the claims that the config's ``report: headline:`` lists), the claims with verdicts, the
implementation checks, reproducibility, then every study (its description and resolved config,
tables with intervals, factor ranking, stability, comparisons, figures), then what was run.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import html
import json
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import jinja2
import pandas as pd
import yaml

from . import PACKAGE_DIR, REPO_DIR, io, outputs
from .claims import ROBUST
from .config import validate
from .plan import plan

VERSION_PACKAGES = ("torch", "numpy", "pandas", "scipy", "matplotlib", "seaborn", "snakemake")


def _img(path: Path) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f"data:image/png;base64,{data}"


def _fmt(v, digits: int = 4):
    if isinstance(v, float):
        if pd.isna(v):
            return "–"
        return f"{v:.{digits}g}" if abs(v) < 1e-3 and v != 0 else f"{v:.{digits}f}".rstrip("0").rstrip(".") or "0"
    return v


def table_html(df: pd.DataFrame, classes: str = "table", max_rows: int | None = None) -> str:
    shown = df if max_rows is None or len(df) <= max_rows else df.head(max_rows)
    out = shown.map(_fmt) if len(shown) else shown
    text = out.to_html(index=False, classes=classes, border=0, escape=True, na_rep="–")
    if shown is not df:
        text += f'<p class="note">First {max_rows} of {len(df)} rows; all in the CSV.</p>'
    return text


def _git(*args) -> str | None:
    try:
        return subprocess.run(
            ["git", "-C", str(REPO_DIR), *args], capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for name in VERSION_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def headline(claims: pd.DataFrame, ids: list[str]) -> list[dict]:
    """The claims of the config's ``report: headline:``, in that order, as report rows."""
    if not ids:
        return []
    known = set(claims["id"]) if "id" in claims else set()
    missing = [i for i in ids if i not in known]
    if missing:
        raise ValueError(f"report.headline names claims that no study has: {', '.join(missing)}")
    return [claims[claims["id"] == i].iloc[0].to_dict() for i in ids]


def resolved_config(study) -> str:
    """The study's "Resolved configuration": every setting once, fixed (defaults applied) or as a factor."""
    return yaml.safe_dump({"fixed": study.fixed, "factors": study.factors, "seeds": study.seeds}, sort_keys=False)


def study_section(results: Path, name: str, study, stats_cfg: dict) -> dict:
    tdir = results / name / "tables"
    summary = pd.read_csv(results / name / "summary.csv", dtype={"run_id": str})
    tables = {t: pd.read_csv(tdir / f"{t}.csv") for t in ("cells", "comparisons", "stability", "main_effects")}
    extra = {t: table_html(pd.read_csv(tdir / f"{t}.csv")) if (tdir / f"{t}.csv").is_file() else None
             for t in ("seed_variance", "interactions")}  # fmt: skip
    diverged = int((summary["status"] == "diverged").sum())
    return {
        "name": name,
        "description": study.description,
        "config_yaml": resolved_config(study),
        "n_runs": len(summary),
        "n_diverged": diverged,
        "factors": study.factor_names,
        "train_seconds": float(pd.to_numeric(summary.get("train_seconds"), errors="coerce").sum()),
        "cells": table_html(tables["cells"], max_rows=200),
        "main_effects": table_html(tables["main_effects"]),
        "stability": table_html(tables["stability"], max_rows=200),
        "comparisons": table_html(tables["comparisons"], max_rows=200),
        **extra,
        "figures": [
            {"name": fig.name, "caption": fig.caption, "src": _img(results / name / fig.file)}
            for fig in outputs.FIGURES
            if (results / name / fig.file).is_file()
        ],
    }


def build(raw_config: dict, studies: list[str], results: Path, command: str) -> str:
    cfg = validate(raw_config)
    results = Path(results)
    claims = []
    for name in studies:
        path = results / name / "tables" / "claims.csv"
        if path.is_file():
            df = pd.read_csv(path)
            df.insert(0, "study", name)
            claims.append(df)
    claims_df = pd.concat(claims, ignore_index=True) if claims else pd.DataFrame()
    if len(claims_df):
        claims_df["fragile"] = claims_df.get("robustness", pd.Series(dtype=float)) < ROBUST
    checks = pd.read_csv(results / "checks.csv") if (results / "checks.csv").is_file() else pd.DataFrame()
    verify = None
    if (results / "verify.csv").is_file():
        vdf = pd.read_csv(results / "verify.csv")
        verify = {"k": int(vdf["identical"].sum()), "n": len(vdf), "table": table_html(vdf)}
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(PACKAGE_DIR / "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
    )
    template = env.get_template("report.html.j2")
    commit = _git("rev-parse", "HEAD")
    dirty = bool(_git("status", "--porcelain"))
    return template.render(
        generated=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        headline=headline(claims_df, cfg.raw.get("report", {}).get("headline", [])),
        claims=claims_df.to_dict("records"),
        robust=ROBUST,
        plan=table_html(plan(cfg)),
        checks=checks.to_dict("records"),
        verify=verify,
        studies=[study_section(results, n, cfg.study(n), cfg.stats) for n in studies],
        pe_figure=_img(results / "figures" / "positional_encoding.png")
        if (results / "figures" / "positional_encoding.png").is_file()
        else None,
        config_yaml=yaml.safe_dump(raw_config, sort_keys=False),
        stats=cfg.stats,
        command=command,
        versions=_versions(),
        commit=(commit or "unknown") + (" (with uncommitted changes)" if dirty else ""),
        host=platform.node(),
        fmt=_fmt,
        escape=html.escape,
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config-json", required=True)
    ap.add_argument("--studies", required=True, help="JSON list of study names, in config order")
    ap.add_argument("--results", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--command", default="make reproduce", help="the command that reproduces this report")
    args = ap.parse_args(argv)
    text = build(json.loads(args.config_json), json.loads(args.studies), args.results, args.command)
    io.write_text(args.out, text)
    print(f"wrote {args.out} ({len(text) / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
