"""Smoke test of the benchmark harness (benchmarks/run.py --quick): every section, goal line and check.

Slow (2-5 minutes on 2 cores: a dozen Snakemake and torch start-ups), so it runs in CI or with
RUN_SLOW=1. It writes into a temp folder, never over benchmarks/results.md.
"""

import json
import subprocess
import sys

import pytest

from conftest import REPO

SECTIONS = (
    "## Goals",
    "## 1. End to end",
    "## 2. Per-job overhead",
    "## 3. Training speed",
    "## 4. Scale",
    "## 5. Where the per-job overhead goes, and levers",
    "## Notes",
)
GOAL_KEYS = ("e2e", "e2e_stretch", "same_metrics", "overhead", "efficiency", "speed", "dry_run", "aggregate", "rss")


@pytest.mark.slow
def test_quick_harness_writes_every_section_and_goal(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "run.py"), "--quick", "--no-baseline-pipeline", "--out-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=900, cwd=REPO,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    md = (tmp_path / "results.md").read_text()
    for heading in SECTIONS:
        assert heading in md, heading
    for fact in ("QUICK", "- Machine:", "- Versions:", "- Load (1-min average):"):
        assert fact in md, fact
    results = json.loads((tmp_path / "results.json").read_text())
    goals = {g["key"]: g for g in results["goals"]}
    assert set(goals) == set(GOAL_KEYS)
    for key, goal in goals.items():
        assert goal["status"] in ("PASS", "FAIL"), (key, goal)
        assert f"| {goal['goal']} | {goal['target']} | {goal['shown']} | **{goal['status']}** |" in md
    # the pieces really ran: same metrics compared, every aggregation step timed, a training job measured
    e2e = results["sections"]["e2e"]
    assert e2e["agreement"]["n_compared"] == e2e["n_runs"] > 0
    assert results["sections"]["scale"]["aggregate"]["ok"], results["sections"]["scale"]["aggregate"]
    assert results["sections"]["scale"]["train_job"]["maxrss_mb"] > 50
    # the pipeline was measured as shipped (every run forked from the fork server), and section 5's
    # training jobs started the way their rows say
    checks = {c["check"]: c for c in results["checks"]}
    assert any(name.startswith("pipeline as shipped") for name in checks), checks
    assert any(name.startswith("section 5") for name in checks), checks
    for name, check in checks.items():
        assert check["status"] == "PASS", check
        assert f"| {name} | {check['shown']} | **PASS** |" in md


def test_render_rewrites_results_md_from_the_committed_json(tmp_path):
    """--render re-renders results.md from a results.json without measuring: every goal, check and
    section of the committed full run appears."""
    results = json.loads((REPO / "benchmarks" / "results.json").read_text())
    cmd = [sys.executable, str(REPO / "benchmarks" / "run.py"), "--render", str(REPO / "benchmarks" / "results.json"),
           "--out-dir", str(tmp_path)]  # fmt: skip
    subprocess.run(cmd, cwd=REPO, check=True, capture_output=True, text=True, timeout=300)
    md = (tmp_path / "results.md").read_text()
    for heading in SECTIONS:
        assert heading in md, heading
    for goal in results["goals"]:
        assert f"| {goal['goal']} | {goal['target']} |" in md
