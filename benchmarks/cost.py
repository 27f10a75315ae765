#!/usr/bin/env python3
"""What a config's design costs to train against an earlier design, both priced on this machine.

    .venv/bin/python benchmarks/cost.py --config config/config.yaml --old-runs OLD/reference \\
        [--results results] [--store results/runs]

Training seconds depend on the machine and on how busy it is, so a design's cost is compared with
another's on one machine, from one store: each run is priced at its measured ``train_seconds``
when the store holds it, otherwise by the cost model the DAG schedules by (``settings.cost_estimate``)
times the median seconds per unit of that study's measured runs (of every study's, where it has none). The earlier design is the list of
runs in ``--old-runs``: an earlier run's results folder (``<study>/runs.csv`` and
``<study>/scope/runs.csv``: every run it trained, adaptive rounds and scopes included), or a folder
with ``<study>/summary.csv`` such as an earlier commit's ``reference/`` (the study's own runs, adaptive
rounds included, and its scope's where it keeps ``<study>/scope/summary.csv``; an earlier run whose settings
this config no longer has is priced at the train_seconds the folder recorded); this design is each study's
``runs.csv`` under ``--results`` (every round it trained), or its first round where the study has
not run, with its claims' scope runs (robust_over) counted in; a study the earlier design lacks
costs it nothing. Prints, per study and in total: runs, seconds (how many measured, how many
modelled) and the ratio this design / earlier design.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scripts"))

from ablation import config as ablation_config  # noqa: E402 (the package lives under scripts/)
from ablation import design  # noqa: E402
from ablation import plan as ablation_plan  # noqa: E402
from ablation import settings as S  # noqa: E402


def measured_seconds(store: Path, run_hash: str) -> float | None:
    """The run's train_seconds from the store; None when the store does not hold it finished."""
    metrics = store / run_hash / "metrics.csv"
    if not metrics.exists():
        return None
    seconds = float(pd.read_csv(metrics)["train_seconds"].iloc[0])
    return seconds if np.isfinite(seconds) else None


def ratio(new_seconds: float, old_seconds: float) -> float:
    """This design's seconds over the earlier design's: NaN where the earlier design trained nothing
    (a study it lacks, or a config whose every study is new), never a division by zero."""
    return float(new_seconds) / float(old_seconds) if old_seconds else float("nan")


def runs_by_hash(study: ablation_config.Study, seeds: int) -> dict:
    """Every run of the study's factor grid at seeds 0 .. seeds - 1, by hash: an adaptive round's
    runs are runs of the same grid at later seeds."""
    wide = ablation_config.Study(study.name, study.description, study.fixed, study.factors, list(range(seeds)))
    return {r.hash: r for r in wide.runs()}


def price(hashes: list[str], grid: dict, store: Path, per_unit: float, recorded: dict | None = None) -> tuple[float, int, int, int]:
    """(seconds, measured, modelled, recorded) of the runs ``hashes``: a run neither the store nor the
    grid holds (an earlier design's settings this config no longer has) at the seconds its own folder
    recorded (``recorded``)."""
    total, measured, modelled, kept = 0.0, 0, 0, 0
    for h in hashes:
        seconds = measured_seconds(store, h)
        if seconds is not None:
            measured += 1
        elif h in grid:
            seconds, modelled = S.cost_estimate(grid[h].settings) * per_unit, modelled + 1
        elif recorded and np.isfinite(recorded.get(h, np.nan)):
            seconds, kept = recorded[h], kept + 1
        else:
            sys.exit(f"run {h} is in neither the store, the config's grid nor its folder's train_seconds: cannot price it")
        total += seconds
    return total, measured, modelled, kept


def trained(index: Path, first_round: list) -> list[str]:
    """The hashes of a runs.csv (every round trained), or of the first round where it is missing."""
    return pd.read_csv(index, dtype={"hash": str})["hash"].tolist() if index.exists() else [r.hash for r in first_round]


def earlier_runs(folder: Path) -> list[str]:
    """The runs an earlier design trained for one study: a results folder's runs.csv and its scope's
    (every round, the scope's universes included), or a reference's summary.csv (the study's own
    runs); none where the folder has neither."""
    if (folder / "runs.csv").exists():
        hashes = pd.read_csv(folder / "runs.csv", dtype={"hash": str})["hash"].tolist()
        scope = folder / "scope" / "runs.csv"
        return hashes + (pd.read_csv(scope, dtype={"hash": str})["hash"].tolist() if scope.exists() else [])
    summaries = [folder / "summary.csv", folder / "scope" / "summary.csv"]  # a reference keeps its scope's runs apart
    return [h for f in summaries if f.exists() for h in pd.read_csv(f, dtype={"hash": str})["hash"]]


def earlier_seconds(folder: Path) -> dict:
    """The train_seconds an earlier design's folder recorded per run (a reference's summary.csv keeps them)."""
    found = {}
    for summary in (folder / "summary.csv", folder / "scope" / "summary.csv"):
        table = pd.read_csv(summary, dtype={"hash": str}) if summary.exists() else pd.DataFrame()
        found |= dict(zip(table["hash"], table["train_seconds"])) if "train_seconds" in table else {}
    return found


def study_cost(study, old_runs: Path, results: Path, store: Path, fallback: float) -> dict:
    """A study of the earlier design against this design's; a study the earlier design lacks costs it
    nothing. This design's runs include its scope's (claims with robust_over: the runs of their other
    universes, results/<study>/scope/runs.csv)."""
    old = earlier_runs(old_runs / study.name)
    new = trained(results / study.name / "runs.csv", study.runs())
    seeds = range(max(max(study.seeds) + 1, 64))
    scoped = design.scope_runs(study, list(seeds)) if design.scope_settings(study) else []
    new += trained(results / study.name / "scope" / "runs.csv", design.scope_runs(study, study.seeds)) if scoped else []
    grid = runs_by_hash(study, len(seeds)) | {r.hash: r for r in scoped}
    ratios = [s / S.cost_estimate(grid[h].settings) for h in set(old) | set(new)
              if h in grid and (s := measured_seconds(store, h)) is not None]  # fmt: skip
    per_unit = float(np.median(ratios)) if ratios else fallback
    o, om, oo, orec = price(old, grid, store, per_unit, earlier_seconds(old_runs / study.name))
    n, nm, no, _ = price(new, grid, store, per_unit)
    return {"study": study.name, "old_runs": len(old), "old_seconds": round(o), "old_measured": om, "old_modelled": oo,
            "old_recorded": orec,
            "new_runs": len(new), "new_seconds": round(n), "new_measured": nm, "new_modelled": no,
            "new_scope_runs": sum(h in {r.hash for r in scoped} for h in new),
            "ratio": round(ratio(n, o), 3), "seconds_per_unit": per_unit}  # fmt: skip


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--old-runs", type=Path, required=True,
                    help="the earlier design: a results folder (<study>/runs.csv, <study>/scope/runs.csv) or a "
                         "reference folder (<study>/summary.csv)")  # fmt: skip
    ap.add_argument("--results", type=Path, default=None, help="this config's results folder (default: its outdir's)")
    ap.add_argument("--store", type=Path, default=Path("results/runs"))
    ap.add_argument("--json", type=Path, default=None, help="also write the table here")
    ap.add_argument("--out", type=Path, default=None,
                    help="also write the table as Markdown here (benchmarks/cost.md), stamped with the commit "
                         "that trained --results (its git checkout; else this one's)")  # fmt: skip
    args = ap.parse_args(argv)
    cfg = ablation_config.load(args.config)
    results = args.results or Path(cfg.outdir) / "results"
    # a study with no measured run is priced at the median seconds per unit of the store's runs
    fallback = ablation_plan.seconds_per_unit(args.store, limit=10**6)[0]
    rows = [study_cost(study, args.old_runs, results, args.store, fallback) for study in cfg.studies.values()]
    table = pd.DataFrame(rows)
    total = table[["old_runs", "old_seconds", "old_measured", "old_modelled", "old_recorded", "new_runs", "new_seconds",
                   "new_measured", "new_modelled"]].sum()  # fmt: skip
    print(table.drop(columns="seconds_per_unit").to_string(index=False))
    print(f"\ntotal: earlier design {total.old_runs} runs, {total.old_seconds} s ({total.old_measured} measured, "
          f"{total.old_modelled} modelled); this design {total.new_runs} runs, {total.new_seconds} s "
          f"({total.new_measured} measured, {total.new_modelled} modelled); ratio {ratio(total.new_seconds, total.old_seconds):.3f}")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"studies": rows, "ratio": ratio(total.new_seconds, total.old_seconds)}, indent=1))
    if args.out:
        args.out.write_text(markdown(table, total, results, argv if argv is not None else sys.argv[1:]), encoding="utf-8")
    return 0


COLUMNS = {"study": "study", "old_runs": "earlier runs", "old_seconds": "earlier s",
           "old_recorded": "of them at their recorded s", "new_runs": "runs",
           "new_scope_runs": "of them scope", "new_seconds": "s", "new_measured": "measured",
           "new_modelled": "modelled", "ratio": "ratio"}  # fmt: skip


def markdown(table: pd.DataFrame, total: pd.Series, results: Path, argv: list) -> str:
    """The table as benchmarks/cost.md: the stamp of the checkout that holds ``results`` (the commit
    whose run trained them), the command, per study and in total the runs and their training seconds."""
    sys.path.insert(0, str(HERE))
    import measured  # benchmarks/measured.py: the stamp every measured file carries

    folder = results.resolve()
    root = next((p for p in [folder, *folder.parents] if (p / ".git").exists()), measured.REPO)
    shown = table[list(COLUMNS)].rename(columns=COLUMNS)
    shown = shown.apply(lambda col: col.map(lambda v: "-" if pd.isna(v) else str(v)))
    lines = ["# What this design costs to train, against the earlier design", "",
             measured.line(measured.stamp(root)), "",
             f"Written by `python benchmarks/cost.py {' '.join(map(str, argv))}`: each run at its measured "
             "train_seconds in the store (a run the store lacks: the cost model times the study's median "
             "seconds per unit). Both designs are priced from one store, trained on one machine in one "
             "run, so the ratio does not depend on how fast or busy the machine was; except an earlier run "
             "this store cannot hold (settings the config no longer has), priced at the train_seconds its "
             "own folder recorded, on that run's machine and load.", "",
             "| " + " | ".join(shown.columns) + " |", "| " + " | ".join("---" for _ in shown.columns) + " |"]  # fmt: skip
    lines += ["| " + " | ".join(row) + " |" for row in shown.itertuples(index=False)]
    overall = ratio(total.new_seconds, total.old_seconds)
    lines += ["", f"Total: the earlier design {total.old_runs} runs, {total.old_seconds} s of training "
                  f"({total.old_measured} measured, {total.old_modelled} modelled, {total.old_recorded} at their "
                  f"recorded seconds); this design {total.new_runs} "
                  f"runs, {total.new_seconds} s ({total.new_measured} measured, {total.new_modelled} modelled).",
              "", f"Ratio: **{overall:.3f}** ({(overall - 1) * 100:+.1f} %)." if overall == overall
              else "Ratio: none (the earlier design trained none of these studies).", ""]  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
