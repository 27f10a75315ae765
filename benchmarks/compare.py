"""Training throughput of this checkout against a git revision, side by side, over one study's grid.

    python benchmarks/compare.py [--base REV] [--config config/config.yaml] [--study factorial]
                                 [--epochs 30] [--rounds 3] [--out FILE.json]

The package as of ``--base`` (default: the merge-base with main) is unpacked into a temporary
folder. Two worker processes, one per version, train every cell of the study (its first seed, the
config's settings with ``--epochs`` epochs) at 1 thread on the same data, in rounds: the two
versions alternate which goes first, and each cell keeps its fastest train_seconds over the
rounds (and its fastest CPU time: on a shared machine the steadier measure). /proc/loadavg is
recorded around every worker. Also checks that both versions give every
cell the same params_sha256 and metrics (the speed-ups must be bit-identical).

Prints a JSON summary (sum of train_seconds, base / new ratio, slowest cell) and writes the rows to
``--out``. The machine is shared: read the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

# Runs inside a worker process: the `ablation` package it imports is the one on PYTHONPATH.
WORKER = r"""
import json, sys, time
import torch
import ablation
from ablation import settings as S
from ablation.data import make_order_data
from ablation.train import train_run
torch.set_num_threads(1)
cells = json.loads(sys.stdin.read())
warm = S.from_dict({**cells[0], "epochs": 2})
train_run(warm, data=make_order_data(warm))
out = []
for cell in cells:
    s = S.from_dict(cell)
    data = make_order_data(s)
    c0 = time.process_time()
    r = train_run(s, data=data)
    out.append({"train_seconds": r.train_seconds, "cpu_seconds": time.process_time() - c0, "params_sha256": r.params_sha256,
                "test_acc": r.test_acc, "final_train_loss": r.final_train_loss,
                "curve": [row["train_loss"] for row in r.curve]})
print(json.dumps({"package": ablation.__file__, "rows": out}))
"""


def loadavg() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


def unpack(rev: str, dest: Path) -> Path:
    """scripts/ablation and the schema as of ``rev``, under dest; returns the folder for PYTHONPATH."""
    archive = dest / "base.tar"
    with archive.open("wb") as fh:
        subprocess.run(["git", "-C", str(REPO), "archive", rev, "scripts/ablation", "workflow/schemas"], stdout=fh,
                       check=True)  # fmt: skip
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    return dest / "scripts"


def study_cells(config_path: Path, study: str, epochs: int) -> tuple[list[dict], list[str]]:
    """The settings of the study's cells (its first seed, ``epochs`` epochs), and its factors' names.
    A cell lists only its settings that differ from the schema's defaults, so an older package (which
    fills in its own defaults) can train it unless the cell needs a setting that package lacks."""
    from ablation import config as C
    from ablation import settings as S

    st = C.load(config_path).study(study)
    first_seed = st.runs()[0].settings.seed
    defaults = S.defaults()
    cells = [r.settings.as_dict() for r in st.runs() if r.settings.seed == first_seed]
    keep = set(st.factors) | {"seed"}
    cells = [{k: v for k, v in c.items() if k in keep or k not in defaults or v != defaults[k]} for c in cells]
    return [{**c, "epochs": epochs} for c in cells], list(st.factors)


def work(pythonpath: Path, cells: list[dict]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    before = loadavg()
    p = subprocess.run([sys.executable, "-c", WORKER], input=json.dumps(cells), capture_output=True, text=True,
                       env=env, check=True)  # fmt: skip
    result = json.loads(p.stdout.strip().splitlines()[-1])
    result["loadavg"] = [before, loadavg()]
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default=None, help="git revision to compare against (default: merge-base with main)")
    ap.add_argument("--config", type=Path, default=REPO / "config" / "config.yaml")
    ap.add_argument("--study", default="factorial")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    base = args.base or subprocess.run(["git", "-C", str(REPO), "merge-base", "HEAD", "main"], capture_output=True,
                                       text=True, check=True).stdout.strip()  # fmt: skip
    cells, factors = study_cells(args.config, args.study, args.epochs)
    with tempfile.TemporaryDirectory() as tmp:
        paths = {"base": unpack(base, Path(tmp)), "new": REPO / "scripts"}
        best = {(name, k): [None] * len(cells) for name in paths for k in ("train_seconds", "cpu_seconds")}
        rows_of, loads = {}, []
        t0 = time.perf_counter()
        for r in range(args.rounds):
            for name in (("base", "new") if r % 2 == 0 else ("new", "base")):
                res = work(paths[name], cells)
                assert Path(res["package"]).is_relative_to(paths[name]), res["package"]
                loads.append({"round": r, "version": name, "loadavg": res["loadavg"]})
                rows_of[name] = res["rows"]
                for i, row in enumerate(res["rows"]):
                    for k in ("train_seconds", "cpu_seconds"):
                        if best[name, k][i] is None or row[k] < best[name, k][i]:
                            best[name, k][i] = row[k]
    rows = []
    for i, cell in enumerate(cells):
        b, n = rows_of["base"][i], rows_of["new"][i]
        same = all(b[k] == n[k] for k in ("params_sha256", "test_acc", "final_train_loss", "curve"))
        rows.append({"cell": cell, "base_s": best["base", "train_seconds"][i], "new_s": best["new", "train_seconds"][i],
                     "base_cpu_s": best["base", "cpu_seconds"][i], "new_cpu_s": best["new", "cpu_seconds"][i],
                     "identical": same})  # fmt: skip
        rows[-1]["ratio"] = rows[-1]["base_s"] / rows[-1]["new_s"]
        rows[-1]["cpu_ratio"] = rows[-1]["base_cpu_s"] / rows[-1]["new_cpu_s"]
    slowest = min(rows, key=lambda row: row["ratio"])
    summary = {
        "base": base,
        "study": args.study,
        "cells": len(cells),
        "epochs": args.epochs,
        "rounds": args.rounds,
        "sum_base_s": sum(row["base_s"] for row in rows),
        "sum_new_s": sum(row["new_s"] for row in rows),
        "sum_base_cpu_s": sum(row["base_cpu_s"] for row in rows),
        "sum_new_cpu_s": sum(row["new_cpu_s"] for row in rows),
        "min_cell_cpu_ratio": min(row["cpu_ratio"] for row in rows),
        "all_identical": all(row["identical"] for row in rows),
        "min_cell_ratio": slowest["ratio"],
        "min_cell": {k: slowest["cell"][k] for k in factors},
        "loadavg": loads,
        "wall_s": time.perf_counter() - t0,
    }
    summary["ratio"] = summary["sum_base_s"] / summary["sum_new_s"]
    summary["cpu_ratio"] = summary["sum_base_cpu_s"] / summary["sum_new_cpu_s"]
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    print(json.dumps({k: v for k, v in summary.items() if k != "loadavg"}, indent=1))
    print("loadavg (1/5/15 min) per worker:", [x["loadavg"][0][0] for x in loads])
    return 0 if summary["all_identical"] else 1


if __name__ == "__main__":
    sys.exit(main())
