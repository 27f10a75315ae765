"""Shared by every section: the project's paths and environment, measuring a command (wall, CPU,
the machine's load), and the benchmark configs."""

from __future__ import annotations

import csv
import datetime as dt
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]  # benchmarks/: where results.md and results.json go
HARNESS = Path(__file__).resolve().parent  # the sections, their workers and the benchmark configs
REPO = HERE.parent
PY = sys.executable
BIN = Path(PY).parent
SNAKEMAKE = str(BIN / "snakemake")
NCPU = os.cpu_count() or 1
CLK = os.sysconf("SC_CLK_TCK")
ENV = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
ENV.pop("PYTHONPROFILEIMPORTTIME", None)
# the product as shipped: the fork server on unless a measurement switches it off on purpose
FORK_VAR = "ABLATION_FORK_SERVER"
ENV.pop(FORK_VAR, None)
BUSY_SHARE = 0.10  # other processes using more than this share of the CPU: "busy"

GOALS = {
    "e2e": ("End to end (2 cores): pipeline ÷ naive loop", "≤ 0.80 (stretch 0.50)"),
    "e2e_stretch": ("End to end, stretch goal: pipeline ÷ naive loop", "≤ 0.50"),
    "overhead": ("Per-job overhead", "≤ 1.0 s"),
    "efficiency": ("Parallel efficiency", "≥ 0.80"),
    "speed": ("Our training loop ÷ naive, slowest combination (speed-up)", "≥ 1.0 on every combination"),
    "dry_run": ("Dry run of 10,000 runs", "≤ 15 s"),
    "aggregate": ("Aggregation + tables + figures + report of 10,000 runs", "≤ 30 s"),
    "rss": ("Peak RSS of a training job (depth 2, seq 32, 8 heads)", "≤ 400 MB"),
    "same_metrics": ("Same metrics as naive: test accuracy within 2 test sequences (2/300)", "on ≥ 90 % of runs"),
}


def _busy_seconds() -> float:
    with open("/proc/stat", encoding="ascii") as fh:
        vals = [int(v) for v in fh.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq = vals[:7]
    return (user + nice + system + irq + softirq) / CLK


def _own_cpu_seconds() -> float:
    import resource

    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


class Meter:
    """Wall time of a block, the load average around it and the CPU time other processes used."""

    def __enter__(self):
        self.load_before = os.getloadavg()[0]
        self._busy0, self._own0 = _busy_seconds(), _own_cpu_seconds()
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self._t0
        self.load_after = os.getloadavg()[0]
        busy = _busy_seconds() - self._busy0
        self.own_cpu = _own_cpu_seconds() - self._own0
        self.foreign_cpu = max(0.0, busy - self.own_cpu)
        self.foreign_share = self.foreign_cpu / max(1e-9, self.wall * NCPU)
        return False

    def record(self) -> dict:
        return {
            "wall_s": self.wall,
            "load1_before": self.load_before,
            "load1_after": self.load_after,
            "own_cpu_s": self.own_cpu,
            "foreign_cpu_s": self.foreign_cpu,
            "foreign_share": self.foreign_share,
            "busy": self.foreign_share > BUSY_SHARE,
        }


class Proc:
    def __init__(self, wall, rc, maxrss_mb, out, err, cpu=0.0):
        self.wall, self.rc, self.maxrss_mb, self.out, self.err, self.cpu = wall, rc, maxrss_mb, out, err, cpu

    def tail(self, n: int = 3000) -> str:
        return (self.out[-n:] + "\n" + self.err[-n:]).strip()


def run(cmd, cwd=None, env=None, shell=False, timeout=1800) -> Proc:
    """Run a command; wall time and the peak RSS of it and its waited-for descendants (wait4)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, cwd=cwd, env=env or ENV, shell=shell, stdout=out, stderr=err)
        timer = threading.Timer(timeout, p.kill)
        timer.start()
        try:
            _, status, ru = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Proc(wall, p.returncode, ru.ru_maxrss / 1024, out.read().decode(errors="replace"),
                    err.read().decode(errors="replace"), ru.ru_utime + ru.ru_stime)  # fmt: skip


def must(p: Proc, what: str) -> Proc:
    if p.rc != 0:
        raise RuntimeError(f"{what} failed (exit {p.rc}):\n{p.tail()}")
    return p


def log(msg: str) -> None:
    print(f"[bench {dt.datetime.now():%H:%M:%S}] {msg}", flush=True)


def write_yaml(path: Path, data: dict) -> Path:
    import yaml

    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def read_csv(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def finished_jobs(p: Proc) -> int | None:
    n = len(re.findall(r"Finished job(?:id)?[: ]", p.out + p.err))
    return n or None


def load_yaml(path: Path) -> dict:
    import yaml

    return yaml.safe_load(path.read_text())


def bench_config(quick: bool) -> dict:
    """harness/bench.yaml; quick: its first two factors only, one seed, 20 epochs on less data."""
    cfg = load_yaml(HARNESS / "bench.yaml")
    if quick:
        cfg["defaults"].update(epochs=20, n_train=64, n_test=16)
        study = next(iter(cfg["studies"].values()))
        study["factors"] = dict(list(study["factors"].items())[:2])
        study["seeds"] = [0]
    return cfg


def grid_config(quick: bool, one_seed: bool = False) -> dict:
    """The default config's factorial study, widened to 10,000 runs: its factors, with sequence lengths
    8-128 and five learning rates, x 25 seeds (quick: 1 or 4 heads, sequence lengths 8 and 32, x 5
    seeds: 80 runs); its claims.

    one_seed: the same grid with a single seed (400 runs): what the DAG would hold if one job trained
    all seeds of a combination."""
    default = load_yaml(REPO / "config" / "config.yaml")
    factorial = default["studies"]["factorial"]
    if quick:
        factors = {**factorial["factors"], "heads": [1, 4], "seq_len": [8, 32]}
        seeds = list(range(5))
    else:
        factors = {**factorial["factors"], "seq_len": [8, 16, 32, 64, 128], "lr": [0.03, 0.01, 0.003, 0.001, 0.0003]}
        seeds = list(range(25))
    if one_seed:
        seeds = [0]
    stats = dict(default.get("stats", {}))
    if quick:
        stats["n_resamples"] = 199
    return {
        "train_threads": 1,
        "stats": stats,
        "defaults": default["defaults"],
        "studies": {
            "grid": {
                "description": "Benchmark: a generated grid (synthetic results).",
                "fixed": {"arch": "encoder", "depth": 2},
                "factors": factors,
                "seeds": seeds,
                "claims": [c for c in factorial.get("claims", []) if c["id"] != "C4-seq-len"]
                + [c | {"levels": [8, 32]} for c in factorial.get("claims", []) if c["id"] == "C4-seq-len"],
            }
        },
    }


def n_runs(cfg: dict) -> int:
    total = 0
    for study in cfg["studies"].values():
        n = len(study["seeds"])
        for values in study.get("factors", {}).values():
            n *= len(values)
        total += n
    return total
