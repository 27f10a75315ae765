"""Worker of benchmarks/main_process.py: `snakemake ARGS` in this process; at exit, this process's own
CPU seconds (user + system of all its threads, none of its children: the jobs and the fork server are
children), its wall seconds and the number of the scheduler's passes (its job selections, counted by
wrapping ``JobScheduler.job_selector``) go to the JSON file named by $OWN_CPU_OUT.

    OWN_CPU_OUT=cpu.json python benchmarks/harness/own_cpu.py --cores 2 ...
"""

import atexit
import json
import os
import resource
import sys
import time

_T0 = time.perf_counter()
_PASSES = [0]


def _write() -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.environ["OWN_CPU_OUT"], "w", encoding="utf-8") as fh:
        json.dump({"cpu_s": usage.ru_utime + usage.ru_stime, "wall_s": time.perf_counter() - _T0,
                   "passes": _PASSES[0]}, fh)  # fmt: skip


def _count_passes() -> None:
    from snakemake.scheduling.job_scheduler import JobScheduler

    select = JobScheduler.job_selector

    def counted(self, jobs):
        _PASSES[0] += 1
        return select(self, jobs)

    JobScheduler.job_selector = counted


if __name__ == "__main__":
    atexit.register(_write)
    _count_passes()
    from snakemake.cli import main

    sys.argv = ["snakemake", *sys.argv[1:]]
    main()
