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
