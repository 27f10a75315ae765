"""A claim kind is one thing: a kind registered here, in this test module and nowhere else, is
validated from a config, judged, planned, put through adaptive rounds and said in words by the same
code that judges the built-in kinds. (tests/workflow/test_claim_kind_plugin.py runs a plugin's kind
through Snakemake.)"""

import numpy as np
import pandas as pd
import pytest

from ablation import adaptive, claims, kinds, plan, report, settings
from ablation import config as C


class AtMost(kinds.ClaimKind):
    """a seed's value is at most ceiling."""

    keys = {"ceiling": {"type": "number", "minimum": 0, "maximum": 1, "description": "The most the metric may be."}}

    def parts(self, claim):
        return [kinds.Part(kinds.Condition(0.0, claim.keys["ceiling"], f"stayed at or below {claim.keys['ceiling']:.0%}"))]

    def rule(self, claim):
        return f"a seed meets the claim when its value is at most {claim.keys['ceiling']}"


@pytest.fixture(autouse=True, scope="module")
def registered():
    """The kind is registered while this module's tests run, as a plugin's would be on import, and
    taken out after them: the other tests see the built-in kinds alone."""
    kinds.claim_kind("at_most_under_test")(AtMost)
    yield
    del kinds.CLAIM_KINDS["at_most_under_test"]


CLAIM = {"id": "capped", "statement": "Without position, accuracy stays low.", "kind": "at_most_under_test", "ceiling": 0.6,
         "where": {"pos_enc": "none"}}  # fmt: skip
RAW = {
    "defaults": {"n_train": 8, "n_test": 4, "epochs": 2, "d_model": 8},
    "studies": {"s": {"fixed": {"arch": "encoder", "heads": 2, "depth": 1}, "factors": {"pos_enc": ["none", "sinusoidal"]},
                      "seeds": list(range(8)), "claims": [CLAIM]}},
}  # fmt: skip


def summary(acc_none: float, seeds=range(8)) -> pd.DataFrame:
    rows = [dict(run_id=f"{p}-{s}", seed=s, pos_enc=p, status="ok", final_train_acc=1.0, test_correct=round(a * 300),
                 test_total=300, test_acc=round(a * 300) / 300)
            for s in seeds for p, a in (("none", acc_none), ("sinusoidal", 1.0))]  # fmt: skip
    return pd.DataFrame(rows)


def test_a_kind_registered_once_is_validated_from_a_config_with_its_own_keys():
    cfg = C.validate(RAW)
    [claim] = cfg.studies["s"].claims
    assert claim.kind.name == "at_most_under_test" and claim.keys == {"ceiling": 0.6}
    branch = next(b for b in C.claims_schema()["definitions"]["claim"]["oneOf"] if b["properties"]["kind"]["const"] == claim.kind.name)
    assert branch["required"] == ["kind", "ceiling"] and branch["description"] == "at_most_under_test: a seed's value is at most ceiling."
    bad = {**RAW, "studies": {"s": {**RAW["studies"]["s"], "claims": [dict(CLAIM, ceilng=0.5)]}}}
    with pytest.raises(C.ConfigError, match=r"claim 'capped': unknown key 'ceilng' \(did you mean 'ceiling'\?\)"):
        C.validate(bad)
    missing = {**RAW, "studies": {"s": {**RAW["studies"]["s"], "claims": [{k: v for k, v in CLAIM.items() if k != "ceiling"}]}}}
    with pytest.raises(C.ConfigError, match="claim 'capped': kind at_most_under_test needs key\\(s\\) ceiling"):
        C.validate(missing)
    exact = {**RAW, "studies": {"s": {**RAW["studies"]["s"], "claims": [dict(CLAIM, exact=True)]}}}
    with pytest.raises(C.ConfigError, match="'exact' needs kind at_value with target 0.5"):
        C.validate(exact)


@pytest.mark.parametrize("acc, verdict", [(0.5, "SUPPORTED"), (0.9, "CONTRADICTED")])
def test_its_claims_get_a_verdict_in_words_from_the_claims_table(acc, verdict):
    row = claims.evaluate_claims([CLAIM], summary(acc), None, ["pos_enc"], {"alpha": 0.05}).iloc[0]
    met = 8 if verdict == "SUPPORTED" else 0
    assert (row["verdict"], row["kind"], row["n"], row["share"]) == (verdict, "at_most_under_test", 8, met / 8)
    assert row["rule"].startswith("a seed meets the claim when its value is at most 0.6; share > 0.5, exact binomial test")
    assert row["evidence"].startswith(f"mean over 1 cell(s): {met} of 8 seeds stayed at or below 60%")


def test_the_plan_the_rounds_and_the_report_read_it_as_they_read_a_built_in_kind():
    cfg = C.validate(RAW | {"studies": {"s": RAW["studies"]["s"] | {"adaptive": {"max_seeds": 12, "batch": 2}}}})
    study = cfg.studies["s"]
    row = plan.plan(cfg).iloc[0]
    assert (row["kind"], row["supported"], row["contradicted"]) == ("at_most_under_test", "yes", "yes")
    rows, new, _ = adaptive.plan_round(study, summary(0.6, seeds=range(8)), {r.hash for r in study.runs()}, cfg.stats,
                                    {"max_seeds": 12, "batch": 2})  # fmt: skip
    assert rows[0]["inference"] == "anytime-valid (betting e-process, read at the round ends)"
    assert rows[0]["state"] in ("open", "resolved")
    [claim] = study.claims
    assert report.estimate_unit(claim) == "test accuracy (0 to 1)"
    assert report.estimate_text({"estimate": 0.5}, claim) == "50.0 %"
    assert np.isfinite(rows[0]["p_sup"])


def test_the_schema_lists_the_built_in_kinds_as_its_examples():
    """The schema's `kind` examples (what a reader of the schema sees) are the kinds ablation.kinds
    itself registers, in order; a plugin's or a test's kinds join the registry, not the schema."""
    built_in = [name for name, kind in kinds.CLAIM_KINDS.items() if kind.__module__ == "ablation.kinds"]
    assert settings.schema()["definitions"]["claim"]["properties"]["kind"]["examples"] == built_in
    assert "at_most_under_test" in kinds.CLAIM_KINDS and "at_most_under_test" not in built_in
