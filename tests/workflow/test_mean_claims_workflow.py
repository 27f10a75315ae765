"""Claims on the mean through a real Snakemake run: an `equivalent` claim between two settings that both
learn the task is SUPPORTED within 8 seeds, and one between a model blind to order (exactly chance) and
one that learns it is CONTRADICTED. A small study: the lesson's attention-only classifier at the default
config's settings, 8 seeds of 4 cells (heads 2 and 4, without and with sinusoidal encoding), a few
seconds a run.
"""

import copy

import pandas as pd
import pytest
import yaml

from conftest import REPO, copy_project, snakemake

SMOKE = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
DEFAULTS = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["defaults"]
CLAIMS = "results/means/tables/claims.csv"
MEAN = {"kind": "equivalent", "margin": 0.02, "estimand": "mean"}


def study() -> dict:
    cfg = {k: copy.deepcopy(v) for k, v in SMOKE.items() if k not in ("studies", "report")}
    cfg["outdir"] = "."
    cfg["defaults"] = copy.deepcopy(DEFAULTS)  # the lesson's own settings: it learns the task in every seed
    cfg["studies"] = {"means": {
        "description": "Two claims on the mean: one both settings meet, one far outside its margin.",
        "fixed": {"arch": "attention_only", "seq_len": 8},
        "factors": {"pos_enc": ["none", "sinusoidal"], "heads": [4, 2]},
        "seeds": list(range(8)),
        "claims": [
            {"id": "E1-heads-alike", "statement": "With sinusoidal encoding 2 heads do as well as 4 on average.",
             "factor": "heads", "levels": [4, 2], "where": {"pos_enc": "sinusoidal"}} | MEAN,
            {"id": "E2-order-blind-unlike", "statement": "Without encoding the model does as well as with it.",
             "factor": "pos_enc", "levels": ["sinusoidal", "none"], "where": {"heads": 4}} | MEAN,
        ],
    }}  # fmt: skip
    return cfg


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    work = copy_project(tmp_path_factory.mktemp("means"))
    (work / "config" / "means.yaml").write_text(yaml.safe_dump(study(), sort_keys=False))
    snakemake(work, "--cores", "2", "--configfile=config/means.yaml", CLAIMS)
    summary = pd.read_csv(work / "results" / "means" / "summary.csv")
    return pd.read_csv(work / CLAIMS, keep_default_na=False).set_index("id"), summary


def test_two_settings_that_both_learn_the_task_are_equivalent_on_the_mean_within_8_seeds(rows):
    claims, summary = rows
    learned = summary[summary["pos_enc"] == "sinusoidal"]
    assert (learned["test_acc"] >= 0.95).all()  # the premise: both settings learn it in every seed
    row = claims.loc["E1-heads-alike"]
    assert row["verdict"] == "SUPPORTED", row["sentence"]
    assert row["estimand"] == "mean" and row["n"] == 8
    # every seed ties: the t-test's assumption fails, and the row says which test decided instead
    assert "normality checked on the 8 seeds: fails: all 8 seeds tie (difference 0); share of seeds instead" in row[
        "evidence"]  # fmt: skip


def test_chance_against_a_model_that_learns_is_contradicted_on_the_mean(rows):
    claims, summary = rows
    blind = summary[summary["pos_enc"] == "none"]
    assert (blind["test_acc"] == 0.5).all()  # exactly chance: the swap twins
    row = claims.loc["E2-order-blind-unlike"]
    assert row["verdict"] == "CONTRADICTED", row["sentence"]
    assert row["n"] == 8 and "p = 0.00391 for CONTRADICTED" in row["evidence"]
