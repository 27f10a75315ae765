"""Exact claims: a model that cannot see order gives every test sequence and its A/B-swapped twin
identical logits; each run records that as its twin certificate, and an exact claim checks it on
every run instead of estimating an accuracy."""

from __future__ import annotations

import pandas as pd
import pytest

from ablation import claims as C
from ablation import verdicts
from ablation import model, train
from ablation.settings import from_dict

SMALL = {"epochs": 30, "n_train": 80, "n_test": 40, "seq_len": 8}
CFG = {"alpha": 0.05}


def _run(seed: int, **settings) -> dict:
    result = train.train_run(from_dict({"seed": seed, **SMALL, **settings}))
    return result.metrics_row(study="t", run_id=f"{settings.get('pos_enc')}/seed~{seed}")


@pytest.mark.parametrize("arch", ["encoder", "attention_only"])
def test_a_model_blind_to_order_gives_its_twins_identical_predictions(arch):
    row = _run(0, arch=arch, pos_enc="none", attn_mask="bidirectional")
    assert row["twin_pairs_differ"] == 0 and row["twin_logit_gap"] <= verdicts.EXACT_GAP and row["test_acc"] == 0.5


@pytest.mark.parametrize("settings", [{"pos_enc": "sinusoidal"}, {"pos_enc": "none", "attn_mask": "causal"}])
def test_a_model_that_sees_order_breaks_the_certificate(settings):
    row = _run(0, arch="encoder", **settings)
    assert row["twin_pairs_differ"] > 0 and row["twin_logit_gap"] > 1000 * verdicts.EXACT_GAP


@pytest.fixture()
def planted():
    """The sinusoidal encoding registered under another name, as a plugin might: it sees order."""
    name = "planted_sinusoidal"
    model.positional_encoding(name)(type("Planted", (model.Sinusoidal,), {}))
    yield name
    del model.POSITIONAL_ENCODINGS[name]


def test_a_planted_variant_that_sees_order_contradicts_an_exact_claim_naming_its_run(planted):
    rows = [_run(s, arch="encoder", pos_enc=pe) for pe in ("none", planted) for s in range(3)]
    summary = pd.DataFrame(rows)
    claim = {"id": "chance", "statement": "blind to order", "kind": "at_value", "target": 0.5, "tolerance": 0.0034,
             "exact": True}  # fmt: skip
    blind = C.evaluate_claims([claim | {"where": {"pos_enc": "none"}}], summary, None, ["pos_enc"], CFG).iloc[0]
    assert blind["verdict"] == "SUPPORTED" and "all 3 runs hold the twin certificate" in blind["evidence"]
    both = C.evaluate_claims([claim | {"where": {"pos_enc": ["none", planted]}}], summary, None, ["pos_enc"], CFG).iloc[0]
    assert both["verdict"] == "CONTRADICTED" and "3 of 6 runs break the twin certificate" in both["evidence"]
    for s in range(3):
        assert f"{planted}/seed~{s}" in both["evidence"]
    assert "none/seed~" not in both["evidence"]
