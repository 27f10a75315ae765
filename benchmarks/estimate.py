#!/usr/bin/env python
"""How close `make plan`'s wall-time estimate comes to the Snakemake run it estimates.

    .venv/bin/python benchmarks/estimate.py                      # the default cases below
    .venv/bin/python benchmarks/estimate.py config/smoke.yaml 'config/config.yaml:position@2' --cores 2

A case is ``CONFIG[:STUDY,STUDY...][@SEEDS]``: the config, only the studies named, and with
``@SEEDS`` each study's first SEEDS seeds and no adaptive rounds (a reduced grid of the same
shapes). Per case, in a temp copy of the project with an empty run store: the plan's estimate
(``ablation.plan.estimate``: the cost model timed here, the jobs laid out on the cores), then
``snakemake --cores N`` timed, with the CPU other processes used meanwhile. Writes --out
(default benchmarks/estimate.md, and its JSON record beside it) stamped with the commit and date
("Measured at commit ..."; the JSON's ``measured`` key): per case the estimate on free cores,
the estimate at the load measured during the run, the measured wall time and their ratio, the
training's CPU seconds (modelled against the runs' own train_seconds) and the jobs that do not
train (modelled against their benchmark files); and the cost model's per-shape spread
(``--shapes``: every shape of the default config timed, its CPU seconds per cost unit).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "scripts"))

from reproduce import Meter, cpu_model  # noqa: E402  (the fresh-clone benchmark's meter)

from ablation import config as C  # noqa: E402
from ablation import plan as P  # noqa: E402
from ablation import timing as T  # noqa: E402
from ablation.settings import cost_estimate, from_dict  # noqa: E402
from ablation.workspace import copy_project  # noqa: E402

CASES = ("config/smoke.yaml", "config/config.yaml:position@2")
BIN = Path(sys.executable).parent


def derived_config(path: str) -> tuple[dict, str]:
    """(the raw config of a case, its label)."""
    spec, _, seeds = path.partition("@")
    config, _, studies = spec.partition(":")
    raw = C.load_yaml(HERE.parent / config)
    if studies:
        keep = studies.split(",")
        raw["studies"] = {k: v for k, v in raw["studies"].items() if k in keep}
        ids = {c["id"] for s in raw["studies"].values() for c in s.get("claims", [])}
        if "report" in raw:
            raw["report"]["headline"] = [i for i in raw["report"].get("headline", []) if i in ids]
    if seeds:
        for study in raw["studies"].values():
            study["seeds"] = list(sorted(study["seeds"]))[: int(seeds)]
            study.pop("adaptive", None)
    return raw, path


def run_case(case: str, cores: int) -> dict:
    raw, label = derived_config(case)
    work = copy_project(Path(tempfile.mkdtemp(prefix="estimate-")) / "project")
    (work / "config" / "case.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    os.chdir(work)
    cfg = C.load("config/case.yaml")
    est = P.estimate(cfg, cores, store=Path("results/runs"))
    cal = est["calibration"]
    print(f"{label}: estimate {est['wall_minutes'][0] * 60:.0f}-{est['wall_minutes'][1] * 60:.0f} s on free cores "
          f"({cal.basis}, {cal.seconds:.1f} s; others used {100 * cal.other_share:.0f} % meanwhile); running ...",
          flush=True)  # fmt: skip
    with Meter() as m:
        proc = subprocess.run([str(BIN / "snakemake"), "--cores", str(cores), "--configfile", "config/case.yaml"],
                              capture_output=True, text=True)  # fmt: skip
    if proc.returncode:
        raise SystemExit(f"{label}: snakemake failed:\n{proc.stderr[-3000:]}")
    trained = [pd.read_csv(p) for p in Path("results/runs").glob("*/metrics.csv")]
    settings = [from_dict(json.loads(p.read_text())) for p in Path("results/runs").glob("*/settings.json")]
    benches = [p for p in Path(cfg.outdir, "results").rglob("benchmarks/*.tsv")]
    other_s = [float(pd.read_csv(p, sep="\t")["s"].iloc[0]) for p in benches]
    first = est["wall_minutes"][0] * 60
    threads = min(cfg.train_threads, cores)
    modelled_cpu = sum(j.seconds * j.threads for j in T.design_jobs(cfg, Path("/no-store"), cal, False, threads))
    at_load = first / max(1e-9, 1 - m.other_share)
    return {
        "case": label, "cores": cores, "runs": len(trained),
        "estimate_s": round(first, 1), "estimate_every_round_s": round(est["wall_minutes"][1] * 60, 1),
        "estimate_at_load_s": round(at_load, 1), "measured_s": round(m.wall, 1),
        "ratio": round(m.wall / at_load, 3), "ratio_free": round(m.wall / first, 3),
        "train_cpu_modelled_s": round(sum(cal.run_seconds(s) for s in settings), 1),
        "train_seconds_measured": round(sum(float(t["train_seconds"].iloc[0]) for t in trained), 1),
        "per_unit": cal.per_unit, "per_run": round(cal.per_run, 3), "units": sum(cost_estimate(s) for s in settings),
        "other_jobs": len(other_s), "other_job_modelled_s": round(cal.other_job, 2),
        "other_job_measured_mean_s": round(sum(other_s) / len(other_s), 2) if other_s else None,
        "cpu_modelled_s": round(modelled_cpu, 1), "cpu_measured_s": m.record()["cpu_s"],
        "calibration_s": round(cal.seconds, 1), "calibration_other_share": round(cal.other_share, 3),
        "meter": m.record(),
    }  # fmt: skip


def time_every_shape(config: str) -> pd.DataFrame:
    """Every shape of ``config`` timed as the calibration times its sample (one at a time): its CPU
    seconds per cost unit."""
    cfg = C.load(HERE.parent / config)
    by_study = T.design_settings(cfg)
    shapes = {}
    for name, runs in by_study.items():
        for s in runs:
            shapes.setdefault(dataclasses.replace(s, seed=0), name)
    jobs = []
    for shape in shapes:
        jobs += [(dataclasses.replace(shape, epochs=e).to_json(), 1) for e in (T.FIRST_EPOCHS, T.FIRST_EPOCHS + 20)]
    from ablation import train  # noqa: F401  (forked children start with torch imported)

    times = T._timed_pool(jobs, 1)
    rows = []
    for i, (shape, study) in enumerate(shapes.items()):
        per_epoch, fixed = T.epoch_fit(times[2 * i], times[2 * i + 1], T.FIRST_EPOCHS, T.FIRST_EPOCHS + 20)
        rows.append({"study": study, "pos_enc": shape.pos_enc, "attn_mask": shape.attn_mask, "depth": shape.depth,
                     "heads": shape.heads, "seq_len": shape.seq_len, "norm": shape.norm,
                     "ms_per_unit": 1000 * per_epoch * shape.epochs / cost_estimate(shape)})  # fmt: skip
    return pd.DataFrame(rows)


def render(rec: dict) -> str:
    st = rec["measured"]
    stamp = f"Measured at commit {st['commit']}{' with uncommitted changes' if st['dirty'] else ''} on {st['date']}."
    out = ["# How close the plan's wall-time estimate comes", "", stamp, "",
           f"Produced by `{rec['command']}`. Do not edit by hand: re-run the script.", "",
           f"- Machine: {rec['machine']['cpu']}, {rec['machine']['cores']} cores", "",
           "Per case, in a temp copy of the project with an empty run store: `ablation.plan.estimate` (the cost "
           "model timed here, the jobs laid out on the cores; `make plan` prints it), then `snakemake --cores N` "
           "timed. Estimate at load: the free-core estimate over the share of the CPU other processes left.", "",
           "| case | runs | estimate, free cores | other processes during the run | estimate at that load | "
           "measured | measured ÷ estimate at load |", "| --- | --- | --- | --- | --- | --- | --- |"]  # fmt: skip
    for c in rec["cases"]:
        m = c["meter"]
        out.append(f"| `{c['case']}` | {c['runs']} | {c['estimate_s']:.0f} s | {100 * m['other_share']:.0f} % "
                   f"(load {m['load_before']:.1f}→{m['load_after']:.1f}) | {c['estimate_at_load_s']:.0f} s | "
                   f"{c['measured_s']:.0f} s | **{c['ratio']:.2f}** |")  # fmt: skip
    out += ["", "## The parts", "",
            "| case | calibration | CPU of the whole run: modelled / measured (all its processes) | training: "
            "modelled CPU s / Σ train_seconds | other jobs: modelled / mean measured s (n) |",
            "| --- | --- | --- | --- | --- |"]  # fmt: skip
    for c in rec["cases"]:
        out.append(f"| `{c['case']}` | {c['calibration_s']:.1f} s ({100 * c['calibration_other_share']:.0f} % "
                   f"others), {1000 * c['per_unit']:.2f} ms/unit, {c['per_run']:.2f} s/run | "
                   f"{c['cpu_modelled_s']:.0f} s / {c['cpu_measured_s']:.0f} s "
                   f"(**{c['cpu_measured_s'] / c['cpu_modelled_s']:.2f}**) | "
                   f"{c['train_cpu_modelled_s']:.0f} / {c['train_seconds_measured']:.0f} | "
                   f"{c['other_job_modelled_s']:.2f} / {c['other_job_measured_mean_s']:.2f} ({c['other_jobs']}) |")  # fmt: skip
    out += ["", "The model's seconds are CPU seconds, and so is the measured CPU of the whole run (Snakemake, the "
            "fork server and every job: the children's rusage), which other processes leave alone; train_seconds and "
            "the jobs' benchmark files are wall times, which on a busy machine hold the time other processes took "
            "from the run. What the model leaves out: Snakemake's own work per job.", ""]  # fmt: skip
    if rec.get("shapes"):
        df = pd.DataFrame(rec["shapes"])
        out += ["## shapes", "", f"Every shape of `{rec['shapes_config']}` timed as the calibration times its sample, "
                "one at a time: CPU ms per cost unit (`settings.cost_estimate`). The calibration weights its "
                f"{T.SAMPLE_SHAPES} shapes by the units they stand for.", "",
                "| positional encoding | shapes | ms per unit: min | median | max |", "| --- | --- | --- | --- | --- |"]  # fmt: skip
        for pe, g in df.groupby("pos_enc", sort=False):
            q = g["ms_per_unit"]
            out.append(f"| {pe} | {len(g)} | {q.min():.1f} | {q.median():.1f} | {q.max():.1f} |")
        out.append("")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="*", default=list(CASES), help="CONFIG[:STUDY,...][@SEEDS]")
    ap.add_argument("--cores", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--shapes", action="store_true", help="also time every shape of the default config")
    ap.add_argument("--out", type=Path, default=HERE / "estimate.md")
    ap.add_argument("--render", type=Path, help="re-render --out from this JSON record only (no new numbers)")
    args = ap.parse_args(argv)
    out = args.out.resolve()
    if args.render:
        out.write_text(render(json.loads(args.render.read_text())))
        return 0
    git = lambda *a: subprocess.run(["git", "-C", str(HERE), *a], capture_output=True, text=True).stdout.strip()  # noqa: E731
    rec = {"measured": {"commit": git("rev-parse", "--short", "HEAD"),
                        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                        "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))},
           "command": " ".join(["python benchmarks/estimate.py", *(argv if argv is not None else sys.argv[1:])]),
           "machine": {"cpu": cpu_model(), "cores": os.cpu_count()}, "cases": []}  # fmt: skip
    if args.shapes:
        rec["shapes"], rec["shapes_config"] = time_every_shape("config/config.yaml").to_dict("records"), "config/config.yaml"
    for case in args.cases:
        rec["cases"].append(run_case(case, args.cores))
        print(json.dumps({k: v for k, v in rec["cases"][-1].items() if k != "meter"}), flush=True)
    out.write_text(render(rec))
    out.with_suffix(".json").write_text(json.dumps(rec, indent=1) + "\n")
    print(out.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
