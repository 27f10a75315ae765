"""Rounds of an adaptive study (ablation.adaptive.plan_round): only open claims that can still
resolve get seeds, exactly in the cells they read; the same results give the same round; a claim
stops resolved, at max_seeds or unreachable; the schema validates the block."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from ablation import adaptive as A
from ablation import config as C
from ablation import design
from ablation import seedtests, verdicts
from ablation.config import Study

STATS = {"confidence": 0.95, "n_resamples": 99, "converged_threshold": 0.95, "alpha": 0.05}
ADAPTIVE = {"max_seeds": 20, "batch": 5}
BETTER = {"id": "warm-helps", "statement": "s", "kind": "better", "factor": "warmup", "levels": [0, 100],
          "where": {"norm": "post"}, "metric": "converged", "ties": "exclude"}  # fmt: skip
NOT_WORSE = {"id": "pre-ok", "statement": "s", "kind": "not_worse", "factor": "norm", "levels": ["post", "pre"],
             "where": {"warmup": 0}, "metric": "converged", "margin": 0.1}  # fmt: skip


def make_study(claims, seeds=range(10)) -> Study:
    factors = {"norm": ["post", "pre"], "warmup": [0, 100]}
    built = C.check_claims(claims, factors, list(factors) + ["test_acc"])
    return Study("depth", "", {"arch": "encoder", "depth": 2}, factors, list(seeds), built)


def summary_of(study: Study, runs, converged) -> pd.DataFrame:
    """A summary of ``runs``: converged(factors, seed) -> bool sets final_train_acc."""
    rows = []
    for run in runs:
        ok = converged(run.factors, run.settings.seed)
        rows.append(dict(run_id=run.run_id, seed=run.settings.seed, **run.factors, status="ok",
                         final_train_acc=1.0 if ok else 0.5, test_acc=0.9, test_correct=270, test_total=300))  # fmt: skip
    return pd.DataFrame(rows)


def rounds(study, converged, adaptive=ADAPTIVE):
    """Run the rounds to the end on simulated results: [(claim rows, new runs)] per round."""
    runs = study.runs()
    out = []
    while True:
        rows, new, _ = A.plan_round(study, summary_of(study, runs, converged), {r.hash for r in runs}, STATS, adaptive)
        out.append((rows, new))
        if not new:
            return out
        runs = runs + new


def flaky(factors, seed):
    """Post-norm converges on a seeded coin flip, with and without warm-up alike (warm-up helps in
    as many seeds as it hurts); pre-norm always converges."""
    if factors["norm"] == "post":
        return bool(np.random.default_rng([seed, factors["warmup"]]).random() < 0.5)
    return True


def every_third_fails(factors, seed):
    """Post-norm without warm-up fails at seeds 0, 3, 6, ...; everything else converges: 4 of the
    first 10 seeds favour warm-up (p = 1 / 1.9^4 ~ 0.077, open), 5 of the first 15 decide it."""
    return not (factors["norm"] == "post" and factors["warmup"] == 0 and seed % 3 == 0)


def odd_seeds_fail(factors, seed):
    """Post-norm without warm-up converges at even seeds only; everything else converges."""
    return not (factors["norm"] == "post" and factors["warmup"] == 0 and seed % 2)


def test_open_claim_gets_seeds_in_its_cells_only():
    study = make_study([BETTER])
    rows, new, _ = A.plan_round(study, summary_of(study, study.runs(), every_third_fails),
                             {r.hash for r in study.runs()}, STATS, ADAPTIVE)  # fmt: skip
    assert rows[0]["state"] == "open" and rows[0]["next_seeds"] == [10, 11, 12, 13, 14]
    assert {(r.factors["norm"], r.factors["warmup"]) for r in new} == {("post", 0), ("post", 100)}
    assert sorted({r.settings.seed for r in new}) == [10, 11, 12, 13, 14] and len(new) == 10


def test_rounds_are_deterministic_and_end():
    study = make_study([BETTER, NOT_WORSE])
    first, second = rounds(study, every_third_fails), rounds(study, every_third_fails)
    assert [[r.hash for r in new] for _, new in first] == [[r.hash for r in new] for _, new in second]
    assert len(first) >= 2  # four seeds of +1 leave the better claim open after the first seeds
    # pre-norm converges at every seed, so not_worse holds at each of the first 10 seeds and is
    # resolved at once; the open claim gets seeds in its own two cells, each once per new seed
    states = {r["id"]: r["state"] for r in first[0][0]}
    assert states == {"warm-helps": "open", "pre-ok": "resolved"}
    cells = {(r.factors["norm"], r.factors["warmup"]) for r in first[0][1]}
    assert cells == {("post", 0), ("post", 100)} and len(first[0][1]) == 2 * ADAPTIVE["batch"]
    final = first[-1][0]
    assert all(r["state"] in ("resolved", "max_seeds", "unreachable") for r in final)
    assert all(r["n_seeds"] <= ADAPTIVE["max_seeds"] for r in final)
    # re-planning on the final results plans nothing
    assert first[-1][1] == []


def test_resolved_claim_gets_no_seeds():
    study = make_study([BETTER])
    # warm-up always helps post-norm: 10 seeds of +1 decide it at once
    never = lambda f, s: not (f["norm"] == "post" and f["warmup"] == 0)  # noqa: E731
    rows, new, _ = A.plan_round(study, summary_of(study, study.runs(), never), {r.hash for r in study.runs()},
                             STATS, ADAPTIVE)  # fmt: skip
    assert rows[0]["verdict"] == "SUPPORTED" and rows[0]["state"] == "resolved" and new == []


def test_a_larger_family_asks_for_more_evidence():
    """A family wider than the study (stats.family: config): rounds judge a claim at Bonferroni over
    it, the worst Holm position (so the claims rule's Holm over that family keeps a verdict the
    rounds call resolved): decisive alone, open among twelve."""
    study = make_study([BETTER], seeds=range(6))
    never = lambda f, s: not (f["norm"] == "post" and f["warmup"] == 0)  # noqa: E731
    args = (study, summary_of(study, study.runs(), never), {r.hash for r in study.runs()}, STATS, ADAPTIVE)
    alone, _, _ = A.plan_round(*args)
    among, new, _ = A.plan_round(*args, family_size=12)
    assert alone[0]["state"] == "resolved" and among[0]["state"] == "open" and len(new) == 10
    assert among[0]["p_family"] == pytest.approx(min(1.0, 12 * alone[0]["p_family"]))


def test_rounds_decide_at_holm_over_the_study():
    """Two claims in the study's family: the one with the smaller p passes Holm's first step (alpha /
    2), and the other is then decided at alpha -- in the round, as in the claims table. Warm-up helps
    post-norm in 5 of 10 seeds (the rest tied): p = 1 / 1.9^5 ~ 0.040, between alpha / 2 and alpha."""
    from ablation import claims
    from ablation.seed_units import StudyRuns

    study = make_study([BETTER, NOT_WORSE])
    summary = summary_of(study, study.runs(), odd_seeds_fail)
    rows, new, _ = A.plan_round(study, summary, {r.hash for r in study.runs()}, STATS, ADAPTIVE)
    by_id = {r["id"]: r for r in rows}
    assert ADAPTIVE and 0.025 < by_id["warm-helps"]["p_sup"] <= 0.05 and by_id["pre-ok"]["p_sup"] < 0.025
    # decided at alpha, but by 5 seeds of which none can go: fragile, so it gets seeds (in its cells only)
    assert by_id["warm-helps"]["verdict"] == "SUPPORTED" and by_id["warm-helps"]["state"] == "fragile"
    assert by_id["pre-ok"]["state"] == "resolved" and {r.factors["norm"] for r in new} == {"post"}
    design = {"seeds": list(study.seeds)} | ADAPTIVE
    table = claims.evaluate_family([StudyRuns("depth", summary, tuple(study.factor_names), None, design, tuple(study.claims))],
                                   STATS)  # fmt: skip
    assert table.set_index("id")["verdict"].to_dict() == {r["id"]: r["verdict"] for r in rows}
    assert table.set_index("id")["p_holm"].to_dict() == pytest.approx({r["id"]: r["p_family"] for r in rows})
    # the same claim alone with twice as many claims in a config-wide family stays open
    wide, new, _ = A.plan_round(study, summary, {r.hash for r in study.runs()}, STATS, ADAPTIVE, family_size=3)
    assert {r["id"]: r["state"] for r in wide} == {"warm-helps": "open", "pre-ok": "resolved"} and len(new) == 10


def test_unreachable_and_max_seeds_stop():
    study = make_study([BETTER], seeds=range(18))
    same = lambda f, s: True  # noqa: E731  (every difference 0: two more seeds cannot decide it)
    rows, new, _ = A.plan_round(study, summary_of(study, study.runs(), same), {r.hash for r in study.runs()},
                             STATS, ADAPTIVE)  # fmt: skip
    assert rows[0]["state"] == "unreachable" and new == []
    study = make_study([BETTER], seeds=range(20))
    rows, new, _ = A.plan_round(study, summary_of(study, study.runs(), flaky), {r.hash for r in study.runs()},
                             STATS, ADAPTIVE)  # fmt: skip
    assert rows[0]["state"] in ("max_seeds", "resolved") and new == []


def test_grad_trend_keeps_the_fixed_design():
    grad = {"id": "g", "statement": "s", "kind": "grad_trend", "factor": "norm", "growing": "post", "flat": "pre",
            "flat_margin": 0.1}  # fmt: skip
    study = make_study([grad])
    rows, new, _ = A.plan_round(study, summary_of(study, study.runs(), flaky), {r.hash for r in study.runs()},
                             STATS, ADAPTIVE)  # fmt: skip
    assert rows[0]["state"] == "fixed design" and new == []
    assert rows[0]["n_seeds"] == len(study.seeds)  # the fixed design's seeds: the study's own


def test_seed_sequence_and_potential_runs():
    study = make_study([], seeds=[3, 0, 7])
    assert A.seed_sequence(study, 6) == [0, 3, 7, 8, 9, 10]
    runs = design.potential_runs(study, 6)
    assert len(runs) == 4 * 6 and len({r.hash for r in runs}) == 24
    assert A.make_run(study, {"norm": "pre", "warmup": 100}, 9).hash in {r.hash for r in runs}
    assert {r.hash for r in study.runs()} <= {r.hash for r in runs}


def raw_config(adaptive):
    return {"studies": {"s": {"fixed": {"arch": "encoder"}, "factors": {"norm": ["post", "pre"]}, "seeds": [0, 1],
                              "adaptive": adaptive}}}  # fmt: skip


def test_schema_validates_the_block():
    C.validate(raw_config({"max_seeds": 10, "batch": 2}))
    assert design.adaptive_block({"adaptive": {}}) == {"max_seeds": 40, "batch": 5}
    assert design.adaptive_block({}) is None
    with pytest.raises(C.ConfigError, match="batch"):
        C.validate(raw_config({"max_seeds": 10, "batch": 0}))
    with pytest.raises(C.ConfigError, match="adaptive"):
        C.validate(raw_config({"max_seeds": 10, "batches": 2}))
    with pytest.raises(ValueError, match="below its 2 seeds"):
        A.check(make_study([], seeds=[0, 1]), {"max_seeds": 1, "batch": 1})


def test_claims_of_an_adaptive_study_use_the_anytime_valid_rule():
    """The claims rule: an adaptive study's claims take ablation.sequential's p-values (its rule
    says so); a fixed study's the fixed-design ones; grad_trend reads only the first seeds."""
    from ablation import claims, measures, seed_units

    study = make_study([BETTER], seeds=range(10))
    [claim] = study.claims
    extra = [A.make_run(study, combo, s) for combo in A.claim_combinations(claim, study) for s in range(10, 20)]
    summary = summary_of(study, study.runs() + extra, flaky)
    design = {"seeds": list(range(10))} | ADAPTIVE
    runs = seed_units.StudyRuns("depth", summary, tuple(study.factor_names), claims=(claim,))
    fixed = claims.evaluate_family([runs], STATS)
    adaptive = claims.evaluate_family([seed_units.StudyRuns("depth", summary, tuple(study.factor_names), None, design,
                                                            (claim,))], STATS)  # fmt: skip
    [[cell]], _ = seed_units.claim_cells(claim, runs, measures.resolve_cfg(STATS))
    cond = claim.parts[0].condition
    counted = cond.counted(cell.lo, cell.hi, cell.step)
    sure, possible = cond.sure(cell.lo, cell.hi), cond.possible(cell.lo, cell.hi)
    # the e-process on the untied seeds' signs, read at the design's round ends
    rounds = verdicts.looks_of(design, cell.seeds).rounds
    assert adaptive["p_value"].iloc[0] == pytest.approx(min(seedtests.share_p_sequential(sure, possible, counted, 0.5, 0.05, rounds)))
    assert adaptive["p_value"].iloc[0] != pytest.approx(fixed["p_value"].iloc[0])
    assert "anytime-valid" in adaptive["rule"].iloc[0] and "anytime-valid" not in fixed["rule"].iloc[0]
    assert adaptive["n"].iloc[0] == 20


def test_plan_says_what_the_rounds_can_reach():
    """make plan, for an adaptive study: the fewest seeds after which the most favourable results
    resolve each claim at alpha / m, consistent with the rounds' own rule."""
    from ablation import plan

    raw = raw_config({"max_seeds": 40, "batch": 5})
    raw["studies"]["s"]["factors"]["warmup"] = [0, 100]
    raw["studies"]["s"]["claims"] = [BETTER]
    table = plan.plan(C.validate(raw))
    [claim] = C.validate(raw).studies["s"].claims
    sup, con = plan.agreeing_seeds(claim, 0.05, 1, True, 0.05, 40)
    row = table.iloc[0]
    # reachable within its rounds; priced at a plausible truth (no runs: 9 of 10 seeds improve), it needs
    # more seeds than the agreeing ones that bound it
    assert (row["seeds"], row["supported"]) == ("2-40", "yes") and row["seeds_needed"] >= sup
    # exactly then the rounds' rule, a look after every seed, calls agreeing seeds resolved, and not one earlier
    every = lambda n: seedtests.share_p_sequential(np.ones(n), np.ones(n), np.ones(n, dtype=bool), 0.5, 0.05)[0]  # noqa: E731
    assert every(sup) <= 0.05 < every(sup - 1)
    assert con == sup  # a symmetric bet at share 1/2: as many losing seeds contradict it
    raw["studies"]["s"]["adaptive"] = {"max_seeds": sup - 1, "batch": 1}
    assert plan.plan(C.validate(raw)).iloc[0]["supported"] == "no"


def default_study(name, seeds=None, adaptive=None):
    """The default config's study ``name``; ``seeds`` and ``adaptive``: the study made adaptive, its other
    keys as configured (the default studies that compare accuracies run one look)."""
    raw = C.load_yaml("config/config.yaml")
    if adaptive is not None:
        raw["studies"][name].update(seeds=list(seeds), adaptive=adaptive)
    cfg = C.validate(raw)
    return cfg, cfg.studies[name], design.adaptive_block(cfg.raw["studies"][name])


def accuracy_runs(study, runs, correct) -> pd.DataFrame:
    """A summary of ``runs``: correct(factors, seed) -> test examples right of 300."""
    rows = []
    for run in runs:
        k = correct(run.factors, run.settings.seed)
        rows.append(dict(run_id=run.run_id, seed=run.settings.seed, **run.factors, status="ok", final_train_acc=1.0,
                         test_acc=k / 300, test_correct=k, test_total=300))  # fmt: skip
    return pd.DataFrame(rows)


def plan_default(name, correct, seeds, adaptive):
    cfg, study, block = default_study(name, seeds, adaptive)
    runs = study.runs()
    rows, new, _ = A.plan_round(study, accuracy_runs(study, runs, correct), {r.hash for r in runs}, cfg.stats, block)
    return study, {r["id"]: r for r in rows}, new


def test_the_default_claims_are_decided_in_the_first_round_where_agreeing_seeds_show_it():
    """The factorial and position studies made adaptive (7 and 8 seeds first). Where every first-round
    seed agrees, the first round decides and no seeds are added: two settings at the same accuracy in
    every seed tie, the mean test's check fails on seeds that all tie and the share of seeds within
    the margin decides C3 and C4 (SUPPORTED); P4, 20 pp apart in every seed of one cell, is CONTRADICTED."""
    study, rows, new = plan_default("factorial", lambda f, s: 300, range(7), {"max_seeds": 13, "batch": 2})
    assert len(study.seeds) == 7 and new == []
    assert {i: (r["state"], r["verdict"]) for i, r in rows.items()} == {
        "C3-heads": ("resolved", "SUPPORTED"), "C4-seq-len": ("resolved", "SUPPORTED")}

    def position(f, s):
        if f["pos_enc"] == "none" or (f["pos_enc"] == "alibi" and f["attn_mask"] == "bidirectional"):
            return 150 if f["attn_mask"] == "bidirectional" else 240
        worse = f["pos_enc"] == "learned" and f["attn_mask"] == "bidirectional" and f["seq_len"] == 32
        return 240 if worse else 300

    study, rows, new = plan_default("position", position, range(8), {"max_seeds": 9, "batch": 1})
    assert len(study.seeds) == 8 and new == []
    states = {i: (r["state"], r["verdict"]) for i, r in rows.items() if r["state"] != "exact"}
    assert states == {"P1-causal-nope-above-chance": ("resolved", "SUPPORTED"),
                      "P3-rope-not-worse-at-32": ("resolved", "SUPPORTED"),
                      "P4-learned-like-sinusoidal": ("resolved", "CONTRADICTED"),
                      "P5-symmetric-alibi-blind-to-direction": ("resolved", "SUPPORTED")}  # fmt: skip


def test_the_rounds_add_seeds_only_in_an_open_claims_cells():
    """The rounds' mechanics, on the factorial study made adaptive (7 seeds, 2 more a round up to 13)
    with C3 and C4 read seed by seed (estimand share): C4 open (sequences of 32 lose 5 pp at every seed
    in one of its 8 cells: post-norm, two heads; CONTRADICTED there needs 9 seeds): the round adds the
    next 2 seeds (its batch) in C4's 16 cells -- sequences of 8 and 32, every head count and norm -- and
    nowhere else; C3, decided, gets none."""

    def correct(f, s):
        return 285 if (f["seq_len"] == 32 and f["heads"] == 2 and f["norm"] == "post") else 300

    cfg, study, block = default_study("factorial", range(7), {"max_seeds": 13, "batch": 2})
    study.claims = [dataclasses.replace(c, estimand="share") for c in study.claims]
    runs = study.runs()
    rows, new, _ = A.plan_round(study, accuracy_runs(study, runs, correct), {r.hash for r in runs}, cfg.stats, block)
    rows = {r["id"]: r for r in rows}
    assert rows["C4-seq-len"]["state"] == "open" and rows["C4-seq-len"]["p_con"] < rows["C4-seq-len"]["p_sup"]
    assert rows["C3-heads"]["state"] == "resolved"
    assert rows["C4-seq-len"]["next_seeds"] == [7, 8] and rows["C3-heads"]["next_seeds"] == []
    cells = {(r.factors["heads"], r.factors["seq_len"], r.factors["norm"]) for r in new}
    assert cells == {(h, n, norm) for h in (1, 2, 4, 8) for n in (8, 32) for norm in ("post", "pre")}
    assert len(new) == 16 * 2 and {r.settings.seed for r in new} == {7, 8}
    # the next round, on those runs: 0 of 9 seeds meet C4 in that cell, and it is decided there
    runs = study.runs() + new
    rows, more, _ = A.plan_round(study, accuracy_runs(study, runs, correct), {r.hash for r in runs}, cfg.stats, block)
    assert [(r["id"], r["state"], r["verdict"]) for r in rows if r["id"] == "C4-seq-len"] == [
        ("C4-seq-len", "resolved", "CONTRADICTED")] and more == []


def test_a_verdict_one_seed_carries_keeps_getting_seeds_until_it_survives_leaving_one_out():
    """Warm-up helps post-norm in 5 of the first 10 seeds (the rest tied): SUPPORTED at p = 1 / 1.9^5
    ~ 0.040, but without any one of those five p = 1 / 1.9^4 ~ 0.077. The rounds give such a
    fragile verdict more seeds (its verdict stands: an anytime-valid p only falls), and stop it as
    resolved once no single seed carries it."""
    study = make_study([BETTER])
    helps = lambda f, s: not (f["norm"] == "post" and f["warmup"] == 0 and (s < 5 or s >= 10))  # noqa: E731
    first_rows, first_new, _ = A.plan_round(study, summary_of(study, study.runs(), helps), {r.hash for r in study.runs()},
                                         STATS, ADAPTIVE)  # fmt: skip
    assert first_rows[0]["verdict"] == "SUPPORTED" and first_rows[0]["state"] == "fragile"
    assert sorted({r.settings.seed for r in first_new}) == [10, 11, 12, 13, 14]
    history = rounds(study, helps)
    last = history[-1][0][0]
    assert last["verdict"] == "SUPPORTED" and last["state"] == "resolved"
