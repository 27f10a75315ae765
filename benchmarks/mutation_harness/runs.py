"""Running mutmut on one module: a scratch folder laid out as mutmut expects, `mutmut run` in it (fresh,
or carrying on after a run stopped part-way or after new tests), and the reading of its statuses and
survivors' diffs into a row of mutation.json."""

from __future__ import annotations

import configparser
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .modules import MODULES, REPO

WORK = REPO / "benchmarks" / "work" / "mutation"
MUTMUT = Path(sys.executable).parent / "mutmut"
LOAD_EVERY = 30  # seconds between samples of the machine's load during a run

# A conftest.py for the scratch folder's root (mutmut copies it into mutants/, where the tests run):
# a mutant's selected tests run fastest first, by the durations mutmut recorded on the unmutated code,
# so that pytest's -x (mutmut's) stops at the first failing test as soon as it can. The tests and
# their verdicts are the same; only their order changes (mutmut passes them as an unordered set).
# It also freezes the garbage collector's view of what mutmut's fork server imported in its warm-up
# (pytest --collect-only: torch, pandas, the tests): every mutant's pytest run in a forked child ends
# with full collections (pytest's unraisableexception plugin), which otherwise walk all of it and copy
# its pages. gc.freeze() before fork is what Python's gc docs advise; it changes no object and no test.
# What it saves: `python benchmarks/mutation.py --fork-cost` (mutation.md, "A mutant's pytest run").
ORDER_HOOK = """\
import gc
import json
from pathlib import Path

_DURATIONS = {}


def pytest_collection_modifyitems(config, items):
    stats = Path(__file__).with_name("mutmut-stats.json")
    if not _DURATIONS and stats.exists():  # read once, when mutmut has written it
        _DURATIONS.update(json.loads(stats.read_text())["duration_by_test"])
    items.sort(key=lambda item: _DURATIONS.get(item.nodeid, float("inf")))


def pytest_sessionfinish(session):
    if session.config.option.collectonly:  # the fork server's warm-up, before it forks the mutants' runs
        gc.collect()
        gc.freeze()
"""

def selection_args(spec: dict) -> list[str]:
    """pytest's arguments that select a module's tests (``spec``: its MODULES entry)."""
    return [*spec["tests"]] + (["-k", f"not {spec['deselect']}"] if spec.get("deselect") else [])


def write_setup(folder: Path, name: str, spec: dict) -> None:
    """mutmut's setup.cfg: the module to mutate and the tests that judge it (``spec``)."""
    selection = selection_args(spec)
    cfg = configparser.ConfigParser()
    cfg["mutmut"] = {
        "source_paths": "src",
        "only_mutate": f"src/ablation/{name}.py",
        "also_copy": "\nconfig\nworkflow\nenvironment.yml\nconftest.py\nbenchmarks",
        "pytest_add_cli_args_test_selection": "\n" + "\n".join(selection),
        "pytest_add_cli_args": "\n-p\nno:cacheprovider\n-q",
        # torch in the test process: fork each mutant's worker from a clean server (mutmut's advice)
        "process_isolation": "forkserver",
    }
    with open(folder / "setup.cfg", "w") as fh:
        cfg.write(fh)


def scratch(name: str, spec: dict) -> Path:
    """A fresh folder laid out for mutmut: src/ablation (the package), tests/, config/, workflow/,
    and benchmarks/ less its scratch folders (work/)."""
    folder = WORK / name
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "src").mkdir(parents=True)
    shutil.copytree(REPO / "scripts" / "ablation", folder / "src" / "ablation",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    for sub in ("tests", "config", "workflow"):
        shutil.copytree(REPO / sub, folder / sub, ignore=shutil.ignore_patterns("__pycache__", "artifacts"))
    shutil.copy2(REPO / "environment.yml", folder / "environment.yml")
    # tests load benchmark scripts (test_variants: harness/naive.py and naive.yaml); work/ holds these scratch folders
    shutil.copytree(REPO / "benchmarks", folder / "benchmarks", ignore=shutil.ignore_patterns("__pycache__", "work"))
    (folder / "conftest.py").write_text(ORDER_HOOK)
    write_setup(folder, name, spec)
    return folder


def mutmut_env() -> dict:
    """The environment of a mutmut run: one thread, a fixed hash seed, and CI unset (slow tests stay skipped)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    env.pop("CI", None)
    return env


def run_module(name: str, spec: dict, children: int) -> dict:
    folder = scratch(name, spec)
    start = time.monotonic()
    env = mutmut_env()
    proc = mutmut_run(folder, env, children)
    return collect(folder, env, proc, time.monotonic() - start)


def mutmut_run(folder: Path, env: dict, children: int, names=()) -> subprocess.CompletedProcess:
    """``mutmut run`` in ``folder``, its output appended to run.log; the machine's 1-minute load
    average sampled every LOAD_EVERY seconds meanwhile (``loads``: the machine is shared, and the
    minutes mean little without it; the run's own ``children`` workers count in it)."""
    loads = []
    with open(folder / "run.log", "a") as log:
        proc = subprocess.Popen([str(MUTMUT), "run", "--max-children", str(children), *names], cwd=folder, env=env,
                                stdout=log, stderr=subprocess.STDOUT)  # fmt: skip
        while True:
            loads.append(os.getloadavg()[0])
            try:
                proc.wait(timeout=LOAD_EVERY)
                break
            except subprocess.TimeoutExpired:
                continue
    done = subprocess.CompletedProcess(proc.args, proc.returncode, (folder / "run.log").read_text(), "")
    done.loads = loads
    return done


def carry_on(name: str, children: int, survivors_only: bool = False) -> dict:
    """Carry on in the last run's folder of ``name`` with the current tests: mutants not yet tested
    (a run stopped part-way) and the survivors (status survived or no tests) are tested; killed ones
    stay killed, as tests are only ever added or sharpened. The module's source must be the one that
    run mutated (mutant names are numbered per function). ``seconds`` is this pass only.
    ``survivors_only``: test the survivors alone; mutants not yet tested stay so (a partial row)."""
    folder = WORK / name
    mutated = folder / "src" / "ablation" / f"{name}.py"
    meta = folder / "mutants" / "src" / "ablation" / f"{name}.py.meta"
    if not meta.exists() or mutated.read_bytes() != (REPO / "scripts" / "ablation" / f"{name}.py").read_bytes():
        sys.exit(f"{name}: its source changed since the last run (or there was none): run it in full")
    start = time.monotonic()
    env = mutmut_env()
    for dest in (folder / "tests", folder / "mutants" / "tests"):
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(REPO / "tests", dest, ignore=shutil.ignore_patterns("__pycache__", "artifacts"))
    (folder / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)  # which tests reach what: collect anew
    (folder / "mutants" / "conftest.py").write_text(ORDER_HOOK)
    write_setup(folder, name, MODULES[name])  # the module's tests as declared now
    state = json.loads(meta.read_text())
    survivors = [m for m, code in state["exit_code_by_key"].items() if code in (0, 33)]  # survived, no tests
    for mutant in survivors:
        state["exit_code_by_key"][mutant] = None
    meta.write_text(json.dumps(state))
    names = survivors if survivors_only else []
    if survivors_only and not survivors:
        return collect(folder, env, None, 0.0) | {"carried_on": True}
    proc = mutmut_run(folder, env, children, names)
    out = collect(folder, env, proc, time.monotonic() - start)
    out["carried_on"] = True
    return out


def collect(folder: Path, env: dict, proc, seconds: float) -> dict:
    results = subprocess.run([str(MUTMUT), "results", "--all", "true"], cwd=folder, env=env,
                             capture_output=True, text=True).stdout  # fmt: skip
    status: dict[str, str] = {}
    for line in results.splitlines():
        m = re.match(r"\s*(\S+): (.+)$", line)
        if m:
            status[m.group(1)] = m.group(2).strip()
    counts = {k: sum(v == k for v in status.values())
              for k in ("killed", "survived", "timeout", "suspicious", "no tests", "not checked")}  # fmt: skip
    survivors = {}
    for mutant, diff in _diffs(folder, env, sorted(m for m, s in status.items() if s in ("survived", "no tests"))).items():
        changed = [ln for ln in diff.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
        survivors[mutant] = " / ".join(ln.strip() for ln in changed)[:240]
    return {
        "counts": counts,
        "total": len(status),
        "survivors": survivors,
        "seconds": round(seconds, 1),
        "returncode": proc.returncode if proc else None,
        "load": _load(proc.loads) if proc and getattr(proc, "loads", None) else None,
        "log_tail": (proc.stdout + proc.stderr)[-1500:] if proc and not status else "",
    }


# The diff `mutmut show NAME` prints (less its status line), for many mutants in one process: a
# `mutmut show` per survivor starts Python and imports mutmut for each.
SHOW = """\
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
path, names = sys.argv[1], json.loads(sys.stdin.read())
print(json.dumps({name: get_diff_for_mutant(name, path=path) for name in names}))
"""


def _diffs(folder: Path, env: dict, mutants: list[str]) -> dict:
    """Each mutant's diff against the module's code, as ``mutmut show`` prints it."""
    if not mutants:
        return {}
    cfg = configparser.ConfigParser()
    cfg.read(folder / "setup.cfg")
    out = subprocess.run([sys.executable, "-c", SHOW, cfg["mutmut"]["only_mutate"]], cwd=folder,
                         env=env, input=json.dumps(mutants), capture_output=True, text=True, check=True).stdout  # fmt: skip
    return json.loads(out)


def _load(loads: list[float]) -> dict:
    """Mean and highest of the load averages sampled during a run."""
    return {"mean": round(sum(loads) / len(loads), 1), "max": round(max(loads), 1), "samples": len(loads)}


def stopped_run_seconds(name: str) -> float:
    """How long a run stopped part-way ran: from its scratch folder's setup to its last recorded result."""
    folder = WORK / name
    meta = folder / "mutants" / "src" / "ablation" / f"{name}.py.meta"
    if not meta.exists():
        return 0.0
    return max(0.0, meta.stat().st_mtime - (folder / "setup.cfg").stat().st_mtime)
