"""Where a run came from: settings, code, software, machine and time (provenance.json).

Cheap by design (one ``git`` call or two, a hash of a handful of small files), since every one of
the study's runs writes it. The training fingerprint (``training_fingerprint``) needs no torch: the
plan, the report and the workflow compute it for the code here. Anything that cannot be found (no git, no commits yet) is recorded as
None rather than failing the run.
"""

from __future__ import annotations

import datetime
import hashlib
import importlib.metadata
import json
import os
import platform
import socket
import sys

from . import PACKAGE_DIR, REPO_DIR, git_state

LAUNCHER_VAR = "ABLATION_LAUNCHER"  # "fork-server" in a child of ablation.forkserver: launcher() reads it


def code_files() -> list:
    """The project's own code that a run executes: scripts/ablation/*.py, sorted by name."""
    return sorted(PACKAGE_DIR.glob("*.py"), key=lambda p: p.name)


def code_sha256() -> str:
    """sha256 over (name, contents) of every file of code_files()."""
    digest = hashlib.sha256()
    for path in code_files():
        digest.update(path.relative_to(REPO_DIR).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


TRAINING_PATH = ("train.py", "model.py", "architectures.py", "data.py", "settings.py", "registry.py")
"""The modules whose code computes a run's numbers. train.py's other imports write files (io), record
where a run came from (provenance), name columns (outputs) or check a plugin (plugins, validation):
an edit there changes no run, so it is not in the fingerprint. tests/unit/test_fingerprint.py holds
this list to train.py's import closure."""


def torch_version() -> str:
    """torch's version as its package metadata states it: the plan reads it without importing torch."""
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def training_code() -> dict[str, str]:
    """sha256 of each module of TRAINING_PATH, by file name."""
    return {name: hashlib.sha256((PACKAGE_DIR / name).read_bytes()).hexdigest() for name in TRAINING_PATH}


def training_fingerprint(threads: int, plugin_code: dict | None = None, code: dict | None = None) -> str:
    """What a run's training executes, in one sha256: the training path's code (``training_code``),
    the plugins' code a run uses (its settings' ``plugin_code``), torch's version and the thread count.
    Two runs of the same settings and fingerprint give the same numbers on one machine."""
    record = {"code": code if code is not None else training_code(), "plugins": plugin_code or {},
              "torch": torch_version(), "threads": int(threads)}  # fmt: skip
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def launcher() -> str:
    """How this training process was started: "fork-server" (a child of the fork server) or "process"."""
    return os.environ.get(LAUNCHER_VAR, "process")


def utc_now_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def collect(settings, started_at: str, duration_seconds: float, device: str, threads: int = 1) -> dict:
    """The provenance record of one run."""
    # imported here: the plan and the workflow read the training fingerprint without loading torch
    import numpy as np
    import torch

    try:
        cpu_capability = torch.backends.cpu.get_cpu_capability()
    except AttributeError:  # older torch
        cpu_capability = None
    return {
        "settings": settings.as_dict(),
        "seed": settings.seed,
        "data_seed": settings.effective_data_seed,
        **git_state(),
        "code_sha256": code_sha256(),
        "code_files": [p.relative_to(REPO_DIR).as_posix() for p in code_files()],
        "training_code": training_code(),
        "training_fingerprint": training_fingerprint(threads, getattr(settings, "plugin_code", None)),
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "torch": torch.__version__,
        "numpy": np.__version__,
        "device": device,
        "launcher": launcher(),
        "torch_num_threads": torch.get_num_threads(),
        "torch_num_interop_threads": torch.get_num_interop_threads(),
        "cpu_capability": cpu_capability,
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "started_at": started_at,
        "duration_seconds": duration_seconds,
    }
