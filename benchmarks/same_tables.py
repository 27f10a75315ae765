#!/usr/bin/env python3
"""Do two versions of the package write the same tables, byte for byte, from the same results?

    python benchmarks/same_tables.py BASE --results smoke/results --config config/smoke.yaml
    python benchmarks/same_tables.py BASE --results results --config config/config.yaml --every-study-adaptive

For a change meant to leave every number alone (a refactor of the statistics, a library in place of
hand-written code). It runs the rules' own commands -- ``python -m ablation.analyze`` (the cell
table, comparisons and every interval), ``python -m ablation.claims`` (every claims row) and, for an
adaptive study, ``python -m ablation.adaptive tables`` -- once with the package of a checkout of
BASE (a commit, or a folder holding a checkout) and once with this working tree's, on the same
inputs, and compares every file they write, byte for byte. ``--every-study-adaptive`` also judges
every study as an adaptive one (its seeds, then max_seeds 20, batch 2), so that the e-process rows
are compared where the config's design has none. Prints the files compared and the ones that
differ; exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from ablation import config as ablation_config  # noqa: E402 (the package lives under scripts/)
from ablation import design  # noqa: E402


def checkout(base: str, into: Path) -> Path:
    """A folder holding BASE's tree: BASE itself when it is a folder, else a worktree-free export."""
    if Path(base).is_dir():
        return Path(base).resolve()
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", base], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def jobs(cfg, results: Path, every_adaptive: bool) -> list[tuple[str, list[str]]]:
    """(output folder, command arguments after ``python -m``) of every table to compare."""
    adaptive = {}
    for name, study in cfg.studies.items():
        block = design.adaptive_block(cfg.raw["studies"][name])
        if block is None and every_adaptive:
            block = {"max_seeds": 20, "batch": 2}
        if block is not None:
            adaptive[name] = {"seeds": study.seeds} | block
    names = sorted(cfg.studies)
    family = {"stats": cfg.stats, "plugins": cfg.raw.get("plugins", []),
              "studies": {n: {"factors": cfg.studies[n].factor_names, "claims": cfg.studies[n].to_dict()["claims"]}
                          | ({"adaptive": adaptive[n]} if n in adaptive else {}) for n in names}}  # fmt: skip
    out = []
    for name in names:
        study_dir = results / name
        out.append((f"{name}/analyze", ["ablation.analyze", "--analysis-json",
                                        json.dumps({"factors": cfg.studies[name].factor_names, "stats": cfg.stats}),
                                        "--summary", str(study_dir / "summary.csv"), "--outdir", "{out}"]))  # fmt: skip
        out.append((f"{name}/claims", ["ablation.claims", "--family-json", json.dumps(family), "--summaries",
                                       *(str(results / n / "summary.csv") for n in names), "--init-grads",
                                       *(str(results / n / "init_grads.csv") for n in names), "--study", name,
                                       "--out", "{out}/claims.csv"]))  # fmt: skip
        rounds = sorted((study_dir / "adaptive").glob("round_*.json"), key=lambda p: int(p.stem.split("_")[1]))
        if rounds and design.adaptive_block(cfg.raw["studies"][name]) is not None:
            spec = {"study": cfg.studies[name].to_dict(), "stats": cfg.stats,
                    "adaptive": design.adaptive_block(cfg.raw["studies"][name])}  # fmt: skip
            out.append((f"{name}/adaptive", ["ablation.adaptive", "tables", "--spec-json", json.dumps(spec),
                                             "--rounds", *map(str, rounds), "--summary", str(study_dir / "summary.csv"),
                                             "--study-dir", "{out}"]))  # fmt: skip
    return out


def run_all(package: Path, work: Path, todo) -> None:
    env = {**os.environ, "PYTHONPATH": str(package / "scripts")}
    for folder, args in todo:
        out = work / folder
        out.mkdir(parents=True, exist_ok=True)
        args = [a.replace("{out}", str(out)) for a in args]
        proc = subprocess.run([sys.executable, "-m", *args], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"{package}: python -m {args[0]} failed:\n{proc.stderr[-3000:]}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", help="a commit of this repository, or a folder holding another checkout")
    ap.add_argument("--results", required=True, type=Path, help="a results folder of --config (its <study>/summary.csv)")
    ap.add_argument("--config", required=True, type=Path)
    ap.add_argument("--every-study-adaptive", action="store_true", help="also judge every study with the e-process")
    args = ap.parse_args(argv)
    cfg = ablation_config.load(args.config)
    todo = jobs(cfg, args.results.resolve(), args.every_study_adaptive)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        base = checkout(args.base, tmp / "base-tree")
        run_all(base, tmp / "base", todo)
        run_all(REPO, tmp / "here", todo)
        files = sorted(p.relative_to(tmp / "base") for p in (tmp / "base").rglob("*") if p.is_file())
        here = sorted(p.relative_to(tmp / "here") for p in (tmp / "here").rglob("*") if p.is_file())
        differ = [str(f) for f in files if f in here and not filecmp.cmp(tmp / "base" / f, tmp / "here" / f, shallow=False)]
        only = sorted(set(map(str, files)) ^ set(map(str, here)))
    print(f"{len(files)} table files compared ({args.results}, {args.config}; every study adaptive: {args.every_study_adaptive})")
    for f in differ:
        print(f"differs: {f}")
    for f in only:
        print(f"written by one side only: {f}")
    if not differ and not only:
        print("every file byte-identical")
    return 1 if differ or only else 0


if __name__ == "__main__":
    raise SystemExit(main())
