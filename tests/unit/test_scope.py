"""A claim's scope (robust_over): the config's one-line errors, the runs its universes train, how
each universe's runs are found and how the universes' p-values become ROBUST, LIMITED or UNSETTLED."""

from __future__ import annotations

import gc

import numpy as np
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


def test_a_universe_reads_only_its_own_runs_where_another_claim_varies_a_second_setting():
    cfg = C.validate(mutate(lambda c: c["studies"]["s1"].update(claims=[
        {"id": "a", "statement": "x", **SCOPED, "where": {"norm": "pre"}, "robust_over": {"lr": [0.003, 0.01]}},
        {"id": "b", "statement": "y", **SCOPED, "where": {"norm": "pre"}, "robust_over": {"lr": [0.003, 0.01], "epochs": [2, 4]}},
    ])))  # fmt: skip
    study = cfg.studies["s1"]
    a = study.claims[0]
    epochs = study.runs()[0].settings.epochs
    own = seed_units.StudyRuns("s1", summary({0: 0.9, 1: 0.9}, 0.01).assign(epochs=epochs), ("norm",), claims=tuple(study.claims))
    other = pd.concat([summary({0: 0.2, 1: 0.3}, 0.003).assign(epochs=epochs),
                       summary({0: 0.8, 1: 0.7}, 0.003).assign(epochs=4 if epochs != 4 else 2)], ignore_index=True)  # fmt: skip
    found = scope.universe_runs(a, own, seed_units.StudyRuns("s1", other, ("norm",)))
    assert list(found[0][2].summary["test_acc"]) == [0.2, 0.3]  # lr 0.003 at the study's own epochs only


def test_without_scopes_the_family_procedure_is_holm_s_step_down(monkeypatch):
    monkeypatch.setattr(gc, "collect", lambda *args: 0)  # statsmodels' multipletests collects garbage on every call
    rng = np.random.default_rng(0)
    for m in (1, 2, 3, 6):
        complete = (np.ones((m, m)) - np.eye(m)) / max(m - 1, 1)
        for _ in range(20):
            p = list(rng.random(m) ** 3)
            steps, scoped = scope.family_steps(p, {})
            assert steps == verdicts.holm_steps(p) and scoped == {}
            # the graphical procedure on Holm's graph: the same steps, up to rounding
            graph = verdicts.graph_steps(p, np.full(m, 1 / m), complete, m)
            for a, b in zip(graph, steps):
                assert (a.factor, a.floor, a.adjusted) == pytest.approx((b.factor, b.floor, b.adjusted), rel=1e-12)


def test_a_scope_inherits_its_claim_s_alpha_once_the_claim_is_decided_and_passes_it_on():
    # claim 0 (scoped, SUPPORTED at the study's setting, p_sup 0.03 in the other universe) and claim 1
    test = scope.ScopeTest("SUPPORTED", (0.01, 0.03), (1.0, 1.0), (True, False))
    assert (test.p_robust, test.p_fails, test.p) == (0.03, [1.0], 0.03)
    steps, scoped = scope.family_steps([0.01, 0.02], {0: test})
    assert [s.adjusted for s in steps] == pytest.approx([0.02, 0.04])  # Holm's, as without the scope
    # claim 0's half of alpha goes to its scope, and claim 1's half once claim 1 is rejected
    assert scoped[0].factor == pytest.approx(1) and scoped[0].adjusted == pytest.approx(0.04)
    assert scoped[0].scoped == 1 and scoped[0].size == 2
    # the scope's p first: it waits for its claim (a gate), then takes the claim's share
    steps, scoped = scope.family_steps([0.02, 0.2], {0: scope.ScopeTest("SUPPORTED", (0.02, 0.001), (1, 1), (True, False))})
    assert steps[0].adjusted == pytest.approx(0.04) and scoped[0].factor == pytest.approx(2) and scoped[0].adjusted == pytest.approx(0.04)
    # an undecided claim's scope gets its share all the same, but its scope word stays UNSETTLED
    steps, scoped = scope.family_steps([0.5], {0: scope.ScopeTest(None, (0.5, 0.001), (0.5, 1.0), (True, False))})
    assert scoped[0].adjusted == 1.0


def test_limited_is_holm_over_the_universes_besides_the_study_s_own():
    test = scope.ScopeTest("SUPPORTED", (0.01, 1.0, 0.02), (1.0, 0.01, 1.0), (True, False, False))
    assert test.p_fails == pytest.approx([0.02, 1.0]) and test.p == pytest.approx(0.02)


def _tested(p_sup, p_con, own=(True, False)):
    results = [verdicts.Result(s, c, 8, 0, [], []) for s, c in zip(p_sup, p_con)]
    return [({"lr": lr}, o, None, r) for lr, o, r in zip((0.01, 0.003, 0.03), own, results)]


@pytest.mark.parametrize(
    "p_sup, p_con, label, each",
    [
        # SUPPORTED everywhere: ROBUST by the intersection-union test
        ([0.001, 0.004], [1.0, 1.0], "ROBUST", ["SUPPORTED", "SUPPORTED"]),
        # CONTRADICTED everywhere is ROBUST too: the scope describes the verdict, whichever it is
        ([1.0, 1.0], [0.001, 0.004], "ROBUST", ["CONTRADICTED", "CONTRADICTED"]),
        # the opposite verdict in the other universe: LIMITED
        ([0.001, 1.0], [1.0, 0.001], "LIMITED", ["SUPPORTED", "CONTRADICTED"]),
        ([1.0, 0.001], [0.001, 1.0], "LIMITED", ["CONTRADICTED", "SUPPORTED"]),
        # pointing the right way, not far enough: UNSETTLED
        ([0.001, 0.2], [1.0, 0.9], "UNSETTLED", ["SUPPORTED", "INCONCLUSIVE"]),
        # the verdict at the study's setting open: UNSETTLED, whatever the universes show
        ([0.3, 0.001], [0.6, 1.0], "UNSETTLED", ["INCONCLUSIVE", "INCONCLUSIVE"]),
    ],
    ids=["robust-supported", "robust-contradicted", "limited", "limited-of-a-contradiction", "unsettled", "claim-open"],
)  # fmt: skip
def test_the_scope_word_describes_the_verdict_at_the_study_s_setting(p_sup, p_con, label, each):
    tested = _tested(p_sup, p_con)
    claim_steps, scoped = scope.family_steps([min(p_sup[0], p_con[0])], {0: scope.scope_test(tested)})
    s = scope.judge_scope(tested, verdicts.Judge.of({"alpha": 0.05}), claim_steps[0], scoped[0])
    assert (s.label, s.verdicts) == (label, each)


def test_universes_in_words_and_in_a_cell():
    assert scope.universe_text({"lr": 0.003, "epochs": 600}) == "lr=0.003, epochs=600"
    assert scope.universe_words([{"lr": 0.003}, {"lr": 0.01}, {"lr": 0.03}]) == "lr 0.003, 0.01 and 0.03"
    assert scope.universe_words([{"lr": 0.003, "epochs": 2}]) == "lr=0.003, epochs=2"


def two_claims_in_three_universes(other_lr: dict):
    """A study of norm pre at lr 0.01 (eight seeds, every one at 0.9) with two claims over lr [0.003,
    0.01, 0.03]: 'c' (at least 0.5) scoped, 'd' (at least 0.5) not; ``other_lr``: lr -> the eight
    seeds' accuracies there."""
    cfg = C.validate(mutate(lambda c: c["studies"]["s1"].update(seeds=list(range(8)), claims=[
        {"id": "c", "statement": "x", **SCOPED, "where": {"norm": "pre"}, "robust_over": {"lr": [0.003, 0.01, 0.03]}},
        {"id": "d", "statement": "y", **SCOPED, "where": {"norm": "pre"}},
    ])))  # fmt: skip
    claims = tuple(cfg.studies["s1"].claims)
    own = seed_units.StudyRuns("s1", summary(dict.fromkeys(range(8), 0.9), 0.01), ("norm",), claims=claims)
    other = pd.concat([summary(dict(enumerate(values)), lr) for lr, values in other_lr.items()], ignore_index=True)
    runs = own.__class__(**{**own.__dict__, "scope": seed_units.StudyRuns("s1", other, ("norm",))})
    from ablation import claims as claims_table

    table, rows, seeds = claims_table.evaluate_all([runs], {"alpha": 0.05})
    return table.set_index("id"), rows, seeds


def test_the_claims_table_gains_the_scope_and_a_row_per_universe():
    table, rows, seeds = two_claims_in_three_universes({0.003: [0.9] * 8, 0.03: [0.1] * 8})
    c = table.loc["c"]
    assert (c["verdict"], c["scope"]) == ("SUPPORTED", "LIMITED")
    # c and d (1/256 each): Holm's 2/256; c's scope inherits c's half of alpha, then d's: lr 0.03's
    # p_con at Holm over the two other universes, 2/256, at the whole of alpha
    assert c["scope_p"] == pytest.approx(2 / 256)
    assert c["scope_detail"].startswith("holds at lr 0.01; fails at lr 0.03; not yet at lr=0.003 (p_sup 0.00391); weakest ")
    assert c["scope_detail"].endswith("(Holm over the 2 other universe(s), adjusted p 0.00781 vs alpha 0.05 in the family's procedure)")
    assert "one step-down over the 2 claim(s) of its family and their scopes' 1 hypotheses" in c["evidence"]
    assert table.loc["d", "scope"] == "" and pd.isna(table.loc["d", "scope_p"])
    assert list(rows["universe"]) == ["lr=0.003", "lr=0.01", "lr=0.03"] and list(rows["own"]) == [False, True, False]
    assert list(rows["verdict"]) == ["INCONCLUSIVE", "SUPPORTED", "CONTRADICTED"] and set(rows["n"]) == {8}
    assert list(rows["share"]) == [1.0, 1.0, 0.0] and list(rows["study"]) == ["s1"] * 3
    assert rows["why"].iloc[0] != "" and list(rows["why"].iloc[1:]) == ["", ""]
    # one row per universe and seed, with the claim's band for the figure
    assert len(seeds) == 24 and set(seeds["band_lo"]) == {0.5} and seeds["band_hi"].isna().all()
    assert list(seeds[seeds["universe"] == "lr=0.03"]["met"]) == [False] * 8


def test_robust_is_decided_in_the_family_s_procedure_and_unsettled_says_what_is_open():
    table, rows, _ = two_claims_in_three_universes({0.003: [0.9] * 8, 0.03: [0.9] * 8})
    c = table.loc["c"]
    # every universe 8 of 8: intersection-union p = 1/256 at c's half of alpha
    assert c["scope"] == "ROBUST" and c["scope_p"] == pytest.approx(2 / 256)
    assert c["scope_detail"].startswith("SUPPORTED in every universe (holds at lr 0.003, 0.01 and 0.03): intersection-union p = 0.0039")
    assert list(rows["verdict"]) == ["SUPPORTED"] * 3
    table, rows, _ = two_claims_in_three_universes({0.003: [0.9] * 8, 0.03: [0.9] * 4 + [0.1] * 4})
    c = table.loc["c"]
    assert c["scope"] == "UNSETTLED"
    assert c["scope_detail"].startswith("holds at lr 0.01; not yet at lr=0.03 (p_sup 0.637), lr=0.003 (p_sup 0.00391); "
                                        "weakest lr=0.03: ")  # fmt: skip
    assert "more seed(s) per cell, every one meeting the claim, could decide it" in c["scope_detail"]
    assert "ROBUST needs every universe's p_sup at the scope's step" in c["scope_detail"]
