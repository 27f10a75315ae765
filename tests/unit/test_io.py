"""ablation.io: atomic writes (a temporary sibling, fsync, rename) and what each writer writes."""

import os

import pytest

from ablation import io


def test_atomic_writes_get_the_usual_permissions(tmp_path):
    umask = os.umask(0o022)
    try:
        io.write_text(tmp_path / "report.html", "x")
        assert (tmp_path / "report.html").stat().st_mode & 0o777 == 0o644  # not mkstemp's 0o600
    finally:
        os.umask(umask)


def test_atomic_write_leaves_old_file_when_interrupted(tmp_path):
    target = tmp_path / "metrics.csv"
    io.write_text(target, "old\n")
    with pytest.raises(RuntimeError), io.atomic_open(target) as fh:
        fh.write("new, half")
        raise RuntimeError("killed")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["metrics.csv"], "the temporary file is removed"


def test_write_csv_writes_exactly_header_and_rows(tmp_path):
    rows = [{"run_id": "pos_enc~none/seed~0", "test_acc": 0.5, "note": "µ → ok"}, {"run_id": "b", "test_acc": 1, "note": ""}]
    io.write_csv(tmp_path / "a.csv", rows)  # header from the first row's keys
    expected = "run_id,test_acc,note\npos_enc~none/seed~0,0.5,µ → ok\nb,1,\n"
    assert (tmp_path / "a.csv").read_bytes() == expected.encode("utf-8")
    io.write_csv(tmp_path / "b.csv", rows, ["test_acc", "run_id", "note"])  # the given order
    assert (tmp_path / "b.csv").read_bytes().split(b"\n")[:2] == [b"test_acc,run_id,note", b"0.5,pos_enc~none/seed~0,\xc2\xb5 \xe2\x86\x92 ok"]
    io.write_csv(tmp_path / "c.csv", [], ["x", "y"])  # no rows: the header alone
    assert (tmp_path / "c.csv").read_bytes() == b"x,y\n"


def test_write_json_is_sorted_indented_and_ends_with_a_newline(tmp_path):
    io.write_json(tmp_path / "s.json", {"b": 1, "a": {"path": tmp_path / "x"}})
    assert (tmp_path / "s.json").read_bytes() == f'{{\n  "a": {{\n    "path": "{tmp_path / "x"}"\n  }},\n  "b": 1\n}}\n'.encode()


def test_write_text_and_bytes_write_exactly_what_they_are_given(tmp_path):
    io.write_text(tmp_path / "t.html", "é → ✓\n")
    assert (tmp_path / "t.html").read_bytes() == "é → ✓\n".encode("utf-8")
    io.write_bytes(tmp_path / "b.png", b"\x89PNG\r\n\x00\xff")
    assert (tmp_path / "b.png").read_bytes() == b"\x89PNG\r\n\x00\xff"
    io.write_text(tmp_path / "new" / "deep" / "x.txt", "x")  # creates missing folders
    assert (tmp_path / "new" / "deep" / "x.txt").read_text() == "x"


def test_write_dataframe_has_no_index_and_passes_options_on(tmp_path):
    import pandas as pd

    df = pd.DataFrame({"cell": ["a", "µ"], "mean": [0.5, 1 / 3]})
    io.write_dataframe(tmp_path / "d.csv", df)
    assert (tmp_path / "d.csv").read_bytes() == "cell,mean\na,0.5\nµ,0.3333333333333333\n".encode("utf-8")
    io.write_dataframe(tmp_path / "e.csv", df, float_format="%.2f")
    assert (tmp_path / "e.csv").read_bytes() == "cell,mean\na,0.50\nµ,0.33\n".encode("utf-8")


@pytest.fixture
def ascii_locale():
    """The C locale (ASCII), where open() without an encoding cannot write 'µ'."""
    import locale
    import sys

    if sys.flags.utf8_mode:
        pytest.skip("Python's UTF-8 mode is on: open() ignores the locale")
    saved = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, saved)


def test_every_text_writer_writes_utf8_whatever_the_locale(tmp_path, ascii_locale):
    import pandas as pd

    io.write_text(tmp_path / "t.txt", "µ")
    io.write_csv(tmp_path / "c.csv", [{"unit": "µ"}])
    io.write_dataframe(tmp_path / "d.csv", pd.DataFrame({"unit": ["µ"]}))
    io.write_json(tmp_path / "j.json", {"unit": "µ"})  # JSON escapes it: ASCII either way
    assert (tmp_path / "t.txt").read_bytes() == "µ".encode("utf-8")
    assert (tmp_path / "c.csv").read_bytes() == "unit\nµ\n".encode("utf-8")
    assert (tmp_path / "d.csv").read_bytes() == "unit\nµ\n".encode("utf-8")


def test_write_csv_of_one_row_and_of_none(tmp_path):
    io.write_csv(tmp_path / "one.csv", [{"b": 2, "a": 1}])  # the header from that row, in its order
    assert (tmp_path / "one.csv").read_bytes() == b"b,a\n2,1\n"
    io.write_csv(tmp_path / "none.csv", [])  # nothing known: an empty header line, not an error
    assert (tmp_path / "none.csv").read_bytes() == b"\n"
