"""A scratch copy of the project to run Snakemake in (used by the tests and the benchmark harness)."""

from __future__ import annotations

import shutil
from pathlib import Path

from . import REPO_DIR


def copy_project(dest: Path) -> Path:
    """Copy the workflow, the configs and environment.yml (no results) into ``dest``; return it.

    The code itself is not copied: jobs import the installed ``ablation`` package.
    """
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("workflow", "config"):
        shutil.copytree(REPO_DIR / name, dest / name)
    shutil.copyfile(REPO_DIR / "environment.yml", dest / "environment.yml")
    (dest / "results").mkdir()
    (dest / "reports").mkdir()
    return dest
