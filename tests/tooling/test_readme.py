"""The README's front door is generated: its findings table is every claim of reference/, its runs
table the plan's count for the default config, and `make readme` writes both. A planted disagreement
with reference/ (a verdict, a claim added) fails the check, and so does a hand edit of the table."""

import shutil
import subprocess
import sys

import pandas as pd
import pytest

from ablation import config, readme
from conftest import REPO

CFG = config.load(REPO / "config" / "config.yaml")
README = (REPO / "README.md").read_text(encoding="utf-8")


@pytest.fixture
def reference(tmp_path):
    """A copy of reference/ to plant disagreements in."""
    return shutil.copytree(REPO / "reference", tmp_path / "reference")


def test_the_readme_findings_and_runs_are_those_of_reference_and_the_plan():
    assert readme.differences(README, CFG, REPO / "reference") == []


def test_the_findings_table_has_one_row_per_claim_of_reference_with_its_verdict_and_scope():
    rows = [line for line in readme.block(README, "findings").splitlines() if line.startswith("| ") and "`" in line]
    claims = pd.concat([pd.read_csv(p, dtype=str, keep_default_na=False) for p in sorted((REPO / "reference").glob("*/claims.csv"))])
    assert len(rows) == len(claims)
    for c in claims.to_dict("records"):
        [row] = [r for r in rows if f"`{c['id']}`" in r]
        assert f"**{c['verdict']}**" in row and f"| {c.get('scope', '')} |" in row, row


def test_a_verdict_changed_in_reference_fails_the_check(reference):
    path = reference / "lesson" / "claims.csv"
    claims = pd.read_csv(path)
    claims.loc[claims["id"] == "C2-pe-100", "verdict"] = "CONTRADICTED"
    claims.to_csv(path, index=False)
    found = readme.differences(README, CFG, reference)
    assert len(found) == 1 and "findings" in found[0] and "C2-pe-100" in found[0], found


def test_a_claim_added_to_reference_fails_the_check(reference):
    path = reference / "length" / "claims.csv"
    claims = pd.read_csv(path)
    extra = claims.iloc[[0]].assign(id="L9-planted", statement="A planted claim.")
    pd.concat([claims, extra]).to_csv(path, index=False)
    found = readme.differences(README, CFG, reference)
    assert len(found) == 1 and "findings" in found[0], found


def test_a_hand_edit_of_the_table_fails_the_check():
    edited = README.replace("**CONTRADICTED**", "**SUPPORTED**", 1)
    assert edited != README
    found = readme.differences(edited, CFG, REPO / "reference")
    assert len(found) == 1 and "findings" in found[0], found


def test_the_findings_read_whatever_columns_reference_has(reference):
    """Without sentence and scope columns: the evidence's first clause, and no scope."""
    path = reference / "depth" / "claims.csv"
    claims = pd.read_csv(path).drop(columns=["sentence", "scope"])
    claims.to_csv(path, index=False)
    table = readme.findings(reference, CFG)
    row = next(line for line in table.splitlines() if "`C5b-warmup-helps-post`" in line)
    assert row.split(" | ")[3] == "" and "10 improved, 0 worsened, 5 tied of 15 seeds" in row, row


def test_make_readme_check_exits_1_on_a_readme_out_of_step(tmp_path, reference):
    (reference / "lesson" / "claims.csv").write_text(
        (reference / "lesson" / "claims.csv").read_text(encoding="utf-8").replace("SUPPORTED", "INCONCLUSIVE"))
    args = [sys.executable, "-m", "ablation.readme", "--check", "--reference", str(reference)]
    proc = subprocess.run(args, cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 1 and "make readme" in proc.stdout, proc.stdout + proc.stderr
    proc = subprocess.run(args[:-2], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 160


def test_the_readme_opens_with_its_picture_and_its_findings_within_60_lines():
    """The picture, then the findings table (a row per claim of the default config: 33) and its tally."""
    head = "\n".join(README.splitlines()[:60])
    assert f"]({readme.PICTURE})" in head and (REPO / readme.PICTURE).is_file()
    assert "<!-- END findings -->" in head


def test_the_pages_list_every_claim_key_and_kind_of_the_schema_and_every_local_rule_of_the_workflow():
    assert readme.page_differences() == []
    keys = readme.block((REPO / "config" / "README.md").read_text(encoding="utf-8"), "claim-keys")
    for key in ("metric", "lengths", "robust_over", "exact"):
        assert f"| `{key}` |" in keys
    assert "exact_match" in keys  # a task's metric, as the default config's length study reads


def test_a_local_rule_added_to_the_workflow_fails_the_pages_check(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(REPO / "workflow", root / "workflow")
    shutil.copytree(REPO / "docs", root / "docs")
    shutil.copytree(REPO / "config", root / "config")
    rules = root / "workflow" / "rules" / "common.smk"
    rules.write_text(rules.read_text(encoding="utf-8").replace("localrules:\n", "localrules:\n    planted,\n", 1))
    found = readme.page_differences(root)
    assert found == ["docs/cluster.md's localrules block differs from its source (run `make readme`)"], found


def test_a_claim_the_reference_judged_with_another_estimand_says_so(reference):
    """reference/ judged a claim with the estimand of its day: where the config now states another, the
    findings row says which, and the command that judges it anew."""
    cfg = config.load(REPO / "config" / "config.yaml")
    study, claim = next((name, c) for name, s in cfg.studies.items() for c in s.claims if not c.exact)
    path = reference / study / "claims.csv"
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    other = "share" if claim.estimand == "mean" else "mean"
    table.loc[table["id"] == claim.id, "estimand"] = other
    table.to_csv(path, index=False)
    text = readme.findings(reference, cfg)
    row = next(line for line in text.splitlines() if f"`{claim.id}`" in line)
    assert f"(judged with the estimand {other}; the config now asks for {claim.estimand}: `make reproduce STUDY={study}`" in row


def test_the_findings_count_the_published_rankings_the_reference_reproduces(reference):
    """A study's published table in reference/ is read into one sentence: how many rankings hold, and
    for each the pairs in the paper's order here; moving one level's mean out of order changes it."""
    for other in reference.glob("*/published.csv"):
        other.unlink()
    tab = pd.DataFrame({"level": ["none", "alibi", "rope"], "here_mean": [0.9, 0.5, 0.1], "published": [0.99, 0.29, 0.0]})
    tab.to_csv(reference / "length" / "published.csv", index=False)
    line = readme.rankings(reference, CFG)[-1]
    assert "reproduced: **1 of 1**" in line and "`length` reproduced: 3 of 3 pairs" in line
    tab.assign(here_mean=[0.9, 0.05, 0.1]).to_csv(reference / "length" / "published.csv", index=False)
    line = readme.rankings(reference, CFG)[-1]
    assert "reproduced: **0 of 1**" in line and "`length` not reproduced: 2 of 3 pairs" in line and "alibi < rope" in line
