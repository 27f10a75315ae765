"""Collect a study's per-run files into three tidy CSVs.

The study's runs are the rows of its index (``runs.csv``, :mod:`ablation.store`): each row's
readable run id and factor values, and the hash that names its folder in the run store.

- ``summary.csv``: one row per run (every setting, the status and the final metrics);
- ``curves.csv``: the learning curves, at most ``MAX_CURVE_POINTS`` epochs per run (evenly spaced,
  the last epoch always kept) so that a 10,000-run study stays small;
- ``init_grads.csv``: per-layer gradient norms at step 0, with the run's factor values;
- ``evaluations.csv`` (``python -m ablation.aggregate evaluations``): the runs' evaluations at the
  study's test lengths (ablation.evaluate), one row per run, metric and length, with the run's id,
  factor values and seed.

Every per-run file is checked (present, header as expected, complete rows, finite where it must
be); a truncated or corrupt file stops aggregation with an error naming that file.
"""

from __future__ import annotations

import argparse
import csv
import functools
import io as _io
import json
import math
import sys
from pathlib import Path
from typing import NamedTuple

from . import io, store
from . import settings
from .outputs import CERTIFICATE_COLUMNS, CURVE_COLUMNS, EVALUATION_COLUMNS, INIT_GRAD_COLUMNS

MAX_CURVE_POINTS = 100
REQUIRED_METRICS = ("study", "run_id", "seed", "status", "test_correct", "test_total", "test_acc", "final_train_acc")


class CorruptRunFile(RuntimeError):
    """A per-run file that is missing, truncated or malformed."""


class Table(NamedTuple):
    """A checked per-run CSV: its header and data rows (blank lines dropped, as ``csv.DictReader``
    does). A *plain* file has no quote character, so a row is its line split on commas: its rows
    are kept as lines, ``fields`` splits them. This path, and the matching one in ``_write_rows``,
    keep a 10,000-run study's aggregation within its goal (benchmarks/results.md, section 4)."""

    header: list[str]
    rows: list  # lines (str) if plain, else lists of fields
    plain: bool

    def fields(self, rows: list) -> list[list[str]]:
        return [line.split(",") for line in rows] if self.plain else rows


def _read_rows(path: Path, required: tuple[str, ...]) -> Table:
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            text = fh.read()
    except (FileNotFoundError, IsADirectoryError):
        raise CorruptRunFile(f"{path}: missing") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CorruptRunFile(f"{path}: unreadable ({exc})") from None
    if not text.endswith("\n"):
        raise CorruptRunFile(f"{path}: truncated (no final newline)")
    plain = '"' not in text
    if plain:
        rows = [line for line in text.splitlines() if line]
        header = rows.pop(0).split(",") if rows else []
        widths = [line.count(",") + 1 for line in rows]
    else:
        rows = [row for row in csv.reader(text.splitlines()) if row]
        header = rows.pop(0) if rows else []
        widths = list(map(len, rows))
    missing = [c for c in required if c not in header]
    if missing:
        raise CorruptRunFile(f"{path}: corrupt header, missing column(s) {', '.join(missing)}")
    if widths.count(len(header)) != len(widths):
        lineno = 2 + next(i for i, width in enumerate(widths) if width != len(header))
        raise CorruptRunFile(f"{path}: line {lineno} has the wrong number of fields")
    return Table(header, rows, plain)


def read_metrics(path: Path, run_id: str) -> tuple[list[str], dict]:
    table = _read_rows(path, REQUIRED_METRICS)
    header = table.header
    if len(table.rows) != 1:
        raise CorruptRunFile(f"{path}: expected exactly one row of metrics, found {len(table.rows)}")
    row = dict(zip(header, table.fields(table.rows)[0]))
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


def _subsample(rows: list) -> list:
    return rows if len(rows) <= MAX_CURVE_POINTS else [rows[i] for i in _kept(len(rows))]


@functools.cache
def _kept(n: int) -> list[int]:
    """Evenly spaced indices of MAX_CURVE_POINTS of n epochs, the first and the last among them."""
    return sorted({round(i * (n - 1) / (MAX_CURVE_POINTS - 1)) for i in range(MAX_CURVE_POINTS)})


def _write_rows(out, keys: list, table: Table, columns: tuple[str, ...], rows: list) -> None:
    """Append to the text file ``out`` one CSV line per row (of ``table.rows``): ``keys``, then the
    row's ``columns``, exactly as ``csv.writer`` writes them."""
    at = [table.header.index(c) for c in columns]
    if not table.plain:
        csv.writer(out, lineterminator="\n").writerows(keys + [r[i] for i in at] for r in rows)
        return
    # no field needs quoting: write the text directly (see Table's docstring)
    buf = _io.StringIO()
    csv.writer(buf, lineterminator="").writerow(keys)
    prefix = buf.getvalue()
    if at == list(range(len(table.header))):  # the file's own columns, in order: its lines as they are
        out.write("".join(f"{prefix},{line}\n" for line in rows))
    else:
        out.write("".join(f"{prefix},{','.join([r[i] for i in at])}\n" for r in table.fields(rows)))


def key_columns(factor_names: list[str]) -> list[str]:
    """The columns that lead every row of curves.csv and init_grads.csv."""
    return ["run_id", "seed", *factor_names]


def aggregate(
    study: str, factor_names: list[str], index: list[dict], store_dir: Path, curves=None, init_grads=None
) -> tuple[list[dict], list[str]]:
    """Read every run of ``index`` (rows of the study's runs.csv) from ``store_dir``; returns (summary
    rows, metrics header). A summary row is the run's metrics.csv row with the study's name and the
    readable run id (a folder of the store belongs to no study: its own metrics.csv names its hash).

    The learning-curve and gradient rows (``key_columns``, then ``CURVE_COLUMNS`` /
    ``INIT_GRAD_COLUMNS``) are appended run by run, as CSV lines, to the open text files ``curves``
    / ``init_grads`` rather than kept in memory (10,000 runs are a million curve rows); None
    checks them without writing them.
    """
    summary = []
    header: list[str] | None = None
    for entry in index:
        run_dir = store_dir / entry["hash"]
        run_header, row = read_metrics(run_dir / "metrics.csv", entry["hash"])
        if header is None:
            header = run_header
        elif _core(run_header) != _core(header):
            raise CorruptRunFile(f"{run_dir / 'metrics.csv'}: columns differ from the other runs of the study")
        elif len(run_header) > len(header):  # a run with the certificate among runs trained before it
            header = run_header
        row["study"], row["run_id"] = study, entry["run_id"]
        summary.append(row)
        keys = [entry["run_id"], entry["seed"], *(row[f] if f in row else _LEFT_OUT[f] for f in factor_names)]
        curve = _read_rows(run_dir / "curve.csv", CURVE_COLUMNS)
        if not curve.rows and row["status"] == "ok":
            raise CorruptRunFile(f"{run_dir / 'curve.csv'}: no epochs")
        grads = _read_rows(run_dir / "init_grads.csv", INIT_GRAD_COLUMNS)
        if curves is not None:
            _write_rows(curves, keys, curve, CURVE_COLUMNS, _subsample(curve.rows))
        if init_grads is not None:
            _write_rows(init_grads, keys, grads, INIT_GRAD_COLUMNS, grads.rows)
    header = header or list(REQUIRED_METRICS)
    header += [c for c in CERTIFICATE_COLUMNS if c not in header]
    for row in summary:
        for column in CERTIFICATE_COLUMNS:
            row.setdefault(column, "")
        for column in (c for c in _LEFT_OUT if c in header):  # a setting a run leaves out at its default
            row.setdefault(column, _LEFT_OUT[column])
    return summary, header


def _core(header: list[str]) -> list[str]:
    """A metrics header without the certificate's columns, which runs trained before it lack, and
    without the settings a run leaves out at their defaults."""
    return [c for c in header if c not in CERTIFICATE_COLUMNS and c not in _LEFT_OUT]


# setting -> its value in metrics.csv, for the settings a run leaves out at their defaults
_LEFT_OUT = {name: json.dumps(value) if isinstance(value, dict) else value
             for name, value in (settings.defaults() | {"plugin_code": {}}).items() if name in settings.LEFT_OUT_AT_DEFAULT}  # fmt: skip


def collect_evaluations(factor_names: list[str], index: list[dict], files: list[Path]) -> list[dict]:
    """The rows of evaluations.csv: every evaluation of ``files`` (a run's, in its folder of the store:
    results/runs/<hash>/evaluations/<lengths>.csv), in the order of the study's ``index``, led by
    the run's id, hash, factor values and seed."""
    by_hash = {}
    for path in files:
        table = _read_rows(Path(path), EVALUATION_COLUMNS)
        rows = [dict(zip(table.header, fields)) for fields in table.fields(table.rows)]
        run_hash = Path(path).parent.parent.name
        if any(row["hash"] != run_hash for row in rows):
            raise CorruptRunFile(f"{path}: rows of another run than {run_hash}")
        by_hash[run_hash] = rows
    out = []
    for entry in index:
        keys = {"run_id": entry["run_id"], "hash": entry["hash"]} | {f: entry[f] for f in factor_names}
        out += [keys | {"seed": entry["seed"]} | {c: row[c] for c in EVALUATION_COLUMNS[1:]}
                for row in by_hash.get(entry["hash"], [])]  # fmt: skip
    return out


def evaluations_main(argv) -> int:
    ap = argparse.ArgumentParser(prog="python -m ablation.aggregate evaluations", description=collect_evaluations.__doc__.split(".")[0])
    ap.add_argument("--index", required=True, type=Path, help="the study's runs.csv")
    ap.add_argument("--evaluations", nargs="*", type=Path, default=[], help="the runs' evaluation files")
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args(argv)
    factor_names, index = store.read_index(args.index)
    try:
        rows = collect_evaluations(factor_names, index, args.evaluations)
    except CorruptRunFile as exc:
        print(f"aggregate: refusing corrupt run file: {exc} (delete it to evaluate the run again)", file=sys.stderr)
        return 1
    io.write_csv(args.out, rows, ["run_id", "hash", *factor_names, "seed", *EVALUATION_COLUMNS[1:]])
    print(f"collected {len(rows)} evaluations of {len(args.evaluations)} runs")
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["evaluations"]:
        return evaluations_main(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--study", required=True, help="the study's name, written into summary.csv")
    ap.add_argument("--index", required=True, type=Path, help="the study's runs.csv")
    ap.add_argument("--store", required=True, type=Path, help="the run store (results/runs)")
    ap.add_argument("--summary", required=True, type=Path)
    ap.add_argument("--curves", required=True, type=Path)
    ap.add_argument("--init-grads", required=True, type=Path)
    args = ap.parse_args(argv)
    factor_names, index = store.read_index(args.index)
    try:
        with (
            io.atomic_open(args.curves, "w", encoding="utf-8", newline="") as cf,
            io.atomic_open(args.init_grads, "w", encoding="utf-8", newline="") as gf,
        ):
            csv.writer(cf, lineterminator="\n").writerow(key_columns(factor_names) + list(CURVE_COLUMNS))
            csv.writer(gf, lineterminator="\n").writerow(key_columns(factor_names) + list(INIT_GRAD_COLUMNS))
            summary, header = aggregate(args.study, factor_names, index, args.store, cf, gf)
    except CorruptRunFile as exc:
        print(f"aggregate: refusing corrupt run file: {exc} (delete that run's folder to train it again)", file=sys.stderr)
        return 1
    io.write_csv(args.summary, summary, header)
    n_div = sum(r["status"] == "diverged" for r in summary)
    print(f"aggregated {len(summary)} runs of study {args.study} ({n_div} diverged)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
