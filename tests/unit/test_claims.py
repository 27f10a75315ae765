"""Tests of ablation.claims: every kind reaches each verdict on data built for it; bad claims fail."""

from __future__ import annotations

import dataclasses
from dataclasses import replace
import itertools
import json
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from ablation import claims as C
from ablation import verdicts
from ablation import kinds
from ablation import seedtests
from ablation import sequential
from ablation import seed_units

ALPHA = 0.05
CFG = {"confidence": 0.95, "n_resamples": 999, "converged_threshold": 0.95, "alpha": ALPHA}
FACTORS = ["pos_enc", "norm"]
LEVELS = {"pos_enc": ["none", "sinusoidal"], "norm": ["post", "pre"]}
SETTINGS = ["arch", "pos_enc", "heads", "depth", "norm", "d_model", "seq_len"]


def study(acc_fn, seeds=range(8), n_test=150, levels=LEVELS, noise=0.0, rng_seed=0) -> pd.DataFrame:
    """Runs of every (pos_enc, norm, seed); test_acc = acc_fn(cell, seed) + N(0, noise), on the test grid."""
    rng = np.random.default_rng(rng_seed)
    rows = []
    for combo in itertools.product(*levels.values()):
        cell = dict(zip(levels, combo))
        for s in seeds:
            acc = float(np.clip(acc_fn(cell, s) + rng.normal(0, noise), 0, 1)) if noise else float(acc_fn(cell, s))
            total = 2 * n_test
            correct = round(acc * total)
            rows.append(dict(run_id=f"r{len(rows)}", seed=s, **cell, heads=4, depth=4, seq_len=8, status="ok",
                             final_train_acc=min(1.0, correct / total + 0.02), test_correct=correct,
                             test_total=total, test_acc=correct / total, n_test=n_test))  # fmt: skip
    return pd.DataFrame(rows)


def grads(summary, slope_fn, noise=0.0, depth=4, rng_seed=0) -> pd.DataFrame:
    """Initial gradient norms: ln(norm) = slope_fn(run) * layer + N(0, noise)."""
    rng = np.random.default_rng(rng_seed)
    rows = []
    for _, run in summary.iterrows():
        slope = slope_fn(run)
        for layer in range(depth):
            rows.append(dict(run_id=run["run_id"], seed=run["seed"], pos_enc=run["pos_enc"], norm=run["norm"],
                             layer=layer,
                             grad_norm=float(np.exp(slope * layer + rng.normal(0, noise) - 2))))  # fmt: skip
    return pd.DataFrame(rows)


def runs(summary, init_grads=None, factors=FACTORS, design=None, claims=(), name=""):
    """A study's runs as the claims read them."""
    return seed_units.StudyRuns(name, summary, tuple(factors), init_grads, design, tuple(claims))


def built(c, summary=None, factors=FACTORS):
    """A claim mapping built into a claim, as the config builds it."""
    columns = SETTINGS + ["test_acc"] if summary is None else list(summary.columns)
    return C.check_claims([c], factors, columns)[0]


def family(studies, adaptive=None):
    """(name, claims, summary, init_grads, factors) per study -> each study's runs with its claims built."""
    return [runs(summary, grads, factors, (adaptive or {}).get(name), C.check_claims(claims, factors, list(summary.columns)), name)
            for name, claims, summary, grads, factors in studies]  # fmt: skip


def verdict(claim, summary, init_grads=None, factors=FACTORS):
    out = C.evaluate_claims([claim], summary, init_grads, factors, CFG)
    assert list(out.columns) == C.CLAIM_COLUMNS and len(out) == 1
    row = out.iloc[0]
    assert row["verdict"] in verdicts.VERDICTS and row["rule"] and row["detail"]
    return row["verdict"], row


def claim(kind, **keys):
    return {"id": f"c-{kind}", "statement": f"a {kind} claim", "source": "lesson 45", "kind": kind, **keys}


# --------------------------------------------------------------------------- one-level kinds


def test_every_cell_versus_average_over_cells():
    # cells at 0.45 and 0.55 average to 0.5: "at chance" only on average, in no cell
    df = study(lambda cell, s: 0.45 + 0.1 * (cell["norm"] == "pre"), noise=0.002)
    c = claim("at_value", where={"pos_enc": "none"}, target=0.5, tolerance=0.02)
    v, row = verdict(c, df)
    assert v == "CONTRADICTED" and row["cells"] == "every" and "norm=post" in row["detail"]
    v, row = verdict(dict(c, cells="average"), df)
    assert v == "SUPPORTED" and row["n"] == 8 and row["estimate"] == pytest.approx(0.5, abs=0.002)


# --------------------------------------------------------------------------- paired kinds


def test_equivalent_three_verdicts():
    c = claim("equivalent", factor="norm", levels=["post", "pre"], margin=0.02)
    base = {s: 0.6 + 0.05 * s for s in range(8)}  # big seed effect: only pairing removes it
    rng = np.random.default_rng(1)
    jitter = {k: rng.normal(0, 0.004) for k in itertools.product(LEVELS["pos_enc"], range(8))}

    def make(shift, spread=0.0):
        return study(lambda cell, s: base[s] * 0.5 + (shift + spread * jitter[(cell["pos_enc"], s)] / 0.004
                                                      if cell["norm"] == "pre" else 0.0))  # fmt: skip

    v, row = verdict(c, make(0.0, 0.002))
    assert v == "SUPPORTED" and row["n"] == 8 and "paired on seed and pos_enc, averaged within seed" in row["detail"]
    assert verdict(c, make(0.1, 0.002))[0] == "CONTRADICTED"
    assert verdict(c, make(0.02, 0.01))[0] == "INCONCLUSIVE"


def test_equivalent_pairs_within_where_only():
    # norm matters without positional encoding, not with it
    df = study(lambda cell, s: 0.5 + 0.01 * s + (0.2 if cell["norm"] == "pre" and cell["pos_enc"] == "none" else 0),
               noise=0.002)  # fmt: skip
    c = claim("equivalent", factor="norm", levels=["post", "pre"], margin=0.02)
    assert verdict(c, df)[0] == "CONTRADICTED"  # the pos_enc=none cell is 0.2 apart
    v, row = verdict(dict(c, where={"pos_enc": "sinusoidal"}), df)
    assert v == "SUPPORTED" and row["n"] == 8 and abs(row["estimate"]) < 0.005
    # rows in another order, same result
    shuffled = df.sample(frac=1.0, random_state=0)
    assert verdict(dict(c, where={"pos_enc": "sinusoidal"}), shuffled)[1].equals(row)


def test_not_worse_three_verdicts():
    c = claim("not_worse", factor="norm", levels=["post", "pre"], margin=0.02)
    rng = np.random.default_rng(2)
    noise = {k: rng.normal(0, 1) for k in itertools.product(LEVELS["pos_enc"], LEVELS["norm"], range(8))}

    def make(shift, sd):
        return study(lambda cell, s: 0.8 + 0.01 * s + (shift if cell["norm"] == "pre" else 0.0)
                     + sd * noise[(cell["pos_enc"], cell["norm"], s)])  # fmt: skip

    assert verdict(c, make(0.0, 0.002))[0] == "SUPPORTED"
    assert verdict(c, make(-0.1, 0.002))[0] == "CONTRADICTED"
    assert verdict(c, make(-0.02, 0.01))[0] == "INCONCLUSIVE"


# --------------------------------------------------------------------------- gradient trend


def test_grad_trend_three_verdicts():
    df = study(lambda cell, s: 0.9)
    c = claim("grad_trend", factor="norm", growing="post", flat="pre", flat_margin=0.1)

    def g(post_slope, pre_slope, noise=0.01):
        return grads(df, lambda run: post_slope if run["norm"] == "post" else pre_slope, noise=noise)

    v, row = verdict(c, df, g(0.5, 0.0))
    assert v == "SUPPORTED" and row["estimate"] == pytest.approx(0.5, abs=0.02) and row["n"] == 8
    assert verdict(c, df, g(-0.5, 0.0))[0] == "CONTRADICTED"
    assert verdict(c, df, g(0.5, 0.4))[0] == "CONTRADICTED"  # the "flat" level is not flat
    assert verdict(c, df, g(0.0, 0.0, noise=0.3))[0] == "INCONCLUSIVE"
    # depth 1: no slope can be fitted, and the detail says so
    v, row = verdict(c, df, grads(df, lambda run: 0.5, depth=1))
    assert v == "INCONCLUSIVE" and row["n"] == 0 and "without a usable slope" in row["detail"]


# --------------------------------------------------------------------------- where, casting, errors


def test_where_casts_to_the_column_type():
    df = study(lambda cell, s: 0.5 if cell["pos_enc"] == "none" else 1.0)
    c = claim("at_value", where={"pos_enc": "none", "heads": "4", "seq_len": 8.0}, target=0.5, tolerance=0.001)
    row = verdict(dict(c, cells="average"), df)[1]
    assert row["estimate"] == 0.5 and row["n"] == 8  # the 16 pos_enc=none runs, two per seed
    c = claim("at_value", where={"norm": ["post", "pre"], "pos_enc": "none"}, target=0.5, tolerance=0.001)
    assert verdict(c, df)[1]["n"] == 8


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"kind": "about"}, "unknown kind"),
        ({"kind": "at_value", "target": 0.5}, "needs key"),
        ({"kind": "at_value", "target": 0.5, "tolerance": "small"}, "tolerance: got a string 'small', expected a number"),
        ({"kind": "at_value", "target": 0.5, "tolerance": -1}, ">= 0"),
        ({"kind": "at_least", "threshold": 0.5, "tresh": 1}, "unknown key"),
        ({"kind": "at_least", "threshold": 0.5, "metric": "loss"}, "metric: 'loss' is not one of"),
        ({"kind": "at_least", "threshold": 0.5, "where": {"colour": "red"}}, "does not exist"),
        ({"kind": "at_least", "threshold": 0.5, "where": ["pos_enc"]}, "mapping"),
        ({"kind": "better", "factor": "heads", "levels": [1, 4]}, "not a factor"),
        ({"kind": "better", "factor": "norm", "levels": ["post"]}, r"levels: must be a list of exactly 2 values, got \['post'\]"),
        ({"kind": "better", "factor": "norm", "levels": ["post", "post"]}, "same level"),
        ({"kind": "better", "factor": "norm", "levels": ["post", "pre"], "where": {"norm": "pre"}}, "fixes"),
        ({"kind": "grad_trend", "factor": "norm", "growing": "post", "flat": "pre"}, "flat_margin"),
        ({"kind": "grad_trend", "factor": "norm", "growing": "post", "flat": "pre", "flat_margin": 0.1,
          "metric": "test_acc"}, "unknown key"),
    ],
)  # fmt: skip
def test_malformed_claims_raise_naming_the_claim(bad, message):
    c = {"id": "bad-one", "statement": "s", **bad}
    with pytest.raises(ValueError, match=rf"claim 'bad-one': .*{message}"):
        C.check_claims([c], FACTORS, SETTINGS)
    with pytest.raises(ValueError, match="claim 'bad-one'"):
        C.evaluate_claims([c], study(lambda cell, s: 0.9), None, FACTORS, CFG)


def test_check_claim_with_known_levels_and_missing_id():
    c = claim("better", factor="norm", levels=["post", "sandwich"])
    C.check_claims([c], FACTORS, SETTINGS)  # levels unknown: passes
    with pytest.raises(ValueError, match="claim 'c-better': level 'sandwich' is not a level"):
        C.check_claims([c], LEVELS, SETTINGS)
    with pytest.raises(ValueError, match=r"^claims\[0\]: missing required key 'id'$"):
        C.check_claims([{"statement": "s", "kind": "at_least", "threshold": 0.5}], FACTORS, SETTINGS)
    [ok] = C.check_claims([claim("at_least", threshold=0.9)], LEVELS, SETTINGS)
    assert ok.metric == "test_acc" and ok.where == {}


def test_data_dependent_errors_name_the_claim():
    df = study(lambda cell, s: 0.9)
    with pytest.raises(ValueError, match="claim 'c-at_least': 'where' pos_enc='learned' selects no runs"):
        C.evaluate_claims([claim("at_least", threshold=0.5, where={"pos_enc": "learned"})], df, None, FACTORS, CFG)
    with pytest.raises(ValueError, match="claim 'c-at_least': 'where' names column 'warmup'"):
        C.evaluate_claims([claim("at_least", threshold=0.5, where={"warmup": 0})], df, None, FACTORS, CFG)
    with pytest.raises(ValueError, match="claim 'c-at_least': .*not a number"):
        C.evaluate_claims([claim("at_least", threshold=0.5, where={"heads": "four"})], df, None, FACTORS, CFG)
    with pytest.raises(ValueError, match="claim 'c-better': level norm='sandwich' selects no runs"):
        C.evaluate_claims([claim("better", factor="norm", levels=["post", "sandwich"])], df, None, FACTORS, CFG)
    with pytest.raises(ValueError, match="claim 'c-grad_trend': .*initial-gradient table"):
        C.evaluate_claims([claim("grad_trend", factor="norm", growing="post", flat="pre", flat_margin=0.1)],
                          df, None, FACTORS, CFG)  # fmt: skip
    dup = claim("at_least", threshold=0.5)
    with pytest.raises(ValueError, match="claim 'c-at_least': duplicate"):
        C.evaluate_claims([dup, dup], df, None, FACTORS, CFG)


def test_no_claims_gives_empty_table():
    out = C.evaluate_claims([], study(lambda cell, s: 0.9), None, FACTORS, CFG)
    assert list(out.columns) == C.CLAIM_COLUMNS and out.empty


def test_read_table_keeps_factor_levels_as_written(tmp_path):
    from ablation import analyze

    path = tmp_path / "summary.csv"
    pd.DataFrame({"run_id": ["007", "008", "009"], "pos_enc": ["NA", "None", "sinusoidal"], "heads": [1, 4, 4],
                  "test_acc": [0.5, None, 1.0]}).to_csv(path, index=False)  # fmt: skip
    table = analyze.read_table(path, ["pos_enc", "heads"])
    assert list(table["pos_enc"]) == ["NA", "None", "sinusoidal"] and list(table["heads"]) == [1, 4, 4]
    assert list(table["run_id"]) == ["007", "008", "009"] and np.isnan(table["test_acc"][1])


# --------------------------------------------------------------------------- settings, slopes, the command line


def _grad_study(depth=4, run_ids=None):
    df = study(lambda cell, s: 0.9)
    if run_ids is not None:
        df["run_id"] = run_ids(df)
    g = grads(df, lambda run: 0.5 if run["norm"] == "post" else 0.0, noise=0.01, depth=depth)
    return df, g


GRAD = claim("grad_trend", factor="norm", growing="post", flat="pre", flat_margin=0.1)


def test_grad_trend_slopes_from_two_layers_and_from_usable_layers_only():
    df, g = _grad_study(depth=2)  # two layers are enough for a slope
    v, row = verdict(GRAD, df, g)
    assert v == "SUPPORTED" and row["n"] == 8 and "without a usable slope" not in row["detail"]
    df, g = _grad_study(depth=4)
    reference = verdict(GRAD, df, g)[1]
    # a zero, an infinite and a non-numeric norm leave their layer out (each run keeps 3 layers)
    spoilt = g.astype({"grad_norm": object})
    first = spoilt.groupby("run_id").head(1).index
    spoilt.loc[first[0::3], "grad_norm"] = 0.0
    spoilt.loc[first[1::3], "grad_norm"] = np.inf
    spoilt.loc[first[2::3], "grad_norm"] = "n/a"
    v, row = verdict(GRAD, df, spoilt)
    assert v == "SUPPORTED" and row["n"] == 8 and "without a usable slope" not in row["detail"]
    assert row["estimate"] != reference["estimate"] and row["estimate"] == pytest.approx(0.5, abs=0.03)
    # every usable norm of a run at one layer index: no slope, and the detail says so
    one_layer = g.copy()
    one_layer.loc[one_layer["run_id"] == df["run_id"][0], "layer"] = 1
    row = verdict(GRAD, df, one_layer)[1]
    assert "1 run(s) without a usable slope" in row["detail"] and "slope of ln(grad_norm at step 0)" in row["detail"]


def test_grad_trend_with_numeric_run_ids_and_only_the_needed_columns():
    df, g = _grad_study(run_ids=lambda d: np.arange(len(d)) + 100)
    v, row = verdict(GRAD, df, g[["run_id", "layer", "grad_norm"]])
    assert v == "SUPPORTED" and row["n"] == 8 and row["estimate"] == pytest.approx(0.5, abs=0.02)


def _family_files(tmp_path, studies):
    paths = []
    for name, df in studies.items():
        paths.append((tmp_path / f"{name}.csv", tmp_path / f"{name}_grads.csv"))
        df.to_csv(paths[-1][0], index=False)
        grads(df, lambda run: 0.0).to_csv(paths[-1][1], index=False)
    return ["--summaries", *(str(s) for s, _ in paths), "--init-grads", *(str(g) for _, g in paths)]


# --------------------------------------------------------------------------- selection, edges of the rules


def test_where_lists_and_numbers_select_exactly_their_runs():
    df = study(lambda cell, s: 0.9)
    c = claim("at_least", threshold=0.5, cells="average")
    assert verdict(dict(c, where={"seed": [0, 1, 2]}), df)[1]["n"] == 3  # any of a list of numbers
    assert verdict(dict(c, where={"norm": ["post", "sandwich"]}), df)[1]["n"] == 8  # one value with no runs
    # numbers match to 12 significant digits, not more loosely (levels 0, 1e-9, 0.1, 0.1000001)
    df["lr"] = np.tile([0.0, 1e-9, 0.1, 0.1000001], len(df) // 4)
    for lr in (0.0, 1e-9, 0.1, 0.1000001):
        selected = seed_units.select(df, {"lr": lr}, "x")["lr"]
        assert (selected == lr).all() and len(selected) == len(df) // 4
    assert len(seed_units.select(df, {"lr": [0.1, 0.1 + 1e-15]}, "x")) == len(df) // 4


def test_where_on_a_boolean_column_takes_true_false_or_their_names():
    df = study(lambda cell, s: 0.9 if cell["norm"] == "pre" else 0.6)
    df["flag"] = df["norm"] == "pre"
    for value, estimate in ((True, 0.9), ("True", 0.9), (False, 0.6), ("False", 0.6)):
        row = verdict(claim("at_least", threshold=0.5, where={"flag": value}), df)[1]
        assert row["estimate"] == pytest.approx(estimate), value


def test_a_level_with_one_run_and_a_level_that_is_not_a_number():
    df = study(lambda cell, s: 0.9, seeds=[0], levels=dict(LEVELS, lr=[0.1, 0.2]))
    c = dict(claim("better", factor="lr", levels=[0.1, 0.2]), where={"pos_enc": "none", "norm": "post"})
    v, row = verdict(c, df, factors=[*FACTORS, "lr"])
    assert v == "INCONCLUSIVE" and row["n"] == 1
    with pytest.raises(ValueError, match=r"^claim 'c-better': level of 'lr': 'fast' is not a number, but column 'lr' is numeric$"):
        verdict(dict(c, levels=[0.1, "fast"]), df, factors=[*FACTORS, "lr"])


# --------------------------------------------------------------------------- exact numbers and texts, edges


def test_few_or_no_seeds_evaluate_without_warnings():
    import warnings

    df = study(lambda cell, s: 0.9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert verdict(claim("at_least", threshold=0.1), study(lambda cell, s: 0.9, seeds=[0]))[0] == "INCONCLUSIVE"
        row = verdict(GRAD, df, grads(df, lambda run: 0.5, depth=1))[1]
    assert row["n"] == 0 and np.isnan(row["estimate"]) and np.isnan(row["robustness"])


def _slope(run_grads):
    return np.polyfit(run_grads["layer"].to_numpy(float), np.log(run_grads["grad_norm"].to_numpy(float)), 1)[0]


def test_where_messages_name_the_claim_the_column_and_the_selection():
    df = study(lambda cell, s: 0.9)
    with pytest.raises(ValueError, match=r"^claim 'c-at_least': 'where' heads: 'four' is not a number, but column 'heads' is numeric$"):
        C.evaluate_claims([claim("at_least", threshold=0.5, where={"heads": "four"})], df, None, FACTORS, CFG)
    gap = df[~((df["pos_enc"] == "none") & (df["norm"] == "pre"))]
    with pytest.raises(ValueError, match=r"^claim 'c-at_least': 'where' pos_enc=none, norm=pre selects no runs$"):
        C.evaluate_claims([claim("at_least", threshold=0.5, where={"pos_enc": "none", "norm": "pre"})], gap, None,
                          FACTORS, CFG)  # fmt: skip


def test_columns_a_claim_does_not_name_are_ignored_whatever_their_name():
    # a results table may carry any other column, 'index' and 'level_0' (pandas' names for row labels) included
    df, g = _grad_study()
    df.loc[0, ["status", "test_acc"]] = ["diverged", np.nan]
    claims = [claim("at_least", threshold=0.5, where={"pos_enc": "none"}), GRAD]
    design = {"seeds": [0, 1, 2, 3], "max_seeds": 8, "batch": 2}
    for adaptive in (None, {"s": design}):
        plain = C.evaluate_family(family([("s", claims, df, g, FACTORS)], adaptive), CFG)
        labels = df.assign(index=np.arange(len(df))[::-1], level_0="x")
        extra = C.evaluate_family(family([("s", claims, labels, g, FACTORS)], adaptive), CFG)
        pd.testing.assert_frame_equal(plain, extra)


# --------------------------------------------------------------------------- adaptive studies


SEQ_TEXT = ("anytime-valid betting confidence sequences over seeds (Waudby-Smith & Ramdas; valid under the adaptive "
            "rounds' stopping rule), p = 2 / largest capital")  # fmt: skip


def test_grad_trend_on_average_without_any_usable_slope():
    df = study(lambda cell, s: 0.9)
    row = verdict(dict(GRAD, cells="average"), df, grads(df, lambda run: 0.5, depth=1))[1]
    assert (row["verdict"], row["n"]) == ("INCONCLUSIVE", 0) and "32 run(s) without a usable slope" in row["detail"]


def test_select_names_the_claim_and_a_missing_column():
    # evaluate_family checks 'where' against the results first; ablation.adaptive selects directly
    with pytest.raises(ValueError, match=r"^claim 'x': 'where' names column 'warmup', which is not in the results$"):
        seed_units.select(study(lambda cell, s: 0.9), {"pos_enc": "none", "warmup": 0}, "x")


# --------------------------------------------------------------------------- the share of seeds (the default estimand)


def test_every_seed_at_the_bound_decides_with_the_exact_binomial_p():
    c = claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.97)
    v, row = verdict(c, study(lambda cell, s: 1.0, seeds=range(5), levels={"pos_enc": ["sinusoidal"], "norm": ["post"]}))
    # 5 of 5 seeds reach 97 %: P(K >= 5 | n = 5, 1/2) = 1/32, the smallest p 5 exchangeable seeds give
    assert v == "SUPPORTED" and row["p_value"] == pytest.approx(sps.binomtest(5, 5, 0.5, "greater").pvalue)
    assert row["p_value"] == pytest.approx(1 / 32) and row["estimand"] == "share"
    assert "5 of 5 seeds reached 97 %" in row["evidence"] and "exact binomial" in row["evidence"]
    assert (row["share"], row["n"]) == (1.0, 5) and row["share_lo"] == pytest.approx(0.025 ** (1 / 5))  # Clopper-Pearson of 5 of 5


def test_at_least_three_verdicts_by_the_share_of_seeds():
    c = claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.97)
    assert verdict(c, study(lambda cell, s: 0.99))[0] == "SUPPORTED"
    assert verdict(c, study(lambda cell, s: 0.90))[0] == "CONTRADICTED"
    # half the seeds learn the task, half fail at chance: the typical seed is undecided
    v, row = verdict(c, study(lambda cell, s: 1.0 if s % 2 else 0.5))
    assert v == "INCONCLUSIVE" and "4 of 8 seeds reached 97 %" in row["evidence"]


def test_an_undecided_row_says_how_many_more_seeds_would_decide_it_and_that_many_do():
    c = claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.97)
    half = lambda cell, s: 1.0 if s % 2 else 0.5  # noqa: E731 (seeds 0-7: half learn)
    v, row = verdict(c, study(half))
    need = {verdict_: int(k) for k, verdict_ in re.findall(r"at least (\d+) more seed\(s\) per cell, [^;]*?for (\w+)", row["evidence"])}
    assert v == "INCONCLUSIVE" and set(need) == {"SUPPORTED", "CONTRADICTED"}, row["evidence"]
    # the exact binomial test over 8 + k seeds, 4 + k of them meeting the claim (SUPPORTED: every cell);
    # 4 of 8 + k (CONTRADICTED: one of the two cells, Bonferroni)
    assert need["SUPPORTED"] == next(k for k in range(1, 100) if sps.binom.sf(3 + k, 8 + k, 0.5) <= ALPHA)
    assert need["CONTRADICTED"] == next(k for k in range(1, 100) if 2 * sps.binom.cdf(4, 8 + k, 0.5) <= ALPHA)
    for target, value in (("SUPPORTED", 1.0), ("CONTRADICTED", 0.5)):
        k = need[target]
        more = lambda cell, s, k_=k, v_=value: half(cell, s) if s < 8 else v_  # noqa: E731
        assert verdict(c, study(more, seeds=range(8 + k)))[0] == target
        assert verdict(c, study(more, seeds=range(8 + k - 1)))[0] == "INCONCLUSIVE"


def test_a_mixture_with_a_few_failing_seeds_still_shows_the_typical_seed():
    # 1 of 8 seeds fails at chance: the mean (0.9375) is below 0.97, yet 7 of 8 seeds reach it
    c = claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.97)
    summary = study(lambda cell, s: 0.5 if s == 3 else 1.0)
    v, row = verdict(c, summary)
    assert v == "SUPPORTED" and row["p_value"] == pytest.approx(sps.binomtest(7, 8, 0.5, "greater").pvalue)
    # the mean over seeds cannot say so: the e-process on a mean below the threshold
    v_mean, row_mean = verdict({**c, "estimand": "mean", "test": "betting"}, summary)
    assert v_mean != "SUPPORTED" and row_mean["estimand"] == "mean"
    # the t-test's assumption fails on seeds at the metric's bound: the row says so, and the share decides
    v_t, row_t = verdict({**c, "estimand": "mean"}, summary)
    assert v_t == "SUPPORTED" and row_t["p_value"] == row["p_value"]
    assert ("t-test (one-sided) on the mean, normality checked on the 8 seeds: fails: 7 of 8 seeds on the range's bound "
            "(1); share of seeds instead: share > 0.5, exact binomial test over seeds: p = ") in row_t["evidence"]
    assert np.isnan(row_t["ci_lo"]) and row_t["share"] == 7 / 8


def test_at_value_and_equivalent_count_the_seeds_inside_the_band():
    c = claim("at_value", where={"pos_enc": "none"}, target=0.5, tolerance=0.05)
    assert verdict(c, study(lambda cell, s: 0.5 + 0.01 * (s % 3)))[0] == "SUPPORTED"
    assert verdict(c, study(lambda cell, s: 0.7))[0] == "CONTRADICTED"
    e = claim("equivalent", factor="norm", levels=["post", "pre"], margin=0.02, where={"pos_enc": "sinusoidal"})
    v, row = verdict(e, study(lambda cell, s: 0.9 + (0.01 if cell["norm"] == "pre" else 0.0)))
    assert v == "SUPPORTED" and "8 of 8 seeds differed by at most ±2 pp" in row["evidence"]
    assert verdict(e, study(lambda cell, s: 0.9 + (0.1 if cell["norm"] == "pre" else 0.0)))[0] == "CONTRADICTED"


def test_not_worse_is_one_sided():
    c = claim("not_worse", factor="norm", levels=["post", "pre"], margin=0.02, where={"pos_enc": "sinusoidal"})
    # pre is far better: not worse, and the one-sided test does not read a large gain as a failure
    assert verdict(c, study(lambda cell, s: 0.6 + (0.3 if cell["norm"] == "pre" else 0.0)))[0] == "SUPPORTED"
    assert verdict(c, study(lambda cell, s: 0.9 - (0.1 if cell["norm"] == "pre" else 0.0)))[0] == "CONTRADICTED"


def test_better_counts_a_tie_as_no_improvement_and_ties_exclude_leaves_it_out():
    c = claim("better", factor="norm", levels=["post", "pre"], where={"pos_enc": "sinusoidal"})
    # pre wins at 6 seeds, ties at 2 (seeds 0 and 1): 6 of 8 improved, the binomial test over all 8
    summary = study(lambda cell, s: 0.8 + (0.05 if cell["norm"] == "pre" and s >= 2 else 0.0))
    v, row = verdict(c, summary)
    assert v == "INCONCLUSIVE" and row["p_value"] == pytest.approx(sps.binomtest(6, 8, 0.5, "greater").pvalue)
    assert "6 improved, 0 worsened, 2 tied of 8 seeds (a tie did not improve)" in row["evidence"] and row["n"] == 8
    # among the seeds where the setting changes the outcome: the sign test over the 6 that changed
    excluded = claim("better", factor="norm", levels=["post", "pre"], where={"pos_enc": "sinusoidal"}, ties="exclude")
    v, row = verdict(excluded, summary)
    assert v == "SUPPORTED" and row["p_value"] == pytest.approx(sps.binomtest(6, 6, 0.5, "greater").pvalue)
    assert "6 improved, 0 worsened, 2 tied of 8 seeds; 6 of the 6 that changed improved" in row["evidence"]
    assert "a tie is left out" in row["rule"]
    worse = study(lambda cell, s: 0.8 - (0.05 if cell["norm"] == "pre" else 0.0))
    assert verdict(c, worse)[0] == "CONTRADICTED"


def test_a_better_claim_whose_levels_tie_in_every_seed_is_contradicted_unless_ties_are_left_out():
    tied = study(lambda cell, s: 0.8)
    c = claim("better", factor="norm", levels=["post", "pre"], where={"pos_enc": "sinusoidal"})
    v, row = verdict(c, tied)
    assert v == "CONTRADICTED" and "0 improved, 0 worsened, 8 tied of 8 seeds" in row["sentence"]
    excluded = claim("better", factor="norm", levels=["post", "pre"], where={"pos_enc": "sinusoidal"}, ties="exclude")
    assert verdict(excluded, tied)[0] == "INCONCLUSIVE"


@pytest.mark.parametrize("kind, keys, met", [("not_worse", {"margin": 0.0}, "8 of 8 seeds lost at most 0 pp"),
                                             ("equivalent", {"margin": 0.0}, "8 of 8 seeds differed by at most ±0 pp")])
def test_a_tie_is_not_worse_and_within_the_margin_in_the_claims_words(kind, keys, met):
    c = claim(kind, factor="norm", levels=["post", "pre"], where={"pos_enc": "sinusoidal"}, **keys)
    v, row = verdict(c, study(lambda cell, s: 0.8))
    tie_words = {"not_worse": "a tie is not worse", "equivalent": "a tie lies within the margin"}[kind]
    assert v == "SUPPORTED" and f"{met} (0 improved, 0 worsened, 8 tied of 8 seeds; {tie_words})" in row["evidence"]


def test_ties_exclude_is_for_comparisons_only():
    with pytest.raises(ValueError, match="unknown key 'ties'"):
        built(claim("at_least", threshold=0.9, ties="exclude"))


def test_a_claim_over_cells_shows_the_cell_that_decides():
    c = claim("at_least", threshold=0.9)
    # every seed of (none, *) reaches 0.95; in (sinusoidal, pre) only 6 of 8 seeds reach 0.9
    summary = study(lambda cell, s: 0.5 if cell == {"pos_enc": "sinusoidal", "norm": "pre"} and s < 2 else 0.95)
    v, row = verdict(c, summary)
    assert v == "INCONCLUSIVE"
    assert row["evidence"].startswith("pos_enc=sinusoidal, norm=pre: 6 of 8 seeds")
    assert row["p_value"] == pytest.approx(sps.binomtest(6, 8, 0.5, "greater").pvalue) and row["share"] == 0.75


def test_one_seed_is_never_decisive():
    for kind, keys in [("at_least", {"threshold": 0.9}), ("at_value", {"target": 0.5, "tolerance": 0.1})]:
        v, row = verdict(claim(kind, **keys), study(lambda cell, s: 0.95, seeds=[0]))
        assert v == "INCONCLUSIVE" and row["n"] == 1 and "fewer than 2 seeds" in row["evidence"]


def test_equal_p_values_point_nowhere():
    assert verdicts.decided(0.01, 0.01, verdicts.HolmStep(1, 0.0), 0.05) == "INCONCLUSIVE"
    assert verdicts.decided(0.01, 0.02, verdicts.HolmStep(1, 0.0), 0.05) == "SUPPORTED" and verdicts.decided(0.02, 0.01, verdicts.HolmStep(1, 0.0), 0.05) == "CONTRADICTED"
    assert verdicts.decided(0.01, 1.0, verdicts.HolmStep(5, 0.0), 0.05) == "SUPPORTED" and verdicts.decided(0.011, 1.0, verdicts.HolmStep(5, 0.0), 0.05) == "INCONCLUSIVE"
    assert verdicts.decided(0.001, 1.0, verdicts.HolmStep(1, 0.06), 0.05) == "INCONCLUSIVE"  # a claim ranked before it already failed


# --------------------------------------------------------------------------- diverged runs


def test_a_diverged_run_counts_against_the_verdict_that_imputing_it_would_favour():
    c = claim("at_value", where={"pos_enc": "none"}, target=0.5, tolerance=0.0034)
    summary = study(lambda cell, s: 0.5)
    clean = verdict(c, summary)[1]
    broken = summary.copy()
    i = broken.index[(broken["pos_enc"] == "none") & (broken["seed"] == 0) & (broken["norm"] == "post")][0]
    broken.loc[i, ["status", "test_acc", "test_correct"]] = ["diverged", np.nan, np.nan]
    v, row = verdict(c, broken)
    # counted at chance, the diverged run would be evidence for "at chance"; it is not
    assert row["p_value"] > clean["p_value"] and "diverged run count against each verdict" in row["evidence"]
    assert row["verdict_without_diverged"] in verdicts.VERDICTS
    # nor does it become evidence against: CONTRADICTED stays out of reach
    assert v != "CONTRADICTED"


# --------------------------------------------------------------------------- the family


def test_holm_runs_over_each_study_unless_the_config_asks_for_one_family():
    c = claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.9)
    one = study(lambda cell, s: 0.95, seeds=range(6))  # p = 1/64 each
    studies = family([("a", [dict(c, id="a1"), dict(c, id="a2")], one, None, FACTORS),
                      ("b", [dict(c, id="b1"), dict(c, id="b2"), dict(c, id="b3"), dict(c, id="b4")], one, None, FACTORS)])
    by_study = C.evaluate_family(studies, CFG).set_index("id")
    # study a: Holm over 2 claims (1/32 <= 0.05); study b: over 4 (1/16 > 0.05)
    assert (by_study.loc[["a1", "a2"], "verdict"] == "SUPPORTED").all()
    assert (by_study.loc[["b1", "b2", "b3", "b4"], "verdict"] == "INCONCLUSIVE").all()
    assert by_study.loc["a1", "family"] == "study a" and by_study.loc["a1", "p_holm"] == pytest.approx(2 / 64)
    pooled = C.evaluate_family(studies, {**CFG, "family": "config"}).set_index("id")
    assert (pooled["verdict"] == "INCONCLUSIVE").all() and pooled.loc["a1", "p_holm"] == pytest.approx(6 / 64)


# --------------------------------------------------------------------------- exact claims


def _certified(summary, gap=1e-7, differ=0):
    out = summary.copy()
    out["twin_logit_gap"], out["twin_pairs_differ"] = gap, differ
    return out


def test_an_exact_claim_is_checked_on_every_runs_certificate_and_joins_no_family():
    c = claim("at_value", where={"pos_enc": "none"}, target=0.5, tolerance=0.0034, exact=True)
    other = claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.9)
    summary = _certified(study(lambda cell, s: 0.5 if cell["pos_enc"] == "none" else 0.95, seeds=range(5)))
    out = C.evaluate_claims([c, dict(other, id="o")], summary, None, FACTORS, CFG).set_index("id")
    row = out.loc["c-at_value"]
    assert row["verdict"] == "SUPPORTED" and row["estimand"] == "exact" and np.isnan(row["p_value"])
    assert "exact by construction, checked on every run" in row["rule"] and "all 10 runs hold" in row["evidence"]
    # the other claim is alone in its family: 1/32, not Holm over two
    assert out.loc["o", "p_holm"] == pytest.approx(1 / 32) and out.loc["o", "verdict"] == "SUPPORTED"


def test_a_run_that_breaks_the_certificate_contradicts_the_exact_claim_by_name():
    c = claim("at_value", where={"pos_enc": "none"}, target=0.5, tolerance=0.0034, exact=True)
    summary = _certified(study(lambda cell, s: 0.5, seeds=range(5)))
    bad = summary.index[summary["pos_enc"] == "none"][3]
    summary.loc[bad, ["twin_pairs_differ", "twin_logit_gap"]] = [12, 0.8]
    v, row = verdict(c, summary)
    assert v == "CONTRADICTED" and summary.loc[bad, "run_id"] in row["evidence"] and "12 twin pairs" in row["evidence"]
    # a gap above EXACT_GAP breaks it too, even with every pair predicted alike
    summary.loc[bad, ["twin_pairs_differ", "twin_logit_gap"]] = [0, 10 * verdicts.EXACT_GAP]
    assert verdict(c, summary)[0] == "CONTRADICTED"


def test_an_exact_claim_without_certificates_is_inconclusive():
    c = claim("at_value", where={"pos_enc": "none"}, target=0.5, tolerance=0.0034, exact=True)
    v, row = verdict(c, study(lambda cell, s: 0.5))
    assert v == "INCONCLUSIVE" and "no run has a twin certificate" in row["evidence"]
    summary = _certified(study(lambda cell, s: 0.5))
    summary.loc[0, "twin_logit_gap"] = np.nan  # a diverged run's logits are not finite
    assert verdict(c, summary)[0] == "INCONCLUSIVE"


# --------------------------------------------------------------------------- grad_trend


def test_grad_trend_flat_truth_is_contradicted_once_it_needs_a_least_slope():
    c = claim("grad_trend", factor="norm", growing="post", flat="pre", flat_margin=0.1, min_slope=0.05,
              where={"pos_enc": "sinusoidal"})  # fmt: skip
    summary = study(lambda cell, s: 0.9)
    grows = grads(summary, lambda run: 0.3 if run["norm"] == "post" else 0.0, noise=0.01)
    assert verdict(c, summary, grows)[0] == "SUPPORTED"
    flat = grads(summary, lambda run: 0.0, noise=0.01)
    v, row = verdict(c, summary, flat)
    assert v == "CONTRADICTED" and "0 of 8 seeds grew by more than 0.05 per layer" in row["evidence"]


@pytest.mark.parametrize("bad_layer", ["n/a", None, np.nan])
def test_a_gradient_row_without_a_numeric_layer_is_left_out(bad_layer):
    # one run's first layer has no usable index: its slope comes from its other three layers, as a row
    # with an unusable norm does, instead of a NaN slope (which would drop the whole run)
    df, g = _grad_study()
    spoilt = g.astype({"layer": object})
    run = df["run_id"][0]
    first = spoilt.index[spoilt["run_id"] == run][0]
    spoilt.loc[first, "layer"] = bad_layer
    slopes = seed_units.slopes(df, spoilt)
    assert np.isfinite(slopes).all() and len(slopes) == len(df)
    kept = g[(g["run_id"] == run) & (g.index != first)]
    assert slopes[run] == pytest.approx(_slope(kept), abs=1e-12)
    others = seed_units.slopes(df, g).drop(run)
    assert slopes.drop(run).to_numpy() == pytest.approx(others.to_numpy(), abs=1e-12)
    v, row = verdict(GRAD, df, spoilt)
    assert v == "SUPPORTED" and row["n"] == 8 and "without a usable slope" not in row["detail"]


def _unit(interval):
    u = C._Units("cell", np.arange(2), np.zeros(2), 0.0, (-np.inf, np.inf))
    u.interval = interval
    return u


def test_a_claim_with_a_cell_without_seeds_shows_that_cell():
    # grad_trend in each pos_enc cell, one seed: no usable slope in pos_enc=none (one layer per run),
    # a falling slope in pos_enc=sinusoidal. The claim's n is 0, so the cell shown is the empty one,
    # not the one-seed cell: its estimate would rest on a seed the claim's n does not count
    df = study(lambda cell, s: 0.9, seeds=range(1))
    g = grads(df, lambda run: -0.5)
    g = g[(g["layer"] < 1) | (g["pos_enc"] == "sinusoidal")]
    v, row = verdict(dict(GRAD, where={"pos_enc": ["none", "sinusoidal"]}), df, g)
    assert (v, row["n"]) == ("INCONCLUSIVE", 0) and np.isnan(row["estimate"]) and np.isnan(row["ci_lo"])
    assert "2 run(s) without a usable slope" in row["detail"]


def test_a_run_left_with_one_numeric_layer_has_no_slope_and_the_detail_says_why():
    df, g = _grad_study()
    spoilt = g.astype({"layer": object})
    run = df["run_id"][0]
    spoilt.loc[(spoilt["run_id"] == run) & (spoilt["layer"] != 0), "layer"] = "n/a"
    assert run not in seed_units.slopes(df, spoilt).index
    row = verdict(GRAD, df, spoilt)[1]
    assert ("; 1 run(s) without a usable slope (< 2 numeric layer indices with a positive, finite norm) left out. "
            in row["detail"])  # fmt: skip


# --------------------------------------------------------------------------- the row, word for word


def _family_row(c, summary, cfg=CFG, adaptive=None):
    out = C.evaluate_family(family([("s", [c], summary, None, FACTORS)], adaptive), cfg)
    assert list(out.columns) == ["study"] + C.CLAIM_COLUMNS and len(out) == 1
    return out.iloc[0]


def test_a_claims_row_reads_word_for_word_what_its_rule_found():
    c = claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.97)
    summary = study(lambda cell, s: 0.5 if s == 0 else 1.0)  # seed 0 fails at chance in both cells
    row = _family_row(c, summary)
    p = sps.binom.sf(6, 8, 0.5)  # 7 of 8 seeds meet the claim in each cell
    lo, hi = sps.binomtest(7, 8).proportion_ci(0.95, method="exact")
    checked = C.check_claims([c], FACTORS, list(summary.columns))[0]
    _, desc = seed_units.claim_cells(checked, runs(summary), CFG)
    assert (row["study"], row["id"], row["statement"], row["source"], row["kind"], row["cells"], row["estimand"]) == (
        "s", "c-at_least", "a at_least claim", "lesson 45", "at_least", "every", "share")
    assert (row["verdict"], row["n"], row["family"], row["verdict_without_diverged"]) == ("SUPPORTED", 8, "study s", "")
    assert row["estimate"] == pytest.approx(7.5 / 8) and np.isnan(row["ci_lo"]) and np.isnan(row["ci_hi"])
    assert (row["share"], row["share_lo"], row["share_hi"]) == pytest.approx((7 / 8, lo, hi))
    assert row["p_value"] == pytest.approx(p) and row["p_holm"] == pytest.approx(p)
    assert row["evidence"] == (f"norm=post: 7 of 8 seeds reached 97 %; share > 0.5, exact binomial test over seeds: "
                               f"p = {p:.3g} for SUPPORTED, Holm over the 1 claim(s) of its family (study s): {p:.3g} vs alpha 0.05")
    assert row["rule"] == ("a seed meets the claim when its value is at least 0.97; share > 0.5, exact binomial test over "
                           "seeds; every cell must pass; decisive when the p survives Holm over its family at alpha 0.05")
    # without seed 0 every seed meets it; without any other, 6 of 7 do not decide (p = 8/128)
    assert row["robustness"] == pytest.approx(1 / 8)
    assert row["detail"] == (f"{desc}. norm=post: 7 of 8 seeds reached 97 % | norm=pre: 7 of 8 seeds reached 97 %. "
                             "Fragile: only 12% of leave-one-seed-out evaluations give SUPPORTED")


def test_a_claim_on_the_mean_over_cells_says_so_and_equal_p_values_point_nowhere():
    c = claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.97, cells="average")
    row = _family_row(c, study(lambda cell, s: 1.0 if s % 2 else 0.5))  # 4 of 8 seeds: p_sup = p_con
    assert row["verdict"] == "INCONCLUSIVE"
    assert "for neither verdict (equal p-values), Holm over" in row["evidence"]
    assert "; on the mean over cells within each seed; " in row["rule"]


def test_two_seeds_can_decide_at_a_loose_alpha_and_have_a_robustness():
    c = claim("at_least", where={"pos_enc": "sinusoidal", "norm": "post"}, threshold=0.97)
    row = _family_row(c, study(lambda cell, s: 1.0, seeds=[0, 1]), cfg={**CFG, "alpha": 0.3})
    assert (row["verdict"], row["n"]) == ("SUPPORTED", 2) and row["p_value"] == pytest.approx(0.25)
    assert "fewer than 2 seeds" not in row["evidence"]
    assert row["robustness"] == 0.0  # one seed left: no verdict


def test_an_adaptive_mean_claim_shows_its_confidence_sequence_and_the_e_process():
    c = claim("at_least", where={"pos_enc": "sinusoidal", "norm": "post"}, threshold=0.9, estimand="mean", test="betting")
    summary = study(lambda cell, s: 0.99)
    row = _family_row(c, summary, adaptive={"s": {"seeds": list(range(8)), "max_seeds": 20, "batch": 4}})
    acc = summary[(summary["pos_enc"] == "sinusoidal") & (summary["norm"] == "post")]["test_acc"].to_numpy()
    lo, hi = sequential.confidence_sequence(acc, (0.0, 1.0), 1 - CFG["confidence"])
    assert (row["ci_lo"], row["ci_hi"]) == (float(lo[-1]), float(hi[-1]))
    assert "mean over seeds, betting e-process (anytime-valid), p = 1 / largest capital at a round end" in row["evidence"]
    assert "mean over seeds, betting e-process (anytime-valid)" in row["rule"]


def test_an_adaptive_mean_claim_of_the_t_test_pays_bonferroni_over_its_looks_and_shows_its_t_interval():
    """The default test of the mean in a study with rounds (8 seeds, then 4 a round to 20: K = 4 looks):
    the row names the t-test, its check and the Bonferroni; p is 4 x the one-sided t-test's p; the
    interval is the t-interval at 1 - (1 - confidence) / 4."""
    c = claim("at_least", where={"pos_enc": "sinusoidal", "norm": "post"}, threshold=0.9, estimand="mean")
    summary = study(lambda cell, s: [0.93, 0.95, 0.94, 0.97, 0.92, 0.96, 0.95, 0.94][s])
    row = _family_row(c, summary, adaptive={"s": {"seeds": list(range(8)), "max_seeds": 20, "batch": 4}})
    acc = summary[(summary["pos_enc"] == "sinusoidal") & (summary["norm"] == "post")].sort_values("seed")["test_acc"].to_numpy()
    p_t = sps.ttest_1samp(acc, 0.9, alternative="greater").pvalue
    assert row["p_value"] == pytest.approx(4 * p_t) and row["verdict"] == "SUPPORTED"
    assert ("t-test (one-sided) on the mean, normality checked on the 8 seeds: holds, Bonferroni over the design's 4 "
            "looks (p = 4 x the smallest p at a round end): p = ") in row["evidence"]
    lo, hi = sps.t.interval(1 - (1 - CFG["confidence"]) / 4, 7, loc=acc.mean(), scale=sps.sem(acc))
    assert (row["ci_lo"], row["ci_hi"]) == pytest.approx((lo, hi))
    assert "its assumption checked on each cell's seeds, Bonferroni over the design's 4 looks" in row["rule"]


# --------------------------------------------------------------------------- reachable, and the command line


def test_an_adaptive_claim_is_reachable_exactly_when_its_seeds_to_decide_fit_under_max_seeds():
    cfg = {**CFG, "alpha": ALPHA}
    for c, acc in ((claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.97), lambda cell, s: 1.0 if s % 2 else 0.5),
                   (claim("at_value", where={"pos_enc": "none"}, target=0.5, tolerance=0.05), lambda cell, s: 0.5 if s % 3 else 1.0),
                   (claim("not_worse", factor="norm", levels=["post", "pre"], where={"pos_enc": "sinusoidal"}, margin=0.02),
                    lambda cell, s: 1.0 if cell["norm"] == "post" or s % 2 else 0.9)):  # fmt: skip
        summary = study(acc)
        checked = C.check_claims([c], FACTORS, list(summary.columns))[0]
        for factor in (1, 4):
            design = {"seeds": list(range(8)), "max_seeds": 8, "batch": 2}
            r = verdicts.claim_test(checked, runs(summary, None, FACTORS, design), verdicts.Judge.of(cfg))
            need = verdicts.seeds_to_decide(checked, r, verdicts.HolmStep(factor), ALPHA)
            fewest = min(k for k in need.values() if k)
            for more in range(0, fewest + 2):
                got = verdicts.reachable(checked, runs(summary, None, FACTORS, {**design, "max_seeds": 8 + more}), verdicts.Judge.of(cfg), ALPHA / factor)
                assert got == (0 < more and fewest <= more), (c["kind"], factor, more, need)


def test_the_command_line_writes_one_studys_rows_of_the_whole_family(tmp_path, capsys):
    import json

    a, b = study(lambda cell, s: 1.0), study(lambda cell, s: 1.0 if s % 2 else 0.5)
    claims = {"a": [claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.97)],
              "b": [claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.97)]}  # fmt: skip
    paths = []
    for name, frame in (("a", a), ("b", b)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
        pd.DataFrame(columns=["run_id", "seed", "layer", "grad_norm"]).to_csv(tmp_path / f"{name}_grads.csv", index=False)
        paths.append(name)
    spec = {"stats": CFG, "studies": {n: {"factors": FACTORS, "claims": claims[n]} for n in paths}}
    args = ["--family-json", json.dumps(spec), "--summaries", *(str(tmp_path / f"{n}.csv") for n in paths),
            "--init-grads", *(str(tmp_path / f"{n}_grads.csv") for n in paths), "--study", "b",
            "--out", str(tmp_path / "claims.csv")]  # fmt: skip
    assert C.main(args) == 0
    assert capsys.readouterr().out == "claim c-at_least: INCONCLUSIVE\n"
    written = pd.read_csv(tmp_path / "claims.csv")
    assert list(written.columns) == C.CLAIM_COLUMNS and list(written["verdict"]) == ["INCONCLUSIVE"]
    table = C.evaluate_family(family([(n, claims[n], f, None, FACTORS) for n, f in (("a", a), ("b", b))]), CFG)
    assert written["p_value"].tolist() == pytest.approx(table[table["study"] == "b"]["p_value"].tolist())
    # an adaptive study's design reaches the rule: the e-process, not the binomial test
    spec["studies"]["b"]["adaptive"] = {"seeds": list(range(8)), "max_seeds": 20, "batch": 4}
    assert C.main([*args[:1], json.dumps(spec), *args[2:]]) == 0
    assert "betting e-process" in pd.read_csv(tmp_path / "claims.csv")["evidence"][0]
    with pytest.raises(SystemExit) as stop:  # two studies, one summary
        C.main(["--family-json", json.dumps(spec), "--summaries", str(tmp_path / "a.csv"), "--init-grads",
                str(tmp_path / "a_grads.csv"), "--study", "a", "--out", str(tmp_path / "x.csv")])  # fmt: skip
    assert stop.value.code == 2 and "2 studies but 1 summaries, 1 gradient tables and 0 evaluation tables" in capsys.readouterr().err


def _with_certificate(summary, gap, differ):
    return summary.assign(twin_logit_gap=gap, twin_pairs_differ=differ)


def test_an_exact_claims_words_name_the_runs_that_break_it_five_at_most():
    c = C.check_claims([claim("at_value", where={"pos_enc": "none"}, target=0.5, tolerance=0.0, exact=True)],
                       FACTORS, SETTINGS + ["test_acc"])[0]  # fmt: skip
    summary = study(lambda cell, s: 0.5)  # 16 runs without positional encoding
    runs = summary[summary["pos_enc"] == "none"]["run_id"].tolist()
    broken = summary["run_id"].isin(runs[:7])
    verdict, words, n = verdicts.certificate(c, _with_certificate(summary, np.where(broken, 0.25, 0.0), np.where(broken, 3, 0)))
    named = ", ".join(f"{r} (3 twin pairs predicted differently, logit gap 0.25)" for r in runs[:5])
    assert (verdict, n) == ("CONTRADICTED", 16) and words == f"7 of 16 runs break the twin certificate: {named} and 2 more"
    six = summary["run_id"].isin(runs[:6])
    words = verdicts.certificate(c, _with_certificate(summary, np.where(six, 0.25, 0.0), np.where(six, 3, 0)))[1]
    assert words == f"6 of 16 runs break the twin certificate: {named} and 1 more"
    unknown = verdicts.certificate(c, _with_certificate(summary, np.where(six, np.nan, 0.0), 0))
    assert unknown == ("INCONCLUSIVE", f"6 of 16 runs have no twin certificate (diverged or trained without one): "
                                       f"{', '.join(runs[:5])}", 16)  # fmt: skip
    five = summary["run_id"].isin(runs[:5])
    assert verdicts.certificate(c, _with_certificate(summary, np.where(five, 0.25, 0.0), np.where(five, 3, 0)))[1].endswith("logit gap 0.25)")
    # one pair predicted differently breaks it; a gap of exactly EXACT_GAP does not
    one = summary["run_id"] == runs[0]
    assert verdicts.certificate(c, _with_certificate(summary, 0.0, np.where(one, 1, 0)))[0] == "CONTRADICTED"
    assert verdicts.certificate(c, _with_certificate(summary, verdicts.EXACT_GAP, 0))[0] == "SUPPORTED"
    assert verdicts.certificate(c, summary)[1] == "no run has a twin certificate (twin_logit_gap, twin_pairs_differ missing)"
    without_ids = _with_certificate(summary, np.where(one, np.nan, 0.0), 0).drop(columns="run_id")
    assert verdicts.certificate(c, without_ids)[1].endswith("(diverged or trained without one): 0")


def test_the_family_is_named_as_the_config_asks():
    c = claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.97)
    summary = study(lambda cell, s: 1.0)
    assert _family_row(c, summary)["family"] == "study s"
    pooled = _family_row(c, summary, cfg={**CFG, "family": "config"})
    assert pooled["family"] == "every claim of the config" and "family (every claim of the config)" in pooled["evidence"]
    assert verdict(c, summary)[1]["family"] == "these claims"


def test_the_rule_names_its_test_in_words_for_each_kind_and_estimand():
    better = claim("better", factor="norm", levels=["post", "pre"], where={"pos_enc": "sinusoidal"})
    row = verdict(better, study(lambda cell, s: 0.9 + 0.05 * (cell["norm"] == "pre")))[1]
    assert "share > 0.5, exact binomial test over seeds; " in row["rule"] and "a tie did not improve" in row["rule"]
    excluded = dict(better, ties="exclude")
    row = verdict(excluded, study(lambda cell, s: 0.9 + 0.05 * (cell["norm"] == "pre")))[1]
    assert "share > 0.5, exact binomial test over seeds that changed (the sign test, ties left out);" in row["rule"]
    share = verdict(claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.97, share=0.75), study(lambda cell, s: 1.0))[1]
    assert "share > 0.75, exact binomial test over seeds;" in share["rule"] and "(the sign test)" not in share["rule"]


def test_a_claim_contradicted_in_one_cell_shows_that_cell():
    c = claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.97)
    row = verdict(c, study(lambda cell, s: 1.0 if cell["norm"] == "post" else 0.6))[1]
    p = 2 * sps.binom.cdf(0, 8, 0.5)  # Bonferroni over the 2 cells
    assert row["verdict"] == "CONTRADICTED" and row["evidence"].startswith("norm=pre: 0 of 8 seeds reached 97 %")
    assert row["p_value"] == pytest.approx(p)


def test_what_would_decide_an_undecided_claim_says_when_holm_holds_it_back_or_no_seeds_could():
    c = C.check_claims([claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.97)], FACTORS, SETTINGS + ["test_acc"])[0]
    summary = study(lambda cell, s: 1.0 if s % 2 else 0.5)
    r = verdicts.claim_test(c, runs(summary, None, FACTORS, None), verdicts.Judge.of(CFG))
    held = C._what_would_decide(c, r, verdicts.HolmStep(1, 0.06), ALPHA)
    assert held.startswith(". To decide it: at least ") and held.endswith(" (once the claims before it in Holm's order are decided)")
    assert "Holm's order" not in C._what_would_decide(c, r, verdicts.HolmStep(1, ALPHA), ALPHA)
    assert "more than 100 more seeds per cell, every one meeting the claim, for SUPPORTED" in C._what_would_decide(c, r, verdicts.HolmStep(1e60, 0.0), ALPHA)


def test_a_cells_words_count_ties_and_seeds_a_diverged_run_leaves_unsure():
    better = claim("better", factor="norm", levels=["post", "pre"], where={"pos_enc": "sinusoidal"})
    row = verdict(better, study(lambda cell, s: 0.9 + 0.05 * (cell["norm"] == "pre" and s < 6)))[1]
    assert "6 improved, 0 worsened, 2 tied of 8 seeds (a tie did not improve)" in row["evidence"]
    c = claim("at_least", where={"pos_enc": "sinusoidal", "norm": "post"}, threshold=0.97)
    summary = study(lambda cell, s: 1.0)
    first = (summary["pos_enc"] == "sinusoidal") & (summary["norm"] == "post") & (summary["seed"] == 0)
    summary.loc[first, "status"] = "diverged"
    row = verdict(c, summary)[1]
    assert row["evidence"].startswith("mean over 1 cell(s): 7 of 8 seeds reached 97 %; 1 seed(s) with a diverged run count against each verdict;")


# --------------------------------------------------------------------------- a seed's condition at its bounds


def test_a_condition_holds_at_its_bounds_and_within_float_noise_of_them_and_a_strict_one_only_above():
    eps = kinds.EPS
    band = kinds.Condition(0.4, 0.6, "in the band")
    x = np.array([0.4, 0.6, 0.4 - eps / 2, 0.6 + eps / 2, 0.4 - eps, 0.6 + eps, 0.4 - 2 * eps, 0.6 + 2 * eps])
    assert band.sure(x, x).tolist() == [True] * 6 + [False] * 2
    # a diverged seed's interval [lo, hi] may meet the band when it reaches the band at all
    edge = np.array([0.4, 0.4 - eps, 0.4 - 2 * eps])
    assert band.possible(np.zeros(3), edge).tolist() == [True, True, False]
    assert band.possible(1 - edge, np.ones(3)).tolist() == [True, True, False]
    above = kinds.Condition(0.0, np.inf, "above 0", strict=True)
    x = np.array([0.0, eps, 2 * eps])
    assert above.sure(x, x).tolist() == [False, False, True]
    assert above.possible(-np.ones(3), x).tolist() == [False, False, True]
    assert band.sure(np.array([0.4]), np.array([0.4]))[0] and band.possible(np.array([0.0]), np.array([0.4]))[0]


KIND_KEYS = {
    "at_least": {"threshold": 0.97}, "at_value": {"target": 0.5, "tolerance": 0.05},
    "equivalent": {"factor": "norm", "levels": ["post", "pre"], "margin": 0.02},
    "not_worse": {"factor": "norm", "levels": ["post", "pre"], "margin": 0.02},
    "better": {"factor": "norm", "levels": ["post", "pre"]},
    "grad_trend": {"factor": "norm", "growing": "post", "flat": "pre", "min_slope": 0.05, "flat_margin": 0.1},
}  # fmt: skip


def conditions(kind: str, **keys) -> list:
    """A built claim's per-seed conditions, in its kind's order."""
    return [part.condition for part in built(claim(kind, **(KIND_KEYS[kind] | keys))).parts]


def test_better_and_a_growing_slope_must_lie_above_their_bound_not_at_it():
    [better] = conditions("better")
    growing, flat = conditions("grad_trend")
    at = np.zeros(1)
    assert not better.sure(at, at)[0] and better.sure(at + 1e-3, at + 1e-3)[0]
    assert not growing.sure(at + 0.05, at + 0.05)[0] and flat.sure(at + 0.1, at + 0.1)[0]


def test_each_kinds_condition_is_said_in_words():
    words = {kind: [cond.words for cond in conditions(kind)] for kind in KIND_KEYS}
    assert words == {"at_least": ["reached 97 %"], "at_value": ["within 5 pp of 50 %"],
                     "equivalent": ["differed by at most ±2 pp"], "not_worse": ["lost at most 2 pp"],
                     "better": ["improved"],
                     "grad_trend": ["grew by more than 0.05 per layer", "stayed within ±0.1 per layer"]}  # fmt: skip
    with pytest.raises(ValueError, match="kind: unknown kind 'no_such_kind'"):
        built({"id": "c", "statement": "x", "kind": "no_such_kind"})


def test_each_kind_reads_the_levels_it_names_and_its_bands_are_its_conditions():
    parts = {kind: built(claim(kind, **KIND_KEYS[kind])).parts for kind in KIND_KEYS}
    assert [p.compare for p in parts["equivalent"]] == [("norm", "post", "pre")]
    assert [(p.reads, p.level) for p in parts["grad_trend"]] == [("slope", ("norm", "post")), ("slope", ("norm", "pre"))]
    bands = {kind: [p.condition.band for p in ps] for kind, ps in parts.items()}
    assert bands == {"at_least": [(0.97, 0.97)], "at_value": [(0.45, 0.55)], "equivalent": [(-0.02, 0.02)],
                     "not_worse": [(-0.02, -0.02)], "better": [(0.0, 0.0)],
                     "grad_trend": [(0.05, 0.05), (-0.1, 0.1)]}  # fmt: skip
    sequential = {kind: built(claim(kind, **KIND_KEYS[kind])).sequential for kind in KIND_KEYS}
    assert sequential == {k: k != "grad_trend" for k in KIND_KEYS}


def test_a_difference_within_half_a_grid_step_of_zero_is_a_tie_and_a_diverged_seed_is_counted():
    [better] = conditions("better")
    step = 1 / 300
    lo = np.array([0.0, 0.4 * step, -0.45 * step, 0.5 * step, -0.6 * step, step, -1.0])
    hi = np.where(lo == -1.0, 1.0, lo)  # the last seed's run diverged: its difference is unknown
    assert better.counted(lo, hi, step).all()  # a tie counts: it did not improve
    excluded = replace(better, ties=True)  # ties: exclude
    assert excluded.counted(lo, hi, step).tolist() == [False, False, False, True, True, True, True]
    assert conditions("at_least", threshold=0.5)[0].counted(lo, hi, step).all()


# --------------------------------------------------------------------------- combining cells, Holm's steps


def combined(*cells):
    """verdicts.combine on cells of (p_sup, p_con) per part, as plain numbers."""
    p_sup, p_con, deciding = verdicts.combine([[p[0] for p in cell] for cell in cells], [[p[1] for p in cell] for cell in cells])
    return float(p_sup), float(p_con), int(deciding)


def test_combining_cells_takes_the_largest_p_sup_and_bonferroni_p_con_capped_at_one():
    # one cell with two conditions (grad_trend): Bonferroni over the conditions, at most 1
    assert combined([(0.2, 0.6), (0.3, 0.7)]) == (0.3, 1.0, 0)
    # two cells: SUPPORTED needs both (the largest p), CONTRADICTED one (Bonferroni, at most 1)
    assert combined([(0.2, 0.6)], [(0.4, 0.9)]) == (0.4, 1.0, 1)
    # the cell shown: the one with the smallest p_con when that p is the smaller
    assert combined([(0.5, 0.01)], [(0.9, 0.2)]) == (0.9, 0.02, 0)
    # at equal p-values the cell with the largest p_sup is shown
    assert combined([(0.2, 0.25)], [(0.5, 0.9)]) == (0.5, 0.5, 1)
    # cells whose deciding p ties: the one closest to the other verdict decides, not the first listed --
    # SUPPORTED's weakest has the smallest p_con among the largest p_sup, CONTRADICTED's strongest the
    # largest p_sup among the smallest p_con
    assert combined([(1.0, 0.9)], [(1.0, 0.6)]) == (1.0, 1.0, 1)
    assert combined([(1.0, 0.6)], [(1.0, 0.9)]) == (1.0, 1.0, 0)
    assert combined([(0.3, 0.01)], [(0.6, 0.01)], [(0.9, 0.2)]) == (0.9, 0.03, 1)


def test_a_row_of_several_cells_shows_the_cell_whose_p_decides_it_and_names_its_test():
    """equivalent within 2 pp over two cells (norm=post: seeds at -1 to +1 pp; norm=pre: the P4 pattern,
    every seed 4.7-8 pp worse): CONTRADICTED, decided by norm=pre, whose row shows its seeds, its test
    (the t-test's check fails there: the share test judges it, and the row says so) and no other
    cell's words; the other cell's t-test and its check are in the detail."""
    worse = [-6.33, -8.0, -4.67, -7.67, -7.67, -7.67, -7.0, -8.0]
    near = [-1.0, -0.33, 0.67, 0.0, 1.33, -1.67, 0.33, 1.0]
    summary = study(lambda cell, s: 0.9 + (cell["pos_enc"] == "sinusoidal") * (worse if cell["norm"] == "pre" else near)[s] / 100)
    c = claim("equivalent", factor="pos_enc", levels=["none", "sinusoidal"], margin=0.02, estimand="mean")
    v, row = verdict(c, summary)
    assert v == "CONTRADICTED" and row["p_value"] == pytest.approx(2 * 0.5**8)  # Bonferroni over the two cells
    assert row["evidence"].startswith("norm=pre: mean -0.07125 over 8 seeds; 0 of 8 seeds differed by at most ±2 pp (")
    assert ("; paired t-test (TOST) on the mean, normality checked on the 8 seeds: fails: Shapiro-Wilk rejects normality "
            "at the check's level 0.2 (p = 0.032, ties spread over their grid cell); share of seeds instead: share > 0.5, exact binomial test over seeds: p = 0.00781 for "
            "CONTRADICTED") in row["evidence"]
    assert "norm=post" not in row["evidence"] and row["sentence"].endswith("(norm=pre); CONTRADICTED.")
    assert np.isnan(row["ci_lo"]) and row["share"] == 0.0
    assert "paired t-test (TOST) on the mean, its assumption checked on each cell's seeds (where it fails: share" in row["rule"]
    # where every cell's check holds, the t-test decides and the interval is its own
    c_ok = claim("equivalent", factor="pos_enc", levels=["none", "sinusoidal"], margin=0.02, estimand="mean",
                 where={"norm": "post"})  # fmt: skip
    v, row = verdict(c_ok, summary)
    post = summary[summary["norm"] == "post"].sort_values("seed")
    d = post[post["pos_enc"] == "sinusoidal"]["test_acc"].to_numpy() - post[post["pos_enc"] == "none"]["test_acc"].to_numpy()
    want = max(sps.ttest_1samp(d, -0.02, alternative="greater").pvalue, sps.ttest_1samp(d, 0.02, alternative="less").pvalue)
    assert v == "SUPPORTED" and row["p_value"] == pytest.approx(want, rel=1e-9)
    assert "paired t-test (TOST) on the mean, normality checked on the 8 seeds: holds: p = " in row["evidence"]
    assert (row["ci_lo"], row["ci_hi"]) == pytest.approx(sps.t.interval(0.95, 7, loc=d.mean(), scale=sps.sem(d)), abs=1e-9)


def test_a_better_row_says_when_the_typical_seed_tied():
    """16 seeds, 8 tied, 6 improved, 2 worsened: the median seed tied, and the row says so with the
    seeds that changed; with 10 improved it does not (the typical seed improved)."""
    c = claim("better", factor="norm", levels=["post", "pre"], where={"pos_enc": "sinusoidal"})

    def acc(improved):
        return lambda cell, s: 0.8 + (cell["norm"] == "pre") * (0.01 if s < improved else -0.01 if s < improved + 2 else 0.0)

    _, row = verdict(c, study(acc(6), seeds=range(16)))
    assert row["evidence"].startswith("mean over 1 cell(s): 6 improved, 2 worsened, 8 tied of 16 seeds (a tie did not "
                                      "improve); the typical seed tied: 8 of 16; of the 8 that changed, 6 improved; ")
    _, row = verdict(c, study(acc(10), seeds=range(16)))
    assert "typical seed" not in row["evidence"]


def test_combining_reads_simulated_studies_along_further_axes_as_one_study_each():
    rng = np.random.default_rng(0)
    p_sup, p_con = rng.uniform(size=(3, 2, 50)), rng.uniform(size=(3, 2, 50))
    sup, con, deciding = verdicts.combine(p_sup, p_con)
    for i in range(50):
        assert (sup[i], con[i], deciding[i]) == combined(*[list(zip(p_sup[c, :, i], p_con[c, :, i])) for c in range(3)])


def test_holm_steps_give_each_claim_its_factor_and_the_adjusted_p_ranked_before_it():
    steps = verdicts.holm_steps([0.04, 0.01, 0.3, 0.02])
    want = [(2, 0.06, 0.08), (4, 0.0, 0.04), (1, 0.08, 0.3), (3, 0.04, 0.06)]
    for got, (factor, floor, adjusted) in zip(steps, want):
        assert got.factor == factor and (got.floor, got.adjusted) == pytest.approx((floor, adjusted)) and got.size == 4
    # an adjusted p is at most 1, and so is the floor it leaves to the claims after it
    assert verdicts.holm_steps([0.7, 0.6]) == [verdicts.HolmStep(1, 1.0, 1.0, 2), verdicts.HolmStep(2, 0.0, 1.0, 2)]
    # tied p-values take their steps in the family's order, however many claims it holds
    tied = verdicts.holm_steps([0.3, 0.01] * 15)
    assert [step.factor for step in tied[1::2]] == list(range(30, 15, -1))


# --------------------------------------------------------------------------- the rows' other edges


def test_an_exact_claims_row_reads_word_for_word_what_its_certificates_found():
    c = claim("at_value", where={"pos_enc": "none"}, target=0.5, tolerance=0.0034, exact=True)
    summary = _certified(study(lambda cell, s: 0.5 + (cell["norm"] == "pre") / 300, seeds=range(5)), gap=2e-5)
    row = _family_row(c, summary)
    assert (row["study"], row["estimand"], row["verdict"], row["n"], row["family"]) == ("s", "exact", "SUPPORTED", 5, "")
    assert row["estimate"] == pytest.approx(0.5 + 0.5 / 300)
    assert all(np.isnan(row[k]) for k in ("p_value", "p_holm", "ci_lo", "ci_hi", "share", "share_lo", "share_hi"))
    assert row["evidence"] == ("all 10 runs hold the twin certificate: every twin pair predicted alike, "
                               "largest logit gap 2e-05")  # fmt: skip
    assert (row["rule"], row["detail"]) == (C.EXACT_TEXT, "10 runs (pos_enc=none)")
    assert (row["robustness"], row["verdict_without_diverged"]) == (1.0, "")
    # the estimate reads the claim's metric with the config's converged threshold
    converged = _family_row(dict(c, metric="converged"), summary, cfg={**CFG, "converged_threshold": 0.521})
    assert converged["estimate"] == pytest.approx(0.5) and converged["verdict"] == "SUPPORTED"


def test_an_exact_claim_alone_is_its_certificates_verdict_over_runs():
    c = C.check_claims([claim("at_value", where={"pos_enc": "none"}, target=0.5, tolerance=0.0034, exact=True)],
                       FACTORS, SETTINGS + ["test_acc"])[0]  # fmt: skip
    summary = _certified(study(lambda cell, s: 0.5, seeds=range(5)))
    summary.loc[summary.index[0], "twin_pairs_differ"] = 2  # every accuracy still exactly 0.5
    assert verdicts.verdict_alone(c, runs(summary, None, FACTORS, None), verdicts.Judge.of(CFG), verdicts.HolmStep(1, 0.0)) == ("CONTRADICTED", 10)


def test_a_verdict_at_exactly_the_robust_share_is_not_called_fragile():
    # 4 of 5 seeds meet it: p = 6/32 is undecided at alpha 0.1; without the failing seed 4 of 4
    # (p = 1/16) decide, without any other 3 of 4 do not: 4 of 5 evaluations repeat INCONCLUSIVE
    c = claim("at_least", where={"pos_enc": "sinusoidal", "norm": "post"}, threshold=0.97)
    row = _family_row(c, study(lambda cell, s: 0.5 if s == 4 else 1.0, seeds=range(5)), cfg={**CFG, "alpha": 0.1})
    assert (row["verdict"], row["robustness"]) == ("INCONCLUSIVE", pytest.approx(C.ROBUST))
    assert "Fragile" not in row["detail"]


def test_the_verdict_without_diverged_runs_reads_the_runs_that_did_not_diverge():
    c = claim("at_least", where={"pos_enc": "sinusoidal", "norm": "post"}, threshold=0.97)
    summary = study(lambda cell, s: 1.0)
    cell = (summary["pos_enc"] == "sinusoidal") & (summary["norm"] == "post")
    summary.loc[cell & (summary["seed"] < 2), "status"] = "diverged"
    row = _family_row(c, summary)  # 6 of 8 seeds surely meet it: p = 37/256
    assert (row["verdict"], row["verdict_without_diverged"]) == ("INCONCLUSIVE", "SUPPORTED")
    summary.loc[cell, "status"] = "diverged"  # without them the claim selects no run
    words = _family_row(c, summary)["verdict_without_diverged"]
    assert words == "INCONCLUSIVE (claim 'c-at_least': 'where' pos_enc=sinusoidal, norm=post selects no runs)"


def test_a_grad_trend_row_reads_both_levels_and_re_evaluates_with_the_gradients():
    df, g = _grad_study()
    df.loc[0, "status"] = "diverged"  # a run of the flat level in pos_enc=none; its gradients stand
    row = C.evaluate_family(family([("s", [GRAD], df, g, FACTORS)]), CFG).iloc[0]
    both = "8 of 8 seeds grew by more than 0 per layer; 8 of 8 seeds stayed within ±0.1 per layer"
    assert row["evidence"].startswith(f"pos_enc=none: {both}; share > 0.5, exact binomial test over seeds: p = ")
    assert row["detail"].endswith(f"pos_enc=none: {both} | pos_enc=sinusoidal: {both}")
    assert (row["verdict"], row["robustness"], row["verdict_without_diverged"]) == ("SUPPORTED", 1.0, "SUPPORTED")
    # half the seeds grow: undecided, and no count of further seeds is offered for grad_trend
    half = grads(df, lambda run: 0.5 if run["norm"] == "post" and run["seed"] % 2 else 0.0, noise=0.01)
    row = C.evaluate_family(family([("s", [GRAD], df, half, FACTORS)]), CFG).iloc[0]
    assert row["verdict"] == "INCONCLUSIVE" and row["evidence"].endswith(" vs alpha 0.05")


ADAPTIVE_ALPHA = 0.035
"""Between the e-process's p for 6 of 6 seeds meeting a claim (0.021) and for 5 of 5 (0.040), and
above the binomial p of 5 of 5 (1/32): where the anytime-valid rule and the fixed one part."""


def test_an_adaptive_study_tests_its_claims_with_the_e_process_throughout_the_row():
    c = claim("at_least", where={"pos_enc": "sinusoidal", "norm": "post"}, threshold=0.97)
    design = {"seeds": list(range(6)), "max_seeds": 20, "batch": 2}
    cfg = {**CFG, "alpha": ADAPTIVE_ALPHA}
    summary = study(lambda cell, s: 1.0, seeds=range(6))
    row = _family_row(c, summary, cfg=cfg, adaptive={"s": design})
    six, five = (seedtests.share_p_sequential(*[np.ones(n, bool)] * 3, 0.5, ADAPTIVE_ALPHA)[0] for n in (6, 5))
    assert row["p_value"] == pytest.approx(six) and five > ADAPTIVE_ALPHA >= 1 / 32
    assert ("; share > 0.5, betting e-process on the seeds' outcomes (anytime-valid), p = 1 / largest capital at a round "
            "end; ") in row["rule"]
    # leaving a seed out leaves 5 of 5: the e-process does not decide, so the verdict is fragile
    assert (row["verdict"], row["robustness"]) == ("SUPPORTED", 0.0)
    first = (summary["pos_enc"] == "sinusoidal") & (summary["norm"] == "post") & (summary["seed"] == 0)
    summary.loc[first, "status"] = "diverged"
    assert _family_row(c, summary, cfg=cfg, adaptive={"s": design})["verdict_without_diverged"] == "INCONCLUSIVE"
    # an undecided row counts the further seeds the e-process needs, not the binomial test
    mixed = study(lambda cell, s: 1.0 if s % 2 else 0.5, seeds=range(6))
    checked = C.check_claims([c], FACTORS, list(mixed.columns))[0]
    need, fixed = (verdicts.seeds_to_decide(checked, verdicts.claim_test(checked, runs(mixed, None, FACTORS, d), verdicts.Judge.of(cfg)),
                                     verdicts.HolmStep(1), ADAPTIVE_ALPHA)["SUPPORTED"]
                   for d in (design, None))  # fmt: skip
    roomy = design | {"max_seeds": 6 + need}
    row = _family_row(c, mixed, cfg=cfg, adaptive={"s": roomy})
    assert need != fixed and f"To decide it: at least {need} more seed(s) per cell, every one meeting" in row["evidence"]
    # the futility rule: where even max_seeds seeds, each the most favourable, could not decide it, it says so
    short = _family_row(c, mixed, cfg=cfg, adaptive={"s": design | {"max_seeds": 5 + need}})
    assert short["evidence"].endswith(f"No more seeds: even {need - 1} more seed(s) per cell, each the most favourable to "
                                      f"a verdict, could not decide it within max_seeds ({5 + need}): it gets no more")  # fmt: skip


def test_an_adaptive_study_takes_its_first_seeds_for_a_claim_without_an_e_process():
    df, g = _grad_study()  # 8 seeds; the design's first 6 are the fixed-design seeds
    design = {"seeds": list(range(6)), "max_seeds": 20, "batch": 2}
    row = C.evaluate_family(family([("s", [GRAD], df, g, FACTORS)], {"s": design}), CFG).iloc[0]
    assert row["n"] == 6 and "exact binomial test over seeds" in row["evidence"]
    at_least = claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.97)
    assert _family_row(at_least, df, adaptive={"s": design})["n"] == 8


def test_a_paired_mean_claim_bounds_its_confidence_sequence_by_the_differences_range():
    c = claim("not_worse", factor="norm", levels=["post", "pre"], where={"pos_enc": "sinusoidal"}, margin=0.05,
              estimand="mean", test="betting")  # fmt: skip
    summary = study(lambda cell, s: 0.95 - 0.01 * (s % 3) * (cell["norm"] == "pre"))
    row = _family_row(c, summary, adaptive={"s": {"seeds": list(range(8)), "max_seeds": 20, "batch": 2}})
    sin = summary[summary["pos_enc"] == "sinusoidal"].sort_values("seed")
    diff = sin[sin["norm"] == "pre"]["test_acc"].to_numpy() - sin[sin["norm"] == "post"]["test_acc"].to_numpy()
    lo, hi = sequential.confidence_sequence(diff, (-1.0, 1.0), 1 - CFG["confidence"])
    assert hi[-1] != hi[-2] and (row["ci_lo"], row["ci_hi"]) == pytest.approx((lo[-1], hi[-1]))
    # the 8 seeds are the design's first round: one look, after all of them
    one_round = np.zeros(8, dtype=int)
    assert row["p_value"] == pytest.approx(min(seedtests.mean_p(diff, diff, (-0.05, np.inf), (-1.0, 1.0), ALPHA, one_round)))
    assert "; mean over seeds, betting e-process (anytime-valid), p = 1 / largest capital at a round end: p = " in row["evidence"]


def test_fewer_than_two_seeds_give_p_one_both_ways():
    c = claim("at_least", where={"pos_enc": "sinusoidal", "norm": "post"}, threshold=0.97)
    row = _family_row(c, study(lambda cell, s: 1.0, seeds=[0]))
    assert (row["verdict"], row["p_value"], row["n"]) == ("INCONCLUSIVE", 1.0, 1)
    assert "for neither verdict (equal p-values)" in row["evidence"]


def test_the_config_reaches_every_test_of_a_study_of_its_own():
    c = claim("at_least", where={"pos_enc": "sinusoidal", "norm": "post"}, threshold=0.97)
    summary = study(lambda cell, s: 1.0, seeds=[0, 1])  # p = 1/4
    loose = C.evaluate_claims([c], summary, None, FACTORS, {**CFG, "alpha": 0.3, "confidence": 0.8}).iloc[0]
    lo, hi = sps.binomtest(2, 2).proportion_ci(0.8, method="exact")
    assert loose["verdict"] == "SUPPORTED" and (loose["share_lo"], loose["share_hi"]) == pytest.approx((lo, hi))
    assert C.evaluate_claims([c], summary, None, FACTORS).iloc[0]["verdict"] == "INCONCLUSIVE"
    converged = claim("at_least", where={"pos_enc": "sinusoidal", "norm": "post"}, threshold=1.0, metric="converged")
    strict = study(lambda cell, s: 0.96)  # final training accuracy 0.98
    assert verdict(converged, strict)[0] == "SUPPORTED"
    tight = C.evaluate_claims([converged], strict, None, FACTORS, {**CFG, "converged_threshold": 0.99}).iloc[0]
    assert tight["verdict"] == "CONTRADICTED"


# --------------------------------------------------------------------------- how many seeds would decide


def test_seeds_to_decide_counts_from_one_further_seed_up_to_its_limit():
    c = C.check_claims([claim("at_least", where={"pos_enc": "sinusoidal", "norm": "post"}, threshold=0.97)],
                       FACTORS, SETTINGS + ["test_acc"])[0]  # fmt: skip
    five = verdicts.claim_test(c, runs(study(lambda cell, s: 1.0, seeds=range(5)), None, FACTORS, {"seeds": list(range(5))}), verdicts.Judge.of(CFG))
    assert verdicts.seeds_to_decide(c, five, verdicts.HolmStep(1), ADAPTIVE_ALPHA)["SUPPORTED"] == 1
    # a claim decided already still names one further seed: the row asks only of undecided ones
    assert verdicts.seeds_to_decide(c, five, verdicts.HolmStep(1), 0.05)["SUPPORTED"] == 1
    # 4 of 8 seeds meet it; at this Holm factor exactly 101 further seeds meeting it would decide
    half = verdicts.claim_test(c, runs(study(lambda cell, s: 1.0 if s % 2 else 0.5), None, FACTORS, None), verdicts.Judge.of(CFG))
    factor = ALPHA / (sps.binom.sf(4 + 101 - 1, 8 + 101, 0.5) * (1 + 1e-9))
    assert verdicts.seeds_to_decide(c, half, verdicts.HolmStep(factor), ALPHA)["SUPPORTED"] is None  # beyond the default 100
    assert verdicts.seeds_to_decide(c, half, verdicts.HolmStep(factor), ALPHA, limit=101)["SUPPORTED"] == 101
    assert verdicts.seeds_to_decide(c, half, verdicts.HolmStep(factor), ALPHA, limit=100)["SUPPORTED"] is None


def test_reachable_needs_a_further_seed_and_counts_a_p_exactly_at_the_level():
    c = C.check_claims([claim("at_least", where={"pos_enc": "sinusoidal", "norm": "post"}, threshold=0.97)],
                       FACTORS, SETTINGS + ["test_acc"])[0]  # fmt: skip
    summary = study(lambda cell, s: 1.0, seeds=range(5))
    six = seedtests.share_p_sequential(*[np.ones(6, bool)] * 3, 0.5, ALPHA)[0]
    design = {"seeds": list(range(5)), "max_seeds": 6, "batch": 1}
    assert verdicts.reachable(c, runs(summary, None, FACTORS, design), verdicts.Judge.of(CFG), six)  # one more seed meeting it gives exactly that p
    assert not verdicts.reachable(c, runs(summary, None, FACTORS, design), verdicts.Judge.of(CFG), six * (1 - 1e-9))
    # at max_seeds there is no further seed, even for a claim whose p is at the level already
    assert not verdicts.reachable(c, runs(summary, None, FACTORS, {**design, "max_seeds": 5}), verdicts.Judge.of(CFG), 1.0)
    with pytest.raises(ValueError, match="c-at_least"):
        verdicts.reachable(dataclasses.replace(c, where={"pos_enc": "rope"}), runs(summary, None, FACTORS, design), verdicts.Judge.of(CFG), ALPHA)
    converged = built(dict(c.to_dict(), metric="converged", threshold=1.0))
    strict = study(lambda cell, s: 0.96 if s < 3 else 1.0, seeds=range(5))  # 3 seeds converged at 0.95, not at 0.99
    assert verdicts.reachable(converged, runs(strict, None, FACTORS, design), verdicts.Judge.of(CFG), six)
    assert not verdicts.reachable(converged, runs(strict, None, FACTORS, design), verdicts.Judge.of({**CFG, "converged_threshold": 0.99}), six)


def test_an_exact_claim_that_selects_no_run_names_the_claim():
    c = built(claim("at_value", where={"pos_enc": "rope"}, target=0.5, tolerance=0.0034, exact=True))
    with pytest.raises(ValueError, match="c-at_value"):
        verdicts.certificate(c, _certified(study(lambda cell, s: 0.5)))


# --------------------------------------------------------------------------- the command line's options


def test_the_command_line_says_what_each_option_takes_and_requires_each(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        C.main(["--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert stop.value.code == 0 and "[--scope-seeds-out SCOPE_SEEDS_OUT] Verdicts of every claim of the config, Holm over each family. options:" in said
    for option, text in (("--family-json FAMILY_JSON", "stats settings and, per study, factors and claims"),
                         ("--summaries SUMMARIES [SUMMARIES ...]", "summary.csv of each study, in order"),
                         ("--init-grads INIT_GRADS [INIT_GRADS ...]", "init_grads.csv of each study"),
                         ("--study STUDY", "the study whose rows to write"),
                         ("--scope STUDY=DIR", "a study's scope runs: DIR holds their summary.csv"),
                         ("--scope-out SCOPE_OUT", "the study's scope table")):  # fmt: skip
        assert f"{option} {text}" in said
    args = {"--family-json": ["{}"], "--summaries": ["a.csv"], "--init-grads": ["g.csv"], "--study": ["a"],
            "--out": [str(tmp_path / "out.csv")]}  # fmt: skip
    for missing in args:
        with pytest.raises(SystemExit) as stop:
            C.main([word for option, values in args.items() if option != missing for word in (option, *values)])
        assert stop.value.code == 2 and f"the following arguments are required: {missing}" in capsys.readouterr().err
    # the stats settings reach the verdicts: two seeds decide at alpha 0.3, not at the default 0.05
    summary = study(lambda cell, s: 1.0, seeds=[0, 1])
    summary.to_csv(tmp_path / "a.csv", index=False)
    pd.DataFrame(columns=["run_id", "seed", "layer", "grad_norm"]).to_csv(tmp_path / "g.csv", index=False)
    c = claim("at_least", where={"pos_enc": "sinusoidal", "norm": "post"}, threshold=0.97)
    for stats, said in (({"alpha": 0.3}, "SUPPORTED"), ({}, "INCONCLUSIVE")):
        spec = {"stats": stats, "studies": {"a": {"factors": FACTORS, "claims": [c]}}}
        assert C.main(["--family-json", json.dumps(spec), "--summaries", str(tmp_path / "a.csv"), "--init-grads",
                       str(tmp_path / "g.csv"), "--study", "a", "--out", str(tmp_path / "out.csv")]) == 0  # fmt: skip
        assert capsys.readouterr().out == f"claim c-at_least: {said}\n"


@pytest.mark.parametrize("kind, keys, meets", [
    ("at_value", {"target": 0.5, "tolerance": 0.05}, lambda cell, s: 0.5 if s % 2 else 0.9),
    ("equivalent", {"factor": "norm", "levels": ["post", "pre"], "margin": 0.02},
     lambda cell, s: 0.9 if s % 2 or cell["norm"] == "post" else 0.8),
    ("not_worse", {"factor": "norm", "levels": ["post", "pre"], "margin": 0.02},
     lambda cell, s: 0.9 if s % 2 or cell["norm"] == "post" else 0.8),
    ("better", {"factor": "norm", "levels": ["post", "pre"]},
     lambda cell, s: 0.9 + (0.05 if s % 2 else -0.05) * (cell["norm"] == "pre")),
])  # fmt: skip
def test_each_kind_counts_the_further_seeds_that_would_decide_it_at_its_most_favourable_values(kind, keys, meets):
    # one cell, 4 of 8 seeds meet the claim: the exact binomial test over 8 + k seeds, 4 + k of them
    # meeting it (SUPPORTED) or 4 of them (CONTRADICTED): a two-sided band's centre meets it, either end
    # of the range (a paired kind's: -1 and 1) does not
    where = {"pos_enc": "sinusoidal"} | ({} if "levels" in keys else {"norm": "post"})
    c = C.check_claims([claim(kind, where=where, **keys)], FACTORS, SETTINGS + ["test_acc"])[0]
    r = verdicts.claim_test(c, runs(study(meets), None, FACTORS, None), verdicts.Judge.of(CFG))
    assert (r.evidence[0][0].met, r.evidence[0][0].n) == (4, 8)
    assert verdicts.seeds_to_decide(c, r, verdicts.HolmStep(1), ALPHA) == {
        "SUPPORTED": next(k for k in range(1, 100) if sps.binom.sf(3 + k, 8 + k, 0.5) <= ALPHA),
        "CONTRADICTED": next(k for k in range(1, 100) if sps.binom.cdf(4, 8 + k, 0.5) <= ALPHA)}
