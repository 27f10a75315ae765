"""Collect a study's per-run files into three tidy CSVs.

- ``summary.csv``: one row per run (every setting, the status and the final metrics);
- ``curves.csv``: the learning curves, at most ``MAX_CURVE_POINTS`` epochs per run (evenly spaced,
  the last epoch always kept) so that a 10,000-run study stays small;
- ``init_grads.csv``: per-layer gradient norms at step 0, with the run's factor values.

Every per-run file is checked (present, header as expected, complete rows, finite where it must
be); a truncated or corrupt file stops aggregation with an error naming that file.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path

from . import io
from .config import Study

MAX_CURVE_POINTS = 100
REQUIRED_METRICS = ("study", "run_id", "seed", "status", "test_correct", "test_total", "test_acc", "final_train_acc")
CURVE_COLUMNS = ("epoch", "lr", "train_loss", "train_acc", "grad_norm")
INIT_GRAD_COLUMNS = ("layer", "grad_norm")


class CorruptRunFile(RuntimeError):
    """A per-run file that is missing, truncated or malformed."""


def _read_rows(path: Path, required: tuple[str, ...]) -> tuple[list[str], list[dict]]:
    if not path.is_file():
        raise CorruptRunFile(f"{path}: missing")
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise CorruptRunFile(f"{path}: unreadable ({exc})") from None
    if not text.endswith("\n"):
        raise CorruptRunFile(f"{path}: truncated (no final newline)")
    reader = csv.DictReader(text.splitlines())
    header = reader.fieldnames or []
    missing = [c for c in required if c not in header]
    if missing:
        raise CorruptRunFile(f"{path}: corrupt header, missing column(s) {', '.join(missing)}")
    rows = []
    for lineno, row in enumerate(reader, start=2):
        if None in row or any(v is None for v in row.values()):
            raise CorruptRunFile(f"{path}: line {lineno} has the wrong number of fields")
        rows.append(row)
    return header, rows


def read_metrics(path: Path, run_id: str) -> tuple[list[str], dict]:
    header, rows = _read_rows(path, REQUIRED_METRICS)
    if len(rows) != 1:
        raise CorruptRunFile(f"{path}: expected exactly one row of metrics, found {len(rows)}")
    row = rows[0]
    if row["run_id"] != run_id:
        raise CorruptRunFile(f"{path}: belongs to run {row['run_id']!r}, expected {run_id!r}")
    if row["status"] not in ("ok", "diverged"):
        raise CorruptRunFile(f"{path}: unknown status {row['status']!r}")
    try:
        total = int(row["test_total"])
        correct_value, acc = float(row["test_correct"]), float(row["test_acc"])
    except ValueError:
        raise CorruptRunFile(f"{path}: test counts are not numbers") from None
    if math.isnan(correct_value) or math.isnan(acc):
        # a diverged run whose test logits are not finite has no count (NaN): that is its result
        if row["status"] != "diverged" or not (math.isnan(correct_value) and math.isnan(acc)):
            raise CorruptRunFile(
                f"{path}: test counts are NaN ({row['test_correct']}/{total}, accuracy {row['test_acc']})"
                f" but the run has status {row['status']!r}"
            )
        return header, row
    if not (math.isfinite(correct_value) and correct_value == int(correct_value)):
        raise CorruptRunFile(f"{path}: test_correct {row['test_correct']!r} is not a whole count")
    correct = int(correct_value)
    if not (0 <= correct <= total and total > 0 and math.isclose(acc, correct / total)):
        raise CorruptRunFile(f"{path}: inconsistent test counts ({correct}/{total} vs accuracy {acc})")
    return header, row


def _subsample(rows: list[dict]) -> list[dict]:
    n = len(rows)
    if n <= MAX_CURVE_POINTS:
        return rows
    keep = {round(i * (n - 1) / (MAX_CURVE_POINTS - 1)) for i in range(MAX_CURVE_POINTS)}
    return [rows[i] for i in sorted(keep)]


def aggregate(study: Study, runs_dir: Path) -> tuple[list[dict], list[dict], list[dict], list[str]]:
    """Read every run of ``study`` under ``runs_dir``; returns (summary, curves, init_grads, header)."""
    factor_names = study.factor_names
    summary, curves, grads = [], [], []
    header: list[str] | None = None
    for run in study.runs():
        run_dir = runs_dir / run.run_id
        run_header, row = read_metrics(run_dir / "metrics.csv", run.run_id)
        if header is None:
            header = run_header
        elif run_header != header:
            raise CorruptRunFile(f"{run_dir / 'metrics.csv'}: columns differ from the other runs of the study")
        summary.append(row)
        keys = {"run_id": run.run_id, "seed": run.settings.seed} | {f: row[f] for f in factor_names}
        _, curve_rows = _read_rows(run_dir / "curve.csv", CURVE_COLUMNS)
        if not curve_rows and row["status"] == "ok":
            raise CorruptRunFile(f"{run_dir / 'curve.csv'}: no epochs")
        curves.extend(keys | {c: r[c] for c in CURVE_COLUMNS} for r in _subsample(curve_rows))
        _, grad_rows = _read_rows(run_dir / "init_grads.csv", INIT_GRAD_COLUMNS)
        grads.extend(keys | {c: r[c] for c in INIT_GRAD_COLUMNS} for r in grad_rows)
    return summary, curves, grads, header or list(REQUIRED_METRICS)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--study-json", required=True, help="the study (name, fixed, factors, seeds) as JSON")
    ap.add_argument("--runs-dir", required=True, type=Path)
    ap.add_argument("--summary", required=True, type=Path)
    ap.add_argument("--curves", required=True, type=Path)
    ap.add_argument("--init-grads", required=True, type=Path)
    args = ap.parse_args(argv)
    d = json.loads(args.study_json)
    study = Study(d["name"], "", d["fixed"], d["factors"], d["seeds"], [])
    try:
        summary, curves, grads, header = aggregate(study, args.runs_dir)
    except CorruptRunFile as exc:
        print(f"aggregate: refusing corrupt run file: {exc}", file=sys.stderr)
        return 1
    key_cols = ["run_id", "seed", *study.factor_names]
    io.write_csv(args.summary, summary, header)
    io.write_csv(args.curves, curves, key_cols + list(CURVE_COLUMNS))
    io.write_csv(args.init_grads, grads, key_cols + list(INIT_GRAD_COLUMNS))
    n_div = sum(r["status"] == "diverged" for r in summary)
    print(f"aggregated {len(summary)} runs of study {study.name} ({n_div} diverged)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
