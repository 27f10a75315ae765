"""Aggregation's fast path (plain CSV lines checked by comma count, written as they are) gives what
reading every file with csv.DictReader and writing with csv.DictWriter gives, quoted fields,
reordered columns and blank lines included; a row with the wrong number of fields is refused; and a run
without the twin certificate is read with its certificate missing."""

import csv
import io as _io

import numpy as np
import pandas as pd
import pytest

from ablation import aggregate as A
from ablation import store
from ablation.config import Study

FIXED = {"arch": "encoder", "depth": 2, "epochs": 150}


def _csv(rows: list[list]) -> str:
    buf = _io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


@pytest.fixture()
def runs(tmp_path):
    """Four runs (norm x seed) with a 150-epoch curve (subsampled to 100 points) and two layers of
    gradient norms; one run's curve is quoted, reordered and has a blank line, another's reordered,
    one metrics value needs quoting."""
    study = Study("t", "", FIXED, {"norm": ["post", "pre"]}, [0, 1], [])
    for i, run in enumerate(study.runs()):
        d = tmp_path / "runs" / run.hash
        d.mkdir(parents=True)
        metrics = ["study", "run_id", "seed", "norm", "status", "test_correct", "test_total", "test_acc",
                   "final_train_acc", "device_used"]  # fmt: skip
        values = ["", run.hash, run.settings.seed, run.settings.norm, "ok", 30, 40, 0.75, 0.9,
                  'cpu, "pinned"' if i == 1 else "cpu"]  # fmt: skip
        (d / "metrics.csv").write_text(_csv([metrics, values]))
        epochs = [[e, 0.01, 1 / (e + 1), 0.5 + e / 400, 0.1 * i + e / 1000] for e in range(150)]
        curve = [list(A.CURVE_COLUMNS), *epochs]
        grads = [list(A.INIT_GRAD_COLUMNS), [0, 0.2 + i], [1, 0.3 + i]]
        if i == 1:  # every field quoted, the columns in another order, a blank line after the header
            buf = _io.StringIO()
            csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL).writerows([r[4], *r[:4]] for r in curve)
            (d / "curve.csv").write_text(buf.getvalue().replace("\n", "\n\n", 1))
        elif i == 2:  # plain, but the columns in another order
            (d / "curve.csv").write_text(_csv([[r[1], r[0], *r[2:]] for r in curve]))
        else:
            (d / "curve.csv").write_text(_csv(curve))
        (d / "init_grads.csv").write_text(_csv(grads))
    return study, tmp_path


def _reference(study, root):
    """What the aggregation wrote before its fast path: csv.DictReader in, csv.DictWriter out."""
    keys = ["run_id", "seed", *study.factor_names]
    out = {}
    files = (("curve.csv", A.CURVE_COLUMNS, True), ("init_grads.csv", A.INIT_GRAD_COLUMNS, False))
    for name, columns, subsample in files:
        buf = _io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=keys + list(columns), lineterminator="\n")
        writer.writeheader()
        for run in study.runs():
            with open(root / "runs" / run.hash / name, newline="") as fh:
                rows = list(csv.DictReader(fh))
            with open(root / "runs" / run.hash / "metrics.csv", newline="") as fh:
                metrics = next(csv.DictReader(fh))
            if subsample and len(rows) > A.MAX_CURVE_POINTS:
                n = len(rows)
                rows = [rows[i] for i in sorted({round(i * (n - 1) / (A.MAX_CURVE_POINTS - 1))
                                                 for i in range(A.MAX_CURVE_POINTS)})]  # fmt: skip
            base = {"run_id": run.run_id, "seed": run.settings.seed} | {f: metrics[f] for f in study.factor_names}
            writer.writerows(base | {c: r[c] for c in columns} for r in rows)
        out[name] = buf.getvalue()
    return out


def test_fast_path_writes_what_dictreader_and_dictwriter_write(runs):
    study, root = runs
    store.write_index(study, root / "runs.csv")
    argv = ["--study", study.name, "--index", str(root / "runs.csv"), "--store", str(root / "runs"),
            "--summary", str(root / "summary.csv"), "--curves", str(root / "curves.csv"),
            "--init-grads", str(root / "init_grads.csv")]  # fmt: skip
    assert A.main(argv) == 0
    ref = _reference(study, root)
    assert (root / "curves.csv").read_text() == ref["curve.csv"]
    assert (root / "init_grads.csv").read_text() == ref["init_grads.csv"]
    summary = list(csv.DictReader(open(root / "summary.csv", newline="")))
    assert [r["device_used"] for r in summary] == ["cpu", 'cpu, "pinned"', "cpu", "cpu"]
    assert len(ref["curve.csv"].splitlines()) == 1 + 4 * A.MAX_CURVE_POINTS


@pytest.mark.parametrize("quoted", [False, True])
def test_a_row_with_the_wrong_number_of_fields_is_refused_naming_its_line(runs, quoted):
    study, root = runs
    path = root / "runs" / study.runs()[2].hash / "init_grads.csv"
    path.write_text("layer,grad_norm\n0,0.1\n" + ('1,"0.2",7\n' if quoted else "1,0.2,7\n"))
    with pytest.raises(A.CorruptRunFile, match="init_grads.csv: line 3 has the wrong number of fields"):
        A.aggregate(study.name, *store.study_index(study), root / "runs")


@pytest.mark.parametrize("with_certificate", [[], [1, 2]])
def test_runs_without_the_twin_certificate_aggregate_with_it_missing(runs, with_certificate):
    """A metrics.csv without the certificate's columns (twin_logit_gap, twin_pairs_differ) is read: its
    run's certificate is NaN in the summary, beside the values of the runs that have one."""
    study, root = runs
    for i in with_certificate:
        path = root / "runs" / study.runs()[i].hash / "metrics.csv"
        header, values = list(csv.reader(open(path, newline="")))
        path.write_text(_csv([header + ["twin_logit_gap", "twin_pairs_differ"], values + [0.25 * i, i]]))
    store.write_index(study, root / "runs.csv")
    argv = ["--study", study.name, "--index", str(root / "runs.csv"), "--store", str(root / "runs"),
            "--summary", str(root / "summary.csv"), "--curves", str(root / "curves.csv"),
            "--init-grads", str(root / "init_grads.csv")]  # fmt: skip
    assert A.main(argv) == 0
    summary = pd.read_csv(root / "summary.csv")
    assert list(summary["run_id"]) == [run.run_id for run in study.runs()]
    gap, differ = summary["twin_logit_gap"].to_numpy(), summary["twin_pairs_differ"].to_numpy()
    for i in range(len(summary)):
        if i in with_certificate:
            assert (gap[i], differ[i]) == (0.25 * i, i)
        else:
            assert np.isnan(gap[i]) and np.isnan(differ[i])
    assert list(summary["device_used"]) == ["cpu", 'cpu, "pinned"', "cpu", "cpu"]  # the other columns intact


def test_runs_with_and_without_a_twin_certificate_aggregate_together(runs):
    study, root = runs
    # the first run records a certificate; the others were trained before runs recorded one
    first = root / "runs" / study.runs()[0].hash / "metrics.csv"
    header, values = first.read_text().splitlines()
    first.write_text(f"{header},twin_logit_gap,twin_pairs_differ\n{values},3e-07,0\n")
    summary, columns = A.aggregate(study.name, *store.study_index(study), root / "runs")
    assert columns[-2:] == ["twin_logit_gap", "twin_pairs_differ"]
    assert [(r["twin_logit_gap"], r["twin_pairs_differ"]) for r in summary] == [("3e-07", "0")] + [("", "")] * 3
    # any other difference in the columns is still refused
    first.write_text(f"{header},other\n{values},1\n")
    with pytest.raises(A.CorruptRunFile, match="columns differ from the other runs of the study"):
        A.aggregate(study.name, *store.study_index(study), root / "runs")
