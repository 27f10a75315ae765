"""Snakemake's scheduler runs once per finished job on this machine (ablation.scheduling): a real
Snakemake on a bare Snakefile of jobs that wait, its scheduling passes counted by the harness's
worker (benchmarks/harness/own_cpu.py), with the workflow's onstart hook and without it."""

import json
import os
import subprocess
import sys

from conftest import REPO

N_JOBS = 12
SNAKEFILE = """{hook}
rule all:
    input: expand("out/{{i}}.txt", i=range({n}))

rule make:
    output: "out/{{i}}.txt"
    log: "logs/{{i}}.log"
    benchmark: "benchmarks/{{i}}.tsv"
    shell: "sleep 1.5 && touch {{output}} {{log}}"
"""
HOOK = """from ablation import scheduling


onstart:
    scheduling.unthrottle_local(workflow)
"""


def scheduling_passes(folder, hook: str) -> dict:
    folder.mkdir()
    (folder / "Snakefile").write_text(SNAKEFILE.format(hook=hook, n=N_JOBS))
    out = folder / "own_cpu.json"
    env = {**os.environ, "OWN_CPU_OUT": str(out)}
    cmd = [sys.executable, str(REPO / "benchmarks" / "harness" / "own_cpu.py"), "--cores", "2",
           "--workflow-profile", "none", "--scheduler", "greedy"]  # fmt: skip
    proc = subprocess.run(cmd, cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(list((folder / "out").iterdir())) == N_JOBS
    return json.loads(out.read_text())


def test_the_scheduler_runs_once_per_finished_job_with_the_onstart_hook(tmp_path):
    with_hook = scheduling_passes(tmp_path / "hook", HOOK)
    without = scheduling_passes(tmp_path / "plain", "")
    # one pass to start and one per finished job (N_JOBS + 1); the gather job has no pass of its own
    assert with_hook["passes"] <= N_JOBS + 2, with_hook
    # Snakemake's default job rate limiter: each finished job adds a timer that wakes the scheduler
    # every second while jobs wait, so the passes far outnumber the jobs
    assert without["passes"] > 2 * N_JOBS, without
