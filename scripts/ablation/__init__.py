"""Transformer ablation study: the order task, the model, its training and the study's analysis."""

import subprocess
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parents[1]
# workflow/schemas/config.schema.yaml, through a link in the package: an installed package carries a copy
SCHEMA_PATH = PACKAGE_DIR / "config.schema.yaml"


def git(*args: str) -> str | None:
    """The output of ``git -C REPO_DIR ARGS``; None without git, outside a repository or on an error."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(REPO_DIR), *args], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def git_state() -> dict:
    """The commit of the project's repository and whether its tree differs from it (None if unknown)."""
    head = git("rev-parse", "--verify", "--quiet", "HEAD")
    status = git("status", "--porcelain") if head else None
    return {
        "git_commit": head.strip() if head else None,
        "git_dirty": None if status is None else bool(status.strip()),
    }
