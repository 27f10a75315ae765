"""Do the statistics give the same numbers, bit for bit, as at another commit?

    python benchmarks/same_numbers.py BASE [TESTS ...]
    python benchmarks/same_numbers.py --times 3 BASE [TESTS ...]   # and how long the tests take at each
    python benchmarks/same_numbers.py --only claims.evaluate_family BASE   # the claims rows alone

For a change meant to leave every number alone (a faster way to the same result). It runs the
statistics' unit tests twice, in a checkout of BASE and in the working tree, and records what every
call of the functions in WATCHED returns (in call order; the tests make the same calls in both).
It then compares the two records: floats bit for bit, texts and frames exactly. Prints the calls
compared per function and the mismatches, and exits 1 on any mismatch.

``--only MODULE.FUNCTION`` (repeatable) compares those functions alone: a change that saves calls
of a function (so that the calls no longer pair up in order) is checked on what its callers return.
``--times N``: also runs the tests N more times at each (alternating, without the recording) and
prints the fastest wall time at each with the machine's 1-minute load average (a shared machine).
"""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
TESTS = ["tests/unit/test_claims.py", "tests/unit/test_measures.py", "tests/unit/test_intervals.py", "tests/unit/test_significance.py",
         "tests/unit/test_stats.py", "tests/unit/test_holm_tables.py", "tests/unit/test_sequential.py"]  # fmt: skip
WATCHED = {"intervals": ["mean_cis", "tango_ci", "skew_t_ci", "anderson_ci", "clopper_pearson_ci", "wilson_ci"],
           "significance": ["holm"], "stats": ["pair_frame|_pair_frame", "pair_runs", "paired_comparisons"],
           "claims": ["evaluate_family"]}  # fmt: skip
"""module -> functions whose every result is recorded; "a|b": a function's name, or its name at an
older commit. The claims rows of real results are compared by benchmarks/same_tables.py, which runs
the rules' own commands and so does not depend on the tests calling a function alike at both commits."""

# A pytest plugin (written to a temporary folder, put on PYTHONPATH): wraps each WATCHED function of
# the package the tests import, under every name the statistics modules hold it by (stats imports the
# intervals it uses by name; a commit before the split holds them in stats), and pickles its results to
# $SAME_NUMBERS_OUT when the session ends.
PLUGIN = f"""
import atexit, importlib, os, pickle
RECORD = {{}}
HOMES = []
for home in ("measures", "intervals", "significance", "variance", "stats", "units", "seed_units", "claims"):
    try:
        HOMES.append(importlib.import_module("ablation." + home))
    except ImportError:  # a commit before that module
        pass
for module, names in {WATCHED!r}.items():
    for name in names:
        found = [(home, n) for n in name.split("|") for home in HOMES if hasattr(home, n)]
        original, name = getattr(*found[0]), found[0][1]
        def wrapped(*a, _f=original, _key=module + "." + name.lstrip("_"), **k):
            out = _f(*a, **k)
            RECORD.setdefault(_key, []).append(pickle.dumps(out))
            return out
        for home in HOMES:
            if getattr(home, name, None) is original:
                setattr(home, name, wrapped)
atexit.register(lambda: pickle.dump(RECORD, open(os.environ["SAME_NUMBERS_OUT"], "wb")))
"""


def run_tests(tree: Path, tests: list[str], plugin_dir: Path | None = None, out: Path | None = None) -> float:
    """The tests in ``tree`` (its package first on the path), recording with the plugin when given
    ``plugin_dir``; returns the wall seconds."""
    env = {**os.environ, "PYTHONPATH": f"{plugin_dir or ''}{os.pathsep}{tree / 'scripts'}", "SAME_NUMBERS_OUT": str(out)}
    plugin = ["-p", "same_numbers_plugin"] if plugin_dir else []
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *plugin, *tests], cwd=tree,
                          env=env, capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        sys.exit(f"the tests failed in {tree}:\n{done.stdout[-3000:]}")
    return time.monotonic() - start


def same(a, b) -> bool:
    """Equal, bit for bit: arrays by dtype, shape and bytes (object arrays by their texts), frames
    exactly (values, dtypes, index), tuples and lists item by item, other things by ==."""
    if isinstance(a, pd.DataFrame) or isinstance(b, pd.DataFrame):
        return (type(a) is type(b) and list(a.columns) == list(b.columns) and a.dtypes.equals(b.dtypes)
                and a.index.equals(b.index) and all(same(a[c].to_numpy(), b[c].to_numpy()) for c in a.columns))  # fmt: skip
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, (np.ndarray, np.generic, float)) or isinstance(b, (np.ndarray, np.generic, float)):
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype == object:
            return [repr(x) for x in a.ravel()] == [repr(y) for y in b.ravel()]
        return a.tobytes() == b.tobytes()
    return a == b


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", help="the commit to compare with")
    ap.add_argument("tests", nargs="*", default=TESTS, help="test files (default: the statistics' unit tests)")
    ap.add_argument("--times", type=int, default=0, help="also time the tests this many times at each")
    ap.add_argument("--only", action="append", choices=[f"{m}.{f.split('|')[0]}" for m, fs in WATCHED.items() for f in fs],
                    help="compare this function alone (repeatable; default: every watched function)")  # fmt: skip
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "same_numbers_plugin.py").write_text(PLUGIN)
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(tmp / "base"), args.base], cwd=REPO, check=True)
        try:
            run_tests(tmp / "base", args.tests, tmp, tmp / "base.pkl")
            run_tests(REPO, args.tests, tmp, tmp / "new.pkl")
            seconds: dict[str, list[float]] = {args.base: [], "now": []}
            for _ in range(args.times):
                for label, tree in ((args.base, tmp / "base"), ("now", REPO)):
                    seconds[label].append(run_tests(tree, args.tests))
            old, new = (pickle.loads((tmp / f).read_bytes()) for f in ("base.pkl", "new.pkl"))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tmp / "base")], cwd=REPO, check=True)
    bad = 0
    for key in args.only or sorted(set(old) | set(new)):
        a, b = old.get(key, []), new.get(key, [])
        wrong = sum(not same(pickle.loads(x), pickle.loads(y)) for x, y in zip(a, b)) + abs(len(a) - len(b))
        bad += wrong
        print(f"{key}: {min(len(a), len(b))} calls compared, {len(a)} at {args.base} and {len(b)} now; {wrong} differ")
    print("same numbers" if not bad else f"{bad} calls differ")
    if args.times:
        print(f"the tests' wall time, fastest of {args.times} (alternating): "
              + ", ".join(f"{min(v):.1f} s at {k}" for k, v in seconds.items())
              + f"; load average {os.getloadavg()[0]:.2f} (1 min) at the end")  # fmt: skip
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
