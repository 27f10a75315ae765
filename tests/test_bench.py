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


def _harness():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_run", REPO / "benchmarks" / "run.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    return module


def test_readme_goals_table_is_the_committed_harness_output():
    """The README's speed table is written by the harness (never typed in): it is exactly what
    update_readme renders from the committed benchmarks/results.json, and the rest is untouched."""
    bench = _harness()
    results = json.loads((REPO / "benchmarks" / "results.json").read_text())
    assert not results["quick"]
    readme = (REPO / "README.md").read_text()
    assert readme.count(bench.README_START) == 1 and readme.count(bench.README_END) == 1
    assert bench.update_readme(readme, results) == readme
    for goal in results["goals"]:
        assert f"| {goal['shown']} | **{goal['status']}** |" in readme
    # a different run replaces the block and nothing else
    changed = json.loads(json.dumps(results))
    changed["goals"][0]["shown"] = "0.42 (made up for this test)"
    updated = bench.update_readme(readme, changed)
    assert "0.42 (made up for this test)" in updated
    before, after = readme.split(bench.README_START), updated.split(bench.README_START)
    assert before[0] == after[0] and before[1].split(bench.README_END)[1] == after[1].split(bench.README_END)[1]
    with pytest.raises(ValueError, match="no block"):
        bench.update_readme("# a README without the markers\n", results)
