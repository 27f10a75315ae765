"""Section 5: where the per-job overhead goes: start-up, imports, the fork server, Snakemake's bookkeeping."""

from __future__ import annotations

import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

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
from .e2e import null_train_rule


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


def view(lv: dict) -> dict:
    """What results.md shows of section 5 beyond its record: the start-up times it subtracts, and a
    1-epoch training job's wall minus its train_seconds for each way of starting it."""
    st, ts = lv["startup"], lv["job_train_seconds"]
    outside = {key: st[name]["min_s"] - ts[name] for key, name in
               (("plain", JOB_PLAIN), ("os_exit", JOB_OS_EXIT), ("fork", JOB_FORK), ("no_fork", JOB_NO_FORK))}  # fmt: skip
    return {
        "interpreter": st["interpreter"]["min_s"],
        "torch": st["import torch"]["min_s"],
        "torch_os_exit": st["import torch, then os._exit"]["min_s"],
        "ablation": st["import ablation.train"]["min_s"],
        "outside": outside,
    }


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
        "import torch (TORCH_DEVICE_BACKEND_AUTOLOAD=0)": (
            [PY, "-c", "import torch"],
            {"TORCH_DEVICE_BACKEND_AUTOLOAD": "0"},
        ),
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
    must(run([PY, str(HARNESS / "probe.py"), "--out", str(tmp / "probe.json"), "--repeats", "3"], cwd=tmp), "probe")
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
