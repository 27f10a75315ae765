#!/usr/bin/env python
"""Snakemake's main process: its own CPU seconds per step, on the default config's DAG and on a
5,000-run grid, beside a bare Snakefile of the same shape, before and after a change of the workflow.

    python benchmarks/main_process.py                     # writes benchmarks/main_process.md and .json
    python benchmarks/main_process.py --quick --out-dir /tmp/mp   # smoke config and an 80-run grid
    python benchmarks/main_process.py --before <commit>   # the workflow of another commit as "before"

How each number is measured: benchmarks/harness/mainproc.py. The bar (docs/speed.md): at most
0.1 CPU-s per step after the change, on both shapes.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from harness.common import HERE, Meter, log
from measured import line, stamp
from harness.mainproc import SHAPES, before_ref, section_main_process
from harness.report import machine, versions

BAR_S = 0.1
ROWS = ("dag before", "dag after", "bare before", "bare after")


def render(R: dict) -> str:
    m, sec = R["machine"], R["section"]
    lines = [
        "# Snakemake's main process: CPU seconds per step",
        "",
        line(R["measured"]),
        "",
        f"Measured {R['date']} at commit {m['git_commit']}{' (uncommitted changes)' if m['git_dirty'] else ''}"
        f" by `python benchmarks/main_process.py{' --quick' if R['quick'] else ''}`, on {m['cpu']} ({m['cores']} cores),"
        f" Snakemake {R['versions']['snakemake']}; load average {R['load']['load1_before']:.2f} before,"
        f" {R['load']['load1_after']:.2f} after; other processes used {R['load']['foreign_share']:.0%} of the CPU"
        f" meanwhile. {sec['cores']} cores; fastest of {sec['repeats']} tries per row.",
        "",
        f"Before: the workflow of commit {sec['before_ref']} (its profile's scheduler), and a bare Snakefile with"
        " Snakemake's defaults (ILP, job rate limiter). After: this commit's workflow"
        f" (scheduler `{sec['after_scheduler']}`, the rate limiter dropped for local jobs:"
        " scripts/ablation/scheduling.py), and a bare Snakefile with the same. Steps are Snakemake's"
        " (jobs, adaptive rounds' included); passes are the scheduler's job selections; CPU is the main process's"
        " own (user + system), jobs excluded. A row stopped at the time limit counts the steps done by then.",
        "",
        "| shape | runs | train job sleeps | row | scheduler | steps | passes | wall s | main CPU s | CPU s per step | load (1 min) |",
        "| --- | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    verdicts = []
    for shape in SHAPES:
        s = sec["shapes"].get(shape)
        if not s:
            continue
        for key in (k for k in ROWS if k in s["rows"]):
            r = s["rows"][key]
            stopped = f" (stopped at {sec['limit_s']:.0f} s, {r['steps']} of {r['steps_total']})" if r["timed_out"] else ""
            lines.append(
                f"| {shape} | {s['runs']} | {sec['sleep_s'][shape]} s | {key}{stopped} | {r['scheduler']} | {r['steps']} |"
                f" {'—' if r['passes'] is None else r['passes']} |"
                f" {r['wall_s']:.0f} | {r['cpu_s']:.1f} | {r['cpu_per_step_s']:.3f} |"
                f" {r['meter']['load1_before']:.1f} → {r['meter']['load1_after']:.1f} |"
            )
        after = s["rows"]["dag after"]["cpu_per_step_s"]
        verdicts.append(f"- {shape}: {after:.3f} CPU-s per step after: {'within' if after <= BAR_S else 'ABOVE'} the bar of {BAR_S} s.")
    return "\n".join([*lines, "", *verdicts, ""])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smoke config and an 80-run grid (a trial)")
    ap.add_argument("--before", default=None, help="commit whose workflow is 'before' (default: the parent "
                    "of the commit that added scripts/ablation/scheduling.py)")  # fmt: skip
    ap.add_argument("--repeats", type=int, default=3, help="tries per row; the fastest is kept (default 3)")
    ap.add_argument("--limit", type=float, default=900, help="seconds after which a try is stopped (default 900)")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--sleep-default", type=float, default=1.0, help="seconds each default-config train job sleeps")
    ap.add_argument("--sleep-grid", type=float, default=0.02, help="seconds each grid train job sleeps")
    ap.add_argument("--after-scheduler", default=None, help="the after rows' scheduler (default: the profile's)")
    ap.add_argument("--shapes", default=",".join(SHAPES), help=f"comma-separated subset of {','.join(SHAPES)}")
    ap.add_argument("--no-before", action="store_true", help="the after rows only (e.g. to compare schedulers)")
    ap.add_argument("--out-dir", type=Path, default=HERE)
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="ablation-main-process-"))
    R = {"quick": args.quick, "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
         "machine": machine(), "versions": versions()}  # fmt: skip
    log(f"work folder {tmp}; load {os.getloadavg()[0]:.2f}")
    try:
        with Meter() as total:
            R["section"] = section_main_process(
                tmp, args.quick, args.before or before_ref(), args.repeats, args.limit, args.cores,
                {"default": args.sleep_default, "grid": args.sleep_grid}, args.after_scheduler,
                shapes=[x for x in args.shapes.split(",") if x], before=not args.no_before,
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    R["load"] = total.record()
    R["measured"] = stamp()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "main_process.json").write_text(json.dumps(R, indent=1) + "\n")
    (args.out_dir / "main_process.md").write_text(render(R))
    log(f"wrote {args.out_dir / 'main_process.md'} ({total.wall / 60:.1f} min)")
    print(render(R))
    return 0


if __name__ == "__main__":
    sys.exit(main())
