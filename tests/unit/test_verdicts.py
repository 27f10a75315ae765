"""Tests of ablation.verdicts on planted cases: a comparison's tally of improved, worsened and tied
seeds (at the tie bound too, and with a diverged run's unknown seed), the seeds' range a test is
bounded by, a mean claim's words, the steps of Holm's step-down and of the graphical procedure
(Bretz et al. 2009, computed by hand; Holm's against statsmodels), the leave-one-seed-out robustness,
and, word for word, why an undecided claim stays open: the futility rule's sentence (max_seeds, no
further seeds could decide it at its step), every seed tied, or how many more seeds would decide it."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from ablation import claims as C
from ablation import data, seed_units, verdicts
from ablation.verdicts import HolmStep
from test_claims import ALPHA, CFG, FACTORS, SETTINGS, claim, runs, study

JUDGE = verdicts.Judge.of(CFG)
ONE_CELL = {"pos_enc": ["sinusoidal"], "norm": ["post"]}
WARMUP = ["pos_enc", "warmup"]
WARMUP_LEVELS = {"pos_enc": ["sinusoidal"], "warmup": [0.0, 100.0]}


def at_least(**keys):
    """An at_least claim (97 %) on the study's one cell, built as the config builds it."""
    return C.check_claims([claim("at_least", threshold=0.97, **keys)], FACTORS, SETTINGS + ["test_acc"])[0]


def adaptive(summary, max_seeds, factors=FACTORS):
    """An adaptive study's runs: its own seeds are the summary's, at most ``max_seeds`` per cell."""
    seeds = sorted(summary["seed"].unique())
    return runs(summary, None, factors, {"seeds": seeds, "max_seeds": max_seeds, "batch": 1})


def tied_warmup(**keys):
    """A `better` claim of warmup 100 over 0 and runs whose accuracy warmup leaves alone in every seed."""
    summary = study(lambda cell, s: 0.9, levels=WARMUP_LEVELS)
    c = C.check_claims([claim("better", factor="warmup", levels=[0.0, 100.0], **keys)], WARMUP, list(summary.columns))[0]
    return c, summary


TIED = "no seed differed in 8: warmup 0 and 100 give the same test_acc in every seed"
MORE = "more seed(s) per cell, every one meeting the claim, could decide it"


# --------------------------------------------------------------------------- a comparison's seeds


def test_a_known_difference_is_improved_worsened_or_tied_even_at_half_a_step():
    # on the accuracies' grid: one step up is an improvement, one step down a worsening, 0 a tie
    step = 1 / 300
    grid = np.array([step, -step, 0.0, 2 * step, step])
    cell = seed_units.Cell("c", np.arange(5), grid, grid.copy(), step)
    assert verdicts.tally(cell) == (3, 1, 1, 0)
    # unquantized values (step 0): ties lie within 1e-12 / 2 of 0; a difference at that bound changed
    bound = 1e-12 / 2
    values = np.array([bound, -bound, 0.8 * bound, -0.8 * bound, 0.0, 0.5])
    assert verdicts.tally(seed_units.Cell("c", np.arange(6), values, values.copy(), 0.0)) == (2, 1, 3, 0)


def test_a_tally_counts_a_diverged_runs_seed_as_unknown_in_its_words():
    step = 1 / 300
    lo = np.array([step, step, -step, 0.0, 2 * step, -1.0])
    hi = np.where(lo == -1.0, 1.0, lo)  # the last seed's run diverged: its difference straddles 0
    cell = seed_units.Cell("c", np.arange(6), lo, hi, step)
    assert verdicts.tally(cell) == (3, 1, 1, 1)
    assert verdicts.tally_words(cell) == "3 improved, 1 worsened, 1 tied, 1 unknown (a diverged run) of 6 seeds"
    known = seed_units.Cell("c", np.arange(5), lo[:5], hi[:5], step)
    assert verdicts.tally_words(known) == "3 improved, 1 worsened, 1 tied of 5 seeds"


def test_every_seed_tied_is_said_with_the_levels_as_the_config_writes_them():
    c, summary = tied_warmup()
    r = verdicts.claim_test(c, runs(summary, None, WARMUP), JUDGE)
    assert verdicts.all_tied(c, r) == TIED  # float levels 0.0 and 100.0 read as 0 and 100
    moved = summary.assign(test_acc=np.where((summary["warmup"] == 100.0) & (summary["seed"] == 3), 0.95, 0.9))
    assert verdicts.all_tied(c, verdicts.claim_test(c, runs(moved, None, WARMUP), JUDGE)) == ""
    one = at_least()
    assert verdicts.all_tied(one, verdicts.claim_test(one, runs(summary, None, WARMUP), JUDGE)) == ""


def test_a_mean_claims_words_start_with_the_mean_over_its_seeds():
    c = C.check_claims([claim("at_least", threshold=0.9, estimand="mean")], FACTORS, SETTINGS + ["test_acc"])[0]
    r = verdicts.claim_test(c, runs(study(lambda cell, s: 0.99, levels=ONE_CELL)), JUDGE)
    assert r.evidence[0][0].words == "mean 0.99 over 8 seeds; 8 of 8 seeds reached 90 %"
    share = verdicts.claim_test(at_least(), runs(study(lambda cell, s: 0.99, levels=ONE_CELL)), JUDGE)
    assert share.evidence[0][0].words == "8 of 8 seeds reached 97 %"


def test_a_seeds_range_is_its_metrics_declared_range_and_a_differences_spans_its_width_both_ways(monkeypatch):
    class Signed(data.Task):
        metrics = {"signed_margin": data.Metric("test sequences", (-1.0, 1.0))}

    monkeypatch.setitem(data.TASKS, "signed", Signed)
    level = C.check_claims([claim("at_least", threshold=0.97, metric="signed_margin")], FACTORS, SETTINGS)[0]
    paired = C.check_claims([claim("better", factor="norm", levels=["post", "pre"], metric="signed_margin")],
                            FACTORS, SETTINGS)[0]  # fmt: skip
    assert verdicts.bounds(level, level.parts[0]) == (-1.0, 1.0)
    assert verdicts.bounds(paired, paired.parts[0]) == (-2.0, 2.0)
    assert verdicts.bounds(at_least(), at_least().parts[0]) == (0.0, 1.0)


# --------------------------------------------------------------------------- one procedure per family


def test_the_graphical_procedures_steps_follow_bretz_et_al_by_hand():
    # two claims (alpha split in halves), each passing its share to its scope's hypothesis (H3, H4),
    # which passes it on to the other claim; H5 gets no weight ever. By hand (Bretz et al. 2009,
    # Algorithm 2): H1 first (0.01 / 0.5 = 0.02); H3 inherits 0.5 (0.03 / 0.5 = 0.06, before H2's
    # 0.08); H2 then holds the whole alpha (0.04 / 1, floor 0.06); H4 last (0.2 / 1)
    p = [0.01, 0.04, 0.03, 0.2, 0.001]
    g = np.zeros((5, 5))
    g[0, 2] = g[1, 3] = g[2, 1] = g[3, 0] = 1.0
    steps = verdicts.graph_steps(p, [0.5, 0.5, 0.0, 0.0, 0.0], g, 2)
    want = [(2.0, 0.0, 0.02), (1.0, 0.06, 0.06), (2.0, 0.02, 0.06), (1.0, 0.06, 0.2), (np.inf, 0.2, 1.0)]
    assert len(steps) == 5
    for got, (factor, floor, adjusted) in zip(steps, want):
        assert (got.factor, got.floor, got.adjusted) == pytest.approx((factor, floor, adjusted))
        assert all(type(x) is float for x in (got.factor, got.floor, got.adjusted))
        assert (got.size, got.scoped) == (2, 3)  # the family's 2 claims and its scopes' 3 hypotheses


def test_without_scopes_the_steps_are_holms_step_down_as_statsmodels_adjusts_it():
    p = [0.04, 0.01, 0.3, 0.02, 0.02]
    holm = verdicts.holm_steps(p)
    assert [s.adjusted for s in holm] == pytest.approx(multipletests(p, method="holm")[1])
    assert [s.factor for s in holm] == [2, 5, 1, 4, 3]  # tied p-values: the earlier one first
    assert [s.floor for s in holm] == pytest.approx([0.08, 0.0, 0.08, 0.05, 0.08])
    # Holm's step-down is the graphical procedure's complete graph of equal weights
    m = len(p)
    graph = verdicts.graph_steps(p, np.full(m, 1 / m), (np.ones((m, m)) - np.eye(m)) / (m - 1), m)
    for a, b in zip(graph, holm):
        assert (a.factor, a.floor, a.adjusted) == pytest.approx((b.factor, b.floor, b.adjusted))
        assert (a.size, a.scoped) == (b.size, b.scoped) == (m, 0)


# --------------------------------------------------------------------------- robustness


def test_robustness_is_nan_without_seeds():
    summary = study(lambda cell, s: 1.0, levels=ONE_CELL)
    assert np.isnan(verdicts.robustness(at_least(), runs(summary), JUDGE, HolmStep(), "SUPPORTED", ()))


def test_a_left_out_seed_that_empties_the_selection_repeats_an_inconclusive_verdict():
    # pos_enc=sinusoidal has runs of seed 0 only: without seed 0 the claim's selection is empty
    # (ValueError), which counts as INCONCLUSIVE, as the claim is with its one seed
    summary = study(lambda cell, s: 1.0, levels={"pos_enc": ["none", "sinusoidal"], "norm": ["post"]})
    summary = summary[(summary["pos_enc"] == "none") | (summary["seed"] == 0)].reset_index(drop=True)
    c = at_least(where={"pos_enc": "sinusoidal"})
    study_runs = runs(summary)
    with pytest.raises(ValueError, match="c-at_least"):
        verdicts.verdict_alone(c, study_runs.without_seed(0), JUDGE, HolmStep())
    r = verdicts.claim_test(c, study_runs, JUDGE)
    assert (verdicts.decided(r.p_sup, r.p_con, HolmStep(), ALPHA), r.n, r.seeds) == ("INCONCLUSIVE", 1, (0,))
    assert verdicts.robustness(c, study_runs, JUDGE, HolmStep(), "INCONCLUSIVE", r.seeds) == 1.0
    assert verdicts.robustness(c, study_runs, JUDGE, HolmStep(), "SUPPORTED", r.seeds) == 0.0


# --------------------------------------------------------------------------- why a claim stays open


def test_an_adaptive_claim_at_max_seeds_gets_no_more_and_its_reason_says_so():
    c = at_least()
    summary = study(lambda cell, s: 1.0 if s % 2 else 0.5, levels=ONE_CELL)
    at_max = adaptive(summary, 8)
    r = verdicts.claim_test(c, at_max, JUDGE)
    assert verdicts.futility(c, at_max, r, JUDGE, HolmStep()) == (True, "it has max_seeds (8)")
    assert verdicts.open_reason(c, at_max, r, JUDGE, HolmStep()) == "it has max_seeds (8)"
    # one seed short of max_seeds: not the max_seeds rule, but no single seed could decide it
    assert verdicts.futility(c, adaptive(summary, 9), r, JUDGE, HolmStep()) == (True, (
        "even 1 more seed(s) per cell, each the most favourable to a verdict, could not decide it within "
        "max_seeds (9): it gets no more"))  # fmt: skip


def test_a_claim_whose_every_seed_tied_says_so_with_the_futility_rules_reason():
    c, summary = tied_warmup(ties="exclude")
    at_max = adaptive(summary, 8, WARMUP)
    r = verdicts.claim_test(c, at_max, JUDGE)
    assert verdicts.futility(c, at_max, r, JUDGE, HolmStep()) == (True, f"{TIED}; it has max_seeds (8)")
    assert verdicts.open_reason(c, at_max, r, JUDGE, HolmStep()) == f"{TIED}; it has max_seeds (8)"
    # a fixed design: the tie, and how many further seeds, each an improvement, would decide it
    fixed = runs(summary, None, WARMUP)
    r = verdicts.claim_test(c, fixed, JUDGE)
    assert verdicts.futility(c, fixed, r, JUDGE, HolmStep()) == (False, TIED)
    assert verdicts.open_reason(c, fixed, r, JUDGE, HolmStep()) == (
        f"{TIED}; 5 {MORE}")  # 5 of 5 improved: 0.5 ** 5 <= 0.05


def test_further_seeds_must_decide_a_claim_at_its_holm_step_not_beyond_it():
    # 3 seeds meet the claim, max_seeds 5: two more meeting it bring the e-process's p under alpha,
    # not under alpha / 4, so at Holm factor 4 no further seeds could decide it (the futility rule)
    c = at_least()
    room = adaptive(study(lambda cell, s: 1.0, seeds=range(3), levels=ONE_CELL), 5)
    r = verdicts.claim_test(c, room, JUDGE)
    assert verdicts.futility(c, room, r, JUDGE, HolmStep(1)) == (False, "")
    assert verdicts.open_reason(c, room, r, JUDGE, HolmStep(1)) == f"2 {MORE}"
    futile = ("even 2 more seed(s) per cell, each the most favourable to a verdict, could not decide it within "
              "max_seeds (5): it gets no more")  # fmt: skip
    assert verdicts.futility(c, room, r, JUDGE, HolmStep(4)) == (True, futile)
    assert verdicts.open_reason(c, room, r, JUDGE, HolmStep(4)) == futile
    # a step no weight ever reaches (factor inf): no seeds could decide it, however many max_seeds allows
    wide = adaptive(study(lambda cell, s: 1.0, seeds=range(3), levels=ONE_CELL), 20)
    never = futile.replace("2 more", "17 more").replace("(5)", "(20)")
    assert verdicts.futility(c, wide, r, JUDGE, HolmStep(np.inf)) == (True, never)


def test_an_open_claim_says_how_many_more_agreeing_seeds_would_decide_it():
    c = at_least()
    fixed = runs(study(lambda cell, s: 1.0 if s % 2 else 0.5, levels=ONE_CELL))  # 4 of 8 seeds meet it
    r = verdicts.claim_test(c, fixed, JUDGE)
    need = next(k for k in range(1, 100) if sps.binom.sf(3 + k, 8 + k, 0.5) <= ALPHA)
    assert need == 8 and verdicts.futility(c, fixed, r, JUDGE, HolmStep()) == (False, "")
    assert verdicts.open_reason(c, fixed, r, JUDGE, HolmStep()) == f"8 {MORE}"
    # at Holm factor 4: the exact binomial p of 4 + k of 8 + k seeds under alpha / 4
    assert verdicts.open_reason(c, fixed, r, JUDGE, HolmStep(4)) == f"11 {MORE}"
    # beyond the limit of further seeds it counts, the sentence names no count
    assert verdicts.open_reason(c, fixed, r, JUDGE, HolmStep(1e60)) == "its seeds do not yet decide it"
