"""The package installed alone: `pip install` of this checkout, without extras, into a fresh venv
brings what `import ablation` and the rules need and none of the test tools, and that venv's
Snakemake runs the smoke study from another folder, the pipeline used as a Snakemake module
(docs/own-ablation.md). Slow: pip installs torch and the rest from the package index."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import REPO

SNAKEFILE = f"""configfile: "config/config.yaml"


module ablation:
    snakefile:
        "{REPO}/workflow/Snakefile"
    config:
        config


use rule * from ablation
"""


def _run(cmd, cwd, env, timeout=1800) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))}:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    return proc


@pytest.mark.slow
def test_the_package_alone_imports_ablation_and_runs_the_smoke_study_as_a_module_from_another_folder(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "ABLATION_FORK_SERVER")}
    venv = tmp_path / "venv"
    _run([shutil.which("python3.11") or sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    python = venv / "bin" / "python"
    source = tmp_path / "source"  # what the package is built from (pip builds in the tree it is given)
    shutil.copytree(REPO / "scripts", source / "scripts", ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"))
    shutil.copy(REPO / "pyproject.toml", source)
    _run([python, "-m", "pip", "install", "--quiet", str(source)], tmp_path, env)

    installed = {line.split("==")[0].lower() for line in _run([python, "-m", "pip", "freeze"], tmp_path, env).stdout.split()}
    assert {"torch", "snakemake", "snakemake-executor-plugin-slurm", "transformer-ablation"} <= installed
    assert not installed & {"pytest", "playwright", "mutmut", "snakefmt"}, "a test tool came with the package"

    folder = tmp_path / "elsewhere"
    (folder / "workflow").mkdir(parents=True)
    (folder / "config").mkdir()
    where = _run([python, "-c", "import ablation; print(ablation.__file__)"], folder, env).stdout.strip()
    assert Path(where).is_relative_to(venv), f"imported {where}, not the installed package"

    (folder / "workflow" / "Snakefile").write_text(SNAKEFILE)
    shutil.copy(REPO / "config" / "smoke.yaml", folder / "config" / "config.yaml")
    _run([venv / "bin" / "snakemake", "--cores", "2"], folder, env)
    assert (folder / "smoke" / "reports" / "ablation_report.html").is_file()
    hashes = set()
    for study in ("lesson", "factorial", "depth", "position"):
        summary = pd.read_csv(folder / "smoke" / "results" / study / "summary.csv")
        assert len(summary) and set(summary["status"]) == {"ok"}, study
        hashes |= set(pd.read_csv(folder / "smoke" / "results" / study / "runs.csv")["hash"])
    assert hashes <= {p.name for p in (folder / "results" / "runs").iterdir()}  # the folder's own run store
