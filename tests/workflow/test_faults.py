"""Faults: nothing lost, nothing half-written.

- every job of the DAG writes its files atomically: watched while it runs, none opens a final path
  for writing (where a kill would leave a partial file), and the watch itself kills a plain open();
- every writer (ablation.io's, training's, aggregation's, the report's) killed by the kernel in the
  middle of a write leaves its final path as it was, where a plain open() leaves a partial file;
- aggregation refuses a truncated or corrupt per-run file, naming it (Python level and in Snakemake);
- a run that diverges is recorded as diverged, counted in the summary and the report, and the rest
  of the DAG completes; a second Snakemake started in the same folder meanwhile is refused by the
  lock and the first is unharmed (one tiny real run serves both);
- provenance.json holds what is needed to reproduce a run;
- (slow) SIGKILL of the whole run at random moments, then resuming, gives results identical to an
  uninterrupted run, with no truncated file.

Resuming after a hard kill (SIGKILL, power loss, lost node) is:

    snakemake --unlock --configfile config/smoke.yaml   # the killed run left its lock behind
    snakemake --cores 2 --configfile config/smoke.yaml  # re-runs incomplete jobs (profile: rerun-incomplete)
"""

import csv
import json
import os
import random
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest
import yaml

from ablation import aggregate, io, store
from ablation import config as C
from conftest import BIN, REPO, copy_project, snakemake

SMOKE = C.load(REPO / "config" / "smoke.yaml")
SMOKE_RESULTS = Path(SMOKE.outdir, "results")
TIMING_COLUMNS = {"train_seconds"}
LOCKED = "Directory cannot be locked"


# ---------------------------------------------------------------- atomic writes

# Loaded (as sitecustomize) by every Python process of the diverging run below. In the pipeline's own
# jobs (`python -m ablation...`, and the training children the fork server forks) it watches, through
# Python's audit hook, every file opened for writing under results/ or reports/: a job opening a file
# at its final path (not an atomic writer's hidden temporary sibling) is killed right there, after
# the open has truncated the file, and the path is recorded. HOLD_UNTIL makes each job wait for a
# file first, so that the run is known to be in progress while a second Snakemake is started.
KILL_HOOK = r"""
import os, signal, sys, time

MODULE = sys.orig_argv[sys.orig_argv.index("-m") + 1] if "-m" in sys.orig_argv[:-1] else ""
ARMED = MODULE.startswith("ablation.") or os.environ.get("KILL_HOOK_ALWAYS") == "1"
ROOTS = tuple(os.path.join(os.environ["KILL_HOOK_ROOT"], d) + os.sep for d in ("results", "reports"))
WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


BUSY = []  # the hook's own opens below raise the event again


def hook(event, args):
    if event != "open" or BUSY or not isinstance(args[0], (str, bytes, os.PathLike)):
        return
    path, mode, flags = os.path.abspath(os.fsdecode(args[0])), args[1], args[2] or 0
    writing = any(c in mode for c in "wax+") if isinstance(mode, str) else bool(flags & WRITE)
    name = os.path.basename(path)
    if not writing or not path.startswith(ROOTS) or (name.startswith(".") and name.endswith(".tmp")):
        return
    BUSY.append(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)  # what the open does first
    os.write(fd, b"partial")
    record = os.open(os.environ["KILL_HOOK_LOG"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.write(record, f"{path}\t{' '.join(sys.orig_argv)}\n".encode())
    os.kill(os.getpid(), signal.SIGKILL)


if ARMED:
    sys.addaudithook(hook)
    armed = os.open(os.environ["KILL_HOOK_LOG"] + ".armed", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.write(armed, f"{MODULE}\n".encode())
    hold = os.environ.get("HOLD_UNTIL")
    deadline = time.monotonic() + 300
    while hold and not os.path.exists(hold) and time.monotonic() < deadline:
        time.sleep(0.05)
"""


def _kill_hook_env(work: Path, hold_until: Path | None = None) -> dict:
    """The environment that loads KILL_HOOK into every job started in ``work``."""
    folder = work.parent / "kill_hook"
    folder.mkdir(exist_ok=True)
    (folder / "sitecustomize.py").write_text(KILL_HOOK)
    path = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "KILL_HOOK_ROOT": str(work), "KILL_HOOK_LOG": str(folder / "killed.tsv")}
    return env | ({"HOLD_UNTIL": str(hold_until)} if hold_until else {})


def test_the_kill_hook_catches_a_non_atomic_writer(tmp_path):
    """The watch used on the diverging run: a plain open() of a final path is killed, leaving a partial
    file; an atomic writer is not."""
    work = tmp_path / "work"
    (work / "results").mkdir(parents=True)
    env = _kill_hook_env(work) | {"KILL_HOOK_ALWAYS": "1"}
    plain = "from pathlib import Path; Path('results/x.csv').open('w').write('a,b\\n1,2\\n')"
    atomic = "from ablation import io; io.write_text('results/y.csv', 'a,b\\n1,2\\n')"
    for code in (plain, atomic):
        proc = subprocess.run([str(BIN / "python"), "-c", code], cwd=work, env=env, capture_output=True, timeout=120)
        assert proc.returncode == (-signal.SIGKILL if code == plain else 0), proc.stderr
    assert (work / "results" / "x.csv").read_text() == "partial"
    assert (work / "results" / "y.csv").read_text() == "a,b\n1,2\n"
    killed = (tmp_path / "kill_hook" / "killed.tsv").read_text().splitlines()
    assert [line.split("\t")[0] for line in killed] == [str(work / "results" / "x.csv")]


def test_every_job_writes_atomically(diverging_run):
    """Every job of the DAG (training through the fork server, aggregation, statistics, figures,
    checks, verification, report) ran with KILL_HOOK: none opened a final path for writing."""
    work, first_rc, first_out, _, _ = diverging_run
    record = work.parent / "kill_hook" / "killed.tsv"
    assert not record.exists() or not record.read_text(), "killed while writing a final path:\n" + record.read_text()
    # the watch was on in every kind of job the rules start
    modules = set(re.findall(r"python -m (ablation\.\w+)", "".join(p.read_text() for p in (REPO / "workflow").rglob("*.smk"))))
    assert modules <= set((work.parent / "kill_hook" / "killed.tsv.armed").read_text().split()), modules
    assert first_rc == 0, first_out[-3000:]
    written = [p for p in (work / "results").rglob("*") if p.is_file()]
    assert not [p for p in written if p.read_bytes() == b"partial"]
    assert len({p.suffix for p in written}) >= 4  # csv, json, png, md/html ...


# ---------------------------------------------------------------- killed in the middle of a write

# Each case runs in a child process: SETUP prepares what to write, then the child lowers its file-size
# limit (RLIMIT_FSIZE) below the size of what it writes and restores SIGXFSZ's default action, so the
# kernel kills it in the middle of the write, at byte LIMIT of the file. What the final paths hold then
# is what a job killed mid-write leaves behind.
LIMIT = 16384
KILL_MID_WRITE = f"""
import resource, signal

def kill_at_byte_limit():
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python ignores it; the default kills the process
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, ({LIMIT}, resource.RLIM_INFINITY))
"""
BIG_ROWS = "rows = [{'run_id': f'run~{i}', 'test_acc': i / 7} for i in range(5000)]\n"
WRITERS = {  # name: (setup, the write, the final paths it writes)
    "plain open() (the control: not atomic)": ("", "open('out.txt', 'w').write('x' * 100000)", ["out.txt"]),
    "io.write_text": ("", "io.write_text('out.txt', 'x' * 100000)", ["out.txt"]),
    "io.write_bytes": ("", "io.write_bytes('out.bin', b'x' * 100000)", ["out.bin"]),
    "io.write_json": (BIG_ROWS, "io.write_json('out.json', rows)", ["out.json"]),
    "io.write_csv": (BIG_ROWS, "io.write_csv('out.csv', rows)", ["out.csv"]),
    "io.write_dataframe": (
        "import pandas as pd\n" + BIG_ROWS + "df = pd.DataFrame(rows)\n",
        "io.write_dataframe('out.csv', df)",
        ["out.csv"],
    ),
    "io.atomic_open": (
        "",
        "with io.atomic_open('out.txt') as fh:\n    for _ in range(1000): fh.write('x' * 100)",
        ["out.txt"],
    ),
}


def _kill_mid_write(cwd: Path, setup: str, write: str) -> subprocess.CompletedProcess:
    code = f"{KILL_MID_WRITE}\nfrom ablation import io\n{setup}\nkill_at_byte_limit()\n{write}\n"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # the limit is on every file the child writes
    cmd = [str(BIN / "python"), "-c", code]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("old", [None, b"old\n"], ids=["new file", "replacing a file"])
@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_writer_killed_mid_write_leaves_no_partial_file(tmp_path, writer, old):
    """SIGXFSZ kills the child once the file it writes reaches LIMIT bytes; every writer of ablation.io
    leaves the final path as it was (absent, or the old file) and its partial data in a hidden
    temporary sibling. The control, a plain open(), leaves the partial file at the final path."""
    setup, write, finals = WRITERS[writer]
    if old is not None:
        for name in finals:
            (tmp_path / name).write_bytes(old)
    proc = _kill_mid_write(tmp_path, setup, write)
    assert proc.returncode == -signal.SIGXFSZ, proc.stderr[-2000:]  # killed, by the limit, while writing
    after = {name: (tmp_path / name).read_bytes() if (tmp_path / name).exists() else None for name in finals}
    partial = [p for p in tmp_path.iterdir() if p.stat().st_size == LIMIT]
    assert len(partial) == 1, "the kill came at the limit, mid-write"
    if writer.startswith("plain"):
        assert after == {finals[0]: partial[0].read_bytes()}  # the final path holds a partial file
    else:
        assert after == {name: old for name in finals}
        assert partial[0].name.startswith(".") and partial[0].name.endswith(".tmp")


TINY = {"epochs": 3, "n_train": 16, "n_test": 8, "d_model": 8, "heads": 2, "ff": 8, "head_hidden": 8}


def test_training_killed_while_writing_its_files_leaves_the_run_incomplete(tmp_path):
    """train.write_outputs killed while writing curve.csv: no partial curve.csv, and no metrics.csv (the
    file that says a run is complete), so Snakemake runs it again."""
    setup = (
        "from ablation import train, settings\n"
        f"result = train.train_run(settings.from_dict({TINY!r}))\n"
        "result.curve = result.curve * 2000  # a curve.csv well over the limit\n"
    )
    proc = _kill_mid_write(tmp_path, setup, "train.write_outputs(result, 'run', 's', 'r')")
    assert proc.returncode == -signal.SIGXFSZ, proc.stderr[-2000:]
    assert sorted(p.name for p in (tmp_path / "run").iterdir() if not p.name.startswith(".")) == ["settings.json"]
    assert not store.is_complete(tmp_path / "run")


def test_aggregation_killed_while_writing_leaves_no_partial_table(tmp_path):
    """aggregate (curves.csv and init_grads.csv streamed run by run, then summary.csv) killed mid-write:
    none of its three files at its final path."""
    from ablation import train

    raw = {"defaults": TINY, "studies": {"s": {"factors": {"heads": [1, 2]}, "seeds": list(range(6))}}}
    study = C.validate(raw).studies["s"]
    for run in study.runs():
        result = train.train_run(run.settings)
        result.curve = result.curve * 100  # ~20 kB of curves.csv over the study
        train.write_outputs(result, tmp_path / "runs" / run.hash, "", run.hash)  # as the train rule
    store.write_index(study, tmp_path / "runs.csv")
    outs = ["summary.csv", "curves.csv", "init_grads.csv"]
    argv = ["--study", "s", "--index", "runs.csv", "--store", "runs", "--summary", outs[0], "--curves", outs[1],
            "--init-grads", outs[2]]  # fmt: skip
    proc = _kill_mid_write(tmp_path, "from ablation import aggregate", f"aggregate.main({argv!r})")
    assert proc.returncode == -signal.SIGXFSZ, proc.stderr[-2000:]
    assert [name for name in outs if (tmp_path / name).exists()] == []


def test_the_report_killed_while_written_leaves_no_partial_report(smoke_run, tmp_path):
    """ablation.report's main killed while it writes the HTML: no partial report at the final path."""
    work, _ = smoke_run
    args = ["--config-json", json.dumps(SMOKE.raw, default=str), "--studies", json.dumps(list(SMOKE.studies)),
            "--results", str(work / SMOKE_RESULTS), "--out", "ablation_report.html"]  # fmt: skip
    proc = _kill_mid_write(tmp_path, "from ablation import report", f"report.main({args!r})")
    assert proc.returncode == -signal.SIGXFSZ, proc.stderr[-2000:]
    assert not (tmp_path / "ablation_report.html").exists()
    assert [p.name.startswith(".") for p in tmp_path.iterdir()] == [True]  # only the writer's temporary file


# ---------------------------------------------------------------- corrupt per-run files


@pytest.fixture()
def lesson_runs(smoke_run, tmp_path):
    """A private copy of the finished lesson study's run folders (the smoke run is shared)."""
    work, _ = smoke_run
    dest = tmp_path / "runs"
    study = SMOKE.studies["lesson"]
    for run in study.runs():
        shutil.copytree(work / store.STORE / run.hash, dest / run.hash, symlinks=True)
    return study, dest, dest / study.runs()[0].hash


def _aggregate(study, runs_dir):
    return aggregate.aggregate(study.name, *store.study_index(study), runs_dir)


def _rewrite_metrics(path: Path, fn):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    rows = fn(rows) or rows
    io.write_csv(path, rows, list(rows[0]))


CORRUPTIONS = {
    "truncated-mid-row": (
        lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) * 3 // 4]),
        "truncated (no final newline)",
    ),
    "truncated-after-header": (
        lambda p: p.write_text(p.read_text().splitlines()[0] + "\n"),
        "expected exactly one row of metrics, found 0",
    ),
    "empty": (lambda p: p.write_text(""), "truncated"),
    "missing-column": (
        lambda p: _rewrite_metrics(p, lambda rows: [{k: v for k, v in r.items() if k != "test_acc"} for r in rows]),
        "missing column(s) test_acc",
    ),
    "wrong-run-id": (
        lambda p: _rewrite_metrics(p, lambda rows: [r | {"run_id": "pos_enc~none/seed~9"} for r in rows]),
        "belongs to run 'pos_enc~none/seed~9'",
    ),
    "non-numeric-counts": (
        lambda p: _rewrite_metrics(p, lambda rows: [r | {"test_correct": "twelve"} for r in rows]),
        "test counts are not numbers",
    ),
    "inconsistent-accuracy": (
        lambda p: _rewrite_metrics(p, lambda rows: [r | {"test_acc": "0.123"} for r in rows]),
        "inconsistent test counts",
    ),
    "nan-count-of-a-finished-run": (
        lambda p: _rewrite_metrics(p, lambda rows: [r | {"test_correct": "nan", "test_acc": "nan"} for r in rows]),
        "test counts are NaN (nan/32, accuracy nan) but the run has status 'ok'",
    ),
    "fractional-count": (
        lambda p: _rewrite_metrics(p, lambda rows: [r | {"test_correct": "12.5"} for r in rows]),
        "is not a whole count",
    ),
    "extra-field": (lambda p: p.write_text(p.read_text().rstrip("\n") + ",surplus\n"), "wrong number of fields"),
    "missing-file": (lambda p: p.unlink(), "missing"),
}


@pytest.mark.parametrize("kind", list(CORRUPTIONS))
def test_aggregate_refuses_corrupt_metrics_naming_the_file(lesson_runs, kind, capsys):
    study, runs_dir, run_dir = lesson_runs
    corrupt, expected = CORRUPTIONS[kind]
    corrupt(run_dir / "metrics.csv")
    with pytest.raises(aggregate.CorruptRunFile) as info:
        _aggregate(study, runs_dir)
    assert str(run_dir / "metrics.csv") in str(info.value) and expected in str(info.value)
    # the command line: exit 1, the file named, nothing written
    out = runs_dir.parent / "summary.csv"
    store.write_index(study, runs_dir.parent / "runs.csv")
    argv = ["--study", study.name, "--index", str(runs_dir.parent / "runs.csv"), "--store", str(runs_dir), "--summary", str(out),
            "--curves", str(runs_dir.parent / "curves.csv"), "--init-grads", str(runs_dir.parent / "g.csv")]  # fmt: skip
    assert aggregate.main(argv) == 1
    assert str(run_dir / "metrics.csv") in capsys.readouterr().err
    assert not out.exists()


def test_aggregate_accepts_a_diverged_run_without_test_counts(lesson_runs):
    """A diverged run whose test logits are not finite has NaN counts: a result, not corruption."""
    study, runs_dir, run_dir = lesson_runs
    _rewrite_metrics(run_dir / "metrics.csv", lambda rows: [r | {"status": "diverged", "test_correct": "nan",
                                                                 "test_acc": "nan"} for r in rows])  # fmt: skip
    summary, _ = _aggregate(study, runs_dir)
    assert [r["status"] for r in summary].count("diverged") == 1


@pytest.mark.parametrize("name", ["curve.csv", "init_grads.csv"])
def test_aggregate_refuses_truncated_curves(lesson_runs, name):
    study, runs_dir, run_dir = lesson_runs
    path = run_dir / name
    path.write_bytes(path.read_bytes()[:-7])
    with pytest.raises(aggregate.CorruptRunFile, match=re.escape(str(path)) + ": truncated"):
        _aggregate(study, runs_dir)


def test_snakemake_fails_naming_the_corrupt_file(smoke_copy):
    """A metrics.csv truncated after training: summarize (re-run for the newer input) fails, naming it."""
    work = smoke_copy
    run = SMOKE.studies["lesson"].runs()[1]
    rel = f"{store.STORE}/{run.hash}/metrics.csv"
    summary = SMOKE_RESULTS / "lesson/summary.csv"
    before = (work / summary).read_bytes()
    path = work / rel
    path.write_bytes(path.read_bytes()[:-20])
    # the target first: --configfile takes every following argument
    proc = snakemake(work, str(summary), "--cores", "1", "--configfile", "config/smoke.yaml", check=False)
    assert proc.returncode != 0
    log = (work / SMOKE_RESULTS / "lesson/logs/summarize.log").read_text()
    assert f"refusing corrupt run file: {rel}: truncated" in log
    assert f"{rel}: truncated" in proc.stdout + proc.stderr  # show-failed-logs prints the log
    # Snakemake removes the failed job's output: no stale summary claims to be up to date
    assert not (work / summary).exists() or (work / summary).read_bytes() == before



def test_a_run_missing_a_file_is_refused_and_its_folder_deleted_trains_it_again(smoke_copy):
    """metrics.csv alone marks a run complete (the training job's one declared output): a run folder
    that lost its curve.csv is refused by the summary, naming the file and the way out; deleting the
    folder plans that run's training job and no other."""
    from test_incremental import planned_jobs

    work = smoke_copy
    run = SMOKE.studies["lesson"].runs()[1]
    rel = f"{store.STORE}/{run.hash}/curve.csv"
    (work / rel).unlink()
    summary = str(SMOKE_RESULTS / "lesson/summary.csv")
    args = ("--cores", "1", "--configfile", "config/smoke.yaml")
    proc = snakemake(work, summary, "--forcerun", "summarize", *args, check=False)
    assert proc.returncode != 0
    log = (work / SMOKE_RESULTS / "lesson/logs/summarize.log").read_text()
    assert f"refusing corrupt run file: {rel}: missing (delete that run's folder to train it again)" in log
    shutil.rmtree(work / store.STORE / run.hash)
    dry = planned_jobs(snakemake(work, "-n", summary, *args).stdout)
    assert [w["hash"] for rule, w, _ in dry if rule == "train"] == [run.hash]

# ---------------------------------------------------------------- divergence, and a concurrent second run

DIVERGING = {
    "train_threads": 1,
    "stats": {"n_resamples": 99},
    "verify": {"sample": 1},
    "defaults": {"n_train": 16, "n_test": 4, "d_model": 8, "heads": 2, "ff": 8, "head_hidden": 8, "epochs": 6},
    "studies": {
        # post-norm at lr 1e10 turns the loss non-finite within 2 steps (whatever the seed)
        "div": {"fixed": {"arch": "encoder", "norm": "post", "depth": 2}, "factors": {"lr": [0.01, 1.0e10]},
                "seeds": [0]},  # fmt: skip
        # an adaptive study, so that its round checkpoint and tables run under the watch too
        "adapt": {"fixed": {"arch": "encoder", "norm": "pre", "depth": 1}, "factors": {"warmup": [0, 2]},
                  "seeds": [0, 1], "adaptive": {"max_seeds": 3, "batch": 1},
                  "claims": [{"id": "A1", "statement": "warm-up helps", "kind": "better", "factor": "warmup",
                              "levels": [2, 0]}]},  # fmt: skip
    },
}


@pytest.fixture(scope="module")
def diverging_run(tmp_path_factory):
    """The tiny diverging config through the whole DAG, every job watched by KILL_HOOK; a second
    Snakemake is started while the first holds the lock, its jobs held until the second has ended."""
    work = copy_project(tmp_path_factory.mktemp("diverging") / "work")
    (work / "config" / "div.yaml").write_text(yaml.safe_dump(DIVERGING, sort_keys=False))
    cmd = [str(BIN / "snakemake"), "--cores", "2", "--configfile", "config/div.yaml"]
    go = work.parent / "second-run-done"
    with open(work / "first.out", "w") as out:
        first = subprocess.Popen(cmd, cwd=work, stdout=out, stderr=subprocess.STDOUT, text=True,
                                 env=_kill_hook_env(work, hold_until=go))  # fmt: skip
        locks = work / ".snakemake" / "locks"
        deadline = time.monotonic() + 300
        while not (locks.is_dir() and any(locks.iterdir())):
            assert first.poll() is None, "the first run ended before taking its lock"
            assert time.monotonic() < deadline
            time.sleep(0.1)
        second = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=300)
        still_running = first.poll() is None  # its jobs wait for `go`
        go.touch()
        first.wait(timeout=600)
    return work, first.returncode, (work / "first.out").read_text(), second, still_running


def test_second_run_in_the_same_folder_is_refused_and_the_first_is_unharmed(diverging_run):
    work, first_rc, first_out, second, still_running = diverging_run
    assert still_running, "the second run must have been tried while the first was running"
    assert second.returncode != 0
    assert LOCKED in second.stdout + second.stderr
    assert first_rc == 0, first_out[-3000:]
    assert not (work / ".snakemake" / "locks").exists() or not any((work / ".snakemake" / "locks").iterdir())
    assert (work / "reports" / "ablation_report.html").is_file()
    # the first run's outputs are complete and recorded as such: no job left marked incomplete
    incomplete = work / ".snakemake" / "incomplete"
    assert not incomplete.exists() or not any(incomplete.iterdir())
    assert "steps (100%) done" in Path(re.search(r"Complete log\(s\): (\S+)", first_out).group(1)).read_text()


def test_diverged_run_is_recorded_and_counted(diverging_run):
    work, first_rc, first_out, _, _ = diverging_run
    assert first_rc == 0, first_out[-3000:]
    runs = {r.run_id: work / store.STORE / r.hash for r in C.validate(DIVERGING).studies["div"].runs()}
    diverged = pd.read_csv(runs["lr~10000000000.0/seed~0"] / "metrics.csv").iloc[0]
    assert diverged["status"] == "diverged"
    assert diverged["epochs_run"] < DIVERGING["defaults"]["epochs"]
    assert pd.isna(diverged["test_acc"])
    ok = pd.read_csv(runs["lr~0.01/seed~0"] / "metrics.csv").iloc[0]
    assert ok["status"] == "ok" and ok["epochs_run"] == DIVERGING["defaults"]["epochs"]
    summary = pd.read_csv(work / "results" / "div" / "summary.csv")
    assert sorted(summary["status"]) == ["diverged", "ok"]
    assert "(1 diverged)" in (work / "results" / "div" / "logs" / "summarize.log").read_text()
    # the rest of the DAG completed: tables, figures, report
    for rel in ("tables/cells.csv", "tables/stability.csv", "figures/learning_curves.png"):
        assert (work / "results" / "div" / rel).stat().st_size > 0
    cells = pd.read_csv(work / "results" / "div" / "tables" / "cells.csv")
    assert cells["n_diverged"].sum() == 1
    stability = pd.read_csv(work / "results" / "div" / "tables" / "stability.csv")
    assert stability["diverged"].sum() == 1
    html = (work / "reports" / "ablation_report.html").read_text()
    assert "1 diverged (non-finite loss)" in html


# ---------------------------------------------------------------- provenance


def test_provenance_has_what_reproduction_needs(smoke_run):
    work, _ = smoke_run
    in_checkout = (REPO / ".git").exists() and shutil.which("git") is not None
    for name, study in SMOKE.studies.items():
        run = study.runs()[-1]
        prov = json.loads((work / store.STORE / run.hash / "provenance.json").read_text())
        assert prov["settings"] == run.settings.as_dict()  # resolved: every setting, defaults included
        assert prov["seed"] == run.settings.seed and prov["data_seed"] == run.settings.effective_data_seed
        assert "git_commit" in prov and "git_dirty" in prov  # None when the code is not in a git checkout
        if in_checkout:  # the package's own repository (installed editable from it)
            assert re.fullmatch(r"[0-9a-f]{40}", prov["git_commit"]) and isinstance(prov["git_dirty"], bool)
        assert re.fullmatch(r"[0-9a-f]{64}", prov["code_sha256"])
        for key in ("python", "torch", "numpy", "cpu_model", "hostname", "platform", "started_at"):
            assert isinstance(prov[key], str) and prov[key], key
        assert "cpu_capability" in prov
        assert prov["torch_num_threads"] == SMOKE.train_threads and prov["torch_num_interop_threads"] >= 1
        assert isinstance(prov["duration_seconds"], float) and prov["duration_seconds"] > 0
        assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", prov["started_at"])


# ---------------------------------------------------------------- kill and resume (slow)


def _kill_everything(proc: subprocess.Popen) -> None:
    """SIGKILL Snakemake, its jobs and anything they started, at once (a power cut)."""
    try:
        family = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        family = []
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    for p in family:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    proc.wait(timeout=60)
    gone, alive = psutil.wait_procs(family, timeout=30)
    assert not alive, f"survivors: {alive}"


def _csv_rows(path: Path, delimiter=","):
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n"), f"{path}: truncated (no final newline)"
    reader = csv.reader(text.splitlines(), delimiter=delimiter)
    header = next(reader)
    rows = list(reader)
    assert all(len(r) == len(header) for r in rows), f"{path}: a row with the wrong number of fields"
    return header, rows


def _without(path: Path, drop=TIMING_COLUMNS):
    with open(path, newline="") as fh:
        return [{k: v for k, v in row.items() if k not in drop} for row in csv.DictReader(fh)]


def _listing(folder: Path) -> list[str]:
    """The files of ``folder``, hidden ones (a killed atomic writer's temporary files) aside."""
    return sorted(p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))


def _report_text(path: Path) -> str:
    """The report's text: tags and embedded images (compared as files) dropped, and the two values that
    are clock readings, the generation time and the total training seconds, blanked."""
    html = re.sub(r"<img [^>]*>", " ", path.read_text(encoding="utf-8"))
    text = re.sub(r"<[^>]+>", " ", html)
    text = re.sub(r"Generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", "Generated (time)", text)
    text = re.sub(r"\d+ s of training in all", "(seconds) s of training in all", text)
    return " ".join(text.split())


def _check_no_truncated_file(results: Path) -> list:
    """Every CSV/TSV parses with its header, every JSON loads, every PNG is whole; returns leftover temp files."""
    leftovers = []
    for path in sorted(results.rglob("*")):
        if not path.is_file():
            continue
        if path.name.endswith(".tmp"):
            leftovers.append(path)
        elif path.suffix == ".csv":
            _csv_rows(path)
        elif path.suffix == ".tsv":
            _csv_rows(path, "\t")
        elif path.suffix == ".json":
            json.loads(path.read_text())
        elif path.suffix == ".png":
            data = path.read_bytes()
            assert data.startswith(b"\x89PNG") and data.endswith(b"IEND\xaeB`\x82"), f"{path}: truncated PNG"
    return leftovers


def _run_for(proc: subprocess.Popen, seconds: float):
    """Wait up to ``seconds`` for ``proc``; its exit code, or None while it still runs."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    return proc.poll()


def _wait_until(proc: subprocess.Popen, condition, timeout: float = 900) -> bool:
    """Poll until ``condition()`` holds (True) or ``proc`` ends (False)."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None:
        if condition():
            return True
        assert time.monotonic() < deadline, "no progress"
        time.sleep(0.2)
    return False


@pytest.mark.slow
def test_killed_run_resumes_to_identical_results(smoke_run, tmp_path):
    """SIGKILL everything 3 times at random moments, resume with the documented commands each time;
    the results equal the uninterrupted smoke run's (per-run files, summaries, tables, verify.csv,
    the same figures, the report's text but for its clock readings) and no file is truncated.

    The moments are random (seeded) but tied to progress, so that they fall inside the work whatever
    the machine's speed: twice while training runs (after a random number of finished runs, plus a
    random fraction of a job), once after training, while studies are aggregated, analysed, plotted.
    """
    reference = smoke_run[0]
    work = copy_project(tmp_path / "work")
    results = work / "results"  # the run store, and the smoke config's outdir
    run_cmd = [str(BIN / "snakemake"), "--cores", "2", "--configfile", "config/smoke.yaml"]
    n_runs = len({run.hash for s in SMOKE.studies.values() for run in s.runs()})  # studies share runs
    rng = random.Random(6)

    def finished_runs():
        return sum(1 for _ in results.rglob("metrics.csv"))

    kill_points = [
        (f"{(k := rng.randint(2, 12))} runs finished", lambda k=k: finished_runs() >= k, rng.uniform(0, 2)),
        (f"{(k := rng.randint(20, 36))} runs finished", lambda k=k: finished_runs() >= k, rng.uniform(0, 2)),
        ("the last run finished", lambda: finished_runs() >= n_runs, rng.uniform(0, 3)),  # aggregation, figures...
    ]
    kills, lock_refusals, incomplete_reruns, history = 0, 0, 0, []
    for attempt in range(12):
        out = work / f"attempt{attempt}.out"
        with open(out, "w") as fh:
            proc = subprocess.Popen(run_cmd, cwd=work, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
        if kills < len(kill_points):
            what, condition, extra = kill_points[kills]
            if _wait_until(proc, condition) and _run_for(proc, extra) is None:
                state = f"{finished_runs()}/{n_runs} runs, {len(list((work / SMOKE_RESULTS).glob('*/summary.csv')))} summaries"
                _kill_everything(proc)
                kills += 1
                history.append(f"killed {extra:.1f} s after {what} ({state})")
                continue
        rc = proc.wait(timeout=900)
        text = out.read_text()
        incomplete_reruns += text.count("reason: Incomplete output files")
        if rc != 0 and LOCKED in text:  # the killed run's lock: remove it, as the message says
            lock_refusals += 1
            history.append("refused: lock left by the killed run -> snakemake --unlock")
            snakemake(work, "--unlock", "--configfile", "config/smoke.yaml")
            continue
        assert rc == 0, text[-4000:]
        history.append("completed")
        break
    print("\n".join(history), f"\njobs re-run for incomplete output: {incomplete_reruns}")
    assert kills == 3 and history[-1] == "completed", history
    assert lock_refusals >= 1, "a hard kill leaves Snakemake's lock: resuming needs --unlock first"

    leftovers = _check_no_truncated_file(work / "results") + _check_no_truncated_file(work / SMOKE.outdir)
    assert all(p.name.startswith(".") for p in leftovers), leftovers  # only atomic writers' temp files
    print(f"leftover temp files of killed writers: {[str(p.relative_to(work)) for p in leftovers]}")

    mismatches = []
    for name, study in SMOKE.studies.items():
        for run in study.runs():
            rel = store.STORE / run.hash
            if _without(work / rel / "metrics.csv") != _without(reference / rel / "metrics.csv"):
                mismatches.append(str(rel / "metrics.csv"))
            for f in ("curve.csv", "init_grads.csv", "settings.json"):
                if (work / rel / f).read_bytes() != (reference / rel / f).read_bytes():
                    mismatches.append(str(rel / f))
        rel = SMOKE_RESULTS / name
        if _without(work / rel / "summary.csv") != _without(reference / rel / "summary.csv"):
            mismatches.append(str(rel / "summary.csv"))
        for f in ("curves.csv", "init_grads.csv"):
            if (work / rel / f).read_bytes() != (reference / rel / f).read_bytes():
                mismatches.append(str(rel / f))
    if _without(work / SMOKE_RESULTS / "verify.csv") != _without(reference / SMOKE_RESULTS / "verify.csv"):
        mismatches.append("verify.csv")
    for name in SMOKE.studies:
        tables = SMOKE_RESULTS / name / "tables"
        if _listing(work / tables) != _listing(reference / tables):
            mismatches.append(f"{tables}: {_listing(work / tables)} != {_listing(reference / tables)}")
        mismatches += [str(tables / f) for f in _listing(reference / tables)
                       if (work / tables / f).read_bytes() != (reference / tables / f).read_bytes()]  # fmt: skip
    for figures in [SMOKE_RESULTS / "figures", *(SMOKE_RESULTS / name / "figures" for name in SMOKE.studies)]:
        if _listing(work / figures) != _listing(reference / figures):  # every PNG was checked whole above
            mismatches.append(f"{figures}: {_listing(work / figures)} != {_listing(reference / figures)}")
    assert not mismatches, mismatches
    report = _report_text(work / SMOKE.outdir / "reports" / "ablation_report.html")
    assert report == _report_text(reference / SMOKE.outdir / "reports" / "ablation_report.html")
    assert (work / SMOKE.outdir / "reports" / "ablation_report.html").read_text().rstrip().endswith("</html>")
    assert "Nothing to be done" in snakemake(work, "-n", "--configfile", "config/smoke.yaml").stdout
