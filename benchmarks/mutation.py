"""Mutation testing of the modules that decide results: how many planted bugs do their unit tests kill?

    python benchmarks/mutation.py                  # the modules whose row is out of date, then mutation.md
    python benchmarks/mutation.py io data          # some modules (the others' rows are kept from mutation.json)
    python benchmarks/mutation.py --all            # every module below

A row is out of date when a file it depends on changed since its commit: the module, its tests,
tests/conftest.py, or a package module any of these imports (directly or through each other).

For each module, mutmut (pinned in requirements.txt) mutates that one file of the package and runs
the module's unit tests against each mutant (never the Snakemake smoke run: tests that start
Snakemake are deselected). Each module runs in its own scratch folder, benchmarks/work/mutation/<name>/,
a copy of the package laid out as mutmut expects (src/ablation), the tests, the configs and the
workflow; nothing is written into the checkout but benchmarks/mutation.json and mutation.md.

The score is killed / (killed + survived + timed out), with mutmut's own statuses. Surviving
mutants that are equivalent (no behaviour can tell them apart) are listed with a reason in
mutation_harness/survivors.py; mutation.md shows every other survivor as a bug the tests miss.

This file is the command line; mutation_harness/ holds the rest, one idea per module (its __init__
lists them).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time

from mutation_harness.fork_cost import fork_cost
from mutation_harness.modules import MODULES, REPO, git, out_of_date
from mutation_harness.render import file_stamp, render
from mutation_harness.runs import WORK, carry_on, collect, run_module, stopped_run_seconds

JSON = REPO / "benchmarks" / "mutation.json"
MD = REPO / "benchmarks" / "mutation.md"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*",
                        help=f"of {', '.join(MODULES)}; default: those whose row is out of date (see --all)")
    parser.add_argument("--all", action="store_true", help="every module, whether its row is out of date or not")
    parser.add_argument("--children", type=int, default=2, help="mutants tested in parallel")
    parser.add_argument("--as-before", action="store_true", help="store the result as the 'before' score")
    parser.add_argument("--render-only", action="store_true", help="rewrite mutation.md from mutation.json")
    parser.add_argument("--carry-on", action="store_true",
                        help="carry on in the last run's folder with the current tests: untested mutants and "
                        "survivors are tested (source unchanged)")
    parser.add_argument("--survivors-only", action="store_true",
                        help="with --carry-on: test only the survivors; mutants not yet tested stay untested")
    parser.add_argument("--fork-cost", metavar="MODULE", choices=list(MODULES),
                        help="time one mutant's pytest run in a forked child, the warm-up's objects unfrozen and "
                        "frozen (fastest of --repeats each), and record it in mutation.md")
    parser.add_argument("--repeats", type=int, default=7, help="with --fork-cost: runs of each kind")
    parser.add_argument("--collect-only", action="store_true",
                        help="record what the last run's folder holds, without testing (a run stopped part-way)")
    args = parser.parse_args(argv)
    if unknown := set(args.modules) - set(MODULES):
        parser.error(f"unknown module(s): {', '.join(sorted(unknown))}; known: {', '.join(MODULES)}")
    data = json.loads(JSON.read_text()) if JSON.exists() else {"modules": {}, "before": {}}
    commit = git("rev-parse", "--short", "HEAD") + ("-dirty" if git("status", "--porcelain", "--", "scripts", "tests") else "")
    names = args.modules or list(MODULES)
    if args.fork_cost:
        cost = fork_cost(args.fork_cost, args.repeats)
        cost["commit"] = commit
        print(json.dumps(cost), file=sys.stderr)
        data["fork_cost"] = cost
        JSON.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    if not args.modules and not (args.all or args.carry_on or args.collect_only or args.render_only or args.fork_cost):
        stale = out_of_date(data)
        names = [name for name in MODULES if name in stale]
        current = [name for name in MODULES if name not in stale]
        print(f"current (no file they depend on changed since their row): {', '.join(current) or 'none'}; "
              f"to measure: {', '.join(names) or 'none (--all measures every module)'}", file=sys.stderr)  # fmt: skip
    measuring = not (args.render_only or args.fork_cost or args.collect_only)
    start = time.monotonic()
    if not (args.render_only or args.fork_cost):
        for name in names:
            print(f"{name}: mutating scripts/ablation/{name}.py ...", file=sys.stderr, flush=True)
            if args.collect_only:  # a run stopped part-way: what it has measured ("not checked": not yet tested)
                row = collect(WORK / name, dict(os.environ), None, stopped_run_seconds(name))
            elif args.carry_on:
                row = carry_on(name, args.children, args.survivors_only)
            else:
                row = run_module(name, MODULES[name], args.children)
            row["commit"] = commit
            row["measured_at"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            data = json.loads(JSON.read_text()) if JSON.exists() else data  # rows another run wrote meanwhile
            data.setdefault("before", {})
            data["before" if args.as_before else "modules"][name] = row
            print(f"{name}: {row['counts']} in {row['seconds']:.0f} s", file=sys.stderr, flush=True)
            JSON.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    if measuring and names:  # this invocation from start to here: the rows' runs and the reading of their results
        data["invocation"] = {"modules": names, "commit": commit, "seconds": round(time.monotonic() - start, 1),
                              "carry_on": args.carry_on}  # fmt: skip
        JSON.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    data["modules"] = {k: data["modules"][k] for k in MODULES if k in data["modules"]}
    data["measured"] = file_stamp(data)
    JSON.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    MD.write_text(render(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
