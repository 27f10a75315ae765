"""benchmarks/reproduce.py's outputs: one file pair per config, the report found under the config's
outdir, and a Markdown file that carries its stamp and every step it timed."""

import importlib.util
import json
import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))  # reproduce.py imports measured.py from its folder
_spec = importlib.util.spec_from_file_location("reproduce", REPO / "benchmarks" / "reproduce.py")
reproduce = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reproduce)
measured = sys.modules["measured"]


def test_each_config_writes_its_own_pair_of_files(tmp_path):
    assert reproduce.outputs(tmp_path, "config/config.yaml") == (tmp_path / "reproduce.md", tmp_path / "reproduce.json")
    assert reproduce.outputs(tmp_path, "config/smoke.yaml") == (tmp_path / "reproduce-smoke.md",
                                                                tmp_path / "reproduce-smoke.json")  # fmt: skip
    declared = {m.path for m in measured.MEASURED}
    for config in ("config/config.yaml", "config/smoke.yaml"):
        for path in reproduce.outputs(REPO / "benchmarks", config):
            assert str(path.relative_to(REPO)) in declared


def test_the_report_is_found_under_the_configs_outdir(tmp_path):
    assert reproduce.find_report(tmp_path) is None
    report = tmp_path / "smoke" / "reports" / "ablation_report.html"
    report.parent.mkdir(parents=True)
    report.write_text("<html></html>")
    assert reproduce.find_report(tmp_path) == report


def test_the_markdown_carries_the_stamp_every_timed_step_and_the_disk(tmp_path):
    rec = json.loads((REPO / "benchmarks" / "reproduce.json").read_text())
    rec |= {"config": "config/smoke.yaml", "measured": {"commit": "abc1234", "date": "2026-12-03 10:00 UTC", "dirty": False},
            "test": rec["pipeline"] | {"wall_s": 600.0, "pytest": "970 passed, 11 skipped in 590.00s"},
            "disk_mb": {"venv": 1500.0, "run store": 2.0, "tables, figures, report": 9.0}}  # fmt: skip
    md = tmp_path / "reproduce-smoke.md"
    md.write_text(reproduce.render(rec))
    assert measured.read(md) == {"commit": "abc1234", "dirty": False, "date": "2026-12-03 10:00 UTC"}
    text = md.read_text()
    assert "# Reproduction time of config/smoke.yaml" in text
    assert "| `make test` (the default suite: 970 passed, 11 skipped in 590.00s) | **10.0 min** |" in text
    assert "On disk afterwards: venv 1500 MB, run store 2 MB, tables, figures, report 9 MB." in text


def test_a_failed_measurement_lands_beside_the_finished_one_never_over_it(tmp_path):
    md, js = reproduce.outputs(tmp_path, "config/config.yaml")
    assert reproduce.kept_apart(md, js, True) == (md, js)
    assert reproduce.kept_apart(md, js, False) == (tmp_path / "reproduce-failed.md", tmp_path / "reproduce-failed.json")
    ci = tmp_path / "reproduce-ci.md", tmp_path / "reproduce-ci.json"
    assert reproduce.kept_apart(*ci, False) == (tmp_path / "reproduce-ci-failed.md", tmp_path / "reproduce-ci-failed.json")
