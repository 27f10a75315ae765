"""benchmarks/cost.py: a design's training cost against an earlier design's, from one store; a
study the earlier design lacks costs it nothing, and a claim's scope runs (robust_over) count."""

import importlib.util
import json
import sys

import yaml

from ablation import config as C
from ablation import design
from conftest import REPO

_spec = importlib.util.spec_from_file_location("cost", REPO / "benchmarks" / "cost.py")
cost = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cost)
sys.path.insert(0, str(REPO / "tests" / "unit"))
from test_config_validation import BASE  # noqa: E402


def test_a_new_study_and_a_scope_are_priced_and_the_earlier_design_is_not(tmp_path):
    raw = dict(BASE, studies={
        "s1": BASE["studies"]["s1"] | {"claims": [{"id": "c", "statement": "x", "kind": "at_least", "threshold": 0.5,
                                                    "robust_over": {"lr": [0.003, 0.01]}}]},
        "s2": BASE["studies"]["s1"] | {"factors": {"norm": ["pre"]}},
    })  # fmt: skip
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(raw))
    cfg = C.validate(raw)
    s1 = cfg.studies["s1"]
    scope_runs = design.scope_runs(s1, s1.seeds)
    store = tmp_path / "runs"
    for run in [*s1.runs(), *scope_runs, *cfg.studies["s2"].runs()]:
        (store / run.hash).mkdir(parents=True, exist_ok=True)
        (store / run.hash / "metrics.csv").write_text("train_seconds\n2.0\n")
    old = tmp_path / "old" / "s1"
    old.mkdir(parents=True)
    (old / "summary.csv").write_text("hash\n" + "\n".join(r.hash for r in s1.runs()) + "\n")
    out = tmp_path / "cost.json"
    assert cost.main(["--config", str(tmp_path / "config.yaml"), "--old-runs", str(tmp_path / "old"),
                      "--results", str(tmp_path / "none"), "--store", str(store), "--json", str(out)]) == 0  # fmt: skip
    rows = {r["study"]: r for r in json.loads(out.read_text())["studies"]}
    assert (rows["s1"]["old_runs"], rows["s1"]["new_runs"], rows["s1"]["new_scope_runs"]) == (4, 8, 4)
    assert rows["s1"]["ratio"] == 2.0 and rows["s1"]["new_measured"] == 8
    assert (rows["s2"]["old_runs"], rows["s2"]["new_runs"], rows["s2"]["old_seconds"]) == (0, 2, 0)
    assert json.loads(out.read_text())["ratio"] == (8 + 2) * 2.0 / (4 * 2.0)


def test_an_earlier_results_folder_counts_its_rounds_and_its_scope_runs(tmp_path):
    """The runs the futility rule saves show as an earlier design whose scope trained more: its
    results folder's runs.csv and scope/runs.csv are both counted."""
    raw = dict(BASE, studies={
        "s1": BASE["studies"]["s1"] | {"claims": [{"id": "c", "statement": "x", "kind": "at_least", "threshold": 0.5,
                                                    "robust_over": {"lr": [0.003, 0.01]}}]},
    })  # fmt: skip
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(raw))
    s1 = C.validate(raw).studies["s1"]
    scope_runs = design.scope_runs(s1, s1.seeds)
    store = tmp_path / "runs"
    for run in [*s1.runs(), *scope_runs]:
        (store / run.hash).mkdir(parents=True, exist_ok=True)
        (store / run.hash / "metrics.csv").write_text("train_seconds\n2.0\n")
    old = tmp_path / "old" / "s1"
    (old / "scope").mkdir(parents=True)
    (old / "runs.csv").write_text("hash\n" + "\n".join(r.hash for r in s1.runs()) + "\n")
    (old / "scope" / "runs.csv").write_text("hash\n" + "\n".join(r.hash for r in scope_runs) + "\n")
    out = tmp_path / "cost.json"
    assert cost.main(["--config", str(tmp_path / "config.yaml"), "--old-runs", str(tmp_path / "old"),
                      "--results", str(tmp_path / "none"), "--store", str(store), "--json", str(out)]) == 0  # fmt: skip
    [row] = json.loads(out.read_text())["studies"]
    assert (row["old_runs"], row["new_runs"]) == (len(s1.runs()) + len(scope_runs), len(s1.runs()) + len(scope_runs))
