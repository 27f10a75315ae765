"""Sections 1 and 2: the pipeline end to end against the naive loop, and the per-job overhead."""

from __future__ import annotations

import csv
import json
import re
import statistics
from pathlib import Path

from ablation import store as run_store
from ablation.workspace import copy_project

from .common import (
    ENV,
    FORK_VAR,
    HARNESS,
    Meter,
    PY,
    REPO,
    SNAKEMAKE,
    bench_config,
    finished_jobs,
    log,
    must,
    n_runs,
    read_csv,
    run,
    write_yaml,
)


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
        p = run([PY, str(HARNESS / "naive.py"), "--config", str(cfg_path), "--out", str(tmp / "naive.json")], cwd=REPO)
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
                k
                for k, v in pipe["runs"].items()
                if k not in b["runs"] or b["runs"][k]["params_sha256"] != v["params_sha256"]
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


OVERHEAD_ROWS = (  # (label, key) of section 2's table in results.md
    ("per-job overhead (wall × cores − Σ train_seconds) ÷ jobs", "per_job_overhead_s"),
    ("parallel efficiency (Σ train_seconds ÷ cores) ÷ wall", "efficiency"),
    ("… of which inside the train job, outside train_run (Σ (job wall − train_seconds) ÷ train jobs: "
     "start, imports, provenance, writes)", "job_process_overhead_s"),
    ("… of which Snakemake, DAG build, summarize and idle cores (wall × cores − Σ job walls) ÷ jobs",
     "snakemake_and_idle_per_job_s"),
)  # fmt: skip


def launcher_text(p: dict) -> str:
    return ", ".join(f"{v}/{p['n_runs']} {k}" for k, v in sorted(p["launchers"].items()))


def view(e2e: dict, overhead: dict) -> dict:
    """What results.md shows of sections 1 and 2 beyond their records."""
    study = next(iter(e2e["config"]["studies"].values()))
    b = e2e.get("pipeline_no_fork_server") or {}  # absent with --no-baseline-pipeline; {"skipped"} if it failed
    return {
        "study": study,
        "factors_text": ", ".join(f"{k} {v}" for k, v in study["factors"].items()),
        "no_fork_server": b,
        "launchers": launcher_text(e2e["pipeline"]),
        "launchers_no_fork_server": launcher_text(b) if "launchers" in b else "",
        "overhead_no_fork_server": overhead.get("no_fork_server") or {},
    }


def _overhead(p: dict) -> dict:
    """Per-job overhead and parallel efficiency of one pipeline run (run_pipeline's record)."""
    wall, cores, jobs, train = p["wall_s"], p["cores"], p["n_jobs"], p["sum_train_seconds"]
    return {
        "wall_s": wall,
        "cores": cores,
        "n_jobs": jobs,
        "sum_train_seconds": train,
        "per_job_overhead_s": (wall * cores - train) / jobs,
        "efficiency": (train / cores) / wall,
        # a train job's wall (its benchmark: file) minus its train_seconds; with the fork server the job's
        # process is the client, which waits for the forked child: its wall still spans the whole training
        "job_process_overhead_s": (p["sum_train_job_wall_s"] - train) / max(1, p["n_train_jobs_benchmarked"]),
        "snakemake_and_idle_per_job_s": (wall * cores - p["sum_job_wall_s"]) / jobs,
    }


def section_overhead(e2e: dict) -> dict:
    out = _overhead(e2e["pipeline"])
    out["fork_server"] = True
    b = e2e.get("pipeline_no_fork_server") or {}
    if "wall_s" in b:
        out["no_fork_server"] = _overhead(b) | {"ratio_vs_naive": b["wall_s"] / e2e["naive"]["wall_s"]}
    return out
