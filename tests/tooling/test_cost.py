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


def test_the_markdown_table_carries_the_stamp_of_the_checkout_that_trained_the_runs(tmp_path):
    """--out writes benchmarks/cost.md's form: the stamp of the git checkout that holds --results (the
    commit whose run trained them), the command, a row per study and the total ratio."""
    import subprocess

    s2 = BASE["studies"]["s1"] | {"fixed": {"arch": "encoder", "heads": 1, "depth": 1}, "factors": {"norm": ["pre"]}}
    raw = dict(BASE, studies={"s1": BASE["studies"]["s1"], "s2": s2})
    clone = tmp_path / "clone"
    (clone / "results").mkdir(parents=True)
    (clone / "config.yaml").write_text(yaml.safe_dump(raw))
    for cmd in (["init", "-q"], ["add", "config.yaml"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]):
        subprocess.run(["git", "-C", str(clone), *cmd], check=True, capture_output=True)
    commit = subprocess.run(["git", "-C", str(clone), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=True).stdout.strip()  # fmt: skip
    cfg = C.validate(raw)
    store = clone / "results" / "runs"
    for run, seconds in [*((r, 3.0) for r in cfg.studies["s1"].runs()), *((r, 1.0) for r in cfg.studies["s2"].runs())]:
        (store / run.hash).mkdir(parents=True, exist_ok=True)
        (store / run.hash / "metrics.csv").write_text(f"train_seconds\n{seconds}\n")
    old = tmp_path / "old" / "s1"
    old.mkdir(parents=True)
    (old / "summary.csv").write_text("hash\n" + "\n".join(r.hash for r in cfg.studies["s1"].runs()) + "\n")
    md = tmp_path / "cost.md"
    args = ["--config", str(clone / "config.yaml"), "--old-runs", str(tmp_path / "old"), "--results",
            str(clone / "results"), "--store", str(store), "--out", str(md)]  # fmt: skip
    assert cost.main(args) == 0
    text = md.read_text()
    assert f"Measured at commit {commit} on " in text and "with uncommitted changes" not in text
    assert "python benchmarks/cost.py " + " ".join(args) in text
    ratio = (4 * 3.0 + 2 * 1.0) / (4 * 3.0)
    assert f"Ratio: **{ratio:.3f}** ({(ratio - 1) * 100:+.1f} %)." in text
    rows = [line for line in text.splitlines() if line.startswith(("| s1 ", "| s2 "))]
    assert [r.split(" | ")[:2] for r in rows] == [["| s1", "4"], ["| s2", "0"]]
    assert rows[0].endswith(" | 1.0 |") and rows[1].endswith(" | - |")  # a study the earlier design lacks has no ratio


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


def test_a_config_the_earlier_design_lacks_entirely_has_no_ratio_rather_than_a_division_by_zero(tmp_path):
    """Every study is new: the earlier design trained nothing, so no ratio (NaN) in the table, the total,
    the JSON and the Markdown alike."""
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(BASE))
    store = tmp_path / "runs"
    for run in C.validate(BASE).studies["s1"].runs():
        (store / run.hash).mkdir(parents=True, exist_ok=True)
        (store / run.hash / "metrics.csv").write_text("train_seconds\n2.0\n")
    (tmp_path / "old").mkdir()
    out, md = tmp_path / "cost.json", tmp_path / "cost.md"
    assert cost.main(["--config", str(tmp_path / "config.yaml"), "--old-runs", str(tmp_path / "old"), "--results",
                      str(tmp_path / "none"), "--store", str(store), "--json", str(out), "--out", str(md)]) == 0  # fmt: skip
    data = json.loads(out.read_text())
    assert data["ratio"] != data["ratio"] and all(r["ratio"] != r["ratio"] for r in data["studies"])  # NaN
    assert "Ratio: none (the earlier design trained none of these studies)." in md.read_text()
    assert cost.ratio(3.0, 2.0) == 1.5


def test_an_earlier_run_of_settings_the_config_no_longer_has_is_priced_at_its_recorded_seconds(tmp_path):
    """An earlier reference's run the store cannot hold (its settings left the config) costs the
    train_seconds that reference recorded, its scope's summary counted; without them, a one-line refusal."""
    raw = dict(BASE, studies={"s1": BASE["studies"]["s1"]})
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(raw))
    s1 = C.validate(raw).studies["s1"]
    store = tmp_path / "runs"
    for run in s1.runs():
        (store / run.hash).mkdir(parents=True, exist_ok=True)
        (store / run.hash / "metrics.csv").write_text("train_seconds\n2.0\n")
    old = tmp_path / "old" / "s1"
    (old / "scope").mkdir(parents=True)
    (old / "summary.csv").write_text("hash,train_seconds\n" + "".join(f"{r.hash},9.0\n" for r in s1.runs()) + "gone,5.0\n")
    (old / "scope" / "summary.csv").write_text("hash,train_seconds\nscoped,7.0\n")
    out = tmp_path / "cost.json"
    args = ["--config", str(tmp_path / "config.yaml"), "--old-runs", str(tmp_path / "old"), "--results",
            str(tmp_path / "none"), "--store", str(store), "--json", str(out)]  # fmt: skip
    assert cost.main(args) == 0
    [row] = json.loads(out.read_text())["studies"]
    # the store's runs at the store's seconds (2.0, not the 9.0 recorded), the two gone runs at theirs
    assert (row["old_runs"], row["old_measured"], row["old_recorded"], row["old_seconds"]) == (6, 4, 2, 4 * 2 + 5 + 7)
    (old / "summary.csv").write_text("hash\ngone\n")
    import pytest

    with pytest.raises(SystemExit, match="run gone is in neither the store, the config's grid nor its folder's"):
        cost.main(args)
