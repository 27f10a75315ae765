"""Shared test fixtures and the `slow` marker policy.

Slow tests (marked ``@pytest.mark.slow``: kill-and-resume, the real SLURM cluster, the benchmark
harness's quick mode) run when ``CI`` is set (CI runs them) or with ``RUN_SLOW=1``; otherwise they
are skipped with that reason. The SLURM test also skips itself, saying why, where it cannot run
(not root, no apt-get to install SLURM); a failed SLURM install fails it under CI.
"""

import os
import re
import shutil
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


# The smoke study is trained once per session, into one workspace and its run store; every test of
# the finished smoke run reads it there. A test that changes files (tampers with results, edits a
# config, runs Snakemake again) works in `smoke_copy`, a file copy of that workspace, not in it, and
# never trains the smoke study again: only tests of training from scratch do (kill-and-resume, the
# package installed alone, SLURM).


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory):
    """One real Snakemake run of config/smoke.yaml in a temp copy of the project (shared by tests):
    (the workspace, Snakemake's CompletedProcess). Read it; copy it (`smoke_copy`) to change it."""
    work = copy_project(tmp_path_factory.mktemp("smoke"))
    proc = snakemake(work, "--cores", "2", "--configfile", "config/smoke.yaml")
    return work, proc


@pytest.fixture()
def smoke_copy(smoke_run, tmp_path) -> Path:
    """A private copy of the finished smoke run's workspace (its run store, tables, report and
    .snakemake/ metadata), for a test that changes it: a file copy, no training."""
    work = tmp_path / "work"
    shutil.copytree(smoke_run[0], work, symlinks=True)
    return work


@pytest.fixture(scope="session")
def smoke_report_zip(smoke_run) -> Path:
    """Snakemake's own report (`--report`) of the finished smoke run, made once for the tests that
    read it."""
    work, _ = smoke_run
    snakemake(work, "--configfile", "config/smoke.yaml", "--report", "reports/snakemake-report.zip")
    return work / "reports" / "snakemake-report.zip"
