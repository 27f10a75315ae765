"""--fork-cost: what one mutant's pytest run costs before its tests, in a child forked from a process
warmed up as mutmut's fork server is, with the warm-up's objects left to the garbage collector and
frozen (as the conftest in runs.ORDER_HOOK freezes them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from .modules import MODULES
from .runs import mutmut_env, scratch, selection_args

# --fork-cost: in a process warmed up as mutmut's fork server is (pytest --collect-only on the module's
# tests, the conftest of runs.ORDER_HOOK), the wall time of one forked pytest run of one test, the way mutmut runs a
# mutant's tests; with the warm-up's objects unfrozen and frozen, alternately, fastest of `repeats` each.
FORK_COST = """\
import contextlib, gc, io, json, os, sys, time
import pytest
selection, repeats = json.loads(sys.argv[1]), int(sys.argv[2])
ids = []
class Ids:
    def pytest_collection_finish(self, session):
        ids.extend(item.nodeid for item in session.items)
with contextlib.redirect_stdout(io.StringIO()):
    pytest.main(["--rootdir=.", "--collect-only", "-qqq", *selection, "-p", "no:cacheprovider"], plugins=[Ids()])
assert gc.get_freeze_count() > 0, "the conftest's hook did not freeze the warm-up"
args = ["--rootdir=.", "--tb=native", "-x", "-q", "-p", "no:randomly", "-p", "no:random-order", ids[0],
        "-p", "no:cacheprovider", "-q"]
best = {"unfrozen": float("inf"), "frozen": float("inf")}
for _ in range(repeats):
    for mode in best:
        if mode == "unfrozen":
            gc.unfreeze()
        else:
            gc.collect()
            gc.freeze()
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            sys.stdout = sys.stderr = open(os.devnull, "w")
            os._exit(int(pytest.main(args)))
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, (mode, ids[0])
        best[mode] = min(best[mode], time.perf_counter() - start)
print(json.dumps({"test": ids[0], **best}))
"""


def fork_cost(name: str, repeats: int) -> dict:
    """--fork-cost: what one mutant's pytest run costs in a forked child, with the fork server's
    warm-up objects unfrozen and frozen (FORK_COST), in a fresh scratch folder of ``name``."""
    folder = scratch(name, MODULES[name])
    env = {**mutmut_env(), "PYTHONPATH": str(folder / "src")}
    before = os.getloadavg()[0]
    out = subprocess.run([sys.executable, "-c", FORK_COST, json.dumps(selection_args(MODULES[name])), str(repeats)], cwd=folder, env=env,
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    result = json.loads(out.strip().splitlines()[-1])
    return {**result, "module": name, "repeats": repeats, "load": [before, os.getloadavg()[0]]}
