#!/usr/bin/env python3
"""Where CI's time goes: the wall time of given pytest selections, each in a pytest of its own.

    .venv/bin/python benchmarks/probes/ci_time.py --label before tests/workflow/test_faults.py ...
    .venv/bin/python benchmarks/probes/ci_time.py --label after -n 2 tests/workflow/test_faults.py ...
    .venv/bin/python benchmarks/probes/ci_time.py --render      # ci_time.md again from ci_time.json

It answers one question (which test files make a fresh-clone CI long, and did sharing the Snakemake
runs between tests shorten them?), recorded in ci_time.md and ci_time.json beside it. Each selection
runs as ``nice -n 19 .venv/bin/python -m pytest -q --durations=N SELECTION`` from the repository root
with ``RUN_SLOW=1`` (what CI's ``CI=true`` turns on: every slow test), one after another; per
selection: wall seconds, the 1-minute load average before and after, pytest's last line and its
slowest phases. Rows are added to ci_time.json under their label and commit (a row of the same label
and selection is replaced), so that before and after can be measured at their own commits; the
files' stamp is the commit of the last measurement. The machine may be shared: the load says how
busy it was, and only rows measured under a similar load compare.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: measured.py
from measured import REPO, line, stamp  # noqa: E402

HERE = Path(__file__).resolve().parent
DURATION = re.compile(r"^\s*([\d.]+)s (setup|call|teardown)\s+(\S+)", re.M)


def commit() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip


def run_selection(selection: list[str], workers: str | None, durations: int) -> dict:
    python = REPO / ".venv" / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTHONPATH")} | {"RUN_SLOW": "1"}
    cmd = ["nice", "-n", "19", str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--durations={durations}",
           *(["-n", workers] if workers else []), *selection]  # fmt: skip
    load_before = os.getloadavg()[0]
    start = time.monotonic()
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    lines = [ln for ln in done.stdout.splitlines() if ln.strip()]
    slowest = [dict(seconds=float(s), phase=p, test=t) for s, p, t in DURATION.findall(done.stdout)]
    return dict(selection=" ".join(selection), workers=workers, wall=round(wall, 1), load_before=round(load_before, 2),
                load_after=round(os.getloadavg()[0], 2), rc=done.returncode,
                last=lines[-1].strip("= ") if lines else "(no output)", slowest=slowest,
                failed=[ln[len("FAILED "):] for ln in lines if ln.startswith("FAILED ")])  # fmt: skip


def render(record: dict) -> str:
    rows = record["rows"]
    out = [
        "# Where CI's time goes: the slow test files, before and after sharing their Snakemake runs",
        "",
        line(record["measured"]),
        "",
        "Written by `python benchmarks/probes/ci_time.py --label LABEL [-n WORKERS] SELECTION ...` on "
        f"{record['machine']}. Each selection ran alone as `nice -n 19 .venv/bin/python -m pytest -q "
        "--durations=N SELECTION` with `RUN_SLOW=1` (every slow test, as CI runs them), one selection after "
        "another; load is the 1-minute load average before and after. The machine was shared with other "
        "work (a training run, other tests): times compare only at a similar load.",
        "",
        "| label | commit | selection | workers | wall (s) | load before | load after | pytest |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |",
        *(f"| {r['label']} | {r['commit']} | `{r['selection']}` | {r['workers'] or 1} | {r['wall']:.0f} | "
          f"{r['load_before']:.2f} | {r['load_after']:.2f} | {r['last']} |" for r in rows),
        "",
        "## The slowest phases of each selection",
        "",
    ]  # fmt: skip
    for r in rows:
        out += [f"{r['label']} at {r['commit']}, `{r['selection']}`:", ""]
        out += [f"- {s['seconds']:.1f} s {s['phase']} `{s['test']}`" for s in r["slowest"][:8]] or ["- (not kept)"]
        out += [f"- failed: `{f}`" for f in r.get("failed", [])]
        out.append("")
    if record.get("notes"):
        out += ["## Notes", "", *record["notes"], ""]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("selections", nargs="*", help="test files (or node ids); each runs in a pytest of its own")
    ap.add_argument("--label", default="after", help="the rows' label: before, after, ...")
    ap.add_argument("-n", dest="workers", default=None, help="pytest-xdist workers (-n) for each selection")
    ap.add_argument("--durations", type=int, default=15)
    ap.add_argument("--render", action="store_true", help="only write ci_time.md again from ci_time.json")
    ap.add_argument("--out", type=Path, default=HERE / "ci_time.json")
    args = ap.parse_args(argv)
    record = json.loads(args.out.read_text()) if args.out.is_file() else {"rows": []}
    failed = False
    taken = stamp(REPO)  # before this script writes its own files: they would make the tree look edited
    if not args.render:
        for selection in args.selections:
            r = run_selection(selection.split(), args.workers, args.durations)
            print(f"{args.label} {selection}: {r['wall']:.0f} s (load {r['load_before']:.2f} -> {r['load_after']:.2f}), "
                  f"{r['last']}", flush=True)  # fmt: skip
            failed |= r["rc"] != 0
            row = dict(label=args.label, commit=commit(), **r)
            record["rows"] = [x for x in record["rows"] if (x["label"], x["selection"], x["workers"]) !=
                              (args.label, row["selection"], row["workers"])] + [row]  # fmt: skip
            record["measured"] = taken
            record["machine"] = f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs"
            args.out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")  # each row as it comes
    args.out.with_suffix(".md").write_text(render(record), encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
