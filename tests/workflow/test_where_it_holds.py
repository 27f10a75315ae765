"""Where a verdict holds, through the real pipeline: a study of the lesson's model without positional
encoding (permutation-invariant: every run's accuracy is exactly 0.5, by construction) with two scoped
claims, trained, judged and reported by Snakemake.

- "at chance" over pos_enc [none, sinusoidal]: with sinusoidal encoding the same model sees order and
  learns the task (the lesson's 100 %), so the claim is false there by construction: LIMITED, naming
  that universe.
- "at least 0.4" over lr [0.003, 0.01]: an order-blind model sits at 0.5 at any learning rate, so the
  claim holds in every universe: ROBUST.
Six seeds: 1/64 per universe, decisive at Holm over the two claims and over the two universes."""

import pandas as pd
import pytest
import yaml

from conftest import copy_project, snakemake

CONFIG = {
    "outdir": "scoped",
    "train_threads": 1,
    "defaults": {"d_model": 16, "n_train": 400, "n_test": 150, "noise": 0.1, "lr": 0.01, "epochs": 300},
    "studies": {
        "blind": {
            "description": "The lesson's attention-only model without positional encoding.",
            "fixed": {"arch": "attention_only", "heads": 4, "seq_len": 8, "pos_enc": "none"},
            "seeds": [0, 1, 2, 3, 4, 5],
            "claims": [
                {"id": "at-chance", "statement": "An order-blind model is at chance.", "kind": "at_value",
                 "target": 0.5, "tolerance": 0.0034, "robust_over": {"pos_enc": ["none", "sinusoidal"]}},
                {"id": "above-0.4", "statement": "It never falls below 0.4.", "kind": "at_least", "threshold": 0.4,
                 "robust_over": {"lr": [0.003, 0.01]}},
            ],
        },
    },
    "verify": {"sample": 1},
}  # fmt: skip


@pytest.mark.slow  # a Snakemake run of its own, a minute or more on 2 cores
def test_a_universe_false_by_construction_makes_the_claim_limited_and_one_true_everywhere_robust(tmp_path):
    work = copy_project(tmp_path)
    (work / "config" / "scoped.yaml").write_text(yaml.safe_dump(CONFIG, sort_keys=False))
    snakemake(work, "--cores", "2", "--configfile", "config/scoped.yaml")
    results = work / "scoped" / "results" / "blind"
    claims = pd.read_csv(results / "tables" / "claims.csv").set_index("id")
    assert claims.loc["at-chance", "verdict"] == "SUPPORTED" and claims.loc["at-chance", "scope"] == "LIMITED"
    assert "fails at pos_enc sinusoidal" in claims.loc["at-chance", "scope_detail"]
    assert "holds at pos_enc none" in claims.loc["at-chance", "scope_detail"]
    assert claims.loc["above-0.4", "verdict"] == "SUPPORTED" and claims.loc["above-0.4", "scope"] == "ROBUST"
    assert claims.loc["above-0.4", "scope_p"] <= 0.05
    scope = pd.read_csv(results / "tables" / "scope.csv")
    rows = {(r.id, r.universe): (r.own, r.verdict, r.n) for r in scope.itertuples()}
    assert rows == {
        ("at-chance", "pos_enc=none"): (True, "SUPPORTED", 6),
        ("at-chance", "pos_enc=sinusoidal"): (False, "CONTRADICTED", 6),
        ("above-0.4", "lr=0.003"): (False, "SUPPORTED", 6),
        ("above-0.4", "lr=0.01"): (True, "SUPPORTED", 6),
    }
    # the other universes trained only their own runs, at the study's seeds, and the seeds' values are kept
    seeds = pd.read_csv(results / "tables" / "scope_seeds.csv")
    assert sorted(seeds[seeds["universe"] == "pos_enc=sinusoidal"]["seed"]) == list(range(6))
    assert (seeds[seeds["universe"] == "pos_enc=none"]["lo"] == 0.5).all()
    assert (results / "figures" / "where_it_holds.png").stat().st_size > 0
    html = (work / "scoped" / "reports" / "ablation_report.html").read_text()
    assert 'id="where-it-holds"' in html and 'id="scope-at-chance"' in html
    assert '<span class="scope LIMITED">LIMITED</span>' in html and '<span class="scope ROBUST">ROBUST</span>' in html
