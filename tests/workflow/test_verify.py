"""`make verify`: re-train a random sample of finished runs and compare them bit for bit.

- the smoke run's own verify step (the report depends on it) reports full agreement, and the
  report says so;
- after tampering with finished results (a test_acc changed consistently with its count, a curve
  value changed, both with their old modification times, as silent corruption would be),
  ``snakemake --forcerun verify`` (the Makefile target's command) lists exactly those mismatches.
"""

import csv
import os
from pathlib import Path

import pandas as pd

from ablation import config as C
from ablation import verify as V
from ablation.store import STORE
from conftest import REPO, snakemake, snakemake_log

SMOKE = C.load(REPO / "config" / "smoke.yaml")
RESULTS, REPORTS = Path(SMOKE.outdir, "results"), Path(SMOKE.outdir, "reports")
RUN_DIR = {(r.study, r.run_id): STORE / r.hash for s in SMOKE.studies.values() for r in s.runs()}


def read_verify(path):
    return pd.read_csv(path, dtype={"mismatches": str}, keep_default_na=False)


def test_smoke_run_is_reproduced_bit_identically(smoke_run):
    work, _ = smoke_run
    df = read_verify(work / RESULTS / "verify.csv")
    assert list(df.columns) == V.FIELDS
    assert len(df) == SMOKE.verify["sample"] == 3
    assert df["identical"].tolist() == [True] * 3, df.to_string()
    assert (df["mismatches"] == "").all()
    assert (df["original_sha256"] == df["rerun_sha256"]).all()
    assert df["original_sha256"].str.fullmatch(r"[0-9a-f]{64}").all()
    # the sample is the documented random choice among every finished run
    runs = V.finished_runs(sorted(SMOKE.studies), work / RESULTS, work / STORE)
    assert len(runs) == sum(s.n_runs() for s in SMOKE.studies.values())
    chosen = V.choose(runs, SMOKE.verify["sample"], SMOKE.verify["random_seed"])
    assert [(s, r) for s, r, _ in chosen] == list(zip(df["study"], df["run_id"]))
    assert all(work / RUN_DIR[s, r] == work / STORE / h for s, r, h in chosen)
    html = (work / REPORTS / "ablation_report.html").read_text()
    assert "3 of 3 runs reproduced bit-identically" in html


def _edit_keeping_mtime(path, fn):
    stat = path.stat()
    fn(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_tampered_results_are_reported_as_mismatches(smoke_copy):
    work = smoke_copy
    sample = read_verify(work / RESULTS / "verify.csv")
    (study_a, run_a), (study_b, run_b) = list(zip(sample["study"], sample["run_id"]))[:2]

    def fake_accuracy(path):
        with open(path, newline="") as fh:
            rows = list(csv.DictReader(fh))
        row = rows[0]
        row["test_correct"] = str(int(row["test_correct"]) - 1)
        row["test_acc"] = repr(int(row["test_correct"]) / int(row["test_total"]))
        with open(path, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(row), lineterminator="\n")
            writer.writeheader()
            writer.writerow(row)

    def nudge_curve(path):
        lines = path.read_text().splitlines()
        fields = lines[-1].split(",")
        fields[3] = repr(float(fields[3]) + 1e-12)  # train_loss of the last epoch, off in the 12th digit
        lines[-1] = ",".join(fields)
        path.write_text("\n".join(lines) + "\n")

    _edit_keeping_mtime(work / RUN_DIR[study_a, run_a] / "metrics.csv", fake_accuracy)
    curve_b = work / RUN_DIR[study_b, run_b] / "curve.csv"
    last_line = len(curve_b.read_text().splitlines())
    _edit_keeping_mtime(curve_b, nudge_curve)

    # what `make verify` runs
    proc = snakemake(work, "--cores", "2", "--configfile", "config/smoke.yaml", "--forcerun", "verify")
    assert "rule verify" in snakemake_log(proc)

    df = read_verify(work / RESULTS / "verify.csv").set_index("run_id")
    assert df["identical"].tolist() == [False, False, True]
    assert "test_correct:" in df.loc[run_a, "mismatches"] and "test_acc:" in df.loc[run_a, "mismatches"]
    assert "params_sha256" not in df.loc[run_a, "mismatches"]  # the model itself is what the code produces
    assert df.loc[run_b, "mismatches"].startswith(f"curve.csv: differs from line {last_line}")
    assert df.loc[run_a, "original_sha256"] == df.loc[run_a, "rerun_sha256"]
    log = (work / RESULTS / "logs" / "verify.log").read_text()
    assert "1 of 3 runs reproduced bit-identically" in log and f"mismatch: {study_a}/{run_a}: " in log
    html = (work / REPORTS / "ablation_report.html").read_text()
    assert "1 of 3 runs reproduced bit-identically" in html


def test_compare_ignores_timing_only(tmp_path):
    header = "study,run_id,test_acc,train_seconds,params_sha256\n"
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text(header + "s,r,0.5,1.25,abc\n")
    b.write_text(header + "s,r,0.5,9.75,abc\n")
    assert V.compare_metrics(a, b) == []
    b.write_text(header + "s,r,0.5,1.25,abd\n")
    assert V.compare_metrics(a, b) == ["params_sha256: abc (original) != abd (re-run)"]


def test_compare_skips_the_twin_certificate_only_where_the_original_has_none(tmp_path):
    header = "study,run_id,test_acc,params_sha256"
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text(f"{header}\ns,r,0.5,abc\n")
    b.write_text(f"{header},twin_logit_gap,twin_pairs_differ\ns,r,0.5,abc,2e-07,0\n")
    assert V.compare_metrics(a, b) == []
    a.write_text(f"{header},twin_logit_gap,twin_pairs_differ\ns,r,0.5,abc,2e-07,3\n")
    assert V.compare_metrics(a, b) == ["twin_pairs_differ: 3 (original) != 0 (re-run)"]
    b.write_text(f"{header},other\ns,r,0.5,abc,1\n")  # any other new column still differs
    a.write_text(f"{header}\ns,r,0.5,abc\n")
    assert V.compare_metrics(a, b)[0].startswith("metrics.csv: columns differ")


def test_choice_is_reproducible_and_clamped():
    items = list(range(10))
    assert V.choose(items, 3, 0) == V.choose(items, 3, 0)
    assert V.choose(items, 3, 0) != V.choose(items, 3, 1)
    assert V.choose(items, 50, 0) == items
    assert V.choose([], 3, 0) == []
