"""Shared test fixtures and the `slow` marker policy.

Slow tests (marked ``@pytest.mark.slow``: kill-and-resume, the real SLURM cluster, the benchmark
harness's quick mode) run when ``CI`` is set (CI runs them) or with ``RUN_SLOW=1``; otherwise they
are skipped with that reason. The SLURM test also skips itself, saying why, where it cannot run
(not root, no apt-get to install SLURM); a failed SLURM install fails it under CI.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ablation.workspace import copy_project  # noqa: F401  (re-exported to the tests)

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def pytest_collection_modifyitems(config, items):
    if os.environ.get("CI") or os.environ.get("RUN_SLOW"):
        return
    skip = pytest.mark.skip(reason="slow: runs in CI, or locally with RUN_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def snakemake_log(proc: subprocess.CompletedProcess) -> str:
    """The text of the log file (.snakemake/log/) of a finished Snakemake run: every job's block
    (rule, output, wildcards, reason, ...), which the default profile's screen leaves out."""
    found = re.search(r"Complete log\(s\): (\S+)", (proc.stdout or "") + (proc.stderr or ""))  # stderr: None when merged
    return Path(found.group(1)).read_text(encoding="utf-8") if found else ""


def skip_outside_ci(reason: str) -> None:
    """Skip, with ``reason``; under CI (``CI`` set, as CI sets it) fail instead: there a test that
    cannot set itself up is a broken CI, not a machine without the tool."""
    if os.environ.get("CI", "").lower() not in ("", "0", "false"):
        pytest.fail(f"in CI: {reason}", pytrace=False)
    pytest.skip(reason)


def snakemake(workdir: Path, *args, check=True, timeout=900, env=None) -> subprocess.CompletedProcess:
    """Run the real Snakemake of this venv in ``workdir``."""
    cmd = [str(BIN / "snakemake"), *args]
    proc = subprocess.run(
        cmd, cwd=workdir, capture_output=True, text=True, timeout=timeout, env=env or os.environ.copy()
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}")
    return proc


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory):
    """One real Snakemake run of config/smoke.yaml in a temp copy of the project (shared by tests)."""
    work = copy_project(tmp_path_factory.mktemp("smoke"))
    proc = snakemake(work, "--cores", "2", "--configfile", "config/smoke.yaml")
    return work, proc
