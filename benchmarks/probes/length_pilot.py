#!/usr/bin/env python3
"""Does the length study's design learn its trained lengths with every positional encoding, what does
each encoding score beyond them, and what does a run cost?

    python benchmarks/probes/length_pilot.py [--seeds 0 1 2] [--study length ...] [--jobs 1]
        [--config config/config.yaml] [--set ff=128 ...] [--out benchmarks/probes/length_pilot.md]

Trains the runs of one or more studies of the config (default: the length study of
config/config.yaml) for the given seeds, each on one thread exactly as its training job would
(ablation.train), ``--jobs`` of them side by side, then evaluates each as the evaluate stage does
(ablation.evaluate, from the weights the run wrote) at its study's test lengths. ``--set name=value`` overrides a fixed setting of the
study (a JSON value), to try a variant of the design. Writes a Markdown table: per encoding and
seed, the main metric's mean over the trained lengths, its lowest trained length, its mean over
the untrained ones, and the training seconds; then per encoding the means over seeds; a section per study.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "benchmarks"))  # measured.py

from ablation import config as C  # noqa: E402 (the package lives under scripts/)
from ablation import provenance  # noqa: E402
from ablation.data import evaluated_lengths, task_of  # noqa: E402
from ablation.evaluate import evaluate  # noqa: E402
from ablation.train import train_run, write_outputs  # noqa: E402
from measured import line, stamp  # noqa: E402


def measure(run, eval_lengths: list[int], folder: Path) -> dict:
    """One run trained and evaluated: its numbers for the table."""
    s = run.settings
    result = train_run(s, threads=1)
    run_dir = folder / run.hash
    write_outputs(result, run_dir, run.study, run.hash)
    task = task_of(s)
    rows = [r for r in evaluate(s, run_dir, evaluated_lengths(s, eval_lengths)) if r["metric"] == task.main_metric]
    trained = [r["value"] for r in rows if r["trained"]]
    beyond = [r["value"] for r in rows if not r["trained"]]
    return {
        "factors": run.factors, "seed": s.seed, "status": result.status, "train_seconds": result.train_seconds,
        "trained_mean": sum(trained) / len(trained), "trained_min": min(trained),
        "beyond_mean": sum(beyond) / len(beyond) if beyond else float("nan"),
        "beyond_lengths": sorted(r["length"] for r in rows if not r["trained"]), "metric": task.main_metric,
    }  # fmt: skip


def table(rows: list[dict]) -> list[str]:
    factor_names = list(rows[0]["factors"])
    head = [*factor_names, "seed", "status", "trained: mean", "trained: lowest", "beyond: mean", "train s"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in rows:
        cells = [*map(str, r["factors"].values()), str(r["seed"]), r["status"], f"{r['trained_mean']:.3f}",
                 f"{r['trained_min']:.3f}", f"{r['beyond_mean']:.3f}", f"{r['train_seconds']:.1f}"]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def per_seed(rows: list[dict]) -> str:
    return ", ".join(f"{r['beyond_mean']:.2f}" for r in rows)


def summary(rows: list[dict]) -> list[str]:
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(", ".join(f"{k}={v}" for k, v in r["factors"].items()), []).append(r)
    lines = ["| cell | seeds | trained: mean | trained: lowest (any seed) | beyond: mean | beyond: per seed | train s (mean) |",
             "| --- | --- | --- | --- | --- | --- | --- |"]  # fmt: skip
    for cell, rs in groups.items():
        mean = lambda key: sum(r[key] for r in rs) / len(rs)  # noqa: E731
        lines.append(f"| {cell} | {len(rs)} | {mean('trained_mean'):.3f} | {min(r['trained_min'] for r in rs):.3f} | "
                     f"{mean('beyond_mean'):.3f} | {per_seed(rs)} | "
                     f"{mean('train_seconds'):.1f} |")  # fmt: skip
    return lines


def load_studies(config: Path, names: list[str], seeds: list[int], overrides: list[str], levels: list[str] = (),
                 eval_lengths: list[int] = ()) -> dict:  # fmt: skip
    """The named studies of the config, with the given seeds, fixed settings overridden, factors
    narrowed to the given levels and, when given, test lengths [from, to]."""
    raw = C.load_yaml(config)
    for name in names:
        body = raw["studies"][name]
        body["fixed"] = body.get("fixed", {}) | {k: json.loads(v) for k, v in (item.split("=", 1) for item in overrides)}
        body["factors"] = body.get("factors", {}) | {k: v.split(",") for k, v in (item.split("=", 1) for item in levels)}
        body["seeds"] = seeds
        if eval_lengths:
            body["eval_lengths"] = {"from": eval_lengths[0], "to": eval_lengths[1]}
        body["claims"] = []  # the pilot trains and evaluates; it judges nothing
        body.pop("published", None)
    raw.pop("report", None)  # its headline names claims, and the pilot's studies have none
    return {name: C.validate(raw).studies[name] for name in names}


def _measure(job: tuple) -> dict:
    """One job in a worker process: the run (study, index) rebuilt there from the config (a run's
    settings class is made at run time, so it does not travel between processes)."""
    load, name, index, folder, max_distance = job
    if max_distance:  # a probe of T5's buckets: the model's class constant, set in this worker alone
        from ablation.model import T5RelativeBias

        T5RelativeBias.max_distance = max_distance
    study = load_studies(*load)[name]
    run = list(study.runs())[index]
    r = measure(run, study.eval_lengths, Path(folder))
    print(f"{run.study} {run.run_id}: {r['metric']} trained {r['trained_mean']:.3f} (lowest {r['trained_min']:.3f}), "
          f"beyond {r['beyond_mean']:.3f}, {r['train_seconds']:.1f} s", flush=True)  # fmt: skip
    return r


def section(name: str, study, rows: list[dict]) -> list[str]:
    beyond = rows[0]["beyond_lengths"]
    return [
        f"## {name} (task {study.fixed.get('task')})",
        "",
        f"The study's fixed settings: `{json.dumps(study.fixed, sort_keys=True)}`.",
        "",
        f"The metric is the task's main one ({rows[0]['metric']}, greedy decoding, {study.fixed.get('n_test')} test "
        f"sequences per length); *trained*: over the run's trained lengths; *beyond*: over lengths "
        f"{beyond[0]}-{beyond[-1]}." if beyond else "",
        "",
        *summary(rows),
        "",
        *table(rows),
        "",
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", type=Path, default=REPO / "config" / "config.yaml")
    ap.add_argument("--study", nargs="+", default=["length"])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--jobs", type=int, default=1, help="runs trained side by side, one thread each")
    ap.add_argument("--set", nargs="*", default=[], metavar="NAME=VALUE", help="override a fixed setting (JSON value)")
    ap.add_argument("--levels", nargs="*", default=[], metavar="FACTOR=A,B", help="train only these levels of a factor")
    ap.add_argument("--eval-lengths", type=int, nargs=2, default=[], metavar=("FROM", "TO"),
                    help="test lengths from FROM to TO instead of the study's")
    ap.add_argument("--t5-max-distance", type=int, default=0, metavar="D",
                    help="T5's last log-spaced bucket at distance D instead of the model's 128 (a probe: every "
                         "distance past D shares the last bucket)")  # fmt: skip
    ap.add_argument("--out", type=Path, default=Path(__file__).with_suffix(".md"))
    args = ap.parse_args(argv)
    load = (args.config, args.study, args.seeds, args.set, args.levels, args.eval_lengths)
    studies = load_studies(*load)
    load_before = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M")
    with tempfile.TemporaryDirectory(prefix="length-pilot-") as tmp:
        jobs = [(load, name, i, tmp, args.t5_max_distance) for name, study in studies.items()
                for i in range(len(list(study.runs())))]  # fmt: skip
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(args.jobs, mp_context=context) as pool:
            rows = list(pool.map(_measure, jobs))
    import torch

    command = (f"python benchmarks/probes/length_pilot.py --study {' '.join(args.study)} "
               f"--seeds {' '.join(map(str, args.seeds))}" + (f" --jobs {args.jobs}" if args.jobs > 1 else "")
               + (f" --set {' '.join(args.set)}" if args.set else "")
               + (f" --levels {' '.join(args.levels)}" if args.levels else "")
               + (f" --eval-lengths {args.eval_lengths[0]} {args.eval_lengths[1]}" if args.eval_lengths else "")
               + (f" --t5-max-distance {args.t5_max_distance}" if args.t5_max_distance else "")
               + (f" --out {os.path.relpath(args.out, REPO)}" if args.out != Path(__file__).with_suffix(".md") else ""))  # fmt: skip
    text = [
        f"# {', '.join(args.study)}: trained and untrained lengths, per seed",
        "",
        line(stamp()),
        "",
        f"`{command}`",
        "",
        f"Run {started}, torch {torch.__version__}, {provenance.cpu_model() or platform.processor()}, one thread per run, "
        f"{args.jobs} side by side, load average {load_before[0]:.1f} before and {os.getloadavg()[0]:.1f} after"
        + (f"; fixed settings overridden: {', '.join(args.set)}" if args.set else "")
        + (f"; T5's max_distance {args.t5_max_distance} instead of 128" if args.t5_max_distance else "") + ".",
        "",
    ]
    for name, study in studies.items():
        text += section(name, study, [r for r, (_, study_name, *_) in zip(rows, jobs) if study_name == name])
    args.out.write_text("\n".join(text), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
