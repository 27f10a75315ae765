"""The studies STUDY= names (ablation.selection): in the config's order, the studies their claims
read, and the report of them."""

import json
from pathlib import Path

import pytest

from ablation import selection
from ablation.config import ConfigError, load, validate

REPO = Path(__file__).resolve().parents[2]
SMOKE = load(REPO / "config" / "smoke.yaml")


def with_family(family: str):
    """The smoke config with ``stats.family`` set."""
    raw = json.loads(json.dumps(SMOKE.raw))
    raw["stats"]["family"] = family
    return validate(raw)


def test_study_lists_name_studies_in_the_config_order_and_refuse_unknown_ones():
    assert selection.names(SMOKE, "length, lesson") == ["lesson", "length"]
    assert selection.names(SMOKE, "") == list(SMOKE.studies)
    with pytest.raises(ConfigError, match="no study 'lenght'.*its studies: lesson, factorial"):
        selection.names(SMOKE, "lenght")
    assert selection.report_file(SMOKE, ["lesson", "length"]) == "smoke/reports/ablation_report.lesson+length.html"
    assert selection.report_file(SMOKE, list(SMOKE.studies)) == "smoke/reports/ablation_report.html"
    assert selection.left_out(SMOKE, ["lesson", "length"]) == ["factorial", "depth", "position"]


def test_one_study_s_verdicts_read_its_own_runs_unless_the_config_is_one_family():
    assert selection.judged_with(SMOKE, ["length"]) == ["length"]
    assert selection.why_every_study(SMOKE, ["length"]) is None
    one_family = with_family("config")
    assert selection.judged_with(one_family, ["length"]) == list(SMOKE.studies)
    assert "every study of the config trains" in selection.why_every_study(one_family, ["length"])



def test_a_run_s_targets_name_the_studies_it_makes_and_anything_else_makes_every_study():
    assert selection.from_targets(SMOKE, ["smoke/reports/ablation_report.length+lesson.html"]) == ["lesson", "length"]
    assert selection.from_targets(SMOKE, ["smoke/results/depth/claims.csv", "./smoke/results/lesson"]) == [
        "lesson", "depth"]  # fmt: skip
    every = list(SMOKE.studies)
    assert selection.from_targets(SMOKE, []) == every
    assert selection.from_targets(SMOKE, ["all"]) == every
    assert selection.from_targets(SMOKE, ["smoke/reports/ablation_report.html"]) == every
    assert selection.from_targets(SMOKE, ["smoke/results/depth/claims.csv", "all"]) == every
    assert selection.from_targets(with_family("config"), ["smoke/results/depth/claims.csv"]) == every
