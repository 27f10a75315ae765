"""The edges of a claim's scope (robust_over) that tests/unit/test_scope.py leaves open.

Which runs each universe reads (a study of one run or of none, settings written as text, a setting
the scope's summary does not record, the one-line error for a universe the scope did not train, the
design and claims a universe is judged under); universes in words; the family's graph (a scope's
share passed on, two scoped claims); the scope word at its boundaries (a p exactly at alpha, a tie
between ROBUST's and LIMITED's p, an open verdict at the study's setting); each universe's adjusted
p; the scope's sentences; and the rows of the scope tables (every column, robustness at one and two
seeds, a band with an upper end, a share without counted seeds, a two-part claim's evidence).
"""

from __future__ import annotations

import gc
import re

import numpy as np
import pandas as pd
import pytest

from ablation import claims as claims_table
from ablation import config as C
from ablation import scope, seed_units, verdicts
from test_config_validation import mutate

SCOPED = dict(kind="at_least", threshold=0.5)
JUDGE = verdicts.Judge.of({"alpha": 0.05})


@pytest.fixture(autouse=True)
def _no_gc_per_holm(monkeypatch):
    monkeypatch.setattr(gc, "collect", lambda *args: 0)  # statsmodels' multipletests collects garbage on every call


def study_claims(*claims, seeds=(0, 1)):
    """The claims of study s1 (norm post/pre, lr 0.01 and 2 epochs of its own) as the config builds them."""
    cfg = C.validate(mutate(lambda c: c["studies"]["s1"].update(seeds=list(seeds), claims=list(claims))))
    return tuple(cfg.studies["s1"].claims)


def scoped(cid="c", robust_over=None, **keys):
    """A claim on norm pre (at least 0.5 unless ``keys`` say otherwise) over lr 0.003 and 0.01 unless ``robust_over``."""
    return {"id": cid, "statement": "x", **(keys or SCOPED), "where": {"norm": "pre"},
            "robust_over": robust_over or {"lr": [0.003, 0.01]}}  # fmt: skip


def summary(values: dict, lr, norm="pre", **settings) -> pd.DataFrame:
    """Runs of one norm at one learning rate: seed -> test accuracy."""
    return pd.DataFrame([{"run_id": f"{norm}/{lr}/{s}", "seed": s, "norm": norm, "lr": lr, **settings, "status": "ok",
                          "test_acc": v, "test_total": 300, "final_train_acc": 1.0} for s, v in values.items()])  # fmt: skip


def runs(frame: pd.DataFrame, claims=(), **keys) -> seed_units.StudyRuns:
    return seed_units.StudyRuns("s1", frame, ("norm",), claims=tuple(claims), **keys)


# --------------------------------------------------------------------------- the runs of each universe


def test_a_universe_reads_exactly_the_scope_s_rows_at_its_settings_under_the_study_s_design_and_claims():
    claims = study_claims(scoped())
    design = {"seeds": [0, 1], "max_seeds": 4, "batch": 1}
    own = runs(summary({0: 0.9, 1: 0.9}, 0.01), claims, design=design)
    other = pd.concat([summary({0: 0.8, 1: 0.7}, 0.03), summary({0: 0.2, 1: 0.3}, 0.003)], ignore_index=True)
    [(universe, is_own, found), _] = scope.universe_runs(claims[0], own, runs(other))
    assert (universe, is_own) == ({"lr": 0.003}, False)
    # the scope's rows at lr 0.003, numbered afresh, with no column added
    pd.testing.assert_frame_equal(found.summary, other[other["lr"] == 0.003].reset_index(drop=True))
    # judged as the study judges its claims: its design (the e-process of an adaptive study), its claims
    assert found.design == design and found.claims == claims


def test_a_study_of_one_run_holds_its_own_universe():
    claims = study_claims(scoped())
    own = runs(summary({0: 0.9}, 0.01), claims)
    found = scope.universe_runs(claims[0], own, runs(summary({0: 0.2}, 0.003)))
    assert [(u, is_own) for u, is_own, _ in found] == [({"lr": 0.003}, False), ({"lr": 0.01}, True)]
    assert found[1][2] is own


def test_a_study_without_runs_holds_no_universe_and_reads_every_one_from_the_scope():
    claims = study_claims(scoped())
    own = runs(summary({0: 0.9}, 0.01).iloc[:0], claims)
    other = pd.concat([summary({0: 0.2}, 0.003), summary({0: 0.9}, 0.01)], ignore_index=True)
    found = scope.universe_runs(claims[0], own, runs(other))
    assert [(u, is_own) for u, is_own, _ in found] == [({"lr": 0.003}, False), ({"lr": 0.01}, False)]
    assert [list(r.summary["test_acc"]) for *_, r in found] == [[0.2], [0.9]]


def test_settings_written_as_text_are_read_as_the_numbers_they_are():
    # a summary column read as text: lr '1e-2' is 0.01, epochs '2' is 2, and a whole number beyond
    # float precision is that whole number (2**53 + 1), not the float next to it
    huge = 2**53 + 1
    claims = study_claims(scoped("a"), scoped("b", {"epochs": [2, huge]}))
    own = runs(summary({0: 0.9, 1: 0.9}, "1e-2", epochs="2"), claims)
    other = pd.concat([summary({0: 0.2, 1: 0.3}, "3e-3", epochs="2"), summary({0: 0.6, 1: 0.7}, "1e-2", epochs=str(huge))],
                      ignore_index=True)  # fmt: skip
    a = scope.universe_runs(claims[0], own, runs(other))
    assert [(u, is_own, list(r.summary["test_acc"])) for u, is_own, r in a] == [
        ({"lr": 0.003}, False, [0.2, 0.3]), ({"lr": 0.01}, True, [0.9, 0.9])]  # fmt: skip
    b = scope.universe_runs(claims[1], own, runs(other))
    assert [(u, is_own, list(r.summary["test_acc"])) for u, is_own, r in b] == [
        ({"epochs": 2}, True, [0.9, 0.9]), ({"epochs": huge}, False, [0.6, 0.7])]  # fmt: skip


def test_a_universe_the_scope_did_not_train_is_one_line_naming_the_claim_and_the_universe():
    claims = study_claims(scoped())
    own = runs(summary({0: 0.9, 1: 0.9}, 0.01), claims)
    message = "claim 'c': robust_over: no runs of universe lr=0.003 in the scope's summary"
    # the scope's runs at another learning rate only, and a scope summary without the lr column
    for other in (summary({0: 0.2, 1: 0.3}, 0.03), summary({0: 0.2, 1: 0.3}, 0.003).drop(columns="lr")):
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            scope.universe_runs(claims[0], own, runs(other))


def test_a_setting_the_scope_s_summary_does_not_record_does_not_narrow_a_universe():
    # claim b varies epochs, so the scope's runs are matched on the study's own epochs too, but only
    # where both summaries record epochs
    claims = study_claims(scoped("a"), scoped("b", {"lr": [0.003, 0.01], "epochs": [2, 4]}))
    own = runs(summary({0: 0.9, 1: 0.9}, 0.01, epochs=2), claims)
    found = scope.universe_runs(claims[0], own, runs(summary({0: 0.2, 1: 0.3}, 0.003)))
    assert list(found[0][2].summary["test_acc"]) == [0.2, 0.3]


# --------------------------------------------------------------------------- universes in words


def test_universes_in_words_for_none_and_for_several_universes_of_two_settings():
    assert scope.universe_words([]) == ""
    universes = [{"lr": lr, "epochs": 2} for lr in (0.003, 0.01, 0.03)]
    assert scope.universe_words(universes) == "lr=0.003, epochs=2; lr=0.01, epochs=2 and lr=0.03, epochs=2"
    assert scope.universe_words(universes[:2]) == "lr=0.003, epochs=2 and lr=0.01, epochs=2"


# --------------------------------------------------------------------------- the family's procedure


def test_a_scope_whose_p_values_point_nowhere_has_p_1():
    test = scope.ScopeTest(None, (0.5, 0.001), (0.5, 1.0), (True, False))
    assert (test.p_robust, test.p_fails, test.p) == (1.0, [1.0], 1.0)


def test_a_rejected_scope_passes_its_claim_s_share_on_to_the_other_claims():
    # two claims at alpha / 2 each; claim 0 (p 0.01: 0.02) hands its share to its scope (p 0.01:
    # 0.02), which hands it to claim 1: p 0.04 at the whole of alpha
    test = scope.ScopeTest("SUPPORTED", (0.01, 0.001), (1.0, 1.0), (True, False))
    steps, scoped_steps = scope.family_steps([0.01, 0.04], {0: test})
    assert [(s.factor, s.adjusted) for s in steps] == [(2, 0.02), (1, 0.04)]
    assert (scoped_steps[0].factor, scoped_steps[0].adjusted) == (2, 0.02)
    # three claims at alpha / 3: claim 0's scope hands its share to claims 1 and 2 in equal parts
    # (1/6 each, so claim 1 is at alpha / 2), and claim 1 all of its share to claim 2
    test = scope.ScopeTest("SUPPORTED", (0.001, 0.001), (1.0, 1.0), (True, False))
    steps, scoped_steps = scope.family_steps([0.001, 0.01, 0.03], {0: test})
    assert [s.factor for s in steps] == pytest.approx([3, 2, 1])
    assert [s.adjusted for s in steps] == pytest.approx([0.003, 0.02, 0.03])
    assert (scoped_steps[0].factor, scoped_steps[0].adjusted) == pytest.approx((3, 0.003))
    # the scope's p large: claim 1 (alpha / 3) hands half its share to claim 2 and half, through
    # claim 0, to claim 0's scope, which is last
    test = scope.ScopeTest("SUPPORTED", (0.001, 0.9), (1.0, 1.0), (True, False))
    steps, scoped_steps = scope.family_steps([0.001, 0.01, 0.03], {0: test})
    assert [s.factor for s in steps] == pytest.approx([3, 3, 2])
    assert [s.adjusted for s in steps] == pytest.approx([0.003, 0.03, 0.06])
    assert (scoped_steps[0].factor, scoped_steps[0].adjusted) == pytest.approx((1, 0.9))


def test_two_scoped_claims_each_gate_their_own_scope():
    first = scope.ScopeTest("SUPPORTED", (0.01, 0.001), (1.0, 1.0), (True, False))
    second = scope.ScopeTest("SUPPORTED", (0.02, 0.04), (1.0, 1.0), (True, False))
    steps, scoped_steps = scope.family_steps([0.01, 0.02], {0: first, 1: second})
    assert [(s.factor, s.adjusted) for s in steps] == [(2, 0.02), (1, 0.02)]
    # scope 0 waits for claim 0 and hands alpha / 2 on to claim 1; scope 1 waits for claim 1, then
    # holds the whole of alpha: p 0.04
    assert [(scoped_steps[i].factor, scoped_steps[i].adjusted) for i in (0, 1)] == [(2, 0.02), (1, 0.04)]


# --------------------------------------------------------------------------- the scope word at its edges


def _tested(p_sup, p_con):
    """The claim's tests in its universes: the study's own at lr 0.01 first, then lr 0.003 and 0.03."""
    results = [verdicts.Result(s, c, 8, 0, [], []) for s, c in zip(p_sup, p_con)]
    return [({"lr": lr}, k == 0, None, r) for k, (lr, r) in enumerate(zip((0.01, 0.003, 0.03), results))]


def _judged(tested, claim_p=None, judge=JUDGE):
    p = [min(tested[0][3].p_sup, tested[0][3].p_con)] if claim_p is None else claim_p
    steps, scoped_steps = scope.family_steps(p, {0: scope.scope_test(tested)})
    return scope.judge_scope(tested, judge, steps[0], scoped_steps[0])


def test_a_scope_at_exactly_alpha_is_decided():
    # every universe's p_sup at most 1/16, the largest exactly alpha = 1/16: ROBUST ("at most alpha")
    s = _judged(_tested([1 / 32, 1 / 16], [1.0, 1.0]), judge=verdicts.Judge.of({"alpha": 1 / 16}))
    assert (s.label, s.verdicts, s.p) == ("ROBUST", ["SUPPORTED", "SUPPORTED"], 1 / 16)


def test_a_tie_between_robust_s_and_limited_s_p_leaves_the_scope_unsettled():
    # ROBUST's p: the largest p_sup, 0.02; LIMITED's: Holm over the other universes' p_con, 2 * 0.01
    s = _judged(_tested([0.001, 0.02, 0.001], [1.0, 1.0, 0.01]))
    assert s.test.p_robust == min(s.test.p_fails) == 0.02 and s.p <= 0.05
    assert (s.label, s.verdicts) == ("UNSETTLED", ["SUPPORTED", "INCONCLUSIVE", "INCONCLUSIVE"])


def test_an_open_verdict_at_the_study_s_setting_leaves_the_scope_unsettled_whatever_its_step():
    # eleven claims, the scoped one at p 0.05 / 11: the graph's adjusted p, p / (1 / 11), is alpha,
    # but 11 * p exceeds alpha by a rounding, so its verdict is open; the scope's step would reject
    # LIMITED (lr 0.003's p_con) and, once ten other claims at the same p pass their shares on, ROBUST
    p = 0.004545454545454546
    assert verdicts.decided(p, 1.0, verdicts.HolmStep(11.0), 0.05) == "INCONCLUSIVE"
    limited = _tested([p, 1.0], [1.0, 0.0001])
    s = _judged(limited, [p] + [1.0] * 10)
    assert s.scope_step.floor <= 0.05 and s.scope_step.factor * 0.0001 <= 0.05
    assert (s.verdict, s.label, s.verdicts) == ("INCONCLUSIVE", "UNSETTLED", ["INCONCLUSIVE", "INCONCLUSIVE"])
    robust = _tested([p, 0.02], [1.0, 1.0])
    s = _judged(robust, [p] * 11)
    assert max(s.scope_step.floor, s.scope_step.factor * 0.02) <= 0.05
    assert (s.verdict, s.label, s.verdicts) == ("INCONCLUSIVE", "UNSETTLED", ["INCONCLUSIVE", "INCONCLUSIVE"])


def test_each_other_universe_s_adjusted_p_is_its_own_at_the_scope_s_step():
    # ROBUST: every universe at the intersection-union p, 0.004 at the scope's factor 1
    s = _judged(_tested([0.001, 0.004], [1.0, 1.0]))
    assert s.label == "ROBUST" and [st.adjusted for st in s.steps] == pytest.approx([0.001, 0.004])
    # LIMITED in a family of two (the scope's factor 2): lr 0.003 at its Holm p 2 * 0.001, times 2;
    # lr 0.03 at 2 * 0.6, at most 1
    s = _judged(_tested([0.001, 1.0, 0.3], [1.0, 0.001, 0.6]), [0.001, 0.5])
    assert s.label == "LIMITED" and s.scope_step.factor == 2
    assert [st.adjusted for st in s.steps] == pytest.approx([0.002, 0.004, 1.0])
    assert s.verdicts == ["SUPPORTED", "CONTRADICTED", "INCONCLUSIVE"]


# --------------------------------------------------------------------------- through the claims table


def evaluate(claims: list, own: dict, other: dict, **settings):
    """The claims table and scope tables of study s1 at lr 0.01 (``own``: norm -> seed values) with
    ``other``: lr -> norm -> seed values."""
    built = study_claims(*claims, seeds=range(len(next(iter(own.values())))))
    frame = lambda by_norm, lr: pd.concat([summary(dict(enumerate(v)), lr, norm, **settings)  # noqa: E731
                                           for norm, v in by_norm.items()], ignore_index=True)  # fmt: skip
    study = runs(frame(own, 0.01), built, scope=runs(pd.concat([frame(v, lr) for lr, v in other.items()], ignore_index=True)))
    table, rows, seeds = claims_table.evaluate_all([study], {"alpha": 0.05})
    return table.set_index("id"), rows, seeds


def test_an_open_verdict_at_the_study_s_setting_says_so_and_why():
    table, rows, _ = evaluate([scoped(robust_over={"lr": [0.003, 0.01, 0.03]})], {"pre": [0.9] * 4 + [0.1] * 4},
                              {0.003: {"pre": [0.9] * 8}, 0.03: {"pre": [0.9] * 8}})  # fmt: skip
    c = table.loc["c"]
    assert (c["verdict"], c["scope"]) == ("INCONCLUSIVE", "UNSETTLED")
    assert c["scope_detail"] == ("the verdict at the study's setting (lr=0.01) is open (8 more seed(s) per cell, every one "
                                 "meeting the claim, could decide it), so no universe is judged against it")  # fmt: skip


def test_an_unsettled_contradiction_speaks_of_p_con():
    table, _, _ = evaluate([scoped(robust_over={"lr": [0.003, 0.01, 0.03]})], {"pre": [0.1] * 8},
                           {0.003: {"pre": [0.1] * 8}, 0.03: {"pre": [0.1] * 4 + [0.9] * 4}})  # fmt: skip
    c = table.loc["c"]
    assert (c["verdict"], c["scope"]) == ("CONTRADICTED", "UNSETTLED")
    assert c["scope_detail"] == (
        "fails at lr 0.01; not yet at lr=0.03 (p_con 0.637), lr=0.003 (p_con 0.00391); weakest lr=0.03: 8 more seed(s) "
        "per cell, every one meeting the claim, could decide it; ROBUST needs every universe's p_con at the scope's step "
        "(intersection-union p = 0.637, adjusted 0.637 vs alpha 0.05)")  # fmt: skip


def test_the_scope_tables_carry_every_column_of_each_universe_and_seed():
    _, rows, seeds = evaluate([scoped()], {"pre": [0.9] * 8}, {0.003: {"pre": [0.9] * 7 + [0.1]}})
    assert list(rows.columns) == ["study"] + scope.SCOPE_COLUMNS and list(seeds.columns) == ["study"] + scope.SEED_COLUMNS
    got = rows.drop(columns=["study", "why"]).to_dict("records")
    # lr 0.003: 7 of 8 seeds, p_sup 9/256 (ROBUST's p, at the scope's factor 1); leaving out one seed
    # that met the claim gives 6 of 7 (p 1/16), so only the one without the failing seed repeats it
    assert got == [
        {"id": "c", "universe": "lr=0.003", "own": False, "verdict": "SUPPORTED", "p_sup": 9 / 256, "p_con": 255 / 256,
         "p_holm": 9 / 256, "n": 8, "share": 7 / 8, "robustness": 1 / 8, "evidence": "7 of 8 seeds reached 50 %"},
        {"id": "c", "universe": "lr=0.01", "own": True, "verdict": "SUPPORTED", "p_sup": 1 / 256, "p_con": 1.0,
         "p_holm": 1 / 256, "n": 8, "share": 1.0, "robustness": 1.0, "evidence": "8 of 8 seeds reached 50 %"},
    ]  # fmt: skip
    assert list(rows["why"]) == ["", ""]
    assert seeds["band_hi"].isna().all()
    first = seeds.drop(columns=["study", "band_hi"]).iloc[[0, 7, 8]].to_dict("records")
    assert first == [
        {"id": "c", "universe": "lr=0.003", "own": False, "cell": "mean over 1 cell(s)", "seed": 0, "lo": 0.9, "hi": 0.9,
         "met": True, "band_lo": 0.5},
        {"id": "c", "universe": "lr=0.003", "own": False, "cell": "mean over 1 cell(s)", "seed": 7, "lo": 0.1, "hi": 0.1,
         "met": False, "band_lo": 0.5},
        {"id": "c", "universe": "lr=0.01", "own": True, "cell": "mean over 1 cell(s)", "seed": 0, "lo": 0.9, "hi": 0.9,
         "met": True, "band_lo": 0.5},
    ]  # fmt: skip


def test_a_universe_of_one_seed_has_no_robustness_and_one_of_two_seeds_has_one():
    _, rows, _ = evaluate([scoped()], {"pre": [0.9]}, {0.003: {"pre": [0.9]}})
    assert list(rows["n"]) == [1, 1] and rows["robustness"].isna().all()
    # two seeds: leaving either out repeats INCONCLUSIVE
    _, rows, _ = evaluate([scoped()], {"pre": [0.9, 0.9]}, {0.003: {"pre": [0.9, 0.1]}})
    assert list(rows["verdict"]) == ["INCONCLUSIVE", "INCONCLUSIVE"] and list(rows["robustness"]) == [1.0, 1.0]


def test_a_band_with_an_upper_end_is_drawn_with_it():
    _, _, seeds = evaluate([scoped(kind="at_value", target=0.9, tolerance=0.05)], {"pre": [0.9, 0.9]},
                           {0.003: {"pre": [0.9, 0.9]}})  # fmt: skip
    assert list(seeds["band_lo"]) == pytest.approx([0.85] * 4) and list(seeds["band_hi"]) == pytest.approx([0.95] * 4)


def test_a_universe_whose_every_seed_tied_and_was_left_out_has_no_share():
    better = {"id": "c", "statement": "x", "kind": "better", "factor": "norm", "levels": ["post", "pre"], "ties": "exclude",
              "robust_over": {"lr": [0.003, 0.01]}}  # fmt: skip
    _, rows, _ = evaluate([better], {"post": [0.5] * 4, "pre": [0.9] * 4}, {0.003: {"post": [0.5] * 4, "pre": [0.5] * 4}})
    assert list(rows["evidence"]) == ["0 improved, 0 worsened, 4 tied of 4 seeds; 0 of the 0 that changed improved",
                                      "4 improved, 0 worsened, 0 tied of 4 seeds; 4 of the 4 that changed improved"]
    assert np.isnan(rows["share"].iloc[0]) and rows["share"].iloc[1] == 1.0


def _grads(summary: pd.DataFrame, slope: float) -> pd.DataFrame:
    """Initial gradient norms of three layers: ln(norm) grows by ``slope`` per layer at norm post, flat at pre."""
    return pd.DataFrame([{"run_id": r["run_id"], "seed": r["seed"], "norm": r["norm"], "layer": layer,
                          "grad_norm": float(np.exp((slope if r["norm"] == "post" else 0.0) * layer - 2))}
                         for _, r in summary.iterrows() for layer in range(3)])  # fmt: skip


def test_a_two_part_claim_s_evidence_names_each_part():
    trend = {"id": "g", "statement": "x", "kind": "grad_trend", "factor": "norm", "growing": "post", "flat": "pre",
             "flat_margin": 0.1, "robust_over": {"lr": [0.003, 0.01]}}  # fmt: skip
    claims = study_claims(trend, seeds=range(4))
    frame = lambda lr: pd.concat([summary(dict.fromkeys(range(4), 0.9), lr, norm) for norm in ("post", "pre")],  # noqa: E731
                                 ignore_index=True)  # fmt: skip
    own, other = frame(0.01), frame(0.003)
    study = runs(own, claims, init_grads=_grads(own, 0.5), scope=runs(other, init_grads=_grads(other, 0.5)))
    _, rows, _ = claims_table.evaluate_all([study], {"alpha": 0.05})
    assert list(rows["evidence"]) == ["4 of 4 seeds grew by more than 0 per layer; 4 of 4 seeds stayed within ±0.1 per layer"] * 2
