"""One study's verdicts train that study only.

Dry runs on config/config.yaml in an empty copy of the project: one study's claims table plans the
training jobs of that study's runs (its own and its claims' scopes') and no other, unless the config
is one error family (stats.family: config), where every study's runs are planned; the report of some
studies plans theirs.
"""

import copy
import re
import subprocess

import pytest
import yaml

from ablation import config as C
from ablation import design
from conftest import BIN, REPO, copy_project, snakemake

FULL_YAML = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
FULL = C.validate(FULL_YAML)


def job_counts(dry_run_output: str) -> dict[str, int]:
    """The 'Job stats' table of a Snakemake dry run, as {rule: count}."""
    table = dry_run_output.split("Job stats:", 1)[1]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", table.split("\n\n")[0], re.M)}


def first_round(cfg, *studies) -> set:
    """The runs the first round of ``studies`` trains: their own and their claims' scopes'."""
    return {r.hash for name in studies for r in cfg.studies[name].runs() + design.scope_runs(cfg.studies[name],
                                                                                             cfg.studies[name].seeds)}  # fmt: skip


@pytest.fixture(scope="module")
def empty_copy(tmp_path_factory):
    return copy_project(tmp_path_factory.mktemp("selection"))


@pytest.mark.parametrize("study, runs", [("lesson", 12), ("length", 50)])
def test_one_study_s_claims_table_plans_that_study_s_runs_only(empty_copy, study, runs):
    counts = job_counts(snakemake(empty_copy, "-n", f"results/{study}/tables/claims.csv").stdout)
    assert counts["train"] == len(first_round(FULL, study)) == runs
    assert counts["summarize"] == 1  # its own summary: no other study's


def test_with_the_config_as_one_family_one_study_s_claims_plan_every_study_s_runs(empty_copy):
    cfg = copy.deepcopy(FULL_YAML)
    cfg["stats"]["family"] = "config"
    (empty_copy / "config" / "one_family.yaml").write_text(yaml.safe_dump(cfg))
    out = snakemake(empty_copy, "-n", "--configfile=config/one_family.yaml", "results/lesson/tables/claims.csv").stdout
    counts = job_counts(out)
    assert counts["train"] == len(first_round(FULL, *FULL.studies)) == 654
    assert counts["summarize"] == len(FULL.studies)
    plan = subprocess.run([str(BIN / "python"), "-m", "ablation.plan", "config/one_family.yaml", "--studies", "lesson",
                           "--no-timing"], cwd=empty_copy, capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert "stats.family is config: the claims of lesson are one Holm family" in plan.replace("\n  ", " ")


def test_the_report_of_two_studies_plans_their_runs_and_their_report(empty_copy):
    counts = job_counts(snakemake(empty_copy, "-n", "reports/ablation_report.lesson+length.html").stdout)
    assert counts["train"] == len(first_round(FULL, "lesson", "length"))
    assert counts["summarize"] == counts["claims"] == counts["figures"] == 2
    assert counts["selected_report"] == 1 and "report" not in counts and "verify" not in counts
