"""results.json and results.md: the goals, the checks of the measurement, and the rendered report."""

from __future__ import annotations

import json
import platform
import statistics
import subprocess
from importlib import metadata
from pathlib import Path

from .common import BUSY_SHARE, FORK_VAR, GOALS, NCPU, REPO
from .levers import JOB_FORK, JOB_NO_FORK, JOB_OS_EXIT, JOB_PLAIN


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
        add(
            "section 5: each timed training job started the way its row says (provenance.json launcher)",
            not bad,
            "all as expected" if not bad else "; ".join(f"{k}: {v} (expected {want[k]})" for k, v in bad.items()),
        )
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


def write_outputs(R: dict, out_dir: Path) -> None:
    """results.json and results.md in ``out_dir`` (the README links to results.md)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps(R, indent=1, default=str) + "\n")
    (out_dir / "results.md").write_text(render(R))


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
        w(f"| pipeline as shipped (fork server on): `snakemake --cores {p['cores']}` → summary.csv "
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
        out.append(
            "QUICK MODE: tiny configs and few repeats; the goals' PASS/FAIL lines are not meaningful (the checks "
            "of the measurement are)."
        )
    return out
