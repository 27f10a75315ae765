"""Section 4: a 10,000-run grid: dry run, aggregation of synthetic runs, a training job's peak RSS."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ablation import settings as S
from ablation import store as run_store
from ablation.workspace import copy_project

from .common import HARNESS, Meter, PY, SNAKEMAKE, grid_config, log, must, n_runs, read_csv, run, write_yaml

RULES_TIMED = ("index", "summarize", "evaluations", "analyze", "claims", "figures", "report")


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
    ("our train job's shape: 1 output, a log, a benchmark", 1, True),
)


def bare_snakefile(n_jobs: int, outputs: int, log_and_benchmark: bool) -> str:
    """A Snakefile with nothing but ``n_jobs`` wildcard jobs of one rule: Snakemake's own cost."""
    outs = ", ".join(f'"out/{{i}}/f{k}.txt"' for k in range(outputs))
    lines = [
        "rule all:",
        f'    input: expand("out/{{i}}/f0.txt", i=range({n_jobs}))',
        "",
        "rule make:",
        f"    output: {outs}",
    ]
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
            p = must(
                run([SNAKEMAKE, "-n", "--cores", "1", "--workflow-profile", "none"], cwd=folder),
                f"bare dry run ({label})",
            )
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
        must(run([PY, str(HARNESS / "synth.py"), "--config", str(cfg_path), "--store", str(work / run_store.STORE)],
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
    # peak RSS of a training job: the biggest combination of the default config (other settings: defaults)
    settings = {"arch": "encoder", "depth": 2, "heads": 8, "seq_len": 32, "norm": "pre", "seed": 0}
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


def view(sc: dict) -> dict:
    """What results.md shows of section 4 beyond its record."""
    return {
        "train_job_epochs": S.from_dict(sc["train_job"]["settings"]).epochs,
        "slowest_step": max(sc["aggregate"]["steps"], key=lambda s: s["wall_s"], default=None),
    }
