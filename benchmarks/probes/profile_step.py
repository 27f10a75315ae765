"""Where one training step's time goes: torch.profiler over the factorial's 2-block encoder.

    python benchmarks/probes/profile_step.py [--seq-lens 8 32] [--heads 1 8] [--epochs 60] [--top 10]
                                      [--out benchmarks/probes/profile.md]

For each (seq_len, heads), with the default settings of the factorial's 2-block encoder otherwise,
at 1 thread: one warm-up run, then ``ablation.train.train_run`` under torch.profiler (CPU
activity). Writes ``--out`` (markdown; its JSON beside it): per profile, the share of self CPU time
in the attention kernel (forward and backward), in matrix products, and in everything else, the
ops dispatched per training step, and the ops with the most self CPU time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

from ablation import settings as S
from ablation.data import make_order_data
from ablation.train import train_run

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: measured.py

from measured import line, stamp  # noqa: E402

KINDS = ("attention kernel", "matrix products", "everything else")


def kind_of(op: str) -> str:
    if "scaled_dot_product" in op:
        return KINDS[0]
    if op in ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm"):
        return KINDS[1]
    return KINDS[2]


def kept_bound(rows: list[dict], kept: tuple = KINDS[:1]) -> tuple[float, float]:
    """(the ``kept`` kinds' share of the profiled settings' summed step time, the largest speed-up of
    their sum that leaves those ops as they are: 1 / share, reached only if everything else took no time)."""
    step = sum(r["step_us"] for r in rows)
    kept_us = sum(r["step_us"] * r["shares"][kind] for r in rows for kind in kept)
    return kept_us / step, step / kept_us


def render(rows: list[dict], load: list, measured: dict, command: str = "python benchmarks/probes/profile_step.py") -> str:
    share, bound = kept_bound(rows, KINDS[:1])
    share2, bound2 = kept_bound(rows, KINDS[:2])
    lines = [
        "# Where a training step's time goes",
        "",
        line(measured),
        "",
        f"Written by `{command}`: "
        f"torch {torch.__version__}, 1 thread; load average {load[0]:.1f} before and {load[1]:.1f} after (shares "
        "of self CPU time under torch.profiler; a busy machine inflates every op alike).",
        "",
        "| seq_len | heads | ops per step | " + " | ".join(KINDS) + " |",
        "| --- | --- | --- | " + " | ".join("---" for _ in KINDS) + " |",
    ]
    for r in rows:
        shares = " | ".join(f"{r['shares'][k]:.0%}" for k in KINDS)
        lines.append(f"| {r['seq_len']} | {r['heads']} | {r['ops_per_step']:.0f} | {shares} |")
    lines += [
        "",
        f"Over these settings together (each weighted by its step time) the attention kernel takes {share:.0%}: "
        f"a change that keeps that kernel can make their summed training at most {bound:.2f}x faster, and only if "
        f"everything else took no time; one that keeps the matrix products too ({share2:.0%} with the kernel), at most "
        f"{bound2:.2f}x. (The profiler inflates many small ops more than one large kernel, so the "
        "true share is larger and the bound smaller.)",
    ]
    for r in rows:
        lines += ["", f"## seq_len {r['seq_len']}, {r['heads']} heads: top ops by self CPU time", "",
                  "| op | share | calls per step |", "| --- | --- | --- |"]  # fmt: skip
        lines += [f"| `{op['op']}` | {op['share']:.1%} | {op['calls_per_step']:.1f} |" for op in r["top"]]
    return "\n".join(lines) + "\n"


def profile_one(settings, top: int) -> dict:
    data = make_order_data(settings)
    train_run(S.from_dict({**settings.as_dict(), "epochs": 3}), data=data)  # warm-up
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        train_run(settings, data=data)
    events = prof.key_averages()
    total_us = sum(e.self_cpu_time_total for e in events)
    ops = sorted(events, key=lambda e: e.self_cpu_time_total, reverse=True)
    kinds = {kind: 0.0 for kind in KINDS}
    for e in events:
        kinds[kind_of(e.key)] += e.self_cpu_time_total / total_us
    return {
        "shares": kinds,
        "seq_len": settings.seq_len,
        "heads": settings.heads,
        "epochs": settings.epochs,
        "ops_per_step": sum(e.count for e in events) / settings.epochs,
        "step_us": total_us / settings.epochs,  # self CPU time per step, under the profiler
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
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "profile.md")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    load = [os.getloadavg()[0]]
    rows = []
    for seq_len in args.seq_lens:
        for heads in args.heads:
            s = S.from_dict(
                {"arch": "encoder", "depth": 2, "norm": "post", "heads": heads, "seq_len": seq_len,
                 "epochs": args.epochs}  # the other settings: the schema's defaults
            )  # fmt: skip
            row = profile_one(s, args.top)
            rows.append(row)
            print(f"seq_len {seq_len}, heads {heads}: {row['ops_per_step']:.0f} ops per step")
            for op in row["top"]:
                print(f"  {op['share']:6.1%}  {op['calls_per_step']:5.1f}/step  {op['op']}")
    load.append(os.getloadavg()[0])
    command = "python benchmarks/probes/profile_step.py " + " ".join(argv if argv is not None else sys.argv[1:])
    measured = stamp()
    args.out.write_text(render(rows, load, measured, command.strip()))
    args.out.with_suffix(".json").write_text(json.dumps({"measured": measured, "load": load, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
