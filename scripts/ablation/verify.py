"""Re-train a random sample of finished runs in a scratch folder and compare them bit for bit.

    python -m ablation.verify --studies '["lesson", ...]' --results results --store results/runs \
        --sample 3 --seed 0 --out results/verify.csv

The runs of a study are the rows of its index, ``<results>/<study>/runs.csv`` (:mod:`ablation.store`);
a run is finished when its folder of the store has a ``metrics.csv``. Each sampled run is trained
again by ``python -m ablation.train`` (a fresh process, as under Snakemake) with the settings of its
own ``settings.json`` and the thread count, study and run id recorded in its own ``metrics.csv``;
then every column of ``metrics.csv`` except the timing ones (``params_sha256`` included), and the
whole ``curve.csv`` and ``init_grads.csv``, must be equal as written (CSV floats are written with
``repr``, so equal text is equal bits). ``verify.csv`` gets one row per sampled run: study, run_id,
identical, mismatches, original_sha256, rerun_sha256. Mismatches are printed and listed, but the
exit code is 0: a mismatch is a finding for the report, not a crash.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from . import io, store
from . import settings
from .outputs import CERTIFICATE_COLUMNS

FIELDS = ["study", "run_id", "identical", "mismatches", "original_sha256", "rerun_sha256"]
TIMING_COLUMNS = frozenset({"train_seconds"})
COMPARED_FILES = ("curve.csv", "init_grads.csv")  # compared whole, besides metrics.csv


def finished_runs(studies: list[str], results: Path, store_dir: Path) -> list[tuple[str, str, str]]:
    """(study, run id, hash) of every run in the studies' indexes whose metrics.csv exists, in index order."""
    out = []
    for name in studies:
        _, rows = store.read_index(results / name / "runs.csv")
        out += [(name, r["run_id"], r["hash"]) for r in rows if store.is_complete(store_dir / r["hash"])]
    return out


def choose(candidates: list, k: int, seed: int) -> list:
    """A reproducible random sample of ``k`` candidates (all of them if fewer), in their original order."""
    index = sorted(random.Random(seed).sample(range(len(candidates)), min(k, len(candidates))))
    return [candidates[i] for i in index]


def read_csv(path: Path) -> tuple[list[str], list[dict]]:
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


def compare_metrics(original: Path, rerun: Path) -> list[str]:
    """Differences between two metrics.csv files, timing columns excepted; [] when identical."""
    try:
        head_a, rows_a = read_csv(original)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        return [f"{original.name}: unreadable original ({exc})"]
    head_b, rows_b = read_csv(rerun)
    # an original without the twin certificate is compared on the columns it has: the certificate
    # derives from the test logits, which the other columns already compare
    head_b = [c for c in head_b if c in head_a or c not in CERTIFICATE_COLUMNS]
    out = []
    if head_a != head_b:
        out.append(f"metrics.csv: columns differ ({','.join(head_a)} vs {','.join(head_b)})")
    if len(rows_a) != 1 or len(rows_b) != 1:
        return [*out, f"metrics.csv: {len(rows_a)} row(s) in the original, {len(rows_b)} in the re-run"]
    a, b = rows_a[0], rows_b[0]
    for col in [c for c in head_b if c not in TIMING_COLUMNS]:
        if a.get(col) != b.get(col):
            out.append(f"{col}: {a.get(col)} (original) != {b.get(col)} (re-run)")
    return out


def compare_file(original: Path, rerun: Path) -> list[str]:
    """Differences between two per-run CSVs compared whole (first differing line)."""
    name = original.name
    if not original.is_file():
        return [f"{name}: missing in the original run"]
    a = original.read_bytes().splitlines()
    b = rerun.read_bytes().splitlines()
    if a == b:
        return []
    for lineno, (la, lb) in enumerate(zip(a, b), start=1):
        if la != lb:
            return [f"{name}: differs from line {lineno}"]
    return [f"{name}: {len(a)} lines in the original, {len(b)} in the re-run"]


def _code_note(original_dir: Path, rerun_dir: Path) -> str:
    """Why a mismatch may be expected: the code or software differ from the original run's."""
    try:
        a = json.loads((original_dir / "provenance.json").read_text(encoding="utf-8"))
        b = json.loads((rerun_dir / "provenance.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    changed = [k for k in ("code_sha256", "torch", "numpy", "python", "cpu_capability") if a.get(k) != b.get(k)]
    return f" [differs from the original run's provenance: {', '.join(changed)}]" if changed else ""


def verify_run(study: str, run_id: str, original_dir: Path, scratch: Path) -> dict:
    """Re-train the run of ``original_dir`` (a folder of the store) into ``scratch`` and compare; the
    row of verify.csv."""
    rerun_dir = scratch / original_dir.name
    row = {"study": study, "run_id": run_id, "identical": False, "mismatches": "",
           "original_sha256": "", "rerun_sha256": ""}  # fmt: skip
    try:
        _, rows = read_csv(original_dir / "metrics.csv")
        original = rows[0] if rows else {}
    except (OSError, UnicodeDecodeError, csv.Error):
        original = {}
    row["original_sha256"] = original.get("params_sha256", "")
    try:
        threads = int(original.get("threads", ""))
        run_settings = settings.from_dict(json.loads((original_dir / "settings.json").read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError) as exc:
        row["mismatches"] = f"original metrics.csv or settings.json unusable ({exc}); not re-trained"
        return row
    cmd = [
        sys.executable, "-m", "ablation.train", "--settings", run_settings.to_json(), "--outdir", str(rerun_dir),
        "--threads", str(threads), "--study", original.get("study", ""), "--run-id", original.get("run_id", ""),
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or not (rerun_dir / "metrics.csv").is_file():
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        row["mismatches"] = f"re-training failed (exit {proc.returncode}): {last}"
        return row
    _, rerun_rows = read_csv(rerun_dir / "metrics.csv")
    row["rerun_sha256"] = rerun_rows[0].get("params_sha256", "") if rerun_rows else ""
    problems = compare_metrics(original_dir / "metrics.csv", rerun_dir / "metrics.csv")
    for name in COMPARED_FILES:
        problems += compare_file(original_dir / name, rerun_dir / name)
    row["identical"] = not problems
    row["mismatches"] = "; ".join(problems) + (_code_note(original_dir, rerun_dir) if problems else "")
    return row


def verify(studies: list[str], results: Path, store_dir: Path, sample: int, seed: int, scratch: Path | None = None) -> list[dict]:
    """Re-train ``sample`` randomly chosen finished runs; one row per run."""
    chosen = choose(finished_runs(studies, results, store_dir), sample, seed)
    with tempfile.TemporaryDirectory(prefix="ablation-verify-", dir=scratch) as tmp:
        rows = []
        for study, run_id, run_hash in chosen:
            row = verify_run(study, run_id, store_dir / run_hash, Path(tmp))
            status = "identical" if row["identical"] else f"MISMATCH: {row['mismatches']}"
            print(f"{study}/{run_id}: {status}", flush=True)
            rows.append(row)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ablation.verify", description=__doc__.splitlines()[0])
    ap.add_argument("--studies", required=True, help="JSON list of study names")
    ap.add_argument("--results", required=True, type=Path, help="the config's results folder (<study>/runs.csv)")
    ap.add_argument("--store", required=True, type=Path, help="the run store (results/runs)")
    ap.add_argument("--sample", required=True, type=int, help="how many finished runs to re-train")
    ap.add_argument("--seed", required=True, type=int, help="seed of the random choice of runs")
    ap.add_argument("--out", required=True, type=Path, help="verify.csv to write")
    ap.add_argument("--scratch", type=Path, default=None, help="parent of the scratch folder (default: system temp)")
    args = ap.parse_args(argv)
    if args.sample < 1:
        ap.error("--sample must be at least 1")
    rows = verify(json.loads(args.studies), args.results, args.store, args.sample, args.seed, args.scratch)
    io.write_csv(args.out, rows, FIELDS)
    n_ok = sum(r["identical"] for r in rows)
    print(f"{n_ok} of {len(rows)} runs reproduced bit-identically")
    for r in rows:
        if not r["identical"]:
            print(f"mismatch: {r['study']}/{r['run_id']}: {r['mismatches']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
