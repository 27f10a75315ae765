#!/usr/bin/env python
"""Lines per file of the package, the workflow and the benchmarks at two git revisions, as a markdown table.

    python benchmarks/probes/loc.py                           # before = 44af4af, after = the working tree
    python benchmarks/probes/loc.py --before REV --after REV  # any two revisions (after: WORKTREE for the working tree)
    python benchmarks/probes/loc.py --all                     # also the harness's generated outputs

Files are read with `git ls-tree` and `git show REV:path` (the working tree: `git ls-files` of tracked and
untracked, not ignored files). Binary files are left out, and so, unless --all, are the outputs the
benchmark scripts write (the .json and .md files under benchmarks/, but its README.md files).
"""

from __future__ import annotations

import argparse
import fnmatch
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROOTS = ("scripts/ablation", "workflow", "benchmarks")
GENERATED = ("benchmarks/*.json", "benchmarks/*.md")  # fnmatch's * spans folders: probes/ too
WRITTEN_BY_HAND = ("README.md",)  # the folders' guides, not outputs
WORKTREE = "WORKTREE"


def git(*args: str) -> bytes:
    return subprocess.run(["git", "-C", str(REPO), *args], check=True, capture_output=True).stdout


def files(rev: str) -> list[str]:
    if rev == WORKTREE:
        out = git("ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", *ROOTS)
        return sorted({p for p in out.decode().split("\0") if p and (REPO / p).is_file()})
    return sorted(p for p in git("ls-tree", "-r", "-z", "--name-only", rev, "--", *ROOTS).decode().split("\0") if p)


def text(rev: str, path: str) -> bytes:
    return (REPO / path).read_bytes() if rev == WORKTREE else git("show", f"{rev}:{path}")


def line_counts(rev: str, include_generated: bool) -> dict[str, int]:
    """{path: lines} of the text files under ROOTS at ``rev``."""
    out = {}
    for path in files(rev):
        generated = any(fnmatch.fnmatch(path, g) for g in GENERATED) and Path(path).name not in WRITTEN_BY_HAND
        if generated and not include_generated:
            continue
        data = text(rev, path)
        if b"\0" in data:  # binary
            continue
        out[path] = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return out


def root_of(path: str) -> str:
    return next(r for r in ROOTS if path.startswith(r + "/"))


def table(before: dict[str, int], after: dict[str, int], names: tuple[str, str]) -> str:
    def cell(n):
        return "–" if n is None else str(n)

    def delta(a, b):
        return f"{(b or 0) - (a or 0):+d}"

    rows = [f"| file | {names[0]} | {names[1]} | Δ |", "| --- | ---: | ---: | ---: |"]
    for path in sorted(set(before) | set(after)):
        a, b = before.get(path), after.get(path)
        rows.append(f"| {path} | {cell(a)} | {cell(b)} | {delta(a, b)} |")
    rows += ["", f"| total | {names[0]} files | {names[0]} lines | {names[1]} files | {names[1]} lines | Δ lines |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
    for root in (*ROOTS, None):
        a = {p: n for p, n in before.items() if root is None or root_of(p) == root}
        b = {p: n for p, n in after.items() if root is None or root_of(p) == root}
        label = "**all**" if root is None else f"{root}/"
        rows.append(f"| {label} | {len(a)} | {sum(a.values())} | {len(b)} | {sum(b.values())} | "
                    f"{delta(sum(a.values()), sum(b.values()))} |")  # fmt: skip
    return "\n".join(rows) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="44af4af", help="a git revision (default: 44af4af)")
    ap.add_argument("--after", default=WORKTREE, help=f"a git revision, or {WORKTREE} (default)")
    ap.add_argument("--all", action="store_true", help="also count benchmarks/*.json and benchmarks/*.md")
    args = ap.parse_args(argv)
    names = []
    for rev in (args.before, args.after):
        short = rev if rev == WORKTREE else git("rev-parse", "--short", rev).decode().strip()
        names.append("working tree" if rev == WORKTREE else rev if short == rev else f"{rev} ({short})")
    before = line_counts(args.before, args.all)
    after = line_counts(args.after, args.all)
    sys.stdout.write(table(before, after, (names[0], names[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
