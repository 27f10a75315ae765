"""results.json and results.md: the goals, the checks of the measurement, and results.md from its template."""

from __future__ import annotations

import json
import platform
from importlib import metadata
from pathlib import Path

import jinja2
from measured import line as stamp_line  # benchmarks/measured.py (run.py's folder is on the path)

from .common import BUSY_SHARE, FORK_VAR, GOALS, NCPU
from .e2e import OVERHEAD_ROWS
from .e2e import view as e2e_view
from .levers import view as levers_view
from .scale import view as scale_view
from .training import speed_summary


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
    return {
        "cpu": cpu,
        "cores": NCPU,
        "mem_gb": mem,
        "platform": platform.platform(),
    }


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
        nf = ov.get("no_fork_server") or {}  # absent with --no-baseline-pipeline
        how = " as shipped (fork server on)"
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
        shown = (f"{ss[b]['min']:.2f}× by {b} time (range {ss[b]['min']:.2f}–{ss[b]['max']:.2f}×); "
                 f"by {other} time {ss[other]['min']:.2f}–{ss[other]['max']:.2f}×")  # fmt: skip
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
                       for b in sc["dry_run_bare"])  # fmt: skip
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

    e2e = S.get("e2e")
    if e2e:
        pipe = e2e["pipeline"]
        n, lc = pipe["n_runs"], pipe["launchers"]
        add("pipeline as shipped: every run trained in the fork server (provenance.json launcher)",
            lc.get("fork-server", 0) == n > 0, f"{lc.get('fork-server', 0)}/{n} runs; launchers {lc}")  # fmt: skip
        b = e2e.get("pipeline_no_fork_server")  # absent with --no-baseline-pipeline
        if b and "skipped" in b:
            add("pipeline without the fork server ran", False, b["skipped"][:300].replace("\n", " "))
        elif b:
            lc = b["launchers"]
            add(f"pipeline with {FORK_VAR}=0: every run trained in its own process (launcher process)",
                lc.get("process", 0) == n > 0, f"{lc.get('process', 0)}/{n} runs; launchers {lc}")  # fmt: skip
            diff = b["different_params"]
            add("same final parameters (params_sha256) with and without the fork server, every run",
                b["identical_params"] == n > 0 and not diff,
                f"{b['identical_params']}/{n} runs" + (f"; different: {', '.join(diff[:10])}" if diff else ""))  # fmt: skip
    lv = S.get("levers")
    if lv:
        used, want = lv["job_launchers"], lv["job_launchers_expected"]
        bad = {k: v for k, v in used.items() if set(v) != {want[k]}}
        add(
            "section 5: each timed training job started the way its row says (provenance.json launcher)",
            not bad,
            "all as expected" if not bad else "; ".join(f"{k}: {v} (expected {want[k]})" for k, v in bad.items()),
        )
    return checks


def fmt_s(v: float) -> str:
    return f"{v * 1000:.0f} ms" if v < 0.1 else f"{v:.2f} s"


def fmt_cpu(rec: dict) -> str:
    return f"{rec['meter']['own_cpu_s']:.1f} s"


def meter_note(rec: dict) -> str:
    flag = " **(busy)**" if rec["busy"] else ""
    return (f"load {rec['load1_before']:.1f}→{rec['load1_after']:.1f}, other processes used "
            f"{100 * rec['foreign_share']:.0f} % of the CPU{flag}")  # fmt: skip


def write_outputs(R: dict, out_dir: Path) -> None:
    """results.json and results.md in ``out_dir`` (the README links to results.md)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps(R, indent=1, default=str) + "\n")
    (out_dir / "results.md").write_text(render(R))


def render(R: dict) -> str:
    """results.md: the template results.md.j2 filled with R and each section's view."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(f=lambda v, n: f"{v:.{n}f}", s=fmt_s, cpu=fmt_cpu, meter=meter_note,
                       pct=lambda v: f"{100 * v:.0f}")  # fmt: skip
    S = R["sections"]
    e2e, ov, sp, sc, lv = (S.get(k) for k in ("e2e", "overhead", "speed", "scale", "levers"))
    return env.get_template("results.md.j2").render(
        R,
        measured_line=stamp_line(R["measured"]),
        busy=[k for k, v in R["busy_sections"].items() if v],
        busy_share=BUSY_SHARE,
        fork_var=FORK_VAR,
        e2e=e2e,
        overhead=ov,
        speed=sp,
        scale=sc,
        levers=lv,
        e2e_view=e2e and e2e_view(e2e, ov),
        overhead_rows=OVERHEAD_ROWS,
        speed_summary=sp and speed_summary(sp),
        scale_view=sc and scale_view(sc),
        levers_view=lv and levers_view(lv),
    )
