"""Worker of benchmarks/main_process.py: `snakemake ARGS` in this process; at exit, this process's own
CPU seconds (user + system of all its threads, none of its children: the jobs and the fork server are
children) and wall seconds go to the JSON file named by $OWN_CPU_OUT.

    OWN_CPU_OUT=cpu.json python benchmarks/harness/own_cpu.py --cores 2 ...
"""

import atexit
import json
import os
import resource
import sys
import time

_T0 = time.perf_counter()


def _write() -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.environ["OWN_CPU_OUT"], "w", encoding="utf-8") as fh:
        json.dump({"cpu_s": usage.ru_utime + usage.ru_stime, "wall_s": time.perf_counter() - _T0}, fh)


if __name__ == "__main__":
    atexit.register(_write)
    from snakemake.cli import main

    sys.argv = ["snakemake", *sys.argv[1:]]
    main()
