#!/usr/bin/env python3
"""How long the README's commands take: `make reproduce` in a fresh clone, timed and checked.

    python3 benchmarks/reproduce.py                                   # the default config: reproduce.md
    python3 benchmarks/reproduce.py --config config/smoke.yaml --test  # the quick look, then `make test`:
                                                                      # reproduce-smoke.md
    python3 benchmarks/reproduce.py --study lesson                    # one study on its own: reproduce-lesson.md
    python3 benchmarks/reproduce.py --ci                              # CI as CI runs it: reproduce-ci.md
    python3 benchmarks/reproduce.py --render benchmarks/reproduce.json  # re-render the .md, no new numbers

Writes benchmarks/reproduce.md and reproduce.json for the default config, reproduce-<config>.md/.json
for another: wall time of building .venv and of the pipeline (and with --test of `make test`, the
default suite), the machine (CPU, cores) and how busy it was meanwhile (other processes' share of the
CPU), the number of runs per study, the sum of in-run training seconds, and the claim verdicts of the
finished report, so that the README's times are measured numbers. Each output carries its stamp
(benchmarks/measured.py): the commit cloned and the date. A run that fails writes <name>-failed.md/.json
beside them and leaves the last finished measurement in place. Standard library only (it runs before
.venv exists). Uses the committed HEAD: uncommitted changes are not measured (the output says so).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measured import line

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def cpu_jiffies() -> tuple[int, int]:
    """(busy, total) CPU jiffies of the whole machine since boot."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


class Meter:
    """Wall time, our children's CPU seconds, and the CPU used by everything else meanwhile."""

    def __enter__(self):
        self.load0 = os.getloadavg()[0]
        self.busy0, self.total0 = cpu_jiffies()
        self.child0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.t0 = time.monotonic()
        return self

    def __exit__(self, *exc):
        self.wall = time.monotonic() - self.t0
        busy1, total1 = cpu_jiffies()
        child1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        hz = os.sysconf("SC_CLK_TCK")
        self.our_cpu = (child1.ru_utime - self.child0.ru_utime) + (child1.ru_stime - self.child0.ru_stime)
        machine_cpu = (busy1 - self.busy0) / hz
        capacity = (total1 - self.total0) / hz
        self.other_cpu = max(0.0, machine_cpu - self.our_cpu)
        self.other_share = self.other_cpu / capacity if capacity else 0.0
        self.load1 = os.getloadavg()[0]

    def record(self) -> dict:
        return {"wall_s": round(self.wall, 1), "cpu_s": round(self.our_cpu, 1), "other_cpu_s": round(self.other_cpu, 1),
                "other_share": round(self.other_share, 3), "load_before": self.load0, "load_after": self.load1}  # fmt: skip


def sh(cmd: list[str], cwd: Path, log: Path) -> int:
    with log.open("a") as fh:
        fh.write(f"\n$ {' '.join(cmd)}\n")
        fh.flush()
        return subprocess.run(cmd, cwd=cwd, stdout=fh, stderr=subprocess.STDOUT).returncode


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def read_csv(path: Path) -> list[dict]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def collect_results(results: Path) -> dict:
    studies = {}
    for summary in sorted(results.glob("*/summary.csv")):
        rows = read_csv(summary)
        claims_csv = summary.parent / "tables" / "claims.csv"
        claims = read_csv(claims_csv) if claims_csv.is_file() else []
        scope = summary.parent / "scope" / "summary.csv"  # the runs of its claims' robust_over universes
        scope_rows = read_csv(scope) if scope.is_file() else []
        studies[summary.parent.name] = {
            "runs": len(rows),
            "ok": sum(r["status"] == "ok" for r in rows),
            "diverged": sum(r["status"] == "diverged" for r in rows),
            "sum_train_seconds": round(sum(float(r["train_seconds"]) for r in rows), 1),
            "scope_runs": len(scope_rows),
            "scope_train_seconds": round(sum(float(r["train_seconds"]) for r in scope_rows), 1),
            "claims": [{"id": c["id"], "verdict": c["verdict"], "detail": c["detail"]} for c in claims],
        }
    return studies


def find_report(work: Path, study: str = "") -> Path | None:
    """The report the run wrote: reports/ under the config's outdir (the clone itself, or a folder of
    it); of some studies (``study``: STUDY=), the report named after them."""
    name = f"ablation_report.{study.replace(',', '+')}.html" if study else "ablation_report.html"
    found = [*work.glob(f"reports/{name}"), *work.glob(f"*/reports/{name}")]
    return found[0] if found else None


def left_out(report: Path) -> str:
    """The report's sentence naming the studies of the config it leaves out ('' when it covers them all)."""
    found = re.search(r"This report covers [^<]*", report.read_text(encoding="utf-8", errors="replace"))
    return found.group(0).strip() if found else ""


def megabytes(folder: Path) -> float:
    """The size of the files under ``folder`` (links not followed), in MB."""
    total = sum((Path(d) / f).lstat().st_size for d, _, files in os.walk(folder) for f in files)
    return round(total / 1e6, 1)


def pytest_summary(log: Path) -> str:
    """The last line pytest printed (its counts and time), from the log."""
    lines = [x.strip("= ") for x in log.read_text(errors="replace").splitlines() if " in " in x and "passed" in x]
    return lines[-1] if lines else "(no pytest summary in the log)"


def outputs(out_dir: Path, config: str, study: str = "") -> tuple[Path, Path]:
    """reproduce.md/.json for the default config, reproduce-<name>.md/.json for another; -<studies>
    added for some studies on their own (STUDY=)."""
    name = "reproduce" if config == "config/config.yaml" else f"reproduce-{Path(config).stem}"
    name += f"-{study.replace(',', '+')}" if study else ""
    return out_dir / f"{name}.md", out_dir / f"{name}.json"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="config/config.yaml", help="CONFIG passed to make (default: the default one)")
    ap.add_argument("--test", action="store_true", help="then time `make test` in the same clone")
    ap.add_argument("--study", default="", help="STUDY passed to make: some studies of the config on their own")
    ap.add_argument("--ci", action="store_true", help="only `CI=true bash .ci/run` in the clone, as CI runs it (every slow test)")
    ap.add_argument("--out-dir", type=Path, default=HERE, help="where the .md/.json go (default: benchmarks/)")
    ap.add_argument("--keep", action="store_true", help="keep the clone (its path is printed)")
    ap.add_argument("--render", type=Path, metavar="JSON", help="only re-render the .md beside JSON from it")
    ap.add_argument("--rejudged", type=Path, metavar="RESULTS",
                    help="with --render: first read the runs and verdicts again from RESULTS, the measured clone's "
                         "results judged again by the analysis of the commit checked out here (the JSON says so)")  # fmt: skip
    args = ap.parse_args(argv)
    if args.render and args.rejudged:
        rec = json.loads(args.render.read_text())
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()  # fmt: skip
        rec["studies"], rec["rejudged_at"] = collect_results(args.rejudged), head
        args.render.write_text(json.dumps(rec, indent=1) + "\n")
    if args.render:
        args.render.with_suffix(".md").write_text(render(json.loads(args.render.read_text())))
        return 0

    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip
    dirty = bool(subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True).stdout.strip())  # fmt: skip
    tmp = Path(tempfile.mkdtemp(prefix="reproduce-"))
    work = tmp / "clone"
    log = tmp / "reproduce.log"
    print(f"reproduce: cloning {head} into {work}; log {log}", flush=True)
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(REPO), str(work)], check=True)
    py = shutil.which("python3.11") or sys.executable
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    rec = {"started": started, "measured": {"commit": head, "date": started, "dirty": False},
           "commit": head, "uncommitted_changes_not_measured": dirty, "config": args.config, "study": args.study,
           "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "platform": platform.platform(),
                       "python": platform.python_version()}}  # fmt: skip
    if args.ci:  # CI's own command in a fresh clone: it builds .venv and runs every test, the slow ones too
        with Meter() as ci:
            with log.open("a") as fh:
                rc = subprocess.run(["bash", ".ci/run"], cwd=work, env=dict(os.environ, CI="true"), stdout=fh,
                                    stderr=subprocess.STDOUT).returncode  # fmt: skip
        rec |= {"ci": ci.record() | {"rc": rc, "pytest": pytest_summary(log)}, "ok": rc == 0, "report_exists": False,
                "studies": {}, "config": ".ci/run"}  # fmt: skip
        md, js = kept_apart(args.out_dir / "reproduce-ci.md", args.out_dir / "reproduce-ci.json", rec["ok"])
        args.out_dir.mkdir(parents=True, exist_ok=True)
        js.write_text(json.dumps(rec, indent=1) + "\n")
        md.write_text(render_ci(rec))
        print(md.read_text())
        shutil.rmtree(tmp, ignore_errors=True) if rec["ok"] and not args.keep else print(f"reproduce: kept {tmp}")
        return 0 if rec["ok"] else 1
    with Meter() as venv:
        rc = sh(["make", "venv", f"PYTHON={py}"], work, log)
    rec["venv"] = venv.record() | {"rc": rc}
    if rc == 0:
        with Meter() as pipe:
            rc = sh(["make", "reproduce", f"CONFIG={args.config}", *([f"STUDY={args.study}"] if args.study else [])], work, log)
        rec["pipeline"] = pipe.record() | {"rc": rc}
    report = find_report(work, args.study)
    rec["report_exists"] = report is not None
    rec["left_out"] = left_out(report) if report else ""
    rec["studies"] = collect_results(report.parent.parent / "results") if report else {}
    rec["ok"] = rc == 0 and rec["report_exists"]
    if report:  # what the run left on disk: the venv, the run store, the config's tables, figures and report
        out = report.parent.parent
        rec["disk_mb"] = {"venv": megabytes(work / ".venv"), "run store": megabytes(work / "results" / "runs"),
                          "tables, figures, report": megabytes(out / "results") + megabytes(out / "reports")
                          - (megabytes(work / "results" / "runs") if out == work else 0)}  # fmt: skip
    if args.test and rec["ok"]:
        env = {k: v for k, v in os.environ.items() if k not in ("CI", "RUN_SLOW")}
        with Meter() as suite:
            with log.open("a") as fh:
                fh.write("\n$ make test\n")
                fh.flush()
                test_rc = subprocess.run(["make", "test"], cwd=work, env=env, stdout=fh,
                                         stderr=subprocess.STDOUT).returncode  # fmt: skip
        rec["test"] = suite.record() | {"rc": test_rc, "pytest": pytest_summary(log)}
        rec["ok"] = test_rc == 0
    md, js = kept_apart(*outputs(args.out_dir, args.config, args.study), rec["ok"])
    args.out_dir.mkdir(parents=True, exist_ok=True)
    js.write_text(json.dumps(rec, indent=1) + "\n")
    md.write_text(render(rec))
    print(md.read_text())
    if not rec["ok"]:
        print(f"reproduce: FAILED (exit {rc}); see {log}", file=sys.stderr)
    if args.keep or not rec["ok"]:
        print(f"reproduce: kept {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if rec["ok"] else 1


def kept_apart(md: Path, js: Path, ok: bool) -> tuple[Path, Path]:
    """Where a measurement goes: a failed one beside the last finished one (``<name>-failed.md``), never
    over it, since the README's times and counts read the finished one."""
    if ok:
        return md, js
    return md.with_name(f"{md.stem}-failed.md"), js.with_name(f"{js.stem}-failed.json")


def render_ci(rec: dict) -> str:
    """The fresh-clone CI run as Markdown: its wall and CPU time, how busy the machine was, pytest's line."""
    m, c = rec["machine"], rec["ci"]
    return "\n".join([
        "# CI in a fresh clone", "", line(rec["measured"]), "",
        f"Produced by `python3 benchmarks/reproduce.py --ci`: a fresh `git clone` of commit {rec['commit']}, then "
        "`CI=true bash .ci/run` (what CI runs: it builds .venv and runs every test, the slow ones included). Do not "
        "edit by hand: re-run the script.", "",
        f"- Machine: {m['cpu']}, {m['cores']} cores; {m['platform']}; Python {m['python']}", "",
        "| step | wall | CPU time | conditions |", "| --- | --- | --- | --- |",
        f"| `CI=true bash .ci/run` ({c['pytest']}) | **{c['wall_s'] / 60:.1f} min** | {c['cpu_s']:.0f} s | {busy(c)} |",
        "", f"Finished: {'yes' if rec['ok'] else 'NO'} (exit {c['rc']}).", ""])  # fmt: skip


def busy(m: dict) -> str:
    flag = " **(busy: timings inflated)**" if m["other_share"] > 0.10 else ""
    return (f"load {m['load_before']:.1f}→{m['load_after']:.1f}, other processes used "
            f"{100 * m['other_share']:.0f} % of the CPU{flag}")  # fmt: skip


def render(rec: dict) -> str:
    m = rec["machine"]
    default = rec["config"] == "config/config.yaml"
    study = rec.get("study", "")
    flags = ("" if default else " --config " + rec["config"]) + (f" --study {study}" if study else "")
    make = f"`make reproduce CONFIG={rec['config']}{' STUDY=' + study if study else ''}`"
    out = ["# Reproduction time" + ("" if default else f" of {rec['config']}") + (f", study {study}" if study else ""), "",
           line(rec["measured"]), "",
           f"Produced by `python3 benchmarks/reproduce.py{flags}{' --test' if 'test' in rec else ''}`: a fresh `git clone` "
           f"of commit {rec['commit']}, then the README's commands `make venv` and {make}"
           f"{', then `make test`' if 'test' in rec else ''}. Do not edit by hand: re-run the script.", "",
           f"- Machine: {m['cpu']}, {m['cores']} cores; {m['platform']}; Python {m['python']}"]  # fmt: skip
    if rec["uncommitted_changes_not_measured"]:
        out.append("- Note: the working tree had uncommitted changes; they were not part of the measured clone.")
    out += ["", "| step | wall | CPU time | conditions |", "| --- | --- | --- | --- |"]
    v = rec["venv"]
    out.append(f"| `make venv` (.venv from requirements.txt) | {v['wall_s'] / 60:.1f} min | {v['cpu_s']:.0f} s | {busy(v)} |")
    p = rec.get("pipeline")
    if p:
        what = f"study {study}, its report" if study else "every study, report"
        out.append(f"| `make reproduce` ({what}) | **{p['wall_s'] / 60:.1f} min** | {p['cpu_s']:.0f} s | "
                   f"{busy(p)} |")  # fmt: skip
        out.append(f"| venv and reproduce | **{(v['wall_s'] + p['wall_s']) / 60:.1f} min** | | |")
    s = rec.get("test")
    if s:
        out.append(f"| `make test` (the default suite: {s['pytest']}) | **{s['wall_s'] / 60:.1f} min** | "
                   f"{s['cpu_s']:.0f} s | {busy(s)} |")  # fmt: skip
    if "disk_mb" in rec:
        out += ["", "On disk afterwards: " + ", ".join(f"{k} {v:.0f} MB" for k, v in rec["disk_mb"].items()) + "."]
    if rec.get("left_out"):
        out += ["", f"The report says: \"{rec['left_out']}\""]
    out += ["", f"Finished: {'yes' if rec['ok'] else 'NO'}; report written: {'yes' if rec['report_exists'] else 'no'}.",
            "", "| study | runs | ok | diverged | Σ training seconds |", "| --- | --- | --- | --- | --- |"]  # fmt: skip
    for name, s in rec["studies"].items():
        out.append(f"| {name} | {s['runs']} | {s['ok']} | {s['diverged']} | {s['sum_train_seconds']:.0f} s |")
    scoped = {name: s for name, s in rec["studies"].items() if s.get("scope_runs")}
    if scoped:
        out += ["", "The runs of the claims' `robust_over` universes (each study's scope/), besides:", "",
                "| study | scope runs | Σ training seconds |", "| --- | --- | --- |"]  # fmt: skip
        out += [f"| {name} | {s['scope_runs']} | {s['scope_train_seconds']:.0f} s |" for name, s in scoped.items()]
    out += ["", "## Claim verdicts of this reproduction", ""]
    if rec.get("rejudged_at"):
        out += [f"Judged again by the analysis at commit {rec['rejudged_at']} on the same runs (`python3 "
                "benchmarks/reproduce.py --render benchmarks/reproduce.json --rejudged RESULTS`).", ""]
    out += ["| study | claim | verdict | numbers |", "| --- | --- | --- | --- |"]
    for name, s in rec["studies"].items():
        for c in s["claims"]:
            out.append(f"| {name} | {c['id']} | {c['verdict']} | {c['detail'].replace('|', '/')} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
