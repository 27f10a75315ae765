"""Snakemake's main process: its own CPU seconds per step (jobs and the fork server are children, not
counted), for the pipeline's DAG and for a bare Snakefile of the same shape, before and after a change
of the workflow, side by side in one run. Used by benchmarks/main_process.py.

Shapes:
- default: config/config.yaml's studies (adaptive rounds included) with cheap training (1 epoch of
  8 sequences: the same jobs, seconds each), every train job preceded by `sleep` so that runs last a
  while as real ones do (the scheduler's cost grows with the wall time as well as the steps);
- grid: a 5,000-run grid (benchmarks/harness/common.py's grid, norm fixed, 25 seeds): its runs are
  synthetic (harness/synth.py, written once), each train job copies its run into the store.
A bare Snakefile of a shape has one rule of the train rule's shape (an output, a log, a benchmark, a
priority function) with as many jobs, and one job reading them all.

Before: the workflow folder of a git commit (default: the parent of the commit that added
scripts/ablation/scheduling.py) with its own profile, and, for the bare Snakefile, Snakemake's
defaults (the ILP scheduler and its job rate limiter). After: the working tree's workflow folder, and a
bare Snakefile with the profile's scheduler and the same onstart hook.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import yaml

from ablation.workspace import copy_project

from .common import HARNESS, PY, REPO, SNAKEMAKE, ENV, Meter, grid_config, log, must, n_runs, run, write_yaml

OWN_CPU = HARNESS / "own_cpu.py"
SHAPES = ("default", "grid")
CHEAP = {"epochs": 1, "n_train": 8, "n_test": 4}


def before_ref() -> str:
    """The parent of the commit that added ablation/scheduling.py (the workflow before the change)."""
    out = subprocess.run(["git", "-C", str(REPO), "log", "--diff-filter=A", "--format=%H", "--",
                          "scripts/ablation/scheduling.py"], capture_output=True, text=True, check=True)  # fmt: skip
    first = out.stdout.split()[-1] if out.stdout.split() else "HEAD"
    return subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", f"{first}^"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip


def profile_setting(work: Path, key: str) -> str | None:
    path = work / "workflow" / "profiles" / "default" / "config.yaml"
    return (yaml.safe_load(path.read_text()) or {}).get(key)


def workflow_at(ref: str, work: Path) -> None:
    """Replace ``work``'s workflow folder with the one of commit ``ref``."""
    import shutil

    shutil.rmtree(work / "workflow")
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "workflow"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(work)], input=archive.stdout, check=True)


def train_command(work: Path, command: str) -> None:
    """The train rule's shell command replaced by ``command`` (a Snakemake shell string)."""
    path = work / "workflow" / "rules" / "train.smk"
    text = path.read_text()
    start = text.index("    shell:", text.index("rule train:"))
    end = text.find("\nrule ", start)
    path.write_text(text[:start] + f"    shell:\n        {json.dumps(command)}\n" + ("" if end < 0 else text[end:]))


def shape_config(shape: str, quick: bool) -> dict:
    if shape == "default":
        cfg = yaml.safe_load((REPO / "config" / ("smoke.yaml" if quick else "config.yaml")).read_text())
        cfg.setdefault("defaults", {}).update(CHEAP)
        cfg.setdefault("stats", {})["n_resamples"] = 199
        return cfg
    cfg = grid_config(quick)
    study = cfg["studies"]["grid"]
    if not quick:  # 2 x 4 x 5 x 5 cells x 25 seeds = 5,000 runs
        study["fixed"]["norm"] = study["factors"].pop("norm")[0]
    cfg["stats"]["n_resamples"] = 199
    return cfg


def total_runs(cfg: dict) -> int:
    """Runs of the config's fixed designs (adaptive rounds add more)."""
    return n_runs(cfg)


def prepare(tmp: Path, shape: str, label: str, ref: str | None, cfg: dict, sleep_s: float, synthetic: Path | None) -> Path:
    work = copy_project(tmp / f"{shape}_{label}")
    if ref:
        workflow_at(ref, work)
    write_yaml(work / "config" / "bench.yaml", cfg)
    if synthetic is None:
        text = (work / "workflow" / "rules" / "train.smk").read_text()
        m = re.search(r'    shell:\n        "(python -m ablation\.forkserver train)', text)
        (work / "workflow" / "rules" / "train.smk").write_text(
            text[: m.start(1)] + f"sleep {sleep_s} && " + text[m.start(1) :]
        )
    else:
        train_command(work, f"sleep {sleep_s} && cp {synthetic}/{{wildcards.hash}}/* {{params.outdir:q}}/ && touch {{log:q}}")
    return work


def bare_snakefile(n_jobs: int, sleep_s: float, after: bool) -> str:
    """``n_jobs`` jobs of one rule of the train rule's shape, and one job reading them all."""
    hook = ["from ablation import scheduling", "", "", "onstart:", "    scheduling.unthrottle_local(workflow)", ""]
    return "\n".join([
        *(hook if after else []),
        "def prio(wildcards):",
        "    return int(wildcards.i) % 97",
        "",
        "rule all:",
        '    input: "all.txt"',
        "",
        "rule gather:",
        f'    input: expand("out/{{i}}/metrics.csv", i=range({n_jobs}))',
        '    output: "all.txt"',
        '    shell: "touch {output}"',
        "",
        "rule make:",
        '    output: "out/{i}/metrics.csv"',
        '    log: "out/{i}/train.log"',
        '    benchmark: "out/{i}/benchmark.tsv"',
        "    priority: prio",
        f'    shell: "sleep {sleep_s} && touch {{output}} {{log}}"',
        "",
    ])  # fmt: skip


def _proc_cpu(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def steps_done(work: Path) -> tuple[int, int]:
    """(done, total) from the last progress line of Snakemake's newest log file."""
    logs = sorted((work / ".snakemake" / "log").glob("*.snakemake.log"))
    found = re.findall(r"^(\d+) of (\d+) steps", logs[-1].read_text(errors="replace"), re.M) if logs else []
    return (int(found[-1][0]), int(found[-1][1])) if found else (0, 0)


def measure(work: Path, args: list[str], limit_s: float) -> dict:
    """`snakemake ARGS` in ``work`` under harness/own_cpu.py; stopped (SIGINT) after ``limit_s``."""
    out = work / "own_cpu.json"
    out.unlink(missing_ok=True)
    env = {**ENV, "OWN_CPU_OUT": str(out)}
    with Meter() as m, open(work / "snakemake.out", "w") as sink:
        proc = subprocess.Popen([PY, str(OWN_CPU), *args], cwd=work, env=env, stdout=sink, stderr=subprocess.STDOUT)
        deadline, last_cpu, timed_out = time.monotonic() + limit_s, 0.0, False
        while proc.poll() is None:
            last_cpu = _proc_cpu(proc.pid) or last_cpu
            if time.monotonic() > deadline and not timed_out:
                timed_out = True
                proc.send_signal(signal.SIGINT)
                deadline = time.monotonic() + 120
            elif timed_out and time.monotonic() > deadline:
                proc.kill()
            time.sleep(0.2)
    own = json.loads(out.read_text()) if out.is_file() else {"cpu_s": last_cpu, "passes": None}
    cpu = own["cpu_s"]
    done, total = steps_done(work)
    return {"rc": proc.returncode, "timed_out": timed_out, "cpu_s": cpu, "passes": own["passes"], "wall_s": m.wall, "steps": done,
            "steps_total": total, "cpu_per_step_s": cpu / max(1, done), "meter": m.record()}  # fmt: skip


def section_main_process(tmp: Path, quick: bool, ref: str, repeats: int, limit_s: float, cores: int,
                         sleep_s: dict[str, float], after_scheduler: str | None = None, shapes=SHAPES,
                         before: bool = True) -> dict:  # fmt: skip
    """Per shape: the DAG before and after, the bare Snakefile before and after; each `repeats` times
    (fresh folders), alternating, the fastest kept."""
    import shutil

    res = {"before_ref": ref, "repeats": repeats, "limit_s": limit_s, "cores": cores, "sleep_s": sleep_s,
           "after_scheduler": after_scheduler or profile_setting(REPO, "scheduler") or "ilp", "shapes": {}}  # fmt: skip
    for shape in shapes:
        cfg = shape_config(shape, quick)
        synthetic = None
        if shape == "grid":
            synthetic = tmp / "synthetic" / "runs"
            cfg_path = write_yaml(tmp / "grid.yaml", cfg)
            must(run([PY, str(HARNESS / "synth.py"), "--config", str(cfg_path), "--store", str(synthetic)], cwd=REPO), "synth")
        rows: dict[str, list[dict]] = {}
        for k in range(repeats):
            for label, ref_of in (("before", ref), ("after", None))[0 if before else 1 :]:
                work = prepare(tmp / f"r{k}", shape, label, ref_of, cfg, sleep_s[shape], synthetic)
                scheduler = profile_setting(work, "scheduler") or "ilp"
                override = ["--scheduler", after_scheduler] if after_scheduler and label == "after" else []
                scheduler = override[1] if override else scheduler
                log(f"main process: {shape} DAG, {label} ({scheduler}), try {k + 1}")
                r = measure(work, ["--cores", str(cores), "--configfile", "config/bench.yaml", *override], limit_s)
                rows.setdefault(f"dag {label}", []).append(r | {"scheduler": scheduler})
                log(f"   {r['steps']} steps, {r['cpu_s']:.1f} CPU-s: {r['cpu_per_step_s']:.3f} s per step"
                    + (" (stopped at the time limit)" if r["timed_out"] else ""))  # fmt: skip
                n_jobs = max(1, r["steps_total"] - 1)
                bare = tmp / f"r{k}" / f"{shape}_bare_{label}"
                bare.mkdir(parents=True)
                (bare / "Snakefile").write_text(bare_snakefile(n_jobs, sleep_s[shape], label == "after"))
                bare_sched = res["after_scheduler"] if label == "after" else "ilp"
                b = measure(bare, ["--cores", str(cores), "--workflow-profile", "none", "--scheduler", bare_sched], limit_s)
                rows.setdefault(f"bare {label}", []).append(b | {"scheduler": bare_sched})
                log(f"   bare Snakefile ({bare_sched}): {b['steps']} steps, {b['cpu_per_step_s']:.3f} s per step")
                shutil.rmtree(work, ignore_errors=True)
                shutil.rmtree(bare, ignore_errors=True)
        res["shapes"][shape] = {
            "runs": total_runs(cfg),
            "rows": {key: min(tries, key=lambda r: r["cpu_per_step_s"]) | {"tries": tries} for key, tries in rows.items()},
        }  # fmt: skip
    return res
