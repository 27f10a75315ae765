#!/usr/bin/env python3
"""How does each positional encoding fail beyond the trained lengths of a copy task: does its answer
end too early, run on past the prompt's length, or write a wrong token?

    .venv/bin/python benchmarks/probes/length_failures.py [--study length] [--seeds 0 1]
        [--levels pos_enc=none,alibi,t5] [--jobs 2] [--set name=value ...] [--out FILE.md]

Trains the study's runs exactly as length_pilot.py does (its loader: the config's study, fixed settings
overridden by ``--set``, factors narrowed by ``--levels``, one thread a run), decodes each run's test
set greedily at every test length, as the evaluate stage does (the same test sets, the same
``generate``), and sorts every test sequence by what went wrong:

- *right*: every answer token and the end token right (exact match);
- *ends early*: the answer's end token comes before the prompt's n tokens are written;
- *runs on*: the n tokens are right, but a content token comes where the end token should;
- *wrong token*: any other error (a wrong content token within the n).

For the sequences that end early it gives the number of tokens written before the end token (the
median over them), and per length the share of each kind. A model that has learned to stop after
the trained lengths' longest answer writes that many tokens and ends, whatever n is.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import platform
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))  # length_pilot: the same studies, loaded the same way
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "benchmarks"))  # measured.py

from ablation import provenance  # noqa: E402
from ablation.data import IGNORE, evaluated_lengths, task_of  # noqa: E402
from ablation.train import train_run  # noqa: E402
from length_pilot import load_studies  # noqa: E402
from measured import line, stamp  # noqa: E402

KINDS = ("right", "ends early", "runs on", "wrong token")


def failure_kinds(predicted, targets, end: int) -> tuple[list[str], list[int]]:
    """Each sequence's kind (KINDS) from its generated tokens and targets [n, m] (the answer's tokens,
    then ``end``), and, for those that end early, the tokens written before the end token."""
    kinds, written = [], []
    for p, t in zip(predicted.tolist(), targets.tolist()):
        n = t.index(end)  # the answer's length: the end token follows it
        if p[: n + 1] == t[: n + 1]:
            kinds.append("right")
        elif end in p[:n]:
            kinds.append("ends early")
            written.append(p.index(end))
        elif p[:n] == t[:n]:
            kinds.append("runs on")
        else:
            kinds.append("wrong token")
    return kinds, written


def measure(job: tuple) -> dict:
    """One run trained in a worker process and its test sets decoded at every test length."""
    import torch

    from ablation.architectures import build_model

    load, name, index = job
    study = load_studies(*load)[name]
    run = list(study.runs())[index]
    s = run.settings
    result = train_run(s, threads=1)
    model = build_model(s)
    model.load_state_dict(result.weights)
    model.eval()
    task = task_of(s)
    trained, rows = set(task.trained_lengths(s)), []
    with torch.inference_mode():
        for n in evaluated_lengths(s, study.eval_lengths):
            X, y = task.test_set(s, n)
            start = int(y.ne(IGNORE).int().argmax(dim=1)[0])  # every answer token follows the prompt
            predicted, targets = model.generate(X[:, : start + 1], X.shape[1] - start), y[:, start:]
            kinds, written = failure_kinds(predicted, targets, task.EOS)
            rows.append({"length": n, "trained": n in trained, "kinds": {k: kinds.count(k) for k in KINDS},
                         "total": len(kinds), "written": written})  # fmt: skip
    print(f"{run.study} {run.run_id}: {result.status}, {result.train_seconds:.1f} s", flush=True)
    return {"factors": run.factors, "seed": s.seed, "status": result.status, "rows": rows,
            "train_seconds": result.train_seconds}  # fmt: skip


def bands(lengths: list[int], width: int) -> list[tuple[int, int]]:
    """Consecutive lengths in bands of ``width``: [(first, last), ...]."""
    return [(lengths[i], lengths[min(i + width, len(lengths)) - 1]) for i in range(0, len(lengths), width)]


def tables(runs: list[dict], width: int) -> list[str]:
    """Per encoding (the runs' factor levels) and band of untrained lengths, over its seeds: the share of
    each kind of failure and the median tokens written by the answers that end early."""
    cells: dict[str, list[dict]] = {}
    for r in runs:
        cells.setdefault(", ".join(f"{k}={v}" for k, v in r["factors"].items()), []).append(r)
    beyond = sorted({row["length"] for r in runs for row in r["rows"] if not row["trained"]})
    longest = max((row["length"] for r in runs for row in r["rows"] if row["trained"]), default=None)
    out = ["| cell | lengths | seeds | " + " | ".join(KINDS) + " | ends early: tokens written (median; each seed's) |",
           "| --- | --- | --- | " + " | ".join("---" for _ in KINDS) + " | --- |"]  # fmt: skip
    for cell, members in cells.items():
        for lo, hi in bands(beyond, width) + ([(longest, longest)] if longest else []):
            rows = [row for r in members for row in r["rows"] if lo <= row["length"] <= hi]
            total = sum(row["total"] for row in rows)
            shares = [sum(row["kinds"][k] for row in rows) / total for k in KINDS]
            per_seed = [[w for row in r["rows"] if lo <= row["length"] <= hi for w in row["written"]] for r in members]
            medians = [f"{statistics.median(w):g}" if w else "-" for w in per_seed]
            every = [w for ws in per_seed for w in ws]
            written = f"{statistics.median(every):g} ({', '.join(medians)})" if every else "-"
            label = f"{lo}-{hi}" if lo != hi else f"{lo} (trained)"
            out.append(f"| {cell} | {label} | {len(members)} | " + " | ".join(f"{x:.3f}" for x in shares)
                       + f" | {written} |")  # fmt: skip
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", type=Path, default=REPO / "config" / "config.yaml")
    ap.add_argument("--study", default="length")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--jobs", type=int, default=1, help="runs trained side by side, one thread each")
    ap.add_argument("--set", nargs="*", default=[], metavar="NAME=VALUE", help="override a fixed setting (JSON value)")
    ap.add_argument("--levels", nargs="*", default=[], metavar="FACTOR=A,B", help="train only these levels of a factor")
    ap.add_argument("--band", type=int, default=5, help="untrained lengths per row of the table")
    ap.add_argument("--out", type=Path, default=HERE / "length_failures.md")
    args = ap.parse_args(argv)
    if args.band < 1:
        ap.error(f"--band must be at least 1, got {args.band}")
    load = (args.config, [args.study], args.seeds, args.set, args.levels, ())
    study = load_studies(*load)[args.study]
    if task_of(next(iter(study.runs())).settings).outputs != "sequence":
        ap.error(f"study {args.study} is not a copy task: its runs write no answer to sort")
    load_before, started = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M")
    jobs = [(load, args.study, i) for i in range(len(list(study.runs())))]
    with concurrent.futures.ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        runs = list(pool.map(measure, jobs))
    import torch

    command = (f".venv/bin/python benchmarks/probes/length_failures.py --study {args.study} "
               f"--seeds {' '.join(map(str, args.seeds))}" + (f" --jobs {args.jobs}" if args.jobs > 1 else "")
               + (f" --set {' '.join(args.set)}" if args.set else "")
               + (f" --levels {' '.join(args.levels)}" if args.levels else "")
               + (f" --band {args.band}" if args.band != 5 else "")
               + (f" --out {os.path.relpath(args.out, REPO)}" if args.out != HERE / "length_failures.md" else ""))  # fmt: skip
    text = [
        f"# {args.study}: how each encoding fails beyond the trained lengths",
        "",
        line(stamp()),
        "",
        f"`{command}`",
        "",
        f"Run {started}, torch {torch.__version__}, {provenance.cpu_model() or platform.processor()}, one thread per "
        f"run, {args.jobs} side by side, load average {load_before[0]:.1f} before and {os.getloadavg()[0]:.1f} after"
        + (f"; fixed settings overridden: {', '.join(args.set)}" if args.set else "") + ".",
        "",
        f"The study's fixed settings: `{json.dumps(study.fixed, sort_keys=True)}`. Every test sequence ({study.fixed.get('n_test')} "
        "per length and seed, greedy decoding) sorted by what went wrong: *right* (exact match); *ends early* (the end "
        "token before the prompt's n tokens are written); *runs on* (the n tokens right, a content token where the end "
        "token belongs); *wrong token* (anything else). Shares over the seeds' sequences in each band of lengths, and "
        "the last trained length for comparison; for the answers that end early, the tokens written before the end.",
        "",
        *tables(runs, args.band),
        "",
    ]
    args.out.write_text("\n".join(text), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
