#!/usr/bin/env python
"""The benchmark harness: the pipeline against a hand-written loop, per-job overhead,
training speed, scale, and where the per-job overhead goes.

    python benchmarks/run.py            # the full harness (~20 min on a quiet 2-core machine); `make bench`
    python benchmarks/run.py --quick    # a reduced version (smoke test; numbers not representative)
    python benchmarks/run.py --render benchmarks/results.json   # re-render results.md only (no new numbers)

Writes benchmarks/results.json and benchmarks/results.md (or into --out-dir). Every number in
them is produced by this script, in one run. One module of harness/ per section returns its
measurements as plain data (results.json); results.md is harness/results.md.j2 filled with them
(harness/report.py). Sections:

1. End to end: `snakemake --cores 2` on benchmarks/harness/bench.yaml (target results/<study>/summary.csv)
   in a temp copy of the project, against benchmarks/harness/naive.py (the lesson's code, one run after
   another in one process, torch's default threads); test accuracies compared per run. The pipeline
   is measured as shipped: its training jobs are forked from the fork server (ablation.forkserver,
   started by the Snakefile's onstart hook). For comparison the same pipeline once more with
   ABLATION_FORK_SERVER=0 (every job imports torch itself); both must give bit-identical
   params_sha256 per run, and provenance.json's `launcher` must say which way each run was trained.
2. Per-job overhead and parallel efficiency, from section 1's pipeline run (metrics.csv
   train_seconds and Snakemake's per-job benchmark files), the run without the fork server beside it.
3. Training speed: ablation.train.train_run against naive.train_eval, in one process at 1 thread.
4. Scale: dry run of a 10,000-run grid; aggregation, tables, figures and report on 10,000 synthetic
   runs (the rules' own command lines, taken from a dry run); peak RSS of a training job.
5. Levers: interpreter start, imports, provenance, file writes, Snakemake's per-job bookkeeping
   (train jobs whose command is replaced by `touch`), a training job through the fork server against
   the same command without one.

The machine is shared: each measurement records the load average and the CPU time other processes
used meanwhile (/proc/stat minus this harness's own rusage), and results.md warns when it was busy.
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

from harness.common import FORK_VAR, HERE, Meter, log
from harness.e2e import section_e2e, section_overhead
from harness.levers import section_levers
from harness.report import evaluate_checks, evaluate_goals, machine, versions, write_outputs
from harness.scale import section_scale
from measured import stamp
from harness.training import section_speed

SECTIONS = ("e2e", "speed", "scale", "levers")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a reduced version (smoke test)")
    ap.add_argument("--out-dir", type=Path, default=HERE, help="where results.md and results.json go")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated subset of {','.join(SECTIONS)}")
    ap.add_argument("--no-baseline-pipeline", action="store_true",
                    help=f"skip the comparison run of the pipeline without the fork server ({FORK_VAR}=0)")  # fmt: skip
    ap.add_argument("--keep", action="store_true", help="keep the temporary work folder")
    ap.add_argument("--render", type=Path, metavar="RESULTS_JSON",
                    help="only re-render results.md (into --out-dir) from an earlier run's results.json")  # fmt: skip
    args = ap.parse_args(argv)
    if args.render:
        R = json.loads(args.render.read_text())
        R["goals"] = evaluate_goals(R)
        R["checks"] = evaluate_checks(R)
        write_outputs(R, args.out_dir)
        log(f"re-rendered {args.out_dir / 'results.md'} from {args.render}")
        return 0
    wanted = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = set(wanted) - set(SECTIONS)
    if unknown:
        ap.error(f"unknown sections: {', '.join(sorted(unknown))}")
    tmp = Path(tempfile.mkdtemp(prefix="ablation-bench-"))
    R = {
        "quick": args.quick,
        "cores": args.cores,
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "measured": stamp(),
        "machine": machine(),
        "versions": versions(),
        "sections": {},
        "busy_sections": {},
    }
    log(f"work folder {tmp}; load {os.getloadavg()[0]:.2f}")
    try:
        with Meter() as total:
            if "e2e" in wanted:
                with Meter() as m:
                    R["sections"]["e2e"] = section_e2e(
                        tmp, args.quick, args.cores, baseline=not args.no_baseline_pipeline
                    )
                    R["sections"]["overhead"] = section_overhead(R["sections"]["e2e"])
                R["busy_sections"]["1. end to end"] = m.record()["busy"]
            if "speed" in wanted:
                with Meter() as m:
                    R["sections"]["speed"] = section_speed(tmp, args.quick)
                R["busy_sections"]["3. training speed"] = m.record()["busy"]
            if "scale" in wanted:
                with Meter() as m:
                    R["sections"]["scale"] = section_scale(tmp, args.quick)
                R["busy_sections"]["4. scale"] = m.record()["busy"]
            if "levers" in wanted:
                with Meter() as m:
                    R["sections"]["levers"] = section_levers(tmp, args.quick, args.cores)
                R["busy_sections"]["5. levers"] = m.record()["busy"]
    finally:
        if args.keep:
            log(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    R["load"] = total.record()
    R["total_wall_s"] = total.wall
    R["goals"] = evaluate_goals(R)
    R["checks"] = evaluate_checks(R)
    write_outputs(R, args.out_dir)
    log(f"wrote {args.out_dir / 'results.md'} ({total.wall / 60:.1f} min)")
    for g in R["goals"]:
        log(f"  {g['status']:4}  {g['goal']}: {g['shown']}")
    for c in R["checks"]:
        log(f"  {c['status']:4}  check: {c['check']}: {c['shown']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
