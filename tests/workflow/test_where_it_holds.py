"""Where a verdict holds, through the real pipeline: a study of the lesson's model without positional
encoding (permutation-invariant: every run's accuracy is exactly 0.5, by construction) with two scoped
claims, trained, judged and reported by Snakemake.

- "at chance" over pos_enc [none, sinusoidal]: with sinusoidal encoding the same model sees order and
  learns the task (the lesson's 100 %), so the claim is false there by construction: LIMITED, naming
  that universe.
- "at least 0.4" over lr [0.003, 0.01]: an order-blind model sits at 0.5 at any learning rate, so the
  claim holds in every universe: ROBUST.
Six seeds: 1/64 per universe, decisive in the family's one procedure over the claims and their scopes.

The verdicts' edges, in the same Snakemake run:
- a study of the same order-blind model over heads [2, 4]: every seed's two settings tie (0.5 and
  0.5), so "4 heads do better than 2" is CONTRADICTED (no seed improved: a tie did not improve), and
  "at least 0.9" over lr [0.003, 0.01] fails in every universe: CONTRADICTED, scope ROBUST;
- an adaptive study of the lesson's model over pos_enc [none, sinusoidal] on `converged`, with ties
  left out (McNemar's reading): at 300 epochs sinusoidal converges and none does not, so it holds;
  at 2 epochs neither converges, every seed ties, and the seeds left to max_seeds could not decide
  that universe: it gets no more, and the scope says why."""

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
CONFIG["studies"] |= {
    "tied": {
        "description": "The order-blind model at 2 and 4 heads: exactly 0.5 at both, in every seed.",
        "fixed": {"arch": "attention_only", "seq_len": 8, "pos_enc": "none"},
        "factors": {"heads": [2, 4]},
        "seeds": [0, 1, 2, 3, 4, 5],
        "claims": [
            {"id": "more-heads-better", "statement": "Four heads do better than two.", "kind": "better",
             "factor": "heads", "levels": [2, 4]},
            {"id": "learns", "statement": "It reaches 0.9.", "kind": "at_least", "threshold": 0.9,
             "robust_over": {"lr": [0.003, 0.01]}},
        ],
    },
    "mcnemar": {
        "description": "The lesson's model with and without positional encoding; converged, ties left out.",
        "fixed": {"arch": "attention_only", "heads": 4, "seq_len": 8},
        "factors": {"pos_enc": ["none", "sinusoidal"]},
        "seeds": [0, 1, 2, 3, 4, 5],
        "adaptive": {"max_seeds": 8, "batch": 2},
        "claims": [
            {"id": "pe-helps-converge", "statement": "Positional encoding helps the model converge.", "kind": "better",
             "factor": "pos_enc", "levels": ["none", "sinusoidal"], "metric": "converged", "ties": "exclude",
             "robust_over": {"epochs": [2, 300]}},
        ],
    },
}  # fmt: skip


@pytest.fixture(scope="module")
def scoped(tmp_path_factory):
    """The three studies trained, judged and reported once: (project copy, its outdir)."""
    work = copy_project(tmp_path_factory.mktemp("scoped"))
    (work / "config" / "scoped.yaml").write_text(yaml.safe_dump(CONFIG, sort_keys=False))
    snakemake(work, "--cores", "2", "--configfile", "config/scoped.yaml")
    return work, work / "scoped"


@pytest.mark.slow  # a Snakemake run of its own, a minute or more on 2 cores
def test_a_universe_false_by_construction_makes_the_claim_limited_and_one_true_everywhere_robust(scoped):
    work, out = scoped
    results = out / "results" / "blind"
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


@pytest.mark.slow  # the same Snakemake run
def test_ties_in_every_seed_contradict_better_and_a_claim_failing_everywhere_is_robustly_contradicted(scoped):
    _, out = scoped
    claims = pd.read_csv(out / "results" / "tied" / "tables" / "claims.csv").set_index("id")
    tie = claims.loc["more-heads-better"]
    assert tie["verdict"] == "CONTRADICTED" and "0 improved, 0 worsened, 6 tied of 6 seeds (a tie did not improve)" in tie["evidence"]
    learns = claims.loc["learns"]
    assert (learns["verdict"], learns["scope"]) == ("CONTRADICTED", "ROBUST")
    assert learns["scope_detail"].startswith("CONTRADICTED in every universe (fails at lr 0.003 and 0.01)")
    scope = pd.read_csv(out / "results" / "tied" / "tables" / "scope.csv")
    assert list(scope["verdict"]) == ["CONTRADICTED", "CONTRADICTED"]


@pytest.mark.slow  # the same Snakemake run
def test_an_all_tied_universe_under_ties_exclude_gets_no_more_seeds_and_says_why(scoped):
    _, out = scoped
    results = out / "results" / "mcnemar"
    claims = pd.read_csv(results / "tables" / "claims.csv").set_index("id")
    row = claims.loc["pe-helps-converge"]
    assert (row["verdict"], row["scope"]) == ("SUPPORTED", "UNSETTLED")
    why = ("no seed differed in 6: pos_enc none and sinusoidal give the same converged in every seed; even 2 more "
           "seed(s) per cell, each the most favourable to a verdict, could not decide it within max_seeds (8): it gets no more")  # fmt: skip
    assert why in row["scope_detail"] and "holds at epochs 300" in row["scope_detail"]
    scope = pd.read_csv(results / "tables" / "scope.csv").set_index("universe")
    assert scope.loc["epochs=2", "n"] == 6 and scope.loc["epochs=2", "why"] == why
    seeds = pd.read_csv(results / "tables" / "scope_seeds.csv")
    assert sorted(seeds[seeds["universe"] == "epochs=2"]["seed"]) == list(range(6))  # no seed added there
    rounds = pd.read_csv(results / "tables" / "adaptive_rounds.csv")
    assert rounds["scope_next"].isna().all() or rounds["scope_next"].astype(str).isin(["", "nan"]).all()
    assert rounds["scope_why"].astype(str).str.contains("no seed differed in 6").any()
