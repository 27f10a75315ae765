"""A claim's scope (robust_over): the config's one-line errors, the runs its universes train, how
each universe's runs are found and how the universes' p-values become ROBUST, LIMITED or UNSETTLED."""

from __future__ import annotations

import pandas as pd
import pytest

from ablation import config as C
from ablation import design, scope, seed_units, verdicts
from test_config_validation import claim, mutate

SCOPED = dict(kind="at_least", threshold=0.5)
WHERE = "study 's1': claim 'c': "


@pytest.mark.parametrize(
    "robust_over, message",
    [
        ({"lrr": [0.003, 0.01]}, "robust_over: unknown setting 'lrr' (did you mean 'lr'?)"),
        ({"seed": [0, 1]}, "robust_over: seed: seeds are the claim's replicates in every universe, not a setting to hold fixed"),
        ({"norm": ["post", "pre"]}, "robust_over.norm: norm is a factor of the study, so the claim is judged at each of its "
                                    "levels already; robust_over names a setting the study holds fixed"),
        ({"lr": [0.003, 0.03]}, "robust_over.lr: the levels [0.003, 0.03] do not include the study's own value 0.01; add it: "
                                "the verdict at the study's setting is one of the universes"),
        ({"lr": [0.01, "fast"]}, "robust_over.lr[1]: got a string 'fast', expected a number"),
        ({"lr": [0.01]}, "robust_over.lr: must be a list of at least 2 values, got [0.01]"),
        ({"lr": [0.01, 0.1], "epochs": [2, 4], "depth": [1, 2]}, "robust_over: at most 2 entries, got 3: lr, epochs, depth"),
        ({}, "robust_over: at least one entry is required"),
    ],
    ids=["unknown-setting", "seed", "factor-of-the-study", "own-value-missing", "level-type", "one-level", "three-settings",
         "empty"],
)  # fmt: skip
def test_a_wrong_robust_over_is_one_line_naming_the_claim_and_the_key(robust_over, message):
    with pytest.raises(C.ConfigError) as info:
        C.validate(mutate(claim(**SCOPED, robust_over=robust_over)))
    assert str(info.value) == WHERE + message


def test_an_exact_claim_has_no_scope():
    with pytest.raises(C.ConfigError, match="robust_over: an exact claim holds by construction"):
        C.validate(mutate(claim(kind="at_value", target=0.5, tolerance=0.01, exact=True, robust_over={"lr": [0.01, 0.1]})))


def scoped_study(robust_over, **keys):
    cfg = C.validate(mutate(claim(**(SCOPED | keys), robust_over=robust_over)))
    return cfg.studies["s1"]


def test_universes_are_every_combination_of_the_levels_and_the_study_trains_all_but_its_own():
    study = scoped_study({"lr": [0.003, 0.01], "epochs": [2, 4]})
    [c] = study.claims
    assert c.universes() == [{"lr": 0.003, "epochs": 2}, {"lr": 0.003, "epochs": 4}, {"lr": 0.01, "epochs": 2},
                             {"lr": 0.01, "epochs": 4}]  # fmt: skip
    others = design.other_universes(c, study)
    assert others == [u for u in c.universes() if u != {"lr": 0.01, "epochs": 2}]  # the study's own: lr 0.01, 2 epochs
    runs = design.scope_runs(study, study.seeds)
    # the claim reads both norms (no where): every combination, at the study's own seeds, in each other universe
    assert len(runs) == len(others) * 2 * len(study.seeds)
    assert {r.settings.seed for r in runs} == set(study.seeds)
    own = {r.hash for r in study.runs()}
    assert own.isdisjoint(r.hash for r in runs)
    assert {(r.settings.lr, r.settings.epochs) for r in runs} == {(u["lr"], u["epochs"]) for u in others}
    assert all(r.run_id.startswith(f"lr~{r.settings.lr:g}/epochs~{r.settings.epochs}/") for r in runs)


def test_the_scope_trains_only_the_combinations_the_claim_reads_and_shares_runs_between_claims():
    cfg = C.validate(mutate(lambda c: c["studies"]["s1"].update(claims=[
        {"id": "a", "statement": "x", **SCOPED, "where": {"norm": "pre"}, "robust_over": {"lr": [0.003, 0.01]}},
        {"id": "b", "statement": "y", **SCOPED, "where": {"norm": "pre"}, "robust_over": {"lr": [0.01, 0.003]}},
    ])))  # fmt: skip
    study = cfg.studies["s1"]
    runs = design.scope_runs(study, study.seeds)
    assert [(r.factors["norm"], r.settings.lr, r.settings.seed) for r in runs] == [("pre", 0.003, 0), ("pre", 0.003, 1)]
    assert design.scope_settings(study) == ["lr"]


def summary(values: dict, lr: float) -> pd.DataFrame:
    """Runs of norm pre: seed -> test accuracy, at one learning rate."""
    return pd.DataFrame([{"run_id": f"pre/{s}", "seed": s, "norm": "pre", "lr": lr, "status": "ok", "test_acc": v,
                          "test_total": 300, "final_train_acc": 1.0} for s, v in values.items()])  # fmt: skip


def test_each_universe_reads_the_study_s_runs_or_the_scope_s_at_its_settings():
    study = scoped_study({"lr": [0.003, 0.01]}, where={"norm": "pre"})
    [c] = study.claims
    own = seed_units.StudyRuns("s1", summary({0: 0.9, 1: 0.9}, 0.01), ("norm",), claims=(c,))
    other = seed_units.StudyRuns("s1", summary({0: 0.2, 1: 0.3}, 0.003), ("norm",))
    found = scope.universe_runs(c, own, other)
    assert [(u, is_own) for u, is_own, _ in found] == [({"lr": 0.003}, False), ({"lr": 0.01}, True)]
    assert list(found[0][2].summary["test_acc"]) == [0.2, 0.3] and found[1][2] is own
    with pytest.raises(ValueError, match=r"claim 'c': robust_over: no runs of universe lr=0.003"):
        scope.universe_runs(c, own, None)


@pytest.mark.parametrize(
    "p_sup, p_con, step, label, each",
    [
        # every universe SUPPORTED: the largest p_sup at the claim's Holm step decides ROBUST
        ([0.01, 0.03], [1.0, 1.0], verdicts.HolmStep(), "ROBUST", ["SUPPORTED", "SUPPORTED"]),
        # the same at the claim's Holm step of 2 in its family: 2 * 0.03 > 0.05, not ROBUST, though each
        # universe is SUPPORTED at Holm over the universes (0.02, 0.03)
        ([0.01, 0.03], [1.0, 1.0], verdicts.HolmStep(2, 0.0, 0.06, 2), "UNSETTLED", ["SUPPORTED", "SUPPORTED"]),
        # one universe fails decisively: LIMITED, whatever the other
        ([0.01, 1.0], [1.0, 0.001], verdicts.HolmStep(), "LIMITED", ["SUPPORTED", "CONTRADICTED"]),
        # pointing the right way everywhere, but one universe's p_sup is not small enough
        ([0.01, 0.2], [1.0, 0.9], verdicts.HolmStep(), "UNSETTLED", ["SUPPORTED", "INCONCLUSIVE"]),
        # a tie of p_sup and p_con in a universe (no direction): never ROBUST
        ([0.01, 0.04], [1.0, 0.04], verdicts.HolmStep(), "UNSETTLED", ["SUPPORTED", "INCONCLUSIVE"]),
    ],
    ids=["robust", "robust-needs-its-holm-step", "limited", "unsettled", "tie"],
)  # fmt: skip
def test_the_universes_p_values_decide_the_scope(p_sup, p_con, step, label, each):
    got, verdicts_each, steps = scope.decide(p_sup, p_con, step, 0.05)
    assert (got, verdicts_each) == (label, each)
    assert [s.size for s in steps] == [len(p_sup)] * len(p_sup)


def test_universes_in_words_and_in_a_cell():
    assert scope.universe_text({"lr": 0.003, "epochs": 600}) == "lr=0.003, epochs=600"
    assert scope.universe_words([{"lr": 0.003}, {"lr": 0.01}, {"lr": 0.03}]) == "lr 0.003, 0.01 and 0.03"
    assert scope.universe_words([{"lr": 0.003, "epochs": 2}]) == "lr=0.003, epochs=2"


def two_claims_in_three_universes(other_lr: dict):
    """A study of norm pre at lr 0.01 (six seeds, every one at 0.9) with two claims over lr [0.003,
    0.01, 0.03]: 'c' (at least 0.5) scoped, 'd' (at least 0.5) not; ``other_lr``: lr -> the six
    seeds' accuracies there."""
    cfg = C.validate(mutate(lambda c: c["studies"]["s1"].update(seeds=list(range(6)), claims=[
        {"id": "c", "statement": "x", **SCOPED, "where": {"norm": "pre"}, "robust_over": {"lr": [0.003, 0.01, 0.03]}},
        {"id": "d", "statement": "y", **SCOPED, "where": {"norm": "pre"}},
    ])))  # fmt: skip
    claims = tuple(cfg.studies["s1"].claims)
    own = seed_units.StudyRuns("s1", summary(dict.fromkeys(range(6), 0.9), 0.01), ("norm",), claims=claims)
    other = pd.concat([summary(dict(enumerate(values)), lr) for lr, values in other_lr.items()], ignore_index=True)
    runs = own.__class__(**{**own.__dict__, "scope": seed_units.StudyRuns("s1", other, ("norm",))})
    from ablation import claims as claims_table

    table, rows, seeds = claims_table.evaluate_all([runs], {"alpha": 0.05})
    return table.set_index("id"), rows, seeds


def test_the_claims_table_gains_the_scope_and_a_row_per_universe():
    table, rows, seeds = two_claims_in_three_universes({0.003: [0.9] * 6, 0.03: [0.1] * 6})
    c = table.loc["c"]
    assert (c["verdict"], c["scope"]) == ("SUPPORTED", "LIMITED")
    assert c["scope_detail"] == "holds at lr 0.003 and 0.01; fails at lr 0.03 (each universe at Holm over the 3 universes)"
    # LIMITED's p: the failing universe's, at Holm over the universes (1/64, first of three)
    assert c["scope_p"] == pytest.approx(3 / 64)
    assert table.loc["d", "scope"] == "" and pd.isna(table.loc["d", "scope_p"])
    assert list(rows["universe"]) == ["lr=0.003", "lr=0.01", "lr=0.03"] and list(rows["own"]) == [False, True, False]
    assert list(rows["verdict"]) == ["SUPPORTED", "SUPPORTED", "CONTRADICTED"] and set(rows["n"]) == {6}
    assert list(rows["share"]) == [1.0, 1.0, 0.0] and list(rows["study"]) == ["s1"] * 3
    # one row per universe and seed, with the claim's band for the figure
    assert len(seeds) == 18 and set(seeds["band_lo"]) == {0.5} and seeds["band_hi"].isna().all()
    assert list(seeds[seeds["universe"] == "lr=0.03"]["met"]) == [False] * 6


def test_robust_is_decided_at_the_claim_s_step_of_its_family_and_unsettled_names_the_weakest():
    table, rows, _ = two_claims_in_three_universes({0.003: [0.9] * 6, 0.03: [0.9] * 6})
    c = table.loc["c"]
    # every universe 6 of 6: IUT p = 1/64; Holm over the family of c and d (both 1/64): 2/64
    assert c["scope"] == "ROBUST" and c["scope_p"] == pytest.approx(2 / 64)
    assert c["scope_detail"].startswith("SUPPORTED in every universe (holds at lr 0.003, 0.01 and 0.03): intersection-union p = 0.0156")
    table, rows, _ = two_claims_in_three_universes({0.003: [0.9] * 6, 0.03: [0.9, 0.9, 0.9, 0.9, 0.1, 0.1]})
    c = table.loc["c"]
    assert c["scope"] == "UNSETTLED"
    assert "weakest: lr=0.03 (p_sup = 0.344)" in c["scope_detail"]
    assert "more seed(s) per cell there, every one meeting the claim, would make it ROBUST" in c["scope_detail"]


def test_robust_steps_put_the_scope_s_p_in_the_claim_s_place_in_its_family():
    steps = scope.robust_steps([0.01, 0.02, 0.5], {1: 0.04})
    assert list(steps) == [1] and steps[1].factor == 2 and steps[1].adjusted == pytest.approx(0.08)
