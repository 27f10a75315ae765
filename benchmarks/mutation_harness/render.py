"""mutation.md from the rows of mutation.json: the scores against their goals, the rows out of date, and
every surviving mutant with its tag (equivalent, left alone, or not killed)."""

from __future__ import annotations

import math
from pathlib import Path

from measured import line as stamp_line  # benchmarks/measured.py: mutation.py's folder is on the path

from .modules import DEFAULT_GOAL, GOAL, MODULES, git, out_of_date
from .runs import LOAD_EVERY
from .survivors import EQUIVALENT, LEFT_ALONE

def score(row: dict) -> float | None:
    c = row["counts"]
    judged = c["killed"] + c["survived"] + c["timeout"] + c["no tests"]
    return c["killed"] / judged if judged else None


def _partial(counts: dict) -> str:
    """A run stopped part-way (``--collect-only``): how many mutants it had not tested yet."""
    return f" (partial: {counts['not checked']} not yet tested)" if counts.get("not checked") else ""


def file_stamp(data: dict) -> dict:
    """The file's stamp as a whole (benchmarks/measured.py): its oldest row's commit and date, so that
    the file counts as current only while every row does."""
    rows = list(data["modules"].values())
    oldest = min(rows, key=lambda r: int(git("log", "-1", "--format=%ct", r["commit"].removesuffix("-dirty"))))
    return {"commit": oldest["commit"].removesuffix("-dirty"), "dirty": oldest["commit"].endswith("-dirty"),
            "date": oldest["measured_at"].replace("T", " ")[:16] + " UTC",
            "note": "(The oldest row's; each row gives its own commit.)"}  # fmt: skip


def render(data: dict) -> str:
    lines = [
        "# Mutation score of the modules that decide results",
        "",
        stamp_line(file_stamp(data)),
        "",
        "Written by `make mutation` (`benchmarks/mutation.py`): mutmut plants one small bug at a time in a",
        "module and runs that module's unit tests against it. *killed*: some test failed; *survived*: every",
        "test passed; *timeout*: the tests ran past mutmut's limit; *no tests*: no selected test reaches the",
        "mutated function. Score = killed / (killed + survived + timeout + no tests); *equivalent*: survivors",
        "listed below with the reason no behaviour tells them from the original; the last score leaves them out.",
        "*minutes*: the run's wall time on this 2-core machine, with the machine's 1-minute load average",
        f"during it where recorded (sampled every {LOAD_EVERY} s; the run's own workers count in it).",
        "*commit*: the checkout measured (*-dirty*: with uncommitted changes under scripts/ or tests/).",
        "A row is out of date once a file it depends on changes (listed below the table): `make mutation`",
        "re-measures those rows only, `make mutation MODULES=\"io data\"` the modules named, and",
        "`python benchmarks/mutation.py --all` every module.",
        "",
        "The tool is mutmut (pinned in requirements.txt) rather than cosmic-ray: mutmut forks each mutant's test",
        "run from a process that has imported torch and the tests already, and runs only the tests that reach",
        "the mutated function; cosmic-ray starts the whole test command afresh for every mutant. A mutant's tests",
        "run fastest first (by the durations mutmut recorded on the unmutated code), so that mutmut's `pytest -x`",
        "stops at the first failing test as soon as it can; the order changes no status.",
        "",
        "| module | tests | commit | killed | survived | timeout | no tests | equivalent | score | score, equivalents aside | goal | minutes |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, spec in MODULES.items():
        tests = ", ".join(Path(t).name for t in spec["tests"])
        goal = GOAL.get(name, DEFAULT_GOAL)
        row = data["modules"].get(name)
        if row is None:
            lines.append(f"| {name} | {tests} | not measured | | | | | | | | {goal:.0%} | |")
            continue
        c, s = row["counts"], score(row)
        eq = sum(m in EQUIVALENT for m in row["survivors"])
        judged = c["killed"] + c["survived"] + c["timeout"] + c["no tests"] - eq
        s_eq = c["killed"] / judged if judged else None
        mark = "" if s_eq is None else (" ✓" if s_eq >= goal else " ✗")
        lines.append(
            f"| {name} | {tests} | {row['commit']}{_partial(c)} | {c['killed']} | {c['survived']} | {c['timeout']} | {c['no tests']} "
            f"| {eq} | {_pct(s)} | {_pct(s_eq)}{mark} | {goal:.0%} | {row['seconds'] / 60:.1f}{_pass(row)}{_load_text(row)} |"
        )
    rows = data["modules"]
    if rows and not any(r.get("carried_on") for r in rows.values()):
        lines += ["", f"Every module afresh, one after another (`--all`): about {sum(r['seconds'] for r in rows.values()) / 60:.0f} "
                  "minutes, the sum of the rows' minutes (each under the load shown, where recorded)."]  # fmt: skip
    if run := data.get("invocation"):
        what = "every module" if set(run["modules"]) == set(MODULES) else ", ".join(run["modules"])
        lines += ["", f"The last invocation that measured ({what}{', carrying on' if run['carry_on'] else ''}, at "
                  f"{run['commit']}): {run['seconds'] / 60:.1f} minutes from its start to this file, the reading of "
                  "the results (the survivors' diffs) included."]  # fmt: skip
    if cost := data.get("fork_cost"):
        lines += ["", f"A mutant's pytest run (`--fork-cost {cost['module']}` at {cost['commit']}): one test "
                  f"(`{cost['test']}`) in a child forked from a process warmed up as mutmut's fork server is, "
                  f"{cost['unfrozen']:.3f} s with the warm-up's objects left to the garbage collector and "
                  f"{cost['frozen']:.3f} s with them frozen, as the harness's conftest does "
                  f"(fastest of {cost['repeats']} each, alternating; load {cost['load'][0]:.1f} before, "
                  f"{cost['load'][1]:.1f} after). Every mutant pays this once, whatever its tests."]  # fmt: skip
    stale = out_of_date(data)
    lines += ["", f"Rows out of date at {git('rev-parse', '--short', 'HEAD')} (a file they depend on changed since "
              "their commit: the module, its tests, tests/conftest.py or a package module these import); "
              "`make mutation` re-measures these and no others:" if stale else
              "Every row is current: no file it depends on changed since its commit."]  # fmt: skip
    lines += [f"- {name}: {', '.join(files)}" for name, files in stale.items()]
    if data.get("before"):
        lines += ["", "## Before", "",
                  "The same measurement with the tests the round started from (commit "
                  + ", ".join(sorted({r["commit"] for r in data["before"].values()}))
                  + "; *-dirty*: with its two io unit",
                  "tests moved from test_faults.py into test_io.py).", "",
                  "| module | commit | killed | survived | timeout | no tests | score |",
                  "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
        for name in [m for m in MODULES if m in data["before"]]:
            row = data["before"][name]
            c = row["counts"]
            lines.append(f"| {name} | {row['commit']} | {c['killed']} | {c['survived']} | {c['timeout']} "
                         f"| {c['no tests']} | {_pct(score(row))} |")  # fmt: skip
        if missing := [m for m in MODULES if m not in data["before"]]:
            lines += ["", f"Not measured with the tests the round started from: {', '.join(missing)}."]
    lines += ["", "## Surviving mutants", ""]
    for name, row in data["modules"].items():
        if not row["survivors"]:
            continue
        lines += [f"### {name}", ""]
        for mutant, diff in row["survivors"].items():
            if mutant in EQUIVALENT:
                tag = f"equivalent: {EQUIVALENT[mutant]}"
            elif mutant in LEFT_ALONE:
                tag = f"**not killed**, left alone: {LEFT_ALONE[mutant]}"
            else:
                tag = "**not killed**"
            lines.append(f"- `{mutant}` ({tag}): `{diff}`")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _pass(row: dict) -> str:
    """A row carried on (``--carry-on``): its minutes are that pass's, after the run it carried on."""
    return " (carry-on pass)" if row.get("carried_on") else ""


def _load_text(row: dict) -> str:
    load = row.get("load")
    return f" (load {load['mean']:.1f}, at most {load['max']:.1f})" if load else ""


def _pct(x: float | None) -> str:
    """A share to one decimal, rounded down: a score short of every mutant never reads 100 %."""
    return "-" if x is None else f"{math.floor(x * 1000) / 10:.1f}%"
