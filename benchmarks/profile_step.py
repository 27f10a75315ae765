"""Where one training step's time goes: torch.profiler over the factorial's 2-block encoder.

    python benchmarks/profile_step.py [--seq-lens 8 32] [--heads 1 8] [--epochs 60] [--top 12] [--out FILE.json]

For each (seq_len, heads), with the default config's settings otherwise, at 1 thread: one warm-up
run, then ``ablation.train.train_run`` under torch.profiler (CPU activity). Prints, and writes as
JSON, the ops that take the most self CPU time, their share of the profiled time and their calls
per training step, plus the number of ops dispatched per step. benchmarks/run.py (section
"profile") renders it into benchmarks/results.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

from ablation import settings as S
from ablation.data import make_order_data
from ablation.train import train_run


def profile_one(settings, top: int) -> dict:
    data = make_order_data(settings)
    train_run(S.from_dict({**settings.as_dict(), "epochs": 3}), data=data)  # warm-up
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        train_run(settings, data=data)
    events = prof.key_averages()
    total_us = sum(e.self_cpu_time_total for e in events)
    ops = sorted(events, key=lambda e: e.self_cpu_time_total, reverse=True)
    return {
        "seq_len": settings.seq_len,
        "heads": settings.heads,
        "epochs": settings.epochs,
        "ops_per_step": sum(e.count for e in events) / settings.epochs,
        "top": [
            {
                "op": e.key,
                "share": e.self_cpu_time_total / total_us,
                "calls_per_step": e.count / settings.epochs,
            }
            for e in ops[:top]
        ],
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seq-lens", type=int, nargs="+", default=[8, 32])
    ap.add_argument("--heads", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    rows = []
    for seq_len in args.seq_lens:
        for heads in args.heads:
            s = S.from_dict(
                {"arch": "encoder", "depth": 2, "pos_enc": "sinusoidal", "norm": "post",
                 "heads": heads, "seq_len": seq_len, "epochs": args.epochs}
            )  # fmt: skip
            row = profile_one(s, args.top)
            rows.append(row)
            print(f"seq_len {seq_len}, heads {heads}: {row['ops_per_step']:.0f} ops per step")
            for op in row["top"]:
                print(f"  {op['share']:6.1%}  {op['calls_per_step']:5.1f}/step  {op['op']}")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
