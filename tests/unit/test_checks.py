"""The lesson's implementation checks, run on our code."""

import csv

from ablation import checks


def test_all_checks_pass():
    rows = checks.run_checks(tol=1e-6)
    assert len(rows) == 6
    for row in rows:
        assert list(row) == checks.FIELDS
        assert row["status"] == "PASS", row
        assert 0 <= row["max_abs_diff"] <= 1e-6


def test_a_check_can_fail():
    rows = checks.run_checks(tol=0.0)  # only exact agreement passes
    assert any(row["status"] == "FAIL" for row in rows)


def test_cli_writes_the_rows(tmp_path):
    out = tmp_path / "sub" / "checks.csv"
    assert checks.main(["--out", str(out)]) == 0
    with open(out, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    # the file holds what run_checks computes (the checks are seeded), every field as csv writes it
    expected = [{k: "" if v is None else str(v) for k, v in r.items()} for r in checks.run_checks()]
    assert rows == expected
    assert {r["status"] for r in rows} == {"PASS"}
