#!/usr/bin/env python3
"""The default test suite's wall time in two checkouts, side by side on one machine.

    .venv/bin/python benchmarks/probes/suite_time.py BEFORE AFTER [--repeats 2] [--out benchmarks/probes/suite_time.md]

It answered one question (did a round of new tests make the suite much slower?), recorded in
suite_time.md with the probes' index (probes/README.md); run it again for the same question at other
commits. The output names the checkouts by their commits, not their folders.

Each checkout runs its own ``.venv/bin/python -m pytest -q`` (what ``make test`` runs) from its root,
the checkouts taking turns (before, after, before, ...) so that the machine's load falls on both
alike. Per run: wall seconds, the 1-minute load average before and after, and pytest's last line;
per checkout: the fastest run. A checkout needs its own .venv (``make venv`` there): the package is
installed editable, so another checkout's venv would import that checkout's code.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: measured.py
from measured import line, stamp  # noqa: E402


def commit(tree: Path) -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip


def run_suite(tree: Path) -> dict:
    python = tree / ".venv" / "bin" / "python"
    if not python.exists():
        sys.exit(f"{tree}: no .venv (run make venv there)")
    env = {k: v for k, v in os.environ.items() if k not in ("RUN_SLOW", "CI", "PYTHONPATH")}
    load_before = os.getloadavg()[0]
    start = time.monotonic()
    done = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=tree, env=env,
                          capture_output=True, text=True)  # fmt: skip
    wall = time.monotonic() - start
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return dict(wall=wall, load_before=load_before, load_after=os.getloadavg()[0], rc=done.returncode,
                last=lines[-1].strip("= ") if lines else "(no output)")  # fmt: skip


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--repeats", type=int, default=2, help="runs of each checkout, taking turns")
    ap.add_argument("--out", type=Path, default=None, help="also write the table here (markdown)")
    args = ap.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    rows = []
    for i in range(args.repeats):
        for name, tree in trees.items():
            r = run_suite(tree)
            rows.append(dict(name=name, commit=commit(tree), run=i + 1, **r))
            print(f"{name} {rows[-1]['commit']} run {i + 1}: {r['wall']:.0f} s (load {r['load_before']:.2f} -> "
                  f"{r['load_after']:.2f}), {r['last']}", flush=True)  # fmt: skip
    cpus = os.cpu_count()
    lines = [
        "# The default test suite, before and after",
        "",
        line(stamp(trees["after"])),
        "",
        f"Written by `python benchmarks/probes/suite_time.py BEFORE AFTER --repeats {args.repeats}` (BEFORE at "
        f"{commit(trees['before'])}, AFTER at {commit(trees['after'])}) on "
        f"{platform.processor() or platform.machine()}, {cpus} CPUs. "
        "Each checkout ran its own `.venv/bin/python -m pytest -q` (make test), the two taking turns; load is the "
        "1-minute load average before and after each run.",
        "",
        "| checkout | commit | run | wall (s) | load before | load after | pytest |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |",
        *(f"| {r['name']} | {r['commit']} | {r['run']} | {r['wall']:.0f} | {r['load_before']:.2f} | "
          f"{r['load_after']:.2f} | {r['last']} |" for r in rows),
        "",
        *(f"Fastest {name}: {min(r['wall'] for r in rows if r['name'] == name):.0f} s." for name in trees),
    ]  # fmt: skip
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    return 0 if all(r["rc"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
