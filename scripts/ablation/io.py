"""Atomic file writes: a temporary file in the destination's folder, fsync, then rename.

A job killed half-way therefore never leaves a file that looks complete: either the old file (or
none) is there, or the whole new one.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import tempfile
from pathlib import Path


def _file_mode() -> int:
    """What open() would give a new file: 0o666 minus the process's umask (mkstemp makes it 0o600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextlib.contextmanager
def atomic_open(path, mode: str = "w", **kwargs):
    """Open a temporary sibling of ``path`` for writing; on success, rename it onto ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, _file_mode())  # readable by others as the umask allows, like any written file
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_text(path, text: str) -> None:
    with atomic_open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def write_bytes(path, data: bytes) -> None:
    with atomic_open(path, "wb") as fh:
        fh.write(data)


def write_json(path, obj) -> None:
    write_text(path, json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n")


def write_csv(path, rows: list[dict], fieldnames: list[str] | None = None) -> None:
    """Rows of dicts as CSV (header from ``fieldnames`` or the first row's keys)."""
    if fieldnames is None:
        fieldnames = list(rows[0]) if rows else []
    with atomic_open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fieldnames, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def write_dataframe(path, df, **to_csv_kwargs) -> None:
    """A pandas DataFrame as CSV, atomically."""
    with atomic_open(path, "w", encoding="utf-8", newline="") as fh:
        df.to_csv(fh, index=False, lineterminator="\n", **to_csv_kwargs)
