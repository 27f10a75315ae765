"""Helpers shared by tests/workflow/test_slurm.py and tests/cluster/measure_packing.py.

- ``run_snakemake``: Snakemake bounded by ``timeout --foreground -s INT -k 30`` (Snakemake ignores
  SIGTERM while SLURM jobs run; one SIGINT makes it scancel them and exit).
- ``SqueueWatcher``: polls ``squeue -t all -r`` in a thread during a run and keeps the last state
  of every job and array task it saw, i.e. SLURM's own record of what was submitted (accounting is
  off on the test cluster, and squeue forgets a finished job MinJobAge seconds after it ends, so
  a run longer than that is only fully recorded by watching it).
- ``parse_log``: what Snakemake's log says it submitted, and which rules it ran locally.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SLURM_SH = HERE / "slurm.sh"
SNAKEMAKE = Path(sys.executable).parent / "snakemake"
PROFILE = "workflow/profiles/slurm"

_SQUEUE_FORMAT = "%A|%F|%K|%T|%M|%j|%k"


@dataclass
class SlurmJob:
    """One SLURM job or array task as squeue last showed it."""

    key: str  # "<jobid>" or "<array job id>_<task id>"
    job_id: str
    array_job_id: str  # the submission: the job id itself, or the array's id
    task_id: str | None
    state: str
    elapsed: str  # squeue's TIME: [days-]hours:minutes:seconds the job ran (so far)
    name: str
    comment: str
    states: list = field(default_factory=list)  # every distinct state seen, in order

    @property
    def rule(self) -> str:
        """rule_<rule>[_wildcards_...] -> <rule> (array tasks carry their first job's comment)."""
        m = re.match(r"rule_(\w+?)(?:_wildcards_|$)", self.comment)
        return m.group(1) if m else self.comment


def squeue_snapshot() -> list[SlurmJob]:
    out = subprocess.run(
        ["squeue", "-h", "-t", "all", "-r", "-o", _SQUEUE_FORMAT],
        capture_output=True,
        text=True,
        timeout=20,
    )
    jobs = []
    for line in out.stdout.splitlines():
        parts = line.split("|", 6)
        if len(parts) != 7:
            continue
        job_id, array_id, task, state, elapsed, name, comment = parts
        task = None if task in ("N/A", "") else task
        key = f"{array_id}_{task}" if task else job_id
        jobs.append(SlurmJob(key, job_id, array_id, task, state, elapsed, name, comment))
    return jobs


class SqueueWatcher:
    """Context manager: record every job/array task squeue shows while the block runs."""

    def __init__(self, interval: float = 2.0):
        self.interval = interval
        self.jobs: dict[str, SlurmJob] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self.errors = 0

    def _poll(self):
        try:
            snapshot = squeue_snapshot()
        except (subprocess.SubprocessError, OSError):
            self.errors += 1
            return
        for job in snapshot:
            old = self.jobs.get(job.key)
            job.states = old.states if old else []
            if not job.states or job.states[-1] != job.state:
                job.states.append(job.state)
            self.jobs[job.key] = job

    def _loop(self):
        while not self._stop.is_set():
            self._poll()
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._poll()  # the final states (finished jobs stay visible for MinJobAge seconds)
        return False

    def of_run(self, run_uuid: str) -> list[SlurmJob]:
        """The jobs and array tasks of one Snakemake run (the plugin names them by its run ID);
        without the array master records (an array's own line besides its tasks)."""
        jobs = [j for j in self.jobs.values() if j.name == run_uuid]
        arrays_with_tasks = {j.array_job_id for j in jobs if j.task_id is not None}
        return [j for j in jobs if j.task_id is not None or j.array_job_id not in arrays_with_tasks]


def seconds(elapsed: str) -> int:
    """squeue's TIME ("M:SS", "H:MM:SS" or "D-HH:MM:SS") in seconds."""
    days, _, hms = elapsed.rpartition("-")
    total = 0
    for part in hms.split(":"):
        total = total * 60 + int(part)
    return total + int(days or 0) * 86400


def submissions(jobs: list[SlurmJob]) -> set[str]:
    """Distinct sbatch submissions: one per plain job, one per array."""
    return {j.array_job_id for j in jobs}


@dataclass
class SnakemakeLog:
    run_uuid: str | None
    job_submissions: dict  # Snakemake job id -> SLURM job id (plain jobs)
    array_submissions: list  # (SLURM array job id, [Snakemake job ids])
    local_rules: list  # rule names of "localrule X:" lines (in order)
    remote_rules: list  # rule names of "rule X:" lines (cluster jobs as Snakemake announced them)

    @property
    def slurm_ids(self) -> set[str]:
        return set(self.job_submissions.values()) | {a for a, _ in self.array_submissions}


def parse_log(text: str) -> SnakemakeLog:
    run = re.search(r"SLURM run ID: (\S+)", text)
    plain = {
        m.group(1): m.group(2)
        for m in re.finditer(r"Job (\S+) has been submitted with SLURM jobid (\d+)", text)
    }
    arrays = [
        (m.group(2), m.group(1).split(","))
        for m in re.finditer(
            r"Submitted array job with Snakemake IDs ([\d,]+) and SLURM job ID (\d+)", text
        )
    ]
    local = re.findall(r"^localrule (\w+):", text, flags=re.M)
    remote = re.findall(r"^\s*rule (\w+):", text, flags=re.M)
    return SnakemakeLog(run.group(1) if run else None, plain, arrays, local, remote)


def run_snakemake(workdir: Path, args: list[str], timeout_s: int, env: dict | None = None):
    """Snakemake in ``workdir`` under ``timeout --foreground -s INT -k 30 timeout_s``.

    Returns (CompletedProcess, wall seconds). stdout and stderr are merged (Snakemake logs to
    stderr)."""
    cmd = ["timeout", "--foreground", "-s", "INT", "-k", "30", str(timeout_s), str(SNAKEMAKE), *args]
    t0 = time.monotonic()
    proc = subprocess.run(
        cmd,
        cwd=workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout_s + 90,
        env=env or os.environ.copy(),
    )
    return proc, time.monotonic() - t0


def slurm_sh(command: str, timeout_s: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(SLURM_SH), command], capture_output=True, text=True, timeout=timeout_s
    )
