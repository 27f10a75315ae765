"""What `make reproduce` shows a person: one line per finished run and a line of how far it is.

Snakemake's own screen prints a block of a dozen lines per job (output, log, jobid, benchmark, reason,
wildcards, priority, resources), each run named by its hash. Its ``--quiet rules`` would hide them, but
also from its log file (one filter serves both) and with them the failures. So the workflow's profile
names this module's logger plugin (``snakemake_logger_plugin_ablation``, a shim in scripts/), which
Snakemake lets replace its screen only; its log file (.snakemake/log/) keeps every block. On screen:

    [14:02:11] depth      norm~post/warmup~0/seed~3: ok, test accuracy 0.973, 12.3 s
    -- runs: 41 done, 59 left; time left about 9 min; step 52 of 140 --

- a finished training job: its study, readable run id, status, test accuracy and training seconds
  (the run's metrics.csv, which the job writes last);
- a finished adaptive round: how many more runs it planned;
- the running line: runs done and left, and the time left: ``settings.cost_estimate`` of the runs
  left, divided by the cost units trained per second of wall time so far (before the first run of
  this session finishes: the store's finished runs, ``plan.seconds_per_unit``, over the cores);
- failures and warnings exactly as Snakemake prints them (its own formatter, failed logs included),
  and any other message but Snakemake's per-step chatter.
A dry run (``-n``) or ``--verbose`` gets Snakemake's own screen unchanged.

The Snakefile declares the config's runs (``declare``) while it is parsed, in the same process.
"""

from __future__ import annotations

import csv
import json
import logging
import os
import sys
import time
from pathlib import Path

from .settings import cost_estimate

_DECLARED: dict = {"runs": {}, "first": (), "store": None, "width": 0}
WIDTH = 100
"""The screen's lines are at most this wide: a long run id loses its middle (its seed, at the end, stays)."""
# Snakemake's per-step messages: the log file keeps them, the screen does not need them.
CHATTER = (
    "Building DAG of jobs",
    "Using shell:",
    "Provided cores:",
    "Rules claiming more threads",
    "Select jobs to execute",
    "Execute ",
    "Assuming unrestricted shared filesystem",
    "host:",
    "Job stats:",
    "Using workflow specific profile",
    "Touching output file",
    "Conda environments: ignored",
)


def declare(runs: dict, first, store: str) -> None:
    """The config's runs, {hash: Run} (the adaptive rounds' possible runs included), the hashes of
    the studies' own seeds (the runs of the first DAG) and the run store."""
    _DECLARED.update(runs=dict(runs), first=tuple(first), store=store,
                     width=max((len(r.study) for r in runs.values()), default=0))  # fmt: skip


def read_metrics(path) -> dict | None:
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return next(csv.DictReader(fh))
    except (OSError, StopIteration, csv.Error):
        return None


def run_line(label: str, metrics: dict | None, width: int | None = None) -> str:
    """``study  run id: status, test accuracy, seconds`` of a finished run, in at most ``width``
    columns: a label too long for them gives up the middle of its run id for an ellipsis."""
    if metrics is None:
        said = "finished (no metrics.csv)"
    else:
        try:
            acc, seconds = float(metrics["test_acc"]), float(metrics["train_seconds"])
            said = f"{metrics.get('status', '?')}, test accuracy {acc:.3f}, {seconds:.1f} s"
        except (KeyError, ValueError):
            said = metrics.get("status", "finished")
    over = len(label) + 2 + len(said) - width if width else 0
    if over > 0:
        head, _, run_id = label.rpartition(" ")
        keep = max(8, len(run_id) - over - 1)
        label = f"{head} {run_id[: keep // 2]}…{run_id[len(run_id) - (keep - keep // 2):]}" if head else label
    return f"{label}: {said}"


def duration(seconds: float) -> str:
    if seconds < 60:
        return "under a minute"
    if seconds < 90 * 60:
        return f"about {seconds / 60:.0f} min"
    return f"about {seconds / 3600:.1f} h"


class Screen:
    """The person's screen: fed Snakemake's log records; ``fallback`` is Snakemake's own stream handler
    (its formatter and filter) for what is shown as Snakemake shows it."""

    def __init__(self, stream, fallback: logging.Handler, passthrough: bool, quiet=(), cores: int | None = None):
        self.stream, self.fallback, self.passthrough = stream, fallback, passthrough
        self.quiet = {str(q).lower().rsplit(".", 1)[-1] for q in (quiet or ())}
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self.cores = cores or len(os.sched_getaffinity(0))
        self.jobs: dict = {}  # jobid -> (rule, output, wildcards)
        self.pending: set = set()  # hashes of runs this session trains
        self.done: set = set()
        self.units_left, self.units_done, self.t_start = 0, 0, None
        self.unseen, self.unseen_units = 0, 0.0  # training jobs of the DAG not yet named (started)
        self.store_seconds_per_unit = None
        self.steps = (0, 0)
        self.status = ""

    # ------------------------------------------------------------------ output

    def _write(self, text: str) -> None:
        if self.tty and self.status:
            self.stream.write("\r\033[K")
        if text:
            self.stream.write(text + "\n")
        if self.tty and self.status:
            self.stream.write(self.status)
        self.stream.flush()

    def _show_fallback(self, record) -> None:
        if self.tty and self.status:
            self.stream.write("\r\033[K")
            self.stream.flush()
        self.fallback.handle(record)
        self._write("")

    # ------------------------------------------------------------------ events

    def emit(self, record) -> None:
        if self.passthrough:
            self.fallback.handle(record)
            return
        if "all" in self.quiet:
            return
        event = str(getattr(record, "event", "") or "")
        if event == "run_info":
            self.started(getattr(record, "stats", {}) or {})
        elif event == "job_info":
            wildcards = dict(getattr(record, "wildcards", None) or {})
            self.jobs[record.jobid] = (record.rule_name, list(record.output or []), wildcards)
            if record.rule_name == "train" and wildcards.get("hash"):
                self.plan(wildcards["hash"])
                self.t_start = self.t_start or time.monotonic()
        elif event == "job_finished":
            self.finished(record.job_id)
        elif event == "progress":
            self.steps = (record.done, record.total)
            self.redraw()
        elif event in ("job_error", "group_error", "error"):
            self._show_fallback(record)
        elif not event:
            message = record.getMessage() if record.msg is not None else ""
            if message and (record.levelno >= logging.WARNING or not message.startswith(CHATTER)):
                self._show_fallback(record)

    def plan(self, h: str) -> None:
        """Count run ``h`` among the runs this session trains."""
        if h not in self.pending:
            self.pending.add(h)
            run = _DECLARED["runs"].get(h)
            self.units_left += cost_estimate(run.settings) if run is not None and h not in self.done else 0
            if self.unseen:  # one of the DAG's training jobs that were counted but not named
                self.unseen -= 1
                self.units_left -= self.unseen_units

    def started(self, stats: dict) -> None:
        """RUN_INFO: the runs this session trains. The studies' own runs without metrics.csv, when
        they are as many as the DAG's training jobs (the whole config); else (a target of a few
        studies, a forced rerun) the DAG's count, each at the mean cost, named as they start. The
        adaptive rounds' runs count from when they start."""
        runs, store = _DECLARED["runs"], _DECLARED["store"]
        n_train = stats.get("train", 0)
        missing = [h for h in _DECLARED["first"] if store is not None and not os.path.exists(f"{store}/{h}/metrics.csv")]
        if len(missing) == n_train:
            for h in missing:
                self.plan(h)
        elif runs and not self.pending:
            self.unseen_units = sum(cost_estimate(r.settings) for r in runs.values()) / len(runs)
            self.unseen = n_train
            self.units_left += n_train * self.unseen_units
        total = stats.get("total", 0)
        self._write(f"Snakemake: {total} steps to do, {n_train} of them training runs"
                    f" (each job's details: Snakemake's log file, .snakemake/log/)")  # fmt: skip

    def finished(self, jobid) -> None:
        rule, output, wildcards = self.jobs.pop(jobid, (None, [], {}))
        if rule == "train":
            h = wildcards.get("hash", "")
            run = _DECLARED["runs"].get(h)
            label = f"{run.study:<{_DECLARED['width']}}  {run.run_id}" if run is not None else h
            metrics = read_metrics(output[0]) if output else None
            self.plan(h)
            if h not in self.done and run is not None:
                self.units_done += cost_estimate(run.settings)
                self.units_left -= cost_estimate(run.settings)
            self.done.add(h)
            if "rules" not in self.quiet:
                stamp = f"[{time.strftime('%H:%M:%S')}] "
                self._write(stamp + run_line(label, metrics, WIDTH - len(stamp)))
        elif rule == "adaptive_round" and output:
            try:
                planned = len(json.loads(Path(output[0]).read_text(encoding="utf-8"))["new_runs"])
            except (OSError, ValueError, KeyError):
                return
            study, k = wildcards.get("study", "?"), wildcards.get("round", "?")
            self._write(f"[{time.strftime('%H:%M:%S')}] {study}: adaptive round {k} planned {planned} more runs")

    def time_left(self) -> str:
        units = self.units_left
        if units <= 0:
            return ""
        if self.units_done and self.t_start is not None:
            rate = self.units_done / max(1e-9, time.monotonic() - self.t_start)
            return f"time left {duration(units / rate)}"
        if self.store_seconds_per_unit is None:
            from .plan import seconds_per_unit  # pandas: only before the first run of the session ends

            self.store_seconds_per_unit = seconds_per_unit(Path(_DECLARED["store"] or "."))
        spu, n = self.store_seconds_per_unit
        if n:
            return f"time left {duration(units * spu / self.cores)} (from the store's runs)"
        return "time left: known after the first run"

    def redraw(self) -> None:
        if "progress" in self.quiet:
            return
        done, total = self.steps
        left = len(self.pending) - len(self.done) + self.unseen
        parts = [f"runs: {len(self.done)} done, {left} left", self.time_left(), f"step {done} of {total}"]
        line = "-- " + "; ".join(p for p in parts if p) + " --"
        if self.tty and done < total:
            self.status = line
            self._write("")
        elif self.tty:  # the last step: the line stays, above Snakemake's closing lines
            if self.status:
                self.stream.write("\r\033[K")
                self.status = ""
            self._write(line)
        elif done == total or done % max(1, total // 20) == 0:
            self._write(line)

    def close(self) -> None:
        if self.tty and self.status:
            self.stream.write("\n")
            self.status = ""
            self.stream.flush()


def stream_of(stdout: bool):
    return sys.stdout if stdout else sys.stderr
