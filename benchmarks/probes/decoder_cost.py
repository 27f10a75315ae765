#!/usr/bin/env python3
"""Does the cost model the DAG schedules by (``ablation.settings.cost_estimate``) price a decoder run as
it prices the encoder runs beside it?

    python benchmarks/probes/decoder_cost.py [--repeats 2] [--config config/config.yaml]
        [--decoder length] [--encoder position] [--out benchmarks/probes/decoder_cost.md]

Trains, one after another in this process on one thread, seed 0 of every cell of the decoder study
(default: the length study of the config) and of the encoder study (default: the position study,
its bidirectional cells), interleaved so that a change in the machine's load falls on both, each run
``--repeats`` times; prints and writes each run's training seconds (wall, as train_seconds, and the
process's CPU seconds, which a busy machine inflates less) and its CPU seconds per unit of
cost_estimate, and the median of that ratio per architecture. `make plan` turns units into minutes
with one such ratio for every run, so the two medians should be close.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "benchmarks"))  # measured.py

from ablation import config as C  # noqa: E402 (the package lives under scripts/)
from ablation import provenance  # noqa: E402
from ablation.settings import cost_estimate  # noqa: E402
from ablation.train import train_run  # noqa: E402
from measured import line, stamp  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", type=Path, default=REPO / "config" / "config.yaml")
    ap.add_argument("--decoder", default="length", help="the study of decoder runs")
    ap.add_argument("--encoder", default="position", help="the study of encoder runs (its bidirectional cells)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_suffix(".md"))
    args = ap.parse_args(argv)
    cfg = C.load(args.config)
    decoders = [r for r in cfg.studies[args.decoder].runs() if r.settings.seed == 0]
    encoders = [r for r in cfg.studies[args.encoder].runs()
                if r.settings.seed == 0 and r.settings.attn_mask == "bidirectional"]  # fmt: skip
    order = [run for pair in itertools.zip_longest(decoders, encoders) for run in pair if run] * args.repeats
    load_before, started = os.getloadavg()[0], time.strftime("%Y-%m-%d %H:%M")
    rows = []
    for run in order:
        cpu = time.process_time()
        wall = train_run(run.settings, threads=1).train_seconds
        cpu = time.process_time() - cpu
        rows.append((run, wall, cpu, cpu / cost_estimate(run.settings)))
        print(f"{run.study}/{run.run_id}: {wall:.1f} s wall, {cpu:.1f} s CPU, {cost_estimate(run.settings)} units, "
              f"{rows[-1][3]:.4f} CPU s/unit", flush=True)  # fmt: skip
    import torch

    medians = {arch: statistics.median(r for run, _, _, r in rows if run.settings.arch == arch)
               for arch in dict.fromkeys(run.settings.arch for run, *_ in rows)}  # fmt: skip
    text = [
        "# Seconds per unit of cost_estimate: decoder and encoder runs, interleaved",
        "",
        line(stamp()),
        "",
        f"`python benchmarks/probes/decoder_cost.py --repeats {args.repeats}`",
        "",
        f"Run {started}, torch {torch.__version__}, {provenance.cpu_model()}, one thread, load average "
        f"{load_before:.1f} before and {os.getloadavg()[0]:.1f} after.",
        "",
        "| architecture | runs | median CPU s per unit |",
        "| --- | --- | --- |",
        *[f"| {arch} | {sum(run.settings.arch == arch for run, *_ in rows)} | {m:.4f} |" for arch, m in medians.items()],
        "",
        "| run | cost_estimate | train s (wall) | CPU s | CPU s per unit |",
        "| --- | --- | --- | --- | --- |",
        *[f"| {run.study}/{run.run_id} | {cost_estimate(run.settings)} | {w:.1f} | {c:.1f} | {r:.4f} |"
          for run, w, c, r in rows],
        "",
    ]
    args.out.write_text("\n".join(text), encoding="utf-8")
    print("\n".join(text[6:10 + len(medians)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
