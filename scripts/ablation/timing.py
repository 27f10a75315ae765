"""How long a config's design takes on this machine: the cost model the DAG schedules by
(``settings.cost_estimate``) priced here, and the design's jobs laid out on the cores.

**Seconds per cost unit.** From the store's finished runs of the design when it holds at least
STORE_MIN_RUNS of them: their train_seconds over their cost units, measured as the DAG ran them.
Otherwise timed here, before any run (``time_training``): SAMPLE_SHAPES of the design's shapes (a
run less its seed), each standing for an equal share of its cost units, are trained with the real
``ablation.train`` code, each in a fresh child forked from this process as the fork server forks a
training job, as many at a time as the DAG runs (``slots``). Each shape runs twice: FIRST_EPOCHS
epochs, then enough more for about SAMPLE_SECONDS of training; the difference is the epochs' cost,
the rest a run's fixed cost (data, model, evaluation, the first call of each operation). Times are
the children's CPU seconds, which other work on the machine leaves alone; what that work takes
from the cores is measured beside them (``Calibration.other_share``).

**The reference's runs.** A run the committed reference holds is priced at its seconds there, times
this machine's speed against the reference's machine: the seconds of the runs both hold (the
store's finished runs, or the timed shapes' runs as their timings predict them) over the reference's
seconds of the same runs (``by_reference``). The cost model prices a design's runs relative to each
other; the reference measured them.

**Wall time.** ``wall_seconds`` lays the design's jobs out on the cores (``schedule``) as the
workflow's rules chain them: training jobs by priority (their cost, the train rule's ``priority``),
an adaptive study's rounds one after the other, each after its checkpoint, then per study its
aggregation jobs, and verify and the report last. A job that does not train costs what starting
Python with the analysis stack costs, timed here in a subprocess while this process imports torch.
"""

from __future__ import annotations

import dataclasses
import heapq
import json
import math
import multiprocessing
import os
import resource
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pandas as pd

from . import REPO_DIR, adaptive, design, forkserver
from . import store as run_store
from .settings import Settings, cost_estimate, from_dict, run_hash

SAMPLE_SHAPES = 8
"""Shapes timed, each for an equal share of the design's cost units: the cost model misses some
of what a shape costs (rope and ALiBi cost more per unit than the other encodings:
benchmarks/estimate.md, "shapes"), so one shape cannot stand for a design."""
FIRST_EPOCHS = 2
SAMPLE_SECONDS = 0.15
"""CPU seconds of training each shape is timed for beyond its first epochs."""
STORE_MIN_RUNS = 20
"""Finished runs of the design the store needs before they price the rest instead of a timing."""
REFERENCE = REPO_DIR / "reference"
"""The committed reference, whose runs' seconds price the same runs here (``by_reference``)."""
ANALYSIS_STACK = "import ablation.analyze, ablation.claims, ablation.plots, ablation.report"
BUSY = 0.10
"""A share of the CPU used by other processes above which the plan prints the wall time at that load."""


@dataclasses.dataclass(frozen=True)
class Calibration:
    """What one run and one other job cost on this machine, and on what that rests."""

    per_unit: float  # training seconds per unit of settings.cost_estimate
    per_run: float  # fixed seconds of a training job: data, model, evaluation (and torch's import without the fork server)
    other_job: float  # seconds of a job that does not train
    start: float  # Snakemake's start before the first job: its imports, the fork server's torch
    basis: str  # in words
    seconds: float = 0.0  # what the calibration itself took (wall)
    other_share: float = 0.0  # the share of the machine's CPU other processes used meanwhile
    measured: dict = dataclasses.field(default_factory=dict, repr=False)  # run hash -> its seconds here (by_reference)

    def run_seconds(self, settings: Settings) -> float:
        if self.measured and (seconds := self.measured.get(run_hash(settings))) is not None:
            return seconds
        return self.per_run + self.per_unit * cost_estimate(settings)


# ---------------------------------------------------------------- the design


def first_round(cfg, name: str) -> list:
    return cfg.studies[name].runs()


def scope_first_round(cfg, name: str) -> list:
    """The runs the scopes of a study's claims (robust_over) train at its own seeds."""
    study = cfg.studies[name]
    return design.scope_runs(study, study.seeds) if design.scope_settings(study) else []


def rounds(cfg, name: str) -> list[list]:
    """An adaptive study's rounds when every claim stays open to max_seeds: per round, the runs of
    its ``batch`` next seeds in the cells its claims read, their scopes' universes included; [] for a
    fixed design."""
    study, block = cfg.studies[name], design.adaptive_block(cfg.raw["studies"][name])
    if not block:
        return []
    extra = adaptive.round_runs(study, block["max_seeds"])
    seeds = list(dict.fromkeys(r.settings.seed for r in extra))
    batches = [set(seeds[i : i + block["batch"]]) for i in range(0, len(seeds), block["batch"])]
    return [[r for r in extra if r.settings.seed in batch] for batch in batches]


def design_settings(cfg) -> dict[str, list[Settings]]:
    """Every run the config may train (first rounds and every round), once each: per study, the
    runs no study before it lists."""
    seen, out = set(), {}
    for name in cfg.studies:
        runs = first_round(cfg, name) + scope_first_round(cfg, name) + [r for batch in rounds(cfg, name) for r in batch]
        out[name] = [r.settings for r in runs if not (r.hash in seen or seen.add(r.hash))]
    return out


def shapes(by_study: dict[str, list[Settings]], k: int = SAMPLE_SHAPES) -> Counter:
    """The shapes (a run at seed 0) that stand for ``k`` equal shares of the design's cost units,
    the shapes taken study by study and by cost within a study: shape -> how many shares it
    stands for."""
    units, rank = Counter(), {}
    for i, settings in enumerate(by_study.values()):
        for s in settings:
            shape = dataclasses.replace(s, seed=0)
            units[shape] += cost_estimate(s)
            rank.setdefault(shape, (i, cost_estimate(shape), len(rank)))
    cumulative, total, picks = 0, sum(units.values()), Counter()
    bounds = iter((i + 0.5) * total / k for i in range(k))
    bound = next(bounds, None)
    for shape in sorted(units, key=rank.__getitem__):
        cumulative += units[shape]
        while bound is not None and bound <= cumulative:
            picks[shape] += 1
            bound = next(bounds, None)
    return picks


# ---------------------------------------------------------------- timing here


def _time_run(task: tuple[str, int]) -> float:
    """In a forked child: the CPU seconds of one training run (``ablation.train.train_run``)."""
    from .train import train_run

    settings, threads = task
    t0 = time.process_time()
    train_run(from_dict(json.loads(settings)), threads=threads)
    return time.process_time() - t0


def epoch_fit(t_first: float, t_more: float, first: int, more: int) -> tuple[float, float]:
    """(seconds per epoch, fixed seconds of a run) from the times of ``first`` and ``more`` epochs;
    a noisy pair (the longer run no slower) puts every second on the epochs."""
    if t_more <= t_first:
        return t_more / more, 0.0
    per_epoch = (t_more - t_first) / (more - first)
    return per_epoch, max(0.0, t_first - first * per_epoch)


def per_unit_fit(picks: Counter, times: dict) -> tuple[float, float]:
    """(seconds per cost unit, fixed seconds of a run) over the timed shapes: the epochs' seconds
    over their units, each shape weighted by the shares of the design's units it stands for.
    ``times``: shape -> {epochs: seconds}, two entries each."""
    seconds = units = fixed = 0.0
    for shape, weight in picks.items():
        (first, t_first), (more, t_more) = sorted(times[shape].items())
        per_epoch, run_fixed = epoch_fit(t_first, t_more, first, more)
        seconds += weight * per_epoch
        units += weight * cost_estimate(shape) / shape.epochs
        fixed += weight * run_fixed
    return seconds / units, fixed / sum(picks.values())


def _cpu_jiffies() -> tuple[int, int] | None:
    """(busy, total) CPU jiffies of the whole machine since boot; None where /proc/stat is missing."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    except (OSError, ValueError, IndexError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


def _own_cpu() -> float:
    """CPU seconds of this process and its waited-for children."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _timed_pool(jobs: list, slots: int) -> list[float]:
    with multiprocessing.get_context("fork").Pool(min(slots, len(jobs)), maxtasksperchild=1) as pool:
        return pool.map(_time_run, jobs, chunksize=1)


def time_training(settings: dict[str, list[Settings]], slots: int, threads: int = 1) -> tuple[Calibration, dict[str, float]]:
    """Seconds per cost unit, per run and per other job, timed here (see the module's docstring), and
    run hash -> the seconds its two timings predict for each timed shape's run at its own epochs.
    Forks this process: call it before this process runs any torch operation."""
    t0, jiffies0, cpu0 = time.perf_counter(), _cpu_jiffies(), _own_cpu()
    stack = subprocess.Popen([sys.executable, "-c", ANALYSIS_STACK])  # meanwhile: torch, in this process
    from . import train  # noqa: F401  (forked children start with torch imported, as the fork server's do)

    import_seconds = time.perf_counter() - t0
    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    stack.wait()
    kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    other_job = (kids1.ru_utime - kids0.ru_utime) + (kids1.ru_stime - kids0.ru_stime)
    picks = shapes(settings)
    order = list(picks)
    repeats = max(1, math.ceil(slots / len(order)))  # every slot busy, as when the DAG runs
    first = _timed_pool([(dataclasses.replace(s, epochs=FIRST_EPOCHS).to_json(), threads) for s in order] * repeats, slots)
    times = {s: {FIRST_EPOCHS: min(first[i::len(order)])} for i, s in enumerate(order)}
    more = {s: FIRST_EPOCHS + max(4, round(SAMPLE_SECONDS * FIRST_EPOCHS / max(times[s][FIRST_EPOCHS], 1e-3)))
            for s in order}  # fmt: skip
    second = _timed_pool([(dataclasses.replace(s, epochs=more[s]).to_json(), threads) for s in order] * repeats, slots)
    for i, s in enumerate(order):
        times[s][more[s]] = min(second[i :: len(order)])
    per_unit, per_run = per_unit_fit(picks, times)
    predicted = {}
    for s in order:
        (first_n, t_first), (more_n, t_more) = sorted(times[s].items())
        per_epoch, run_fixed = epoch_fit(t_first, t_more, first_n, more_n)
        predicted[run_hash(s)] = run_fixed + per_epoch * s.epochs
    share = _other_share(jiffies0, cpu0)
    fork_server = forkserver_on()
    seconds = time.perf_counter() - t0
    n_shapes = len({dataclasses.replace(s, seed=0) for runs in settings.values() for s in runs})
    basis = f"timed here: {len(picks)} of the design's {n_shapes} shapes, {min(slots, len(order) * repeats)} at a time"
    cal = Calibration(per_unit=per_unit, per_run=per_run + (0.0 if fork_server else import_seconds),
                      other_job=other_job, start=other_job + (import_seconds if fork_server else 0.0),
                      basis=basis, seconds=seconds, other_share=share)  # fmt: skip
    return cal, predicted


def _other_share(jiffies0, cpu0: float) -> float:
    """The share of the machine's CPU that processes other than this one and its children used
    since ``jiffies0``/``cpu0`` (0 where /proc/stat is missing)."""
    jiffies1 = _cpu_jiffies()
    if jiffies0 is None or jiffies1 is None:
        return 0.0
    hz = os.sysconf("SC_CLK_TCK")
    capacity = (jiffies1[1] - jiffies0[1]) / hz
    others = (jiffies1[0] - jiffies0[0]) / hz - (_own_cpu() - cpu0)
    return min(1.0, max(0.0, others / capacity)) if capacity > 0 else 0.0


def forkserver_on() -> bool:
    """Whether the training jobs fork from one torch process (the default when they run here)."""
    return os.environ.get(forkserver.ENV_VAR, "") != "0"


def store_seconds(settings: dict[str, list[Settings]], store: Path) -> dict[str, tuple[Settings, float]]:
    """run hash -> (settings, train_seconds) of the design's finished runs in ``store``."""
    out = {}
    for s in (s for runs in settings.values() for s in runs):
        metrics = Path(store) / run_hash(s) / "metrics.csv"
        if not metrics.is_file():
            continue
        try:
            value = float(pd.read_csv(metrics, usecols=["train_seconds"])["train_seconds"].iloc[0])
        except (OSError, ValueError, KeyError, IndexError):
            continue
        if math.isfinite(value):
            out[run_hash(s)] = (s, value)
    return out


def from_store(settings: dict[str, list[Settings]], store: Path, min_runs: int = STORE_MIN_RUNS) -> tuple[float, int]:
    """(training seconds per cost unit, runs) over the design's finished runs in ``store``: their
    train_seconds over their units; (nan, n) with fewer than ``min_runs`` of them."""
    done = store_seconds(settings, store).values()
    seconds, units, n = sum(v for _, v in done), sum(cost_estimate(s) for s, _ in done), len(done)
    return (seconds / units, n) if n >= min_runs and units else (float("nan"), n)


def reference_seconds(reference: Path = REFERENCE) -> dict[str, float]:
    """run hash -> training seconds of each run the committed reference holds (every study's
    summary.csv and scope/summary.csv): what the run took on the reference's machine."""
    out = {}
    for path in sorted(Path(reference).glob("*/summary.csv")) + sorted(Path(reference).glob("*/scope/summary.csv")):
        try:
            df = pd.read_csv(path, usecols=["hash", "train_seconds"], dtype={"hash": str})
        except (OSError, ValueError):
            continue
        out |= {h: float(v) for h, v in zip(df["hash"], df["train_seconds"]) if math.isfinite(v)}
    return out


def by_reference(cal: Calibration, here: dict[str, float], design: dict[str, list[Settings]],
                 reference: dict[str, float]) -> Calibration:
    """``cal``, pricing each run of ``design`` that the reference holds at the reference's seconds
    times this machine's speed against the reference's machine: the seconds ``here`` (run hash ->
    seconds measured or predicted on this machine) over the reference's, summed over the runs both
    hold. The cost model prices a decoder's minibatch steps like an encoder's full-batch ones, where
    the reference's runs measured each; unchanged when no run is in both."""
    common = [h for h in here if h in reference]
    if not common or not sum(reference[h] for h in common):
        return cal
    speed = sum(here[h] for h in common) / sum(reference[h] for h in common)
    measured = {h: reference[h] * speed for runs in design.values() for s in runs if (h := run_hash(s)) in reference}
    basis = (f"{cal.basis}; {len(measured)} runs at the reference's seconds x {speed:.2f}, this machine's speed "
             f"against the reference's on {len(common)} runs")  # fmt: skip
    return dataclasses.replace(cal, measured=measured, basis=basis)


def calibrate(cfg, store: Path, slots: int, timing: bool = True, reference: Path = REFERENCE) -> Calibration | None:
    """This machine's Calibration for ``cfg``: from the store's finished runs of its design when
    there are enough, else timed here (``timing``); None when neither can be had. Runs the committed
    reference holds are priced at its seconds, scaled to this machine (``by_reference``)."""
    settings = design_settings(cfg)
    per_unit, n = from_store(settings, store)
    if math.isfinite(per_unit):
        t0, jiffies0, cpu0 = time.perf_counter(), _cpu_jiffies(), _own_cpu()
        subprocess.run([sys.executable, "-c", ANALYSIS_STACK], check=False)
        other_job = _own_cpu() - cpu0
        cal = Calibration(per_unit=per_unit, per_run=0.0, other_job=other_job, start=other_job,
                          basis=f"{n} finished runs of this design in {store}", seconds=time.perf_counter() - t0,
                          other_share=_other_share(jiffies0, cpu0))  # fmt: skip
        here = {h: v for h, (_, v) in store_seconds(settings, store).items()}
        return by_reference(cal, here, settings, reference_seconds(reference))
    if not timing:
        return None
    cal, here = time_training(settings, slots, cfg.train_threads)
    return by_reference(cal, here, settings, reference_seconds(reference))


# ---------------------------------------------------------------- the jobs on the cores


@dataclasses.dataclass
class Job:
    seconds: float
    after: list = dataclasses.field(default_factory=list)  # indices of the jobs it waits for
    priority: float = 0.0
    threads: int = 1


def design_jobs(cfg, store: Path, cal: Calibration, every_round: bool, threads: int = 1) -> list[Job]:
    """The jobs of one Snakemake run of ``cfg``, chained as the workflow's rules chain them
    (workflow/rules/*.smk); a run the store holds costs nothing. ``every_round``: adaptive studies
    train every round to max_seeds; otherwise their first round alone."""
    jobs: list[Job] = []

    def add(seconds, after=(), priority=0.0, n_threads=1) -> int:
        jobs.append(Job(seconds, [a for a in after if a is not None], priority, n_threads))
        return len(jobs) - 1

    trained: dict[str, int | None] = {}

    def train(run, after) -> int | None:  # one job per distinct run, shared by the studies that list it
        if run.hash not in trained:
            done = run_store.is_complete(Path(store) / run.hash)
            trained[run.hash] = None if done else add(cal.run_seconds(run.settings), after,
                                                      cost_estimate(run.settings), threads)  # fmt: skip
        return trained[run.hash]

    evaluated: dict[str, int | None] = {}

    def evaluate(run, eval_lengths, after) -> int | None:  # rule evaluate: one job per run and set of lengths
        path = run_store.evaluation_file(store, run.hash, run.settings, eval_lengths)
        if path.as_posix() not in evaluated:
            evaluated[path.as_posix()] = None if path.exists() else add(cal.other_job, after, n_threads=threads)
        return evaluated[path.as_posix()]

    start = add(cal.start)
    summaries, tails, seconds = [], [], []
    for name in cfg.studies:
        study = cfg.studies[name]
        train_jobs = [train(r, [start]) for r in first_round(cfg, name)]
        gate = [start]
        scoped = design.scope_settings(study)
        scope_trains = [train(r, [start]) for r in scope_first_round(cfg, name)]
        if design.adaptive_block(cfg.raw["studies"][name]):  # checkpoint adaptive_round, one a round
            wait = train_jobs + scope_trains
            for batch in (rounds(cfg, name) if every_round else []) + [[]]:
                gate = [add(cal.other_job, wait)]
                wait = [train(r, gate) for r in batch]
                train_jobs += wait
        index = add(cal.other_job, gate)
        summary = add(cal.other_job, [index, *train_jobs])  # index, then summarize
        summaries.append(summary)
        if study.eval_lengths:  # evaluate each run, then the study's evaluations.csv
            # an adaptive study's are asked for once its last round is known (after the checkpoint)
            evals = [evaluate(r, study.eval_lengths, [t, *gate]) for r, t in zip(first_round(cfg, name), train_jobs)]
            summaries.append(add(cal.other_job, [index, *evals]))
        else:
            summaries.append(add(cal.other_job, [index]))
        tails.append(add(cal.other_job, [summaries[-1]]))  # published_table, from the evaluations
        if scoped:  # scope_index, scope_summarize, scope_evaluations (rules/scope.smk)
            scope_index = add(cal.other_job, gate)
            summaries.append(add(cal.other_job, [scope_index, *scope_trains]))
            evals = []
            if study.eval_lengths:
                evals = [evaluate(r, study.eval_lengths, [t, *gate])
                         for r, t in zip(scope_first_round(cfg, name), scope_trains)]  # fmt: skip
            summaries.append(add(cal.other_job, [scope_index, *evals]))
        tails += [add(cal.other_job, [summary]), add(cal.other_job, [summary])]  # analyze, figures
        if gate != [start]:
            tails.append(add(cal.other_job, [summary, *gate]))  # adaptive_tables
        seconds += [jobs[j].seconds for j in train_jobs if j is not None]
    tails += [add(cal.other_job, summaries) for _ in cfg.studies]  # claims: every study's summaries
    tails += [add(cal.other_job, [start]), add(cal.other_job, [start])]  # implementation_checks, the PE figure
    mean_run = sum(seconds) / len(seconds) if seconds else 0.0
    tails.append(add(cal.other_job + cfg.verify["sample"] * mean_run, summaries, n_threads=threads))  # verify
    add(cal.other_job, tails)  # report
    return jobs


def schedule(jobs: list[Job], cores: int) -> float:
    """Seconds until the last job ends when ``cores`` run the jobs, each as soon as the jobs it
    waits for are done and cores are free, the highest priority first (Snakemake's order)."""
    waiting = [len(j.after) for j in jobs]
    children: list[list[int]] = [[] for _ in jobs]
    for i, j in enumerate(jobs):
        for a in j.after:
            children[a].append(i)
    ready = [(-j.priority, i) for i, j in enumerate(jobs) if not j.after]
    heapq.heapify(ready)
    running: list[tuple[float, int]] = []
    free, now = cores, 0.0
    while ready or running:
        held = []
        while ready and free:
            item = heapq.heappop(ready)
            need = min(jobs[item[1]].threads, cores)
            if need <= free:
                free -= need
                heapq.heappush(running, (now + jobs[item[1]].seconds, item[1]))
            else:
                held.append(item)
        for item in held:
            heapq.heappush(ready, item)
        now, i = heapq.heappop(running)
        free += min(jobs[i].threads, cores)
        for c in children[i]:
            waiting[c] -= 1
            if not waiting[c]:
                heapq.heappush(ready, (-jobs[c].priority, c))
    return now


def wall_seconds(cfg, store: Path, cal: Calibration, cores: int, every_round: bool) -> float:
    """The Snakemake run's wall seconds at ``cores`` on free cores (the first round alone, or
    every round to max_seeds)."""
    threads = min(cfg.train_threads, cores)
    return schedule(design_jobs(cfg, store, cal, every_round, threads), cores)
