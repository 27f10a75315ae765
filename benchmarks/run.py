#!/usr/bin/env python
"""The benchmark harness (issue 5): the pipeline against a hand-written loop, per-job overhead,
training speed, scale, and where the per-job overhead goes.

    python benchmarks/run.py            # the full harness (~20 min on a quiet 2-core machine); `make bench`
    python benchmarks/run.py --quick    # a reduced version (smoke test; numbers not representative)
    python benchmarks/run.py --render benchmarks/results.json   # re-render results.md only (no new numbers)

Writes benchmarks/results.md and benchmarks/results.json (or into --out-dir). Every number in
them is produced by this script, in one run. Sections:

1. End to end: `snakemake --cores 2` on benchmarks/bench.yaml (target results/<study>/summary.csv)
   in a temp copy of the project, against benchmarks/naive.py (the lesson's code, one run after
   another in one process, torch's default threads); test accuracies compared per run. The pipeline
   is measured as shipped: its training jobs are forked from the fork server (ablation.forkserver,
   started by the Snakefile's onstart hook). For comparison the same pipeline once more with
   ABLATION_FORK_SERVER=0 (every job imports torch itself); both must give bit-identical
   params_sha256 per run, and provenance.json's `launcher` must say which way each run was trained.
2. Per-job overhead and parallel efficiency, from section 1's pipeline run (metrics.csv
   train_seconds and Snakemake's per-job benchmark files), the run without the fork server beside it.
3. Training speed: ablation.train.train_run against naive.train_eval, in one process at 1 thread.
4. Scale: dry run of a 10,000-run grid; aggregation, tables, figures and report on 10,000 synthetic
   runs (the rules' own command lines, taken from a dry run); peak RSS of a training job.
5. Levers: interpreter start, imports, provenance, file writes, Snakemake's per-job bookkeeping
   (train jobs whose command is replaced by `touch`), a training job through the fork server against
   the same command without one.

The machine is shared: each measurement records the load average and the CPU time other processes
used meanwhile (/proc/stat minus this harness's own rusage), and results.md warns when it was busy.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from importlib import metadata
from pathlib import Path

from ablation import store as run_store
from ablation.workspace import copy_project

HERE = Path(__file__).resolve().parent
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


# ----------------------------------------------------------------------------- measuring


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


# ----------------------------------------------------------------------------- configs


def load_yaml(path: Path) -> dict:
    import yaml

    return yaml.safe_load(path.read_text())


def bench_config(quick: bool) -> dict:
    cfg = load_yaml(HERE / "bench.yaml")
    if quick:
        cfg["defaults"].update(epochs=20, n_train=64, n_test=16)
        study = next(iter(cfg["studies"].values()))
        study["factors"] = {"pos_enc": ["none", "sinusoidal"], "heads": [1, 4]}
        study["seeds"] = [0]
    return cfg


def grid_config(quick: bool, one_seed: bool = False) -> dict:
    """10,000 runs (quick: 80): 400 factor combinations x 25 seeds, the factorial study's claims.

    one_seed: the same grid with a single seed (400 runs): what the DAG would hold if one job trained
    all seeds of a combination."""
    default = load_yaml(REPO / "config" / "config.yaml")
    factorial = default["studies"]["factorial"]
    if quick:
        factors = {"pos_enc": ["none", "sinusoidal"], "heads": [1, 4], "seq_len": [8, 32], "norm": ["post", "pre"]}
        seeds = list(range(5))
    else:
        factors = {
            "pos_enc": ["none", "sinusoidal"],
            "heads": [1, 2, 4, 8],
            "seq_len": [8, 16, 32, 64, 128],
            "norm": ["post", "pre"],
            "lr": [0.03, 0.01, 0.003, 0.001, 0.0003],
        }
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


# ----------------------------------------------------------------------------- section 1 + 2


def null_train_rule(work: Path, keep_benchmark: bool = True) -> None:
    """The train rule's command replaced by `touch` of its outputs (Snakemake's own cost only)."""
    path = work / "workflow" / "rules" / "train.smk"
    text = path.read_text()
    start = text.index("rule train:")
    shell = text.index("    shell:", start)
    nxt = text.find("\nrule ", shell)
    rest = "" if nxt < 0 else text[nxt:]
    body = text[start:shell]
    if not keep_benchmark:
        body = re.sub(r"    benchmark:\n\s+[^\n]+\n", "", body)
    text = text[:start] + body + '    shell:\n        "touch {output:q} {log:q}"\n' + rest
    path.write_text(text)


def run_dirs(work: Path, study: str) -> dict[str, Path]:
    """run id -> the run's folder in the run store, from the study's index (runs.csv)."""
    _, rows = run_store.read_index(work / "results" / study / "runs.csv")
    return {r["run_id"]: work / run_store.STORE / r["hash"] for r in rows}


def launchers(work: Path, study: str, run_ids) -> dict[str, int]:
    """How the runs were trained, from their provenance.json: {"fork-server": n, "process": m, ...}."""
    out: dict[str, int] = {}
    dirs = run_dirs(work, study)
    for run_id in run_ids:
        path = dirs[run_id] / "provenance.json"
        try:
            launcher = str(json.loads(path.read_text()).get("launcher", "missing"))
        except (OSError, ValueError):
            launcher = "no provenance.json"
        out[launcher] = out.get(launcher, 0) + 1
    return out


def run_pipeline(tmp: Path, cfg: dict, name: str, cores: int, fork_server: bool = True) -> dict:
    """`snakemake --cores N` to summary.csv in a fresh copy of the project, the workflow unchanged.

    fork_server=False: ABLATION_FORK_SERVER=0 in Snakemake's environment (every job imports torch)."""
    work = copy_project(tmp / name)
    cfg_path = write_yaml(work / "config" / "bench.yaml", cfg)
    study = next(iter(cfg["studies"]))
    env = ENV if fork_server else {**ENV, FORK_VAR: "0"}
    with Meter() as m:
        p = run([SNAKEMAKE, f"results/{study}/summary.csv", "--cores", str(cores),
                 "--configfile", str(cfg_path.relative_to(work))], cwd=work, env=env)  # fmt: skip
    must(p, f"snakemake ({name})")
    summary = read_csv(work / "results" / study / "summary.csv")
    bench_dir = work / "results" / study / "benchmarks"
    job_walls, job_rss = {}, {}
    dirs = run_dirs(work, study)
    for row in summary:
        tsv = dirs[row["run_id"]] / run_store.BENCHMARK
        if tsv.is_file():
            rec = list(csv.DictReader(tsv.open(), delimiter="\t"))[0]
            job_walls[row["run_id"]] = float(rec["s"])
            try:
                job_rss[row["run_id"]] = float(rec["max_rss"])
            except (KeyError, ValueError):
                pass
    other_walls = []
    for tsv in bench_dir.glob("*.tsv"):
        other_walls.append(float(list(csv.DictReader(tsv.open(), delimiter="\t"))[0]["s"]))
    return {
        "fork_server": fork_server,
        "meter": m.record(),
        "wall_s": m.wall,
        "cores": cores,
        "n_runs": len(summary),
        "n_jobs": finished_jobs(p) or len(summary) + 1,
        "runs": {
            r["run_id"]: {"test_acc": float(r["test_acc"]), "train_seconds": float(r["train_seconds"]),
                          "params_sha256": r.get("params_sha256"), "job_wall_s": job_walls.get(r["run_id"])}
            for r in summary
        },  # fmt: skip
        "launchers": launchers(work, study, [r["run_id"] for r in summary]),
        "sum_train_seconds": sum(float(r["train_seconds"]) for r in summary),
        "sum_job_wall_s": sum(job_walls.values()) + sum(other_walls),
        "sum_train_job_wall_s": sum(job_walls.values()),
        "n_train_jobs_benchmarked": len(job_walls),
        # Snakemake's benchmark: file measures the job's process tree; with the fork server that is the
        # client only (the training runs in a child of the server), so this is not the training's RSS.
        "max_job_rss_mb": max(job_rss.values()) if job_rss else None,
        "max_job_rss_of": "the fork-server client (not the training)" if fork_server else "the training process",
    }


def section_e2e(tmp: Path, quick: bool, cores: int, baseline: bool = True) -> dict:
    cfg = bench_config(quick)
    cfg_path = write_yaml(tmp / "bench_config.yaml", cfg)
    n = n_runs(cfg)
    log(f"1. end to end: pipeline as shipped (fork server), {n} runs at --cores {cores}")
    pipe = run_pipeline(tmp, cfg, "pipeline", cores)
    log(f"   pipeline {pipe['wall_s']:.1f} s (launchers {pipe['launchers']}); naive loop ...")
    with Meter() as m:
        p = run([PY, str(HERE / "naive.py"), "--config", str(cfg_path), "--out", str(tmp / "naive.json")], cwd=REPO)
    must(p, "naive loop")
    naive = json.loads((tmp / "naive.json").read_text())
    log(f"   naive {m.wall:.1f} s")
    res = {
        "config": cfg,
        "n_runs": n,
        "pipeline": pipe,
        "naive": {"meter": m.record(), "wall_s": m.wall, "threads": naive["threads"],
                  "sum_run_seconds": sum(r["seconds"] for r in naive["runs"]),
                  "runs": {r["run_id"]: r for r in naive["runs"]}},  # fmt: skip
    }
    res["ratio"] = pipe["wall_s"] / m.wall
    # same metrics?
    tol = 2 / (2 * cfg["defaults"]["n_test"])
    diffs = {}
    for run_id, r in pipe["runs"].items():
        if run_id in res["naive"]["runs"]:
            diffs[run_id] = abs(r["test_acc"] - res["naive"]["runs"][run_id]["test_acc"])
    within = sum(d <= tol + 1e-12 for d in diffs.values())
    res["agreement"] = {
        "tolerance": tol,
        "n_compared": len(diffs),
        "n_within": within,
        "share_within": within / max(1, len(diffs)),
        "max_abs_diff": max(diffs.values(), default=float("nan")),
        "n_identical": sum(d == 0 for d in diffs.values()),
        "beyond": {k: v for k, v in diffs.items() if v > tol + 1e-12},
    }
    if baseline:
        log(f"   pipeline without the fork server ({FORK_VAR}=0) ...")
        try:
            b = run_pipeline(tmp, cfg, "pipeline_no_fork_server", cores, fork_server=False)
        except RuntimeError as exc:
            b = {"skipped": str(exc)[:2000]}
        if "runs" in b:
            b["identical_params"] = sum(
                b["runs"][k]["params_sha256"] == v["params_sha256"] for k, v in pipe["runs"].items() if k in b["runs"]
            )
            b["different_params"] = sorted(
                k for k, v in pipe["runs"].items() if k not in b["runs"] or b["runs"][k]["params_sha256"] != v["params_sha256"]
            )
            # training speed inside forked children vs in their own processes, run by run
            ratios = [pipe["runs"][k]["train_seconds"] / v["train_seconds"] for k, v in b["runs"].items()
                      if k in pipe["runs"] and v["train_seconds"] > 0]  # fmt: skip
            b["train_seconds_ratio_median"] = statistics.median(ratios) if ratios else None
            b.pop("runs")
            log(f"   pipeline without the fork server {b['wall_s']:.1f} s (launchers {b['launchers']}); "
                f"{b['identical_params']}/{pipe['n_runs']} runs with identical params_sha256")  # fmt: skip
        res["pipeline_no_fork_server"] = b
    return res


def _overhead(p: dict) -> dict:
    """Per-job overhead and parallel efficiency of one pipeline run (run_pipeline's record)."""
    wall, cores, jobs, train = p["wall_s"], p["cores"], p["n_jobs"], p["sum_train_seconds"]
    out = {
        "wall_s": wall,
        "cores": cores,
        "n_jobs": jobs,
        "sum_train_seconds": train,
        "per_job_overhead_s": (wall * cores - train) / jobs,
        "efficiency": (train / cores) / wall,
    }
    if p.get("sum_train_job_wall_s"):
        # a train job's wall (its benchmark: file) minus its train_seconds; with the fork server the job's
        # process is the client, which waits for the forked child: its wall still spans the whole training
        n_train = p.get("n_train_jobs_benchmarked") or p["n_runs"]  # (older results: no count)
        out["job_process_overhead_s"] = (p["sum_train_job_wall_s"] - train) / max(1, n_train)
        out["snakemake_and_idle_per_job_s"] = (wall * cores - p["sum_job_wall_s"]) / jobs
    return out


def section_overhead(e2e: dict) -> dict:
    out = _overhead(e2e["pipeline"])
    out["fork_server"] = True
    b = e2e.get("pipeline_no_fork_server") or {}
    if "wall_s" in b:
        out["no_fork_server"] = _overhead(b) | {"ratio_vs_naive": b["wall_s"] / e2e["naive"]["wall_s"]}
    return out


# ----------------------------------------------------------------------------- section 3


SPEED_EPOCHS = 60
SPEED_REPEATS = 3  # rounds over all combinations: single timings on this VM are noisy (see speed.py)


def speed_combos(quick: bool) -> list[dict]:
    base = {"pos_enc": "sinusoidal", "seed": 0}
    if quick:
        base["epochs"] = 20
        return [
            base | {"arch": "attention_only", "heads": 4, "seq_len": 8},
            base | {"arch": "encoder", "depth": 2, "heads": 8, "seq_len": 32, "norm": "pre"},
            base | {"arch": "encoder", "depth": 3, "heads": 4, "seq_len": 8, "norm": "post"},
        ]
    # SPEED_EPOCHS (not 300) to fit the time budget: the cost per epoch is what differs, and both sides
    # run the same epochs; the fixed costs (data, model, evaluation) are a few ms.
    base["epochs"] = SPEED_EPOCHS
    combos = [base | {"arch": "attention_only", "heads": 4, "seq_len": 8}]
    # the 2-block encoder: the extremes of heads x seq_len, both norms, plus two middle combinations
    for heads, seq_len, norm in ((1, 8, "post"), (1, 32, "post"), (8, 8, "pre"), (8, 32, "pre"), (2, 16, "post"),
                                 (4, 16, "pre")):  # fmt: skip
        combos.append(base | {"arch": "encoder", "depth": 2, "heads": heads, "seq_len": seq_len, "norm": norm})
    for norm in ("post", "pre"):
        combos.append(base | {"arch": "encoder", "depth": 10, "heads": 4, "seq_len": 8, "norm": norm})
    return combos


def section_speed(tmp: Path, quick: bool) -> dict:
    combos = speed_combos(quick)
    log(f"3. training speed: {len(combos)} combinations, ours vs naive at 1 thread")
    (tmp / "combos.json").write_text(json.dumps(combos))
    with Meter() as m:
        p = run([PY, str(HERE / "speed.py"), "--combos", str(tmp / "combos.json"), "--out", str(tmp / "speed.json"),
                 "--repeats", "1" if quick else str(SPEED_REPEATS), "--short-repeats", "2" if quick else "5"], cwd=REPO)  # fmt: skip
    must(p, "speed worker")
    rows = json.loads((tmp / "speed.json").read_text())
    speedups = [r["speedup"] for r in rows]
    return {
        "meter": m.record(),
        "rows": rows,
        "min_speedup": min(speedups),
        "max_speedup": max(speedups),
        "median_speedup": statistics.median(speedups),
        "sum_naive_s": sum(r["naive_s"] for r in rows),
        "sum_ours_s": sum(r["ours_s"] for r in rows),
    }


# ----------------------------------------------------------------------------- section 4


RULES_TIMED = ("index", "summarize", "analyze", "figures", "report")


def shell_commands(dry_run_output: str) -> dict[str, list[str]]:
    """{rule: [shell command, ...]} from `snakemake -n -p` output."""
    out: dict[str, list[str]] = {}
    rule = None
    for line in dry_run_output.splitlines():
        m = re.match(r"^\s*(?:local)?rule (\w+):\s*$", line)
        if m:
            rule = m.group(1)
        elif line.startswith("Shell command: ") and rule:
            out.setdefault(rule, []).append(line[len("Shell command: ") :])
    return out


BARE_SHAPES = (
    ("one output", 1, False),
    ("our train job's shape: 5 outputs, a log, a benchmark", 5, True),
)


def bare_snakefile(n_jobs: int, outputs: int, log_and_benchmark: bool) -> str:
    """A Snakefile with nothing but ``n_jobs`` wildcard jobs of one rule: Snakemake's own cost."""
    outs = ", ".join(f'"out/{{i}}/f{k}.txt"' for k in range(outputs))
    lines = ["rule all:", f'    input: expand("out/{{i}}/f0.txt", i=range({n_jobs}))', "", "rule make:", f"    output: {outs}"]
    if log_and_benchmark:
        lines += ['    log: "logs/{i}.log"', '    benchmark: "benchmarks/{i}.tsv"']
    return "\n".join([*lines, '    shell: "touch {output}"', ""])


def bare_dry_runs(tmp: Path, n_jobs: int) -> list[dict]:
    """`snakemake -n` of bare Snakefiles with as many jobs as the grid: what any workflow of this
    size costs on this machine, before our rules, config validation or input functions."""
    out = []
    for label, outputs, lb in BARE_SHAPES:
        folder = tmp / f"bare_{outputs}_{int(lb)}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "Snakefile").write_text(bare_snakefile(n_jobs, outputs, lb))
        with Meter() as m:
            p = must(run([SNAKEMAKE, "-n", "--cores", "1", "--workflow-profile", "none"], cwd=folder), f"bare dry run ({label})")
        out.append({"label": label, "meter": m.record(), "wall_s": m.wall, "cpu_s": p.cpu, "n_jobs": n_jobs})
        log(f"   bare Snakemake dry run, {n_jobs} jobs, {label}: {m.wall:.1f} s")
    return out


def section_scale(tmp: Path, quick: bool) -> dict:
    cfg = grid_config(quick)
    n = n_runs(cfg)
    work = copy_project(tmp / "scale")
    cfg_path = write_yaml(work / "config" / "grid.yaml", cfg)
    res = {"n_runs": n}
    log(f"4. scale: dry run of {n} runs")
    with Meter() as m:
        p = run([SNAKEMAKE, "-n", "--configfile", "config/grid.yaml"], cwd=work)
    must(p, "dry run")
    jobs = re.search(r"^total\s+(\d+)", p.out + p.err, re.M)
    res["dry_run"] = {
        "meter": m.record(),
        "wall_s": m.wall,
        "cpu_s": p.cpu,
        "jobs": int(jobs.group(1)) if jobs else None,
    }
    small_cfg = grid_config(quick, one_seed=True)
    small = copy_project(tmp / "scale_one_seed")
    write_yaml(small / "config" / "grid.yaml", small_cfg)
    with Meter() as ms:
        ps = must(run([SNAKEMAKE, "-n", "--configfile", "config/grid.yaml"], cwd=small), "dry run (one seed)")
    n_small = n_runs(small_cfg)
    res["dry_run_one_seed"] = {"meter": ms.record(), "wall_s": ms.wall, "cpu_s": ps.cpu, "n_runs": n_small,
                               "per_job_s": (m.wall - ms.wall) / max(1, n - n_small)}  # fmt: skip
    log(f"   dry run {m.wall:.1f} s ({n_small} runs: {ms.wall:.1f} s)")
    res["dry_run_bare"] = bare_dry_runs(tmp, n)
    log(f"   writing {n} synthetic runs")
    with Meter() as m:
        must(run([PY, str(HERE / "synth.py"), "--config", str(cfg_path), "--store", str(work / run_store.STORE)],
                 cwd=work), "synth")  # fmt: skip
    res["synth_s"] = m.wall
    with Meter() as m:
        p = run([SNAKEMAKE, "-n", "-p", "--configfile", "config/grid.yaml"], cwd=work)
    must(p, "dry run with finished runs")
    res["dry_run_finished"] = {"meter": m.record(), "wall_s": m.wall, "cpu_s": p.cpu}
    cmds = shell_commands(p.out + p.err)
    steps = []
    log(f"   dry run with finished runs {m.wall:.1f} s; timing {', '.join(RULES_TIMED)}")
    with Meter() as total:
        for rule in RULES_TIMED:
            for cmd in cmds.get(rule, []):
                for target in re.findall(r"> '?([^' ]+)'? 2>&1", cmd):  # Snakemake creates log folders
                    (work / target).parent.mkdir(parents=True, exist_ok=True)
                q = run(cmd, cwd=work, shell=True)
                step = {"rule": rule, "wall_s": q.wall, "cpu_s": q.cpu, "maxrss_mb": q.maxrss_mb, "rc": q.rc}
                if q.rc != 0:
                    logs = re.findall(r"> '?([^' ]+\.log)'? 2>&1", cmd)
                    tail = (work / logs[-1]).read_text()[-1500:] if logs and (work / logs[-1]).is_file() else q.tail()
                    step["error"] = tail
                steps.append(step)
                log(
                    f"   {rule}: {q.wall:.1f} s ({q.cpu:.1f} CPU-s), {q.maxrss_mb:.0f} MB" + (" FAILED" if q.rc else "")
                )
    res["aggregate"] = {
        "meter": total.record(),
        "steps": steps,
        "wall_s": sum(s["wall_s"] for s in steps),
        "cpu_s": sum(s["cpu_s"] for s in steps),
        "ok": bool(steps) and all(s["rc"] == 0 for s in steps) and {s["rule"] for s in steps} == set(RULES_TIMED),
        "missing_rules": sorted(set(RULES_TIMED) - {s["rule"] for s in steps}),
    }
    # peak RSS of a training job: the biggest default combination
    settings = {
        "arch": "encoder",
        "depth": 2,
        "heads": 8,
        "seq_len": 32,
        "norm": "pre",
        "pos_enc": "sinusoidal",
        "seed": 0,
    }
    if quick:
        settings["epochs"] = 20
    log("   training job RSS (depth 2, seq 32, 8 heads)")
    with Meter() as m:
        q = run([PY, "-m", "ablation.train", "--settings", json.dumps(settings), "--outdir", str(tmp / "rss_run"),
                 "--threads", "1", "--study", "bench", "--run-id", "rss"], cwd=tmp)  # fmt: skip
    must(q, "training job")
    train_s = float(read_csv(tmp / "rss_run" / "metrics.csv")[0]["train_seconds"])
    res["train_job"] = {"meter": m.record(), "settings": settings, "wall_s": q.wall, "cpu_s": q.cpu, "maxrss_mb": q.maxrss_mb,
                        "train_seconds": train_s}  # fmt: skip
    return res


# ----------------------------------------------------------------------------- section 5


def importtime(stmt: str) -> dict:
    p = run([PY, "-X", "importtime", "-c", stmt], cwd=REPO)
    rows = []
    for line in p.err.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            rows.append((int(m.group(2)) / 1e6, len(m.group(3)), m.group(4)))
    total = max((r[0] for r in rows), default=0.0)
    names = {r[2] for r in rows}
    heaviest = sorted(((cum, name) for cum, _, name in rows if name.startswith("torch.") and name.count(".") == 1),
                      reverse=True)[:6]  # fmt: skip
    top = {}
    for cum, _, name in rows:
        root = name.split(".")[0]
        if "." not in name and root not in sys.stdlib_module_names and root != "ablation":
            top[root] = max(top.get(root, 0.0), cum)
    return {
        "total_s": total,
        "n_modules": len(rows),
        "torch_dynamo": "torch._dynamo" in names,
        "sympy": "sympy" in names,
        "heaviest_torch_submodules": [{"module": n, "cumulative_s": c} for c, n in heaviest],
        "top_level_packages": {k: v for k, v in sorted(top.items(), key=lambda kv: -kv[1]) if v >= 0.005},
    }


JOB_PLAIN = "training job (1 epoch)"
JOB_OS_EXIT = "training job ending in os._exit (1 epoch)"
JOB_FORK = "training job, fork server (1 epoch)"
JOB_NO_FORK = "training job, no fork server (1 epoch)"
EXPECTED_LAUNCHER = {JOB_PLAIN: "process", JOB_OS_EXIT: "process", JOB_FORK: "fork-server", JOB_NO_FORK: "process"}


def start_fork_server(sock: Path, tmp: Path, tiny: str) -> tuple[subprocess.Popen, float]:
    """`python -m ablation.forkserver serve`, as the Snakefile's onstart hook starts it; returns once a
    warm-up client was served by it (provenance.json launcher "fork-server"), with the seconds that took."""
    err = open(tmp / "fork_server.err", "w+b")  # noqa: SIM115
    t0 = time.perf_counter()
    p = subprocess.Popen([PY, "-m", "ablation.forkserver", "serve", "--socket", str(sock)], env=ENV, cwd=tmp,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)  # fmt: skip
    try:
        while not sock.exists():  # it binds the socket first, then imports torch; clients wait in the backlog
            if p.poll() is not None or time.perf_counter() - t0 > 120:
                raise RuntimeError("the fork server did not bind its socket")
            time.sleep(0.02)
        outdir = tmp / "lever_runs" / "fork_server_warmup"
        q = run([PY, "-m", "ablation.forkserver", "train", "--settings", tiny, "--threads", "1", "--outdir", str(outdir)],
                cwd=tmp, env={**ENV, FORK_VAR: str(sock)})  # fmt: skip
        must(q, "fork-server warm-up client")
        launcher = json.loads((outdir / "provenance.json").read_text()).get("launcher")
        if launcher != "fork-server":
            raise RuntimeError(f"the warm-up client was not served by the fork server (launcher {launcher!r})")
    except BaseException:
        stop_fork_server(p)
        err.seek(0)
        sys.stderr.write(err.read().decode(errors="replace")[-3000:])
        raise
    finally:
        err.close()
    return p, time.perf_counter() - t0


def stop_fork_server(p: subprocess.Popen) -> None:
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        os.wait4(p.pid, 0)  # collect it (and its reaped children) into our rusage
        p.returncode = 0


def section_levers(tmp: Path, quick: bool, cores: int) -> dict:
    reps = 2 if quick else 5  # start-up times vary by ±0.5 s between fresh processes: take the fastest of 5
    res = {"repeats": reps}
    log("5. levers: start-up costs")
    tiny = json.dumps({"epochs": 1, "n_train": 16, "n_test": 8})
    sock = tmp / "lever.sock"
    dyn = "import torch,time;t=time.perf_counter();import torch._dynamo;print(time.perf_counter()-t)"
    job_args = ["--settings", tiny, "--threads", "1", "--outdir"]
    no_server = {FORK_VAR: None}  # unset: the in-process fallback
    cmds = {
        "interpreter": ([PY, "-c", "pass"], None),
        "interpreter -S -c pass": ([PY, "-S", "-c", "pass"], None),
        "import numpy": ([PY, "-c", "import numpy"], None),
        "import yaml": ([PY, "-c", "import yaml"], None),
        "import torch": ([PY, "-c", "import torch"], None),
        "import torch (TORCH_DEVICE_BACKEND_AUTOLOAD=0)": ([PY, "-c", "import torch"], {"TORCH_DEVICE_BACKEND_AUTOLOAD": "0"}),
        "import torch, then os._exit": ([PY, "-c", "import torch, os; os._exit(0)"], None),
        "import ablation.train": ([PY, "-c", "import ablation.train"], None),
        JOB_PLAIN: ([PY, "-m", "ablation.train", *job_args], None),
        JOB_OS_EXIT: (
            [PY, "-c", "import os, sys; from ablation.train import main; rc = main(sys.argv[1:]); sys.stdout.flush(); "
             "sys.stderr.flush(); os._exit(rc)", *job_args], None),  # fmt: skip
        # the train rule's command, as Snakemake runs it with the server up, and without a server
        JOB_FORK: ([PY, "-m", "ablation.forkserver", "train", *job_args], {FORK_VAR: str(sock)}),
        JOB_NO_FORK: ([PY, "-m", "ablation.forkserver", "train", *job_args], no_server),
    }
    times: dict[str, list[float]] = {k: [] for k in cmds}
    train_s: dict[str, list[float]] = {k: [] for k in cmds if k.startswith("training job")}
    used: dict[str, dict[str, int]] = {k: {} for k in train_s}
    dynamo: list[float] = []
    with Meter() as m:
        server, res["fork_server_first_job_s"] = start_fork_server(sock, tmp, tiny)
        try:
            for r in range(reps):
                for name, (cmd, extra) in cmds.items():
                    env = {**ENV, **(extra or {})}
                    env = {k: v for k, v in env.items() if v is not None}
                    outdir = tmp / "lever_runs" / f"{len(times[name])}_{abs(hash(name))}"
                    full = cmd + [str(outdir)] if name in train_s else cmd
                    q = must(run(full, cwd=tmp, env=env), name)
                    times[name].append(q.wall)
                    if name in train_s:
                        train_s[name].append(float(read_csv(outdir / "metrics.csv")[0]["train_seconds"]))
                        launcher = json.loads((outdir / "provenance.json").read_text()).get("launcher", "missing")
                        used[name][launcher] = used[name].get(launcher, 0) + 1
                q = must(run([PY, "-c", dyn], cwd=tmp), "import torch._dynamo")
                dynamo.append(float(q.out.strip()))
        finally:
            stop_fork_server(server)
    res["startup_meter"] = m.record()
    res["startup"] = {k: {"min_s": min(v), "median_s": statistics.median(v)} for k, v in times.items()}
    res["job_train_seconds"] = {k: min(v) for k, v in train_s.items()}
    res["job_launchers"] = used
    res["job_launchers_expected"] = {k: EXPECTED_LAUNCHER[k] for k in used}
    res["import_torch_dynamo_after_torch_s"] = min(dynamo)
    res["importtime"] = importtime("import ablation.train")
    log("   in-process costs (probe)")
    must(run([PY, str(HERE / "probe.py"), "--out", str(tmp / "probe.json"), "--repeats", "3"], cwd=tmp), "probe")
    res["probe"] = json.loads((tmp / "probe.json").read_text())

    # Snakemake's own per-job cost: train jobs whose command is `touch` of the outputs
    cfg = bench_config(quick)
    cfg["studies"]["bench"]["seeds"] = list(range(1 if quick else 8))
    n = n_runs(cfg)
    study = "bench"
    target = [f"results/{study}/summary.csv", "--omit-from", "summarize"]
    variants = [
        ("ilp scheduler (default), benchmark: on", [], True),
        ("greedy scheduler, benchmark: on", ["--scheduler", "greedy"], True),
        ("greedy scheduler, no benchmark:", ["--scheduler", "greedy"], False),
    ][: 1 if quick else None]
    out = {"n_jobs": n, "variants": []}
    log(f"   Snakemake bookkeeping: {n} null jobs x {len(variants)} variants")
    for i, (label, extra, keep_bench) in enumerate(variants):
        work = copy_project(tmp / f"null{i}")
        null_train_rule(work, keep_benchmark=keep_bench)
        cfg_path = write_yaml(work / "config" / "bench.yaml", cfg)
        base = [SNAKEMAKE, *target, "--cores", str(cores), "--configfile", str(cfg_path.relative_to(work)), *extra]
        with Meter() as md:
            must(run([*base, "-n"], cwd=work), f"null dry run ({label})")
        with Meter() as mr:
            q = must(run(base, cwd=work), f"null run ({label})")
        out["variants"].append({
            "label": label, "dry_run_s": md.wall, "run_s": mr.wall, "meter": mr.record(),
            "jobs": finished_jobs(q) or n,
            "per_job_s": (mr.wall - md.wall) / n,
        })  # fmt: skip
        log(f"   {label}: {(mr.wall - md.wall) / n * 1000:.0f} ms per job")
    res["snakemake_null_jobs"] = out
    return res


# ----------------------------------------------------------------------------- report


def versions() -> dict:
    out = {"python": platform.python_version()}
    for name in ("torch", "numpy", "pandas", "snakemake", "pulp", "psutil"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8", errors="replace"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = None
    try:
        for line in open("/proc/meminfo", encoding="ascii"):
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) / 1024**2
    except OSError:
        pass
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain"], capture_output=True, text=True)
    return {
        "cpu": cpu,
        "cores": NCPU,
        "mem_gb": mem,
        "platform": platform.platform(),
        "git_commit": commit.stdout.strip() or None,
        "git_dirty": bool(dirty.stdout.strip()),
    }


def speed_summary(sp: dict) -> dict:
    """Speed-ups by wall and (when recorded) CPU time; the goal is judged on CPU time if the machine was busy."""
    out = {}
    for basis, key in (("wall", "speedup"), ("cpu", "speedup_cpu")):
        vals = [r[key] for r in sp["rows"] if key in r]
        if vals and len(vals) == len(sp["rows"]):
            out[basis] = {"min": min(vals), "max": max(vals), "median": statistics.median(vals)}
    out["basis"] = "cpu" if sp["meter"]["busy"] and "cpu" in out else "wall"
    return out


def evaluate_goals(R: dict) -> list[dict]:
    S = R["sections"]
    goals = []

    def add(key, value, ok, shown):
        name, target = GOALS[key]
        status = "n/a" if ok is None else ("PASS" if ok else "FAIL")
        goals.append({"key": key, "goal": name, "target": target, "value": value, "shown": shown, "status": status})

    e2e, ov = S.get("e2e"), S.get("overhead")
    if e2e:
        r = e2e["ratio"]
        add("e2e", r, r <= 0.8, f"{r:.2f} ({e2e['pipeline']['wall_s']:.1f} s ÷ {e2e['naive']['wall_s']:.1f} s)")
        add("e2e_stretch", r, r <= 0.5, f"{r:.2f}")
        a = e2e["agreement"]
        add("same_metrics", a["share_within"], a["share_within"] >= 0.9,
            f"{a['n_within']}/{a['n_compared']} runs; largest difference {a['max_abs_diff']:.4f}")  # fmt: skip
    else:
        for k in ("e2e", "e2e_stretch", "same_metrics"):
            add(k, None, None, "not run")
    if ov:
        nf = ov.get("no_fork_server") or {}
        how = " as shipped (fork server on)" if ov.get("fork_server") else ""
        add("overhead", ov["per_job_overhead_s"], ov["per_job_overhead_s"] <= 1.0, f"{ov['per_job_overhead_s']:.2f} s{how}"
            + (f"; without the fork server {nf['per_job_overhead_s']:.2f} s" if nf else ""))  # fmt: skip
        add("efficiency", ov["efficiency"], ov["efficiency"] >= 0.8, f"{ov['efficiency']:.2f}{how}"
            + (f"; without the fork server {nf['efficiency']:.2f}" if nf else ""))  # fmt: skip
    else:
        add("overhead", None, None, "not run")
        add("efficiency", None, None, "not run")
    sp = S.get("speed")
    if sp:
        ss = speed_summary(sp)
        b = ss["basis"]
        other = "cpu" if b == "wall" else "wall"
        shown = (f"{ss[b]['min']:.2f}× by {b} time (range {ss[b]['min']:.2f}–{ss[b]['max']:.2f}×)"
                 + (f"; by {other} time {ss[other]['min']:.2f}–{ss[other]['max']:.2f}×" if ss.get(other) else ""))  # fmt: skip
        if b == "cpu":
            shown += " — judged on CPU time: the machine was busy"
        add("speed", ss[b]["min"], ss[b]["min"] >= 1.0, shown)
    else:
        add("speed", None, None, "not run")
    sc = S.get("scale")
    if sc:
        n = sc["n_runs"]
        scale_note = "" if n == 10000 else f" (at {n} runs)"
        d = sc["dry_run"]["wall_s"]
        bare = "".join(f"; bare Snakemake, same number of jobs, {b['label']}: {b['wall_s']:.1f} s"
                       for b in sc.get("dry_run_bare", []))  # fmt: skip
        add("dry_run", d, d <= 15, f"{d:.1f} s{bare}{scale_note}")
        ag = sc["aggregate"]
        add("aggregate", ag["wall_s"], ag["ok"] and ag["wall_s"] <= 30,
            f"{ag['wall_s']:.1f} s{scale_note}" + ("" if ag["ok"] else " (a step failed)"))  # fmt: skip
        rss = sc["train_job"]["maxrss_mb"]
        add("rss", rss, rss <= 400, f"{rss:.0f} MB")
    else:
        for k in ("dry_run", "aggregate", "rss"):
            add(k, None, None, "not run")
    return goals


def evaluate_checks(R: dict) -> list[dict]:
    """Correctness checks of the measurement itself: what was measured is what was meant."""
    S = R["sections"]
    checks = []

    def add(name, ok, shown):
        checks.append({"check": name, "shown": shown, "status": "PASS" if ok else "FAIL"})

    e2e = S.get("e2e") or {}
    pipe = e2e.get("pipeline") or {}
    if "launchers" in pipe:
        n, lc = pipe["n_runs"], pipe["launchers"]
        add("pipeline as shipped: every run trained in the fork server (provenance.json launcher)",
            lc.get("fork-server", 0) == n > 0, f"{lc.get('fork-server', 0)}/{n} runs; launchers {lc}")  # fmt: skip
    b = e2e.get("pipeline_no_fork_server") or {}
    if "launchers" in b:
        n, lc = b["n_runs"], b["launchers"]
        add(f"pipeline with {FORK_VAR}=0: every run trained in its own process (launcher process)",
            lc.get("process", 0) == n > 0, f"{lc.get('process', 0)}/{n} runs; launchers {lc}")  # fmt: skip
    if "identical_params" in b:
        n = pipe.get("n_runs", 0)
        diff = b.get("different_params") or []
        add("same final parameters (params_sha256) with and without the fork server, every run",
            b["identical_params"] == n > 0 and not diff,
            f"{b['identical_params']}/{n} runs" + (f"; different: {', '.join(diff[:10])}" if diff else ""))  # fmt: skip
    elif b.get("skipped"):
        add("pipeline without the fork server ran", False, b["skipped"][:300].replace("\n", " "))
    lv = S.get("levers") or {}
    used, want = lv.get("job_launchers"), lv.get("job_launchers_expected")
    if used and want:
        bad = {k: v for k, v in used.items() if set(v) != {want[k]}}
        add("section 5: each timed training job started the way its row says (provenance.json launcher)", not bad,
            "all as expected" if not bad else "; ".join(f"{k}: {v} (expected {want[k]})" for k, v in bad.items()))
    return checks


def fmt_s(v) -> str:
    if v is None:
        return "–"
    if v < 0.1:
        return f"{v * 1000:.0f} ms"
    return f"{v:.2f} s"


def fmt_cpu(rec: dict) -> str:
    cpu = (rec.get("meter") or {}).get("own_cpu_s")
    return "–" if cpu is None else f"{cpu:.1f} s"


def launcher_text(p: dict) -> str:
    lc = p.get("launchers") or {}
    return ", ".join(f"{v}/{p.get('n_runs', '?')} {k}" for k, v in sorted(lc.items())) or "unknown"


def meter_note(rec: dict | None) -> str:
    if not rec:
        return ""
    flag = " **(busy)**" if rec["busy"] else ""
    return (f"load {rec['load1_before']:.1f}→{rec['load1_after']:.1f}, other processes used "
            f"{100 * rec['foreign_share']:.0f} % of the CPU{flag}")  # fmt: skip


README = REPO / "README.md"
README_START = "<!-- benchmark goals: written by benchmarks/run.py, do not edit -->"
README_END = "<!-- end of benchmark goals -->"


def readme_block(R: dict) -> str:
    """The goals table of a full run, for the README (between README_START and README_END)."""
    mch = R["machine"]
    lines = [README_START, "",
             f"From the last full harness run ({R['date']}, commit {mch['git_commit']}"
             f"{' with uncommitted changes' if mch['git_dirty'] else ''}, {mch['cores']} cores; details in "
             "[benchmarks/results.md](benchmarks/results.md)):", "",
             "| goal | target | measured | status |", "| --- | --- | --- | --- |"]  # fmt: skip
    lines += [f"| {g['goal']} | {g['target']} | {g['shown']} | **{g['status']}** |" for g in R["goals"]]
    if R["load"]["busy"] or any(R["busy_sections"].values()):
        lines += ["", "The machine was busy during that run: the timings are inflated."]
    return "\n".join([*lines, "", README_END])


def update_readme(text: str, R: dict) -> str:
    """``text`` (the README) with its benchmark-goals block replaced by this run's."""
    start, end = text.find(README_START), text.find(README_END)
    if start < 0 or end < start:
        raise ValueError(f"README.md has no block between {README_START!r} and {README_END!r}")
    return text[:start] + readme_block(R) + text[end + len(README_END) :]


def write_outputs(R: dict, out_dir: Path) -> None:
    """results.json and results.md in ``out_dir``; a full run into benchmarks/ also updates the README."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps(R, indent=1, default=str) + "\n")
    (out_dir / "results.md").write_text(render(R))
    if not R["quick"] and out_dir.resolve() == HERE.resolve():
        README.write_text(update_readme(README.read_text(), R))
        log(f"updated the goals table in {README}")


def render(R: dict) -> str:
    S = R["sections"]
    L = []
    w = L.append
    mode = "QUICK (reduced; numbers not representative)" if R["quick"] else "full"
    w("# Benchmarks\n")
    w(f"Produced by `python benchmarks/run.py{' --quick' if R['quick'] else ''}` (mode: {mode}) on "
      f"{R['date']} in {R['total_wall_s'] / 60:.1f} min. Do not edit by hand: re-run the harness.\n")  # fmt: skip
    mch, ver = R["machine"], R["versions"]
    w(f"- Machine: {mch['cpu']}, {mch['cores']} cores, {mch['mem_gb']:.0f} GB RAM; {mch['platform']}")
    w("- Versions: " + ", ".join(f"{k} {v}" for k, v in ver.items()))
    w(f"- Code: commit {mch['git_commit']}{' with uncommitted changes' if mch['git_dirty'] else ''}")
    ld = R["load"]
    w(f"- Load (1-min average): {ld['load1_before']:.2f} before, {ld['load1_after']:.2f} after; other processes "
      f"used {100 * ld['foreign_share']:.0f} % of the machine's CPU during the harness "
      f"({ld['foreign_cpu_s']:.0f} CPU-s).")  # fmt: skip
    busy = [k for k, v in R["busy_sections"].items() if v]
    if busy or ld["busy"]:
        w("")
        w(f"> **WARNING: the machine was busy** (other processes used more than {100 * BUSY_SHARE:.0f} % of the CPU "
          f"during: {', '.join(busy) or 'the harness'}). Timings are inflated and ratios between measurements "
          "taken at different moments are unreliable; re-run on a quiet machine.")  # fmt: skip
    w("\n## Goals\n")
    w("| goal | target | measured | status |")
    w("| --- | --- | --- | --- |")
    for g in R["goals"]:
        w(f"| {g['goal']} | {g['target']} | {g['shown']} | **{g['status']}** |")
    if R.get("checks"):
        w("\nChecks of the measurement itself:\n")
        w("| check | result | status |")
        w("| --- | --- | --- |")
        for c in R["checks"]:
            w(f"| {c['check']} | {c['shown']} | **{c['status']}** |")
        for c in R["checks"]:
            if c["status"] != "PASS":
                w(f"\n> **FAIL: {c['check']}** — {c['shown']}")

    e2e = S.get("e2e")
    w("\n## 1. End to end\n")
    if e2e:
        p, nv = e2e["pipeline"], e2e["naive"]
        c = e2e["config"]
        st = next(iter(c["studies"].values()))
        w(f"`benchmarks/bench.yaml`{' (reduced by --quick)' if R['quick'] else ''}: {e2e['n_runs']} runs "
          f"({', '.join(f'{k} {v}' for k, v in st['factors'].items())}; seeds {st['seeds']}; fixed {st['fixed']}; "
          f"{c['defaults']['epochs']} epochs, {c['defaults']['n_train']} train / {c['defaults']['n_test']} test).\n")  # fmt: skip
        w("| | wall | CPU time (all its processes) | Σ in-run seconds | conditions |")
        w("| --- | --- | --- | --- | --- |")
        shipped = "launchers" in p  # results of older harness versions measured the pipeline without the server
        w(f"| pipeline{' as shipped (fork server on)' if shipped else ''}: `snakemake --cores {p['cores']}` → summary.csv "
          f"({p['n_jobs']} jobs) | {p['wall_s']:.1f} s | {fmt_cpu(p)} | {p['sum_train_seconds']:.1f} s (train_seconds) | "
          f"{meter_note(p['meter'])} |")  # fmt: skip
        w(f"| naive: benchmarks/naive.py, one process, {nv['threads']} torch threads | {nv['wall_s']:.1f} s | "
          f"{fmt_cpu(nv)} | {nv['sum_run_seconds']:.1f} s | {meter_note(nv['meter'])} |")  # fmt: skip
        b = e2e.get("pipeline_no_fork_server") or {}
        if "wall_s" in b:
            w(f"| for comparison: the pipeline without the fork server ({FORK_VAR}=0: every job imports torch) | "
              f"{b['wall_s']:.1f} s | {fmt_cpu(b)} | {b['sum_train_seconds']:.1f} s (train_seconds) | "
              f"{meter_note(b['meter'])} |")  # fmt: skip
        w(f"\n**Ratio pipeline ÷ naive: {e2e['ratio']:.2f}**" +
          (f"; without the fork server {b['wall_s'] / nv['wall_s']:.2f}" if "wall_s" in b else "") + ".\n")  # fmt: skip
        a = e2e["agreement"]
        w(f"Same metrics: test accuracy of {a['n_compared']} runs compared (pipeline vs naive, same data, same seed, "
          f"same initial weights): {a['n_identical']} identical, {a['n_within']} within ±{a['tolerance']:.4f} "
          f"({100 * a['share_within']:.0f} %), max |Δ| = {a['max_abs_diff']:.4f}.")  # fmt: skip
        if a["beyond"]:
            w("Beyond the tolerance: " + ", ".join(f"`{k}` ({v:.4f})" for k, v in a["beyond"].items()) + ". Both "
              "start from the same weights, but our fused Adam and attention kernels round differently from "
              "torch.optim.Adam (single-tensor) and nn.MultiheadAttention; over 300 full-batch steps a run "
              "near a decision boundary (mostly runs without positional encoding, which hover at chance) can "
              "end a few test sequences apart.")  # fmt: skip
        if shipped:
            w(f"\nHow the runs were trained (provenance.json `launcher`): pipeline {launcher_text(p)}"
              + (f"; without the fork server {launcher_text(b)}" if "launchers" in b else "") + ".")  # fmt: skip
        if "identical_params" in b:
            diff = b.get("different_params") or []
            w(f"\nWith and without the fork server: {b['identical_params']}/{p['n_runs']} runs with bit-identical final "
              "parameters (params_sha256)" + (f"; **different: {', '.join(diff)}**" if diff else "") + "."
              + (f" train_seconds in a forked child ÷ in its own process, median over runs: "
                 f"{b['train_seconds_ratio_median']:.2f}." if b.get("train_seconds_ratio_median") else ""))  # fmt: skip
        elif b.get("skipped"):
            w(f"\nPipeline without the fork server: **FAILED** — {b['skipped'][:300]}")
    else:
        w("not run")

    ov = S.get("overhead")
    w("\n## 2. Per-job overhead\n")
    if ov:
        shipped = ov.get("fork_server", False)
        nf = ov.get("no_fork_server") or {}
        w(f"From section 1's pipeline run{' (as shipped: fork server on)' if shipped else ''}: wall {ov['wall_s']:.1f} s × "
          f"{ov['cores']} cores, Σ train_seconds {ov['sum_train_seconds']:.1f} s, {ov['n_jobs']} jobs. The goals are "
          "judged on this column" + ("; the run without the fork server is shown beside it for comparison" if nf else "")
          + ".\n")  # fmt: skip

        def cell(d, key):
            return f"{d[key]:.2f}{' s' if key.endswith('_s') else ''}" if key in d else "–"

        head = "pipeline as shipped (fork server)" if shipped else "pipeline"
        w(f"| | {head} |" + (f" without the fork server ({FORK_VAR}=0) |" if nf else ""))
        w("| --- | --- |" + (" --- |" if nf else ""))
        rows = [
            ("per-job overhead (wall × cores − Σ train_seconds) ÷ jobs", "per_job_overhead_s"),
            ("parallel efficiency (Σ train_seconds ÷ cores) ÷ wall", "efficiency"),
            ("… of which inside the train job, outside train_run (Σ (job wall − train_seconds) ÷ train jobs: "
             "start, imports, provenance, writes)", "job_process_overhead_s"),
            ("… of which Snakemake, DAG build, summarize and idle cores (wall × cores − Σ job walls) ÷ jobs",
             "snakemake_and_idle_per_job_s"),
        ]  # fmt: skip
        for label, key in rows:
            if key in ov or key in nf:
                w(f"| {label} | {cell(ov, key)} |" + (f" {cell(nf, key)} |" if nf else ""))
        if shipped and "job_process_overhead_s" in ov:
            w("\nA train job's wall is its Snakemake `benchmark:` file. With the fork server the job's process is the "
              "small client, which waits for the forked child until the training is done, so that wall still spans "
              "the whole job; what lies outside train_run is then the client's start, the hand-over to the server and "
              "the child's own work (provenance, file writes), no torch import — and, for the jobs that start before "
              "the server has imported torch, the wait for that (once per Snakemake run; section 5 times it). "
              "(The benchmark file's max_rss is the client's, not the training's: peak RSS is measured in section 4.)")  # fmt: skip
    else:
        w("not run")

    sp = S.get("speed")
    w("\n## 3. Training speed (ours vs naive, in-process, 1 thread)\n")
    if sp:
        ss = speed_summary(sp)
        wl = ss["wall"]
        w(f"Speed-up naive ÷ ours by wall time: **{wl['min']:.2f}× – {wl['max']:.2f}×** (median {wl['median']:.2f}×) "
          f"over {len(sp['rows'])} combinations; Σ naive {sp['sum_naive_s']:.1f} s, Σ ours {sp['sum_ours_s']:.1f} s. "
          + (f"By CPU time (time.process_time of the worker): **{ss['cpu']['min']:.2f}× – {ss['cpu']['max']:.2f}×** "
             f"(median {ss['cpu']['median']:.2f}×). " if ss.get("cpu") else "")
          + f"{meter_note(sp['meter'])}.\n")  # fmt: skip
        has_cpu = bool(ss.get("cpu"))
        w("| arch | depth | heads | seq_len | norm | epochs | naive | ours | speed-up |"
          + (" CPU naive | CPU ours | speed-up (CPU) |" if has_cpu else "") + " acc naive / ours |")  # fmt: skip
        w("|" + " --- |" * (13 if has_cpu else 10))
        for r in sp["rows"]:
            c = r["combo"]
            cpu_cells = (f" {r['naive_cpu_s']:.2f} s | {r['ours_cpu_s']:.2f} s | {r['speedup_cpu']:.2f}× |"
                         if has_cpu else "")  # fmt: skip
            w(f"| {c['arch']} | {c.get('depth', '–') if c['arch'] == 'encoder' else '–'} | {c['heads']} | {c['seq_len']} | "
              f"{c.get('norm', '–') if c['arch'] == 'encoder' else '–'} | {c.get('epochs', 300)} | {r['naive_s']:.2f} s | "
              f"{r['ours_s']:.2f} s | {r['speedup']:.2f}× |{cpu_cells} {r['naive_acc']:.3f} / {r['ours_acc']:.3f} |")  # fmt: skip
        reps = sorted({r.get("repeats", 1) for r in sp["rows"]})
        rounds = max(r.get("rounds", 1) for r in sp["rows"])
        w(f"\nEach time is the fastest of its timings ({' or '.join(map(str, reps))}: more for runs under 3 s), taken in "
          f"{rounds} round{'s' if rounds > 1 else ''} over all combinations, ours and naive "
          "interleaved; both get the same data and the same epochs (fewer than 300 in the full harness, to fit its "
          "time budget: the speed-up is a cost per epoch); ours includes what train_run records (curve, gradient "
          "norms, final evaluation, parameter hash). Accuracies after that many epochs are shown only as a "
          "sanity check.")  # fmt: skip
    else:
        w("not run")

    sc = S.get("scale")
    w("\n## 4. Scale\n")
    if sc:
        d = sc["dry_run"]
        w(f"Grid config: {sc['n_runs']} runs ({d['jobs']} jobs in the DAG).\n")
        w("| measurement | wall | CPU time | peak RSS | conditions |")
        w("| --- | --- | --- | --- | --- |")
        w(
            f"| `snakemake -n` (nothing built yet) | {d['wall_s']:.1f} s | {d['cpu_s']:.1f} s | | {meter_note(d['meter'])} |"
        )
        d1 = sc["dry_run_one_seed"]
        w(f"| `snakemake -n`, the same grid with 1 seed ({d1['n_runs']} runs; = all seeds of a combination in one job) | "
          f"{d1['wall_s']:.1f} s | {d1['cpu_s']:.1f} s | | {meter_note(d1['meter'])} |")  # fmt: skip
        for b in sc.get("dry_run_bare", []):
            w(f"| for comparison: `snakemake -n` of a bare Snakefile, {b['n_jobs']} jobs of one rule ({b['label']}; "
              f"`touch`, no config, no input functions) | {b['wall_s']:.1f} s | {b['cpu_s']:.1f} s | | "
              f"{meter_note(b['meter'])} |")  # fmt: skip
        df = sc["dry_run_finished"]
        w(f"| `snakemake -n -p` with every run finished | {df['wall_s']:.1f} s | {df['cpu_s']:.1f} s | | "
          f"{meter_note(df['meter'])} |")  # fmt: skip
        w(f"| writing the synthetic runs (benchmarks/synth.py) | {sc['synth_s']:.1f} s | | | |")
        for s in sc["aggregate"]["steps"]:
            w(f"| rule {s['rule']} (its command line) | {s['wall_s']:.1f} s | {s['cpu_s']:.1f} s | {s['maxrss_mb']:.0f} MB | "
              f"{'FAILED' if s['rc'] else 'ok'} |")  # fmt: skip
        ag = sc["aggregate"]
        w(f"| **aggregation + tables + figures + report** | **{ag['wall_s']:.1f} s** | {ag['cpu_s']:.1f} s | | "
          f"{meter_note(ag['meter'])} |")  # fmt: skip
        tj = sc["train_job"]
        w(f"| training job `python -m ablation.train` (depth 2, seq 32, 8 heads, {tj['settings'].get('epochs', 300)} "
          f"epochs) | {tj['wall_s']:.1f} s (train_seconds {tj['train_seconds']:.1f}) | {tj['cpu_s']:.1f} s | "
          f"**{tj['maxrss_mb']:.0f} MB** | {meter_note(tj['meter'])} |")  # fmt: skip
        for s in ag["steps"]:
            if s.get("error"):
                w(f"\nrule {s['rule']} failed:\n\n```\n{s['error'][-1200:]}\n```")
        if ag["missing_rules"]:
            w(f"\nNo command found in the dry run for: {', '.join(ag['missing_rules'])}.")
    else:
        w("not run")

    lv = S.get("levers")
    w("\n## 5. Where the per-job overhead goes, and levers\n")
    if lv:
        st, pr = lv["startup"], lv["probe"]
        interp = st["interpreter"]["min_s"]
        torch_s = st["import torch"]["min_s"]
        abl = st["import ablation.train"]["min_s"]
        outside = job_outside(lv)
        w(f"Fastest of {lv['repeats']} fresh processes each (interleaved). {meter_note(lv['startup_meter'])}.\n")
        w("| per training job | seconds |")
        w("| --- | --- |")
        w(f"| interpreter start (`python -c pass`) | {fmt_s(interp)} |")
        w(f"| `import torch` (beyond the interpreter) | {fmt_s(torch_s - interp)} |")
        w(f"| `import ablation.train` beyond torch (numpy, yaml, schema → Settings, …) | {fmt_s(abl - torch_s)} |")
        w(f"| … of which parsing the schema with yaml.safe_load (C loader: {fmt_s(pr.get('schema_yaml_csafe_load_s'))}) | "
          f"{fmt_s(pr['schema_yaml_safe_load_s'])} |")  # fmt: skip
        w(f"| first-call costs inside train_run (first − second tiny run; {pr['modules_imported_by_first_train_run']} "
          f"modules imported lazily; torch._dynamo imported: {pr['torch_dynamo_imported']}) | "
          f"{fmt_s(pr['first_tiny_train_run_s'] - pr['second_tiny_train_run_s'])} |")  # fmt: skip
        w(f"| provenance.collect (git rev-parse + git status, code hash) | {fmt_s(pr['provenance_collect_s'])} |")
        w(f"| write_outputs (5 files, fsync each; 300-epoch curve) | {fmt_s(pr['write_outputs_300_epochs_s'])} |")
        if "import torch, then os._exit" in st:
            w(f"| interpreter shutdown after `import torch` (`import torch` − `import torch; os._exit(0)`) | "
              f"{fmt_s(torch_s - st['import torch, then os._exit']['min_s'])} |")  # fmt: skip
        w(f"| **whole job process minus train_seconds** (`python -m ablation.train`, 1 epoch) | "
          f"**{fmt_s(outside.get(JOB_PLAIN))}** |")  # fmt: skip
        if JOB_OS_EXIT in outside:
            w(f"| same, ending with `os._exit` after the files are written (no interpreter shutdown) | "
              f"{fmt_s(outside[JOB_OS_EXIT])} |")  # fmt: skip
        if JOB_NO_FORK in outside:
            w(f"| the train rule's command `python -m ablation.forkserver train …` without a server ({FORK_VAR} unset: "
              f"trains in its own process), minus train_seconds | {fmt_s(outside[JOB_NO_FORK])} |")  # fmt: skip
        if JOB_FORK in outside:
            w(f"| **the same command with the fork server up** (as the pipeline runs it: client + forked child), "
              f"minus train_seconds | **{fmt_s(outside[JOB_FORK])}** |")  # fmt: skip
        nj = lv["snakemake_null_jobs"]
        for v in nj["variants"]:
            w(f"| Snakemake per job, {v['label']} ((wall − dry run) ÷ {nj['n_jobs']} null jobs, --cores {cores_of(R)}) | "
              f"{fmt_s(v['per_job_s'])} |")  # fmt: skip
        w("")
        if "fork_server_first_job_s" in lv:
            w(f"Fork server start (`python -m ablation.forkserver serve`: bind, import torch and ablation.train) until "
              f"its first 1-epoch job is done: {fmt_s(lv['fork_server_first_job_s'])}, once per Snakemake run.\n")  # fmt: skip
        w(f"Other start-up numbers: `python -S -c pass` {fmt_s(st['interpreter -S -c pass']['min_s'])}; "
          f"`import numpy` {fmt_s(st['import numpy']['min_s'] - interp)}; `import yaml` {fmt_s(st['import yaml']['min_s'] - interp)}; "
          f"`import torch` with TORCH_DEVICE_BACKEND_AUTOLOAD=0 "
          f"{fmt_s(st['import torch (TORCH_DEVICE_BACKEND_AUTOLOAD=0)']['min_s'] - interp)} (vs {fmt_s(torch_s - interp)}); "
          f"`import torch._dynamo` after torch (what torch.optim's first step() costs) "
          f"{fmt_s(lv['import_torch_dynamo_after_torch_s'])}.")  # fmt: skip
        it = lv["importtime"]
        w(f"\n`python -X importtime -c 'import ablation.train'`: {it['n_modules']} modules, {fmt_s(it['total_s'])} "
          f"(with the profiler's own overhead); torch._dynamo imported: {it['torch_dynamo']}; sympy: {it['sympy']}; "
          f"heaviest parts of torch: " + ", ".join(f"{h['module']} {fmt_s(h['cumulative_s'])}" for h in it["heaviest_torch_submodules"])
          + ". Top-level packages (cumulative, ≥ 5 ms): "
          + ", ".join(f"{k} {fmt_s(v)}" for k, v in it["top_level_packages"].items()) + ".")  # fmt: skip
    else:
        w("not run")

    w("\n## Notes\n")
    for note in R.get("notes", []):
        w(f"- {note}")
    return "\n".join(L) + "\n"


def ov_saving(ov: dict, nf: dict) -> str:
    d = nf["wall_s"] - ov["wall_s"]
    return f"{d:.1f} s, {100 * d / nf['wall_s']:.0f} %" if nf["wall_s"] else f"{d:.1f} s"


def job_outside(lv: dict) -> dict[str, float]:
    """Section 5: a 1-epoch training job's wall minus its train_seconds, for each job command measured."""
    st, ts = lv["startup"], lv.get("job_train_seconds", {})
    return {k: st[k]["min_s"] - ts[k] for k in ts if k in st}


def cores_of(R: dict) -> int:
    return R.get("cores", 2)


def notes(R: dict) -> list[str]:
    out = []
    S = R["sections"]
    ov, lv, e2e = S.get("overhead"), S.get("levers"), S.get("e2e")
    nf = (ov or {}).get("no_fork_server")
    if ov and ov.get("fork_server"):
        text = (f"The fork server (ablation.forkserver) is what the pipeline uses by default when jobs run on this "
                f"machine ({FORK_VAR}=0 switches it off): the Snakefile's onstart hook starts one process that imports "
                "torch once, and each training job is forked from it.")  # fmt: skip
        if nf:
            text += (f" Measured end to end: {ov['wall_s']:.1f} s with it vs {nf['wall_s']:.1f} s without "
                     f"(saves {ov_saving(ov, nf)}); per-job overhead {ov['per_job_overhead_s']:.2f} s vs "
                     f"{nf['per_job_overhead_s']:.2f} s; parallel efficiency {ov['efficiency']:.2f} vs "
                     f"{nf['efficiency']:.2f}.")  # fmt: skip
        out.append(text)
    if lv:
        outside = job_outside(lv)
        if JOB_FORK in outside and JOB_NO_FORK in outside:
            out.append(f"In isolation (section 5) the fork server saves {fmt_s(outside[JOB_NO_FORK] - outside[JOB_FORK])} "
                       f"per training job ({fmt_s(outside[JOB_NO_FORK])} → {fmt_s(outside[JOB_FORK])} outside "
                       "train_seconds).")  # fmt: skip
        if JOB_OS_EXIT in outside and JOB_PLAIN in outside:
            out.append(f"Ending a training process (one that imported torch itself) with os._exit once its files are "
                       f"written saves {fmt_s(outside[JOB_PLAIN] - outside[JOB_OS_EXIT])} per job "
                       f"({fmt_s(outside[JOB_PLAIN])} → {fmt_s(outside[JOB_OS_EXIT])}); a forked child already "
                       "ends with os._exit.")  # fmt: skip
    if ov and lv:
        v = {x["label"]: x["per_job_s"] for x in lv["snakemake_null_jobs"]["variants"]}
        labels = list(v)
        if len(labels) == 3:
            out.append(f"Snakemake scheduler: greedy instead of ilp changes the per-job cost by "
                       f"{fmt_s(v[labels[0]] - v[labels[1]])}; dropping `benchmark:` by {fmt_s(v[labels[1]] - v[labels[2]])}.")  # fmt: skip
    sc = S.get("scale")
    if sc:
        d, d1 = sc["dry_run"], sc["dry_run_one_seed"]
        bare = sc.get("dry_run_bare", [])
        if bare:
            out.append(f"Snakemake alone: a dry run of {bare[0]['n_jobs']} jobs of a bare one-rule Snakefile takes "
                       + " and ".join(f"{b['wall_s']:.1f} s ({b['label']})" for b in bare)
                       + f" on this machine; ours takes {d['wall_s']:.1f} s.")  # fmt: skip
        out.append(f"DAG cost: the dry run grows by {fmt_s(d1['per_job_s'])} per run ({d1['n_runs']} → {sc['n_runs']} runs: "
                   f"{d1['wall_s']:.1f} s → {d['wall_s']:.1f} s); one job per factor combination (all its seeds) instead "
                   f"of one per run would make the {sc['n_runs']}-run dry run about {d1['wall_s']:.1f} s.")  # fmt: skip
        steps = {s["rule"]: s for s in sc["aggregate"]["steps"]}
        if steps:
            worst = max(steps.values(), key=lambda s: s["wall_s"])
            out.append(f"Slowest aggregation step at {sc['n_runs']} runs: rule {worst['rule']} "
                       f"({worst['wall_s']:.1f} s, {worst['maxrss_mb']:.0f} MB peak RSS).")  # fmt: skip
    if e2e:
        nv = e2e["naive"]
        out.append(f"The naive loop ran with torch's default thread count ({nv['threads']}); the pipeline's jobs "
                   "with 1 thread each, two at a time.")  # fmt: skip
    if R["quick"]:
        out.append("QUICK MODE: tiny configs and few repeats; the goals' PASS/FAIL lines are not meaningful (the checks "
                   "of the measurement are).")
    return out


# ----------------------------------------------------------------------------- main


SECTIONS = ("e2e", "speed", "scale", "levers")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a reduced version (smoke test)")
    ap.add_argument("--out-dir", type=Path, default=HERE, help="where results.md and results.json go")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated subset of {','.join(SECTIONS)}")
    ap.add_argument("--no-baseline-pipeline", action="store_true",
                    help=f"skip the comparison run of the pipeline without the fork server ({FORK_VAR}=0)")  # fmt: skip
    ap.add_argument("--keep", action="store_true", help="keep the temporary work folder")
    ap.add_argument("--render", type=Path, metavar="RESULTS_JSON",
                    help="only re-render results.md (into --out-dir) from an earlier run's results.json")  # fmt: skip
    args = ap.parse_args(argv)
    if args.render:
        R = json.loads(args.render.read_text())
        R["goals"] = evaluate_goals(R)
        R["checks"] = evaluate_checks(R)
        R["notes"] = notes(R)
        write_outputs(R, args.out_dir)
        log(f"re-rendered {args.out_dir / 'results.md'} from {args.render}")
        return 0
    wanted = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = set(wanted) - set(SECTIONS)
    if unknown:
        ap.error(f"unknown sections: {', '.join(sorted(unknown))}")
    tmp = Path(tempfile.mkdtemp(prefix="ablation-bench-"))
    R = {
        "quick": args.quick,
        "cores": args.cores,
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "versions": versions(),
        "sections": {},
        "busy_sections": {},
    }
    log(f"work folder {tmp}; load {os.getloadavg()[0]:.2f}")
    try:
        with Meter() as total:
            if "e2e" in wanted:
                with Meter() as m:
                    R["sections"]["e2e"] = section_e2e(tmp, args.quick, args.cores, baseline=not args.no_baseline_pipeline)
                    R["sections"]["overhead"] = section_overhead(R["sections"]["e2e"])
                R["busy_sections"]["1. end to end"] = m.record()["busy"]
            if "speed" in wanted:
                with Meter() as m:
                    R["sections"]["speed"] = section_speed(tmp, args.quick)
                R["busy_sections"]["3. training speed"] = m.record()["busy"]
            if "scale" in wanted:
                with Meter() as m:
                    R["sections"]["scale"] = section_scale(tmp, args.quick)
                R["busy_sections"]["4. scale"] = m.record()["busy"]
            if "levers" in wanted:
                with Meter() as m:
                    R["sections"]["levers"] = section_levers(tmp, args.quick, args.cores)
                R["busy_sections"]["5. levers"] = m.record()["busy"]
    finally:
        if args.keep:
            log(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    R["load"] = total.record()
    R["total_wall_s"] = total.wall
    R["goals"] = evaluate_goals(R)
    R["checks"] = evaluate_checks(R)
    R["notes"] = notes(R)
    write_outputs(R, args.out_dir)
    log(f"wrote {args.out_dir / 'results.md'} ({total.wall / 60:.1f} min)")
    for g in R["goals"]:
        log(f"  {g['status']:4}  {g['goal']}: {g['shown']}")
    for c in R["checks"]:
        log(f"  {c['status']:4}  check: {c['check']}: {c['shown']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
