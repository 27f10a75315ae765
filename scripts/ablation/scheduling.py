"""Snakemake's own scheduling loop, kept to one pass per finished job when jobs run on this machine.

Snakemake's job rate limiter (``--max-jobs-per-timespan``, 100 per second unless given) re-arms a
timer of one timespan after every scheduling pass that finds jobs ready to run, whether or not the
limit was reached. Each finished job starts a pass, so each finished job while others wait adds one
more timer that wakes the scheduler every second for as long as jobs wait: after k finished jobs the
main process runs about k passes a second, each over every ready job (their params and resources
re-evaluated, the scheduler's problem rebuilt). Its CPU per step so grows with the number of steps
and with the wall time (benchmarks/main_process.md measures it, beside a bare Snakefile of the same
shape).

A rate limit protects a cluster's submission host; jobs on this machine are already limited by
``--cores``. So, for local execution only, the ``onstart`` hook drops the limiter before the first
pass: the scheduler then runs once per finished job, as it does without a limit set.
"""

from __future__ import annotations


def unthrottle_local(workflow) -> bool:
    """onstart: no job rate limiter when jobs run on this machine (returns whether one was dropped).

    The scheduler is built before ``onstart`` runs and has selected no job yet, so its job count
    resource is still unlimited and nothing else reads the limiter."""
    scheduler = getattr(workflow, "scheduler", None)
    if not workflow.local_exec or getattr(scheduler, "job_rate_limiter", None) is None:
        return False
    scheduler.job_rate_limiter = None
    return True
