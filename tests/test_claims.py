"""Tests of ablation.claims: every kind reaches each verdict on data built for it; bad claims fail."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from ablation import claims as C

CFG = {"confidence": 0.95, "n_resamples": 999, "converged_threshold": 0.95, "alpha": 0.05}
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


def verdict(claim, summary, init_grads=None, factors=FACTORS):
    out = C.evaluate_claims([claim], summary, init_grads, factors, CFG)
    assert list(out.columns) == C.CLAIM_COLUMNS and len(out) == 1
    row = out.iloc[0]
    assert row["verdict"] in C.VERDICTS and row["rule"] and row["detail"]
    return row["verdict"], row


def claim(kind, **keys):
    return {"id": f"c-{kind}", "statement": f"a {kind} claim", "source": "lesson 45", "kind": kind, **keys}


# --------------------------------------------------------------------------- one-level kinds


def test_at_value_three_verdicts():
    c = claim("at_value", where={"pos_enc": "none"}, target=0.5, tolerance=0.0034)
    near_chance = study(lambda cell, s: 0.5 + (s % 2) / 300)  # one test item either way, per seed
    v, row = verdict(c, near_chance)
    assert v == "SUPPORTED" and row["n"] == 8 and 0.5 < row["ci_lo"] < row["ci_hi"] < 0.5034
    assert "0.5 ± 0.0034" in row["rule"] and "t over seeds" in row["detail"]
    assert verdict(c, study(lambda cell, s: 0.7 + 0.005 * (s % 3)))[0] == "CONTRADICTED"
    # centred on the target but spread +-0.02 over seeds: the interval is wider than the band
    assert verdict(c, study(lambda cell, s: 0.5 + 0.02 * (-1) ** s))[0] == "INCONCLUSIVE"


def test_equal_seeds_give_no_zero_width_interval():
    # every seed exactly at chance: a t or bootstrap interval is [0.5, 0.5]; Anderson's bound for a
    # mean in [0, 1] is not, so eight equal seeds cannot pin the mean to +-0.0034
    c = claim("at_value", where={"pos_enc": "none"}, target=0.5, tolerance=0.0034)
    v, row = verdict(c, study(lambda cell, s: 0.5))
    assert v == "INCONCLUSIVE" and row["ci_lo"] < 0.3 and row["ci_hi"] > 0.7 and "Anderson" in row["detail"]


@pytest.mark.parametrize(
    "c",
    [
        claim("at_value", where={"pos_enc": "none"}, target=0.5, tolerance=0.1),
        claim("at_least", threshold=0.1),
        claim("equivalent", factor="norm", levels=["post", "pre"], margin=0.5),
        claim("not_worse", factor="norm", levels=["post", "pre"], margin=0.5),
        claim("better", factor="norm", levels=["post", "pre"]),
        claim("grad_trend", factor="norm", growing="post", flat="pre", flat_margin=0.5),
    ],
    ids=lambda c: c["kind"],
)
@pytest.mark.parametrize("seeds", [[0], [0, 1]], ids=["one seed", "two equal seeds"])
def test_one_seed_or_equal_seeds_are_never_decisive(c, seeds):
    # every seed gives the same value in each cell (and the same gradient slope): no zero-width interval
    df = study(lambda cell, s: 0.5 + 0.3 * (cell["norm"] == "pre"), seeds=seeds)
    g = grads(df, lambda run: 0.5 if run["norm"] == "post" else 0.0)
    v, row = verdict(c, df, g)
    assert v == "INCONCLUSIVE" and row["n"] == len(seeds)
    if len(seeds) == 1:
        assert "needs at least 2" in row["detail"]
    else:
        assert c["kind"] == "better" or row["ci_hi"] - row["ci_lo"] > 0.5, row["detail"]


def test_at_least_three_verdicts_and_equal_seeds():
    c = claim("at_least", where={"pos_enc": "sinusoidal"}, threshold=0.9)
    v, row = verdict(c, study(lambda cell, s: 0.99, noise=0.003))
    assert v == "SUPPORTED" and "t over seeds" in row["detail"]
    assert verdict(c, study(lambda cell, s: 0.7, noise=0.01))[0] == "CONTRADICTED"
    assert verdict(c, study(lambda cell, s: 0.9, noise=0.03))[0] == "INCONCLUSIVE"
    # every seed at 0.92: no spread to estimate, so no pooled-count or zero-width interval decides
    v, row = verdict(dict(c, threshold=0.915), study(lambda cell, s: 0.92))
    assert row["ci_lo"] < 0.915 < 0.92 < row["ci_hi"] and v == "INCONCLUSIVE"


def test_at_least_converged_uses_clopper_pearson():
    c = claim("at_least", where={"pos_enc": "sinusoidal", "norm": "pre"}, metric="converged", threshold=0.8)
    all_converged = study(lambda cell, s: 1.0, seeds=range(5))
    v, row = verdict(c, all_converged)  # 5/5: Clopper-Pearson lower bound 0.478
    assert v == "INCONCLUSIVE" and row["ci_lo"] == pytest.approx(0.4782, abs=1e-3) and row["estimate"] == 1.0
    assert verdict(dict(c, threshold=0.4), all_converged)[0] == "SUPPORTED"
    assert verdict(c, study(lambda cell, s: 0.6, seeds=range(20)))[0] == "CONTRADICTED"


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


def test_all_zero_differences_do_not_support_not_worse():
    # ten seeds, both levels always converged: every difference is 0, and yet ten seeds cannot
    # rule out a 10 % worse convergence rate
    df = study(lambda cell, s: 1.0, seeds=range(10))
    c = claim("not_worse", factor="norm", levels=["post", "pre"], where={"pos_enc": "none"}, metric="converged",
              margin=0.1)  # fmt: skip
    v, row = verdict(c, df)
    # the paired-proportion (Tango score) bound, -z^2 / (10 + z^2) = -0.278, as Newcombe's
    assert v == "INCONCLUSIVE" and row["ci_lo"] == pytest.approx(-0.2775, abs=1e-4) and row["estimate"] == 0.0
    assert "Tango score over seeds (paired 0/1)" in row["detail"]
    # a margin wider than the bound: ten concordant seeds do support it
    assert verdict(dict(c, margin=0.3), df)[0] == "SUPPORTED"


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


def test_better_three_verdicts_and_design_limit():
    c = claim("better", factor="norm", levels=["post", "pre"])
    rng = np.random.default_rng(3)
    noise = {k: rng.normal(0, 1) for k in itertools.product(LEVELS["pos_enc"], LEVELS["norm"], range(10))}

    def make(shift, sd=0.005):
        return study(lambda cell, s: 0.7 + (shift if cell["norm"] == "pre" else 0.0)
                     + sd * noise[(cell["pos_enc"], cell["norm"], s)], seeds=range(10))  # fmt: skip

    v, row = verdict(c, make(0.05))
    assert v == "SUPPORTED" and row["n"] == 10 and row["p_value"] == pytest.approx(2 / 2**10)
    assert "Holm-adjusted" in row["detail"]
    assert verdict(c, make(-0.05))[0] == "CONTRADICTED"
    assert verdict(c, make(0.0, 0.02))[0] == "INCONCLUSIVE"
    # 5 seeds: even a perfectly consistent gain cannot reach p < 0.05
    five = study(lambda cell, s: 0.7 + (0.05 + 0.001 * s if cell["norm"] == "pre" else 0.0), seeds=range(5))
    v, row = verdict(dict(c, where={"pos_enc": "none"}), five)
    assert v == "INCONCLUSIVE" and "min p 0.0625 with 5 non-zero of 5 seeds" in row["detail"]


def test_claims_are_holm_adjusted_together():
    # 6 seeds, all gains positive: sign-flip p = 2 / 2**6 = 0.03125
    df = study(lambda cell, s: 0.7 + (0.02 + 0.01 * s if cell["norm"] == "pre" else 0.0), seeds=range(6))
    one = dict(claim("better", factor="norm", levels=["post", "pre"]), where={"pos_enc": "none"})
    alone = C.evaluate_claims([one], df, None, FACTORS, CFG).iloc[0]
    others = [dict(one, id=f"copy{i}") for i in range(4)]  # same p: Holm multiplies the smallest by 5
    together = C.evaluate_claims([one, *others], df, None, FACTORS, CFG).set_index("id")
    assert alone["p_value"] == alone["p_holm"] == pytest.approx(0.03125)
    assert together.loc["c-better", "p_holm"] == pytest.approx(5 * 0.03125)
    assert alone["verdict"] == "SUPPORTED" and together.loc["c-better", "verdict"] == "INCONCLUSIVE"
    # one family across studies: the same five claims split over two studies adjust the same way
    fam = C.evaluate_family([("a", [one, others[0]], df, None, FACTORS), ("b", others[1:], df, None, FACTORS)], CFG)
    assert fam["p_holm"].to_numpy() == pytest.approx(together["p_holm"].to_numpy())
    assert list(fam["study"]) == ["a", "a", "b", "b", "b"]


def test_robustness_and_diverged_runs():
    # 6 seeds, all gains positive: p = 2 / 2**6 = 0.03125, SUPPORTED; without any one seed, 5 seeds
    # reach at best 0.0625: no leave-one-seed-out evaluation repeats the verdict
    df = study(lambda cell, s: 0.7 + (0.02 + 0.01 * s if cell["norm"] == "pre" else 0.0), seeds=range(6))
    c = dict(claim("better", factor="norm", levels=["post", "pre"]), where={"pos_enc": "none"})
    v, row = verdict(c, df)
    assert v == "SUPPORTED" and row["robustness"] == 0.0 and "fragile" in row["detail"]
    assert row["verdict_without_diverged"] == ""
    # a clear difference over 8 seeds survives losing any one of them
    clear = study(lambda cell, s: 0.7 + (0.1 if cell["norm"] == "pre" else 0.0), noise=0.002)
    v, row = verdict(dict(c, kind="not_worse", margin=0.02), clear)
    assert v == "SUPPORTED" and row["robustness"] == 1.0 and "fragile" not in row["detail"]
    # seed 1's post-norm run diverged (test_acc missing: counted at chance): the verdict with it and without
    div = clear.copy()
    div.loc[(div["norm"] == "post") & (div["seed"] == 1), ["status", "test_acc"]] = ["diverged", np.nan]
    v, row = verdict(dict(c, kind="not_worse", margin=0.02), div)
    assert row["verdict_without_diverged"] == "SUPPORTED" and "1 diverged run(s)" in row["detail"]


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
    assert ok["metric"] == "test_acc" and ok["where"] == {}


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


def test_main_evaluates_one_family_and_writes_one_studys_rows(tmp_path, capsys):
    import json

    # two studies; the claims of both form one Holm family, and --study picks the rows written
    gain = study(lambda cell, s: 0.7 + (0.02 + 0.01 * s if cell["norm"] == "pre" else 0.0), seeds=range(6))
    flat = study(lambda cell, s: 0.5)
    one = dict(claim("better", factor="norm", levels=["post", "pre"]), where={"pos_enc": "none"})
    chance = dict(one, id="no-gain")  # every difference 0: p = 1, but it counts in the family
    paths = {}
    for name, df in (("gain", gain), ("flat", flat)):
        paths[name] = (tmp_path / f"{name}.csv", tmp_path / f"{name}_grads.csv")
        df.to_csv(paths[name][0], index=False)
        grads(df, lambda run: 0.0).to_csv(paths[name][1], index=False)
    spec = {"stats": CFG, "studies": {"gain": {"factors": FACTORS, "claims": [one]},
                                      "flat": {"factors": FACTORS, "claims": [chance]}}}  # fmt: skip
    out = tmp_path / "claims.csv"
    argv = ["--family-json", json.dumps(spec), "--summaries", str(paths["gain"][0]), str(paths["flat"][0]),
            "--init-grads", str(paths["gain"][1]), str(paths["flat"][1]), "--study", "gain", "--out", str(out)]  # fmt: skip
    assert C.main(argv) == 0
    written = pd.read_csv(out)
    assert list(written.columns) == C.CLAIM_COLUMNS and list(written["id"]) == ["c-better"]
    family = C.evaluate_family([("gain", [one], gain, None, FACTORS), ("flat", [chance], flat, None, FACTORS)], CFG)
    assert written["p_holm"].iloc[0] == pytest.approx(family["p_holm"].iloc[0]) == pytest.approx(2 * 0.03125)
    assert written["verdict"].iloc[0] == family["verdict"].iloc[0] == "INCONCLUSIVE"
    assert capsys.readouterr().out == f"claim c-better: {family['verdict'].iloc[0]}\n"
    # a summary missing for a study: a clear usage error
    with pytest.raises(SystemExit):
        C.main(argv[:3] + argv[4:])
    assert "2 studies but 1 summaries and 2 gradient tables" in capsys.readouterr().err


@pytest.mark.parametrize("kind, keys, side", [
    ("at_least", dict(threshold=0.82), "lower"),
    ("at_value", dict(target=0.86, tolerance=0.1), "both"),
])  # fmt: skip
def test_a_claims_p_is_the_smallest_alpha_at_which_its_interval_decides(kind, keys, side):
    # five seeds symmetric about 0.86 (Hall's interval is Student's t): the interval at level 1 - a
    # has lower bound >= 0.82 exactly when a >= 2 (1 - F_t((mean - 0.82) / se))
    values = [0.80, 0.84, 0.86, 0.88, 0.92]
    df = study(lambda cell, s: values[s], seeds=range(5))
    c = dict(claim(kind, **keys), where={"pos_enc": "none", "norm": "post"})
    v, row = verdict(c, df)
    se = sps.sem(values)
    if side == "lower":
        p = 2 * sps.t.sf((np.mean(values) - 0.82) / se, 4)
    else:  # within 0.76 .. 0.96: the nearer edge decides
        p = 2 * sps.t.sf(min(np.mean(values) - 0.76, 0.96 - np.mean(values)) / se, 4)
    assert row["p_value"] == pytest.approx(p, rel=1e-5) and row["p_holm"] == row["p_value"]
    assert v == ("SUPPORTED" if p <= 0.05 else "INCONCLUSIVE")
    lo, hi = sps.t.interval(0.95, 4, loc=np.mean(values), scale=se)
    assert (row["ci_lo"], row["ci_hi"]) == pytest.approx((lo, hi), abs=1e-12)
    assert row["estimate"] == pytest.approx(0.86) and row["n"] == 5
    assert row["robustness"] * 5 == pytest.approx(round(row["robustness"] * 5))  # a share of the 5 seeds left out
    assert ("fragile" in row["detail"]) == (row["robustness"] < 0.8)
    assert row["cells"] == "every" and row["kind"] == kind and row["source"] == "lesson 45"
    assert f"p = {p:.4g} for SUPPORTED" in row["detail"]


def test_the_binding_cell_is_shown_and_every_cell_is_listed():
    # at_least in every cell: the cell with the lowest mean decides SUPPORTED, so it is the one shown
    df = study(lambda cell, s: 0.9 + 0.05 * (cell["norm"] == "pre") + 0.02 * (cell["pos_enc"] == "none") + 0.003 * (s % 3))
    v, row = verdict(claim("at_least", threshold=0.8), df)
    low = df[(df["norm"] == "post") & (df["pos_enc"] == "sinusoidal")].groupby("seed")["test_acc"].mean()
    assert v == "SUPPORTED" and row["estimate"] == pytest.approx(low.mean(), abs=1e-12)
    assert row["detail"].count(" seeds)") == 4 and "norm=post" in row["detail"] and "pos_enc=none" in row["detail"]
    # on average over the cells: one mean per seed over the four cells
    v, row = verdict(claim("at_least", threshold=0.8, cells="average"), df)
    assert row["estimate"] == pytest.approx(df.groupby("seed")["test_acc"].mean().mean(), abs=1e-12)
    assert "mean over 4 cell(s)" in row["detail"] and "on the mean over cells within each seed" in row["rule"]


def test_diverged_runs_are_named_in_the_detail_by_metric():
    df = study(lambda cell, s: 0.9)
    df.loc[0, ["status", "test_acc", "final_train_acc"]] = ["diverged", np.nan, np.nan]
    conv = claim("at_least", threshold=0.1, metric="converged")
    assert "1 diverged run(s) counted as not converged" in verdict(conv, df)[1]["detail"]
    acc = claim("at_least", threshold=0.1)
    v, row = verdict(acc, df)
    assert "1 diverged run(s) counted at chance (0.5) when their value is missing" in row["detail"]
    assert row["verdict_without_diverged"] in C.VERDICTS
    # without the diverged runs a 'where' may select nothing: the reason is given
    only = df.copy()
    only.loc[only["pos_enc"] == "none", "status"] = "diverged"
    v, row = verdict(dict(acc, where={"pos_enc": "none"}), only)
    assert row["verdict_without_diverged"].startswith("INCONCLUSIVE (claim 'c-at_least': 'where' pos_enc='none' selects no runs")


# --------------------------------------------------------------------------- settings, slopes, the command line


def test_converged_uses_the_configs_threshold_and_the_detail_names_the_selection():
    # final_train_acc = test_acc + 0.02 = 0.94: converged at threshold 0.9, not at the default 0.95
    df = study(lambda cell, s: 0.92)
    c = claim("at_least", threshold=0.5, metric="converged", where={"pos_enc": "none"})
    at_90 = C.evaluate_claims([c], df, None, FACTORS, dict(CFG, converged_threshold=0.9)).iloc[0]
    at_95 = C.evaluate_claims([c], df, None, FACTORS, CFG).iloc[0]
    assert (at_90["estimate"], at_90["verdict"]) == (1.0, "SUPPORTED")
    assert (at_95["estimate"], at_95["verdict"]) == (0.0, "CONTRADICTED")
    assert "mean converged over seeds (pos_enc=none)" in at_90["detail"]


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


def test_grad_trend_in_every_cell_or_on_average_and_naming_its_levels():
    df, g = _grad_study()
    c = dict(GRAD, where={"pos_enc": ["none", "sinusoidal"]})
    v, row = verdict(c, df, g)
    assert v == "SUPPORTED" and "pos_enc=none: mean" in row["detail"] and "pos_enc=sinusoidal: mean" in row["detail"]
    assert "on layer index (pos_enc=['none', 'sinusoidal'])" in row["detail"]
    v, row = verdict(dict(c, cells="average"), df, g)
    assert v == "SUPPORTED" and "mean over 2 cell(s): mean" in row["detail"] and "pos_enc=none: mean" not in row["detail"]
    with pytest.raises(ValueError, match=r"^claim 'c-grad_trend': level norm='sandwich' selects no runs \(after 'where'\)$"):
        verdict(dict(GRAD, flat="sandwich"), df, g)
    with pytest.raises(ValueError, match=r"^claim 'c-grad_trend': kind grad_trend needs the initial-gradient table "
                       r"\(run_id, layer, grad_norm\)$"):  # fmt: skip
        verdict(GRAD, df, g.drop(columns="layer"))


def _family_files(tmp_path, studies):
    paths = []
    for name, df in studies.items():
        paths.append((tmp_path / f"{name}.csv", tmp_path / f"{name}_grads.csv"))
        df.to_csv(paths[-1][0], index=False)
        grads(df, lambda run: 0.0).to_csv(paths[-1][1], index=False)
    return ["--summaries", *(str(s) for s, _ in paths), "--init-grads", *(str(g) for _, g in paths)]


def test_main_takes_the_stats_settings_and_adaptive_designs_of_the_family(tmp_path, capsys):
    import json

    gain = study(lambda cell, s: 0.7 + (0.02 + 0.01 * s if cell["norm"] == "pre" else 0.0), seeds=range(6))
    one = dict(claim("better", factor="norm", levels=["post", "pre"]), where={"pos_enc": "none"})
    files = _family_files(tmp_path, {"gain": gain})
    out = tmp_path / "claims.csv"
    spec = {"stats": dict(CFG, alpha=0.1), "studies": {"gain": {"factors": FACTORS, "claims": [one]}}}
    assert C.main(["--family-json", json.dumps(spec), *files, "--study", "gain", "--out", str(out)]) == 0
    row = pd.read_csv(out).iloc[0]
    assert row["verdict"] == "SUPPORTED" and row["p_value"] == 2 / 2**6 and "alpha 0.1;" in row["rule"]
    # an adaptive study: its claims take the anytime-valid rule, as evaluate_family does with its design
    design = {"seeds": [0, 1, 2, 3], "max_seeds": 6, "batch": 2}
    spec["studies"]["gain"]["adaptive"] = design
    assert C.main(["--family-json", json.dumps(spec), *files, "--study", "gain", "--out", str(out)]) == 0
    row = pd.read_csv(out).iloc[0]
    family = C.evaluate_family([("gain", [one], gain, None, FACTORS)], dict(CFG, alpha=0.1), adaptive={"gain": design})
    assert "adaptive study" in row["rule"] and row["rule"] == family["rule"].iloc[0]
    assert row["p_value"] == pytest.approx(family["p_value"].iloc[0], rel=1e-12)
    capsys.readouterr()


def test_main_usage_names_every_argument(capsys):
    with pytest.raises(SystemExit) as exit_:
        C.main(["--help"])
    assert exit_.value.code == 0
    usage = " " + " ".join(capsys.readouterr().out.split()) + " "
    for words in ("Verdicts of every claim of the config, Holm over all of them.",
                  "--family-json FAMILY_JSON stats settings and, per study, factors and claims",
                  "--summaries SUMMARIES [SUMMARIES ...] summary.csv of each study, in order",
                  "--init-grads INIT_GRADS [INIT_GRADS ...] init_grads.csv of each study",
                  "--study STUDY the study whose rows to write", "--out OUT"):  # fmt: skip
        assert f" {words} " in usage
    with pytest.raises(SystemExit):
        C.main([])
    assert ("the following arguments are required: --family-json, --summaries, --init-grads, --study, --out"
            in capsys.readouterr().err)  # fmt: skip


# --------------------------------------------------------------------------- selection, edges of the rules


def test_where_lists_and_numbers_select_exactly_their_runs():
    df = study(lambda cell, s: 0.9)
    c = claim("at_least", threshold=0.5, cells="average")
    assert verdict(dict(c, where={"seed": [0, 1, 2]}), df)[1]["n"] == 3  # any of a list of numbers
    assert verdict(dict(c, where={"norm": ["post", "sandwich"]}), df)[1]["n"] == 8  # one value with no runs
    # numbers match to 12 significant digits, not more loosely (levels 0, 1e-9, 0.1, 0.1000001)
    df["lr"] = np.tile([0.0, 1e-9, 0.1, 0.1000001], len(df) // 4)
    for lr in (0.0, 1e-9, 0.1, 0.1000001):
        selected = C._select(df, {"lr": lr}, "x")["lr"]
        assert (selected == lr).all() and len(selected) == len(df) // 4
    assert len(C._select(df, {"lr": [0.1, 0.1 + 1e-15]}, "x")) == len(df) // 4


def test_where_on_a_boolean_column_takes_true_false_or_their_names():
    df = study(lambda cell, s: 0.9 if cell["norm"] == "pre" else 0.6)
    df["flag"] = df["norm"] == "pre"
    for value, estimate in ((True, 0.9), ("True", 0.9), (False, 0.6), ("False", 0.6)):
        row = verdict(claim("at_least", threshold=0.5, where={"flag": value}), df)[1]
        assert row["estimate"] == pytest.approx(estimate), value


def test_the_detail_names_the_selection_and_the_pairing():
    df = study(lambda cell, s: 0.9, levels=dict(LEVELS, lr=[0.1, 0.2]))
    row = verdict(claim("at_least", threshold=0.5), df, factors=[*FACTORS, "lr"])[1]
    assert "mean test_acc over seeds (all runs)" in row["detail"]
    row = verdict(claim("at_least", threshold=0.5, where={"pos_enc": "none", "norm": "post"}), df, factors=[*FACTORS, "lr"])[1]
    assert "mean test_acc over seeds (pos_enc=none, norm=post)" in row["detail"]
    # the detail's numbers: four decimals
    assert "lr=0.1: mean 0.9000 [" in row["detail"]
    pair = claim("not_worse", factor="norm", levels=["post", "pre"], margin=0.05)
    row = verdict(pair, df, factors=[*FACTORS, "lr"])[1]
    assert "test_acc norm=pre minus norm=post, 32 runs paired on seed and pos_enc, lr, averaged within seed (all runs)" in row["detail"]
    row = verdict(dict(pair, where={"pos_enc": "none", "lr": 0.1}), df.iloc[1:], factors=[*FACTORS, "lr"])[1]
    assert "7 runs paired on seed and pos_enc, lr, averaged within seed (pos_enc=none, lr=0.1); 1 runs without a partner" in row["detail"]
    alone = df[(df["pos_enc"] == "none") & (df["lr"] == 0.1)].drop(columns=["pos_enc", "lr"])
    row = verdict(pair, alone, factors=["norm"])[1]
    assert "paired on seed and no other factor, averaged within seed (all runs)" in row["detail"]


def test_paired_claims_take_the_configs_threshold_and_average_over_cells():
    # converged at threshold 0.9 (final_train_acc 0.94) at norm=pre only: a loss of 1 at the default 0.95 is 0
    df = study(lambda cell, s: 0.92 if cell["norm"] == "pre" else 0.5)
    c = claim("equivalent", factor="norm", levels=["post", "pre"], margin=0.5, metric="converged")
    at_90 = C.evaluate_claims([c], df, None, FACTORS, dict(CFG, converged_threshold=0.9)).iloc[0]
    at_95 = C.evaluate_claims([c], df, None, FACTORS, CFG).iloc[0]
    assert at_90["estimate"] == 1.0 and at_95["estimate"] == 0.0
    row = verdict(dict(c, cells="average"), df)[1]
    assert "mean over 2 cell(s): mean" in row["detail"] and "pos_enc=none: mean" not in row["detail"]


def test_a_level_with_one_run_and_a_level_that_is_not_a_number():
    df = study(lambda cell, s: 0.9, seeds=[0], levels=dict(LEVELS, lr=[0.1, 0.2]))
    c = dict(claim("better", factor="lr", levels=[0.1, 0.2]), where={"pos_enc": "none", "norm": "post"})
    v, row = verdict(c, df, factors=[*FACTORS, "lr"])
    assert v == "INCONCLUSIVE" and row["n"] == 1
    with pytest.raises(ValueError, match=r"^claim 'c-better': level of 'lr': 'fast' is not a number, but column 'lr' is numeric$"):
        verdict(dict(c, levels=[0.1, "fast"]), df, factors=[*FACTORS, "lr"])


def test_interval_rules_at_the_edges_of_their_bands():
    near_one = study(lambda cell, s: 1.0 - (s % 2) / 300)
    where = {"pos_enc": "none", "norm": "post"}
    # an interval clipped at 1 lies within a band that ends at 1 (0.95 + 0.05), and one clipped at 0
    # within a band that starts at 0
    assert verdict(claim("at_value", where=where, target=0.95, tolerance=0.05), near_one)[0] == "SUPPORTED"
    near_zero = study(lambda cell, s: (s % 2) / 300)
    assert verdict(claim("at_value", where=where, target=0.05, tolerance=0.05), near_zero)[0] == "SUPPORTED"
    # every seed at 1.0: "at least 1" is not contradicted (the interval reaches 1), nor is "exactly 0"
    # by seeds all at 0
    ones = study(lambda cell, s: 1.0)
    assert verdict(claim("at_least", where=where, threshold=1.0), ones)[0] == "INCONCLUSIVE"
    zeros = study(lambda cell, s: 0.0)
    assert verdict(claim("at_value", where=where, target=0.0, tolerance=0.0), zeros)[0] == "INCONCLUSIVE"


def test_decisive_at_exactly_alpha_and_a_claim_that_never_decides_has_p_one():
    # five seeds all better: p = 2 / 2**5 = 0.0625; at alpha 0.0625 that is decisive
    five = study(lambda cell, s: 0.7 + (0.05 + 0.001 * s if cell["norm"] == "pre" else 0.0), seeds=range(5))
    c = dict(claim("better", factor="norm", levels=["post", "pre"]), where={"pos_enc": "none"})
    row = C.evaluate_claims([c], five, None, FACTORS, dict(CFG, alpha=0.0625)).iloc[0]
    assert row["p_value"] == 0.0625 and row["verdict"] == "SUPPORTED"
    row = verdict(claim("at_value", where={"pos_enc": "none"}, target=0.5, tolerance=0.0), study(lambda cell, s: 0.5 + 0.02 * (-1) ** s))[1]
    assert row["p_value"] == 1.0 and "p = 1 (the rule decides at no alpha up to 0.5)" in row["detail"]


def test_grad_trend_is_inconclusive_while_the_growing_slope_is_uncertain():
    df = study(lambda cell, s: 0.9)
    # growing: slopes 0.5 +- 1 over seeds (interval spans 0); flat: exactly flat within the margin
    spread = {s: 0.5 + (1.0 if s % 2 else -1.0) for s in range(8)}
    g = grads(df, lambda run: spread[run["seed"]] if run["norm"] == "post" else 0.0, noise=0.001)
    v, row = verdict(GRAD, df, g)
    assert v == "INCONCLUSIVE" and row["ci_lo"] < 0 < 0.5 < row["ci_hi"] < 1.5


def test_evaluate_claims_passes_its_seed_to_the_permutation_test():
    # 20 seeds: more than stats.EXACT_SIGN_FLIP_MAX_N non-zero differences, so the sign-flip test
    # samples its permutations from the seed; the default seed is 0
    rng = np.random.default_rng(5)
    gains = rng.normal(0.004, 0.01, 20)
    df = study(lambda cell, s: 0.7 + (gains[s] if cell["norm"] == "pre" else 0.0), seeds=range(20))
    c = dict(claim("better", factor="norm", levels=["post", "pre"]), where={"pos_enc": "none"})
    p = {seed: C.evaluate_family([("s", [c], df, None, FACTORS)], CFG, seed)["p_value"].iloc[0] for seed in (0, 1)}
    assert p[0] != p[1] and "sign-flip permutation" in verdict(c, df)[1]["detail"]
    assert C.evaluate_claims([c], df, None, FACTORS, CFG)["p_value"].iloc[0] == p[0]
    assert C.evaluate_claims([c], df, None, FACTORS, CFG, seed=1)["p_value"].iloc[0] == p[1]
    assert C.evaluate_family([("s", [c], df, None, FACTORS)], CFG)["p_value"].iloc[0] == p[0]


# --------------------------------------------------------------------------- exact numbers and texts, edges


def test_numbers_in_the_detail_take_four_decimals_and_non_finite_ones_read_nan():
    assert (C._f(0.5), C._f(1 / 3, 2), C._f(-0.25)) == ("0.5000", "0.33", "-0.2500")
    for x in (np.nan, np.inf, -np.inf, None):
        assert C._f(x) == "nan", x


def test_the_detail_and_rule_of_a_better_claim_spelled_out():
    # 6 seeds, all gains positive in both cells: exact sign-flip p = 2 / 2**6 in each; without any one
    # seed, 5 seeds reach at best 0.0625, so no leave-one-seed-out evaluation repeats SUPPORTED
    gain = study(lambda cell, s: 0.7 + (0.02 + 0.01 * s if cell["norm"] == "pre" else 0.0), seeds=range(6))
    v, row = verdict(claim("better", factor="norm", levels=["post", "pre"]), gain)
    cell = "mean 0.0450, sign-flip exact p = 0.03125 (min p 0.03125 with 6 non-zero of 6 seeds)"
    assert v == "SUPPORTED" and row["statement"] == "a better claim" and row["robustness"] == 0.0
    assert row["detail"] == (
        "p = 0.03125 for SUPPORTED (the smallest alpha at which the rule gives it), Holm-adjusted over the 1 "
        "claim(s) of the config: 0.03125 vs alpha 0.05; fragile: only 0% of leave-one-seed-out evaluations give "
        "SUPPORTED. test_acc norm=pre minus norm=post, 12 runs paired on seed and pos_enc, averaged within seed "
        f"(all runs). pos_enc=none: {cell} | pos_enc=sinusoidal: {cell}")  # fmt: skip
    intervals = ("intervals over seeds: skewness-corrected t (Hall); Clopper-Pearson for a 0/1 value per seed; "
                 "Tango's score interval for paired 0/1 differences; Anderson's nonparametric bound when every "
                 "seed has the same value; none below 2 seeds")  # fmt: skip
    tail = "; decisive when the claim's p survives Holm over all claims of the config at alpha 0.05; else INCONCLUSIVE"
    assert row["rule"] == (
        "two-sided sign-flip test of the mean seed difference (exact McNemar for a 0/1 metric), mean > 0 -> "
        f"SUPPORTED, mean < 0 -> CONTRADICTED (every cell must pass; {intervals}){tail}")  # fmt: skip
    row = verdict(claim("better", factor="norm", levels=["post", "pre"], cells="average"), gain)[1]
    assert row["rule"].endswith(f"-> CONTRADICTED (on the mean over cells within each seed; {intervals}){tail}")
    # the other direction: the detail names CONTRADICTED
    loss = study(lambda cell, s: 0.7 - (0.02 + 0.01 * s if cell["norm"] == "pre" else 0.0), seeds=range(6))
    v, row = verdict(dict(claim("better", factor="norm", levels=["post", "pre"]), where={"pos_enc": "none"}), loss)
    assert v == "CONTRADICTED" and row["detail"].startswith("p = 0.03125 for CONTRADICTED (the smallest alpha")


def test_a_claim_that_never_decides_says_so_first():
    df = study(lambda cell, s: 0.5 + 0.02 * (-1) ** s)
    row = verdict(claim("at_value", where={"pos_enc": "none"}, target=0.5, tolerance=0.0), df)[1]
    assert row["detail"].startswith("p = 1 (the rule decides at no alpha up to 0.5), Holm-adjusted over the 1 claim(s)")


def test_better_in_every_cell_takes_the_weakest_cell_and_contradicts_only_on_a_loss():
    # both cells gain: 10 seeds in pos_enc=none (p = 2 / 2**10), 4 seeds of gain and 6 of none in the
    # other (p = 2 / 2**4 = 0.125): SUPPORTED needs both, and no cell contradicts
    df = study(lambda cell, s: 0.7 + (0.05 + 0.001 * s if cell["norm"] == "pre" and (cell["pos_enc"] == "none" or s < 4)
                                      else 0.0), seeds=range(10))  # fmt: skip
    v, row = verdict(claim("better", factor="norm", levels=["post", "pre"]), df)
    assert v == "INCONCLUSIVE" and row["p_value"] == 0.125 and "for SUPPORTED" in row["detail"]


def test_two_seeds_can_decide_and_three_repeat_the_verdict_without_any_one():
    # two seeds a test item apart, far above the threshold: decisive; without either, one seed is not
    two = study(lambda cell, s: 0.9 + (s % 2) / 300, seeds=range(2))
    c = claim("at_least", where={"pos_enc": "none", "norm": "post"}, threshold=0.1)
    v, row = verdict(c, two)
    assert (v, row["n"], row["robustness"]) == ("SUPPORTED", 2, 0.0) and "needs at least 2" not in row["detail"]
    assert row["p_value"] < 0.01 and "mean over 1 cell(s): mean 0.9017 [" in row["detail"]
    # spread apart, two seeds are inconclusive, and so is one: every leave-one-seed-out evaluation agrees
    v, row = verdict(c, study(lambda cell, s: 0.5 + 0.4 * (s % 2), seeds=range(2)))
    assert (v, row["n"], row["robustness"]) == ("INCONCLUSIVE", 2, 1.0)
    three = study(lambda cell, s: 0.9 + (s % 2) / 300, seeds=range(3))
    v, row = verdict(c, three)
    assert (v, row["n"], row["robustness"]) == ("SUPPORTED", 3, 1.0)
    # one of three seeds diverged: the verdict without it rests on two seeds, and with two seeds of
    # which one diverged, on one seed (never decisive)
    div = three.copy()
    run = (div["seed"] == 2) & (div["pos_enc"] == "none") & (div["norm"] == "post")
    div.loc[run, ["status", "test_acc"]] = ["diverged", np.nan]
    assert verdict(c, div)[1]["verdict_without_diverged"] == "SUPPORTED"
    v, row = verdict(c, div[div["seed"] != 0])
    assert row["n"] == 2 and row["verdict_without_diverged"] == "INCONCLUSIVE"


def test_few_or_no_seeds_evaluate_without_warnings():
    import warnings

    df = study(lambda cell, s: 0.9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert verdict(claim("at_least", threshold=0.1), study(lambda cell, s: 0.9, seeds=[0]))[0] == "INCONCLUSIVE"
        row = verdict(GRAD, df, grads(df, lambda run: 0.5, depth=1))[1]
    assert row["n"] == 0 and np.isnan(row["estimate"]) and np.isnan(row["robustness"])


def test_holm_over_three_claims_matches_statsmodels():
    from statsmodels.stats.multitest import multipletests

    # sign-flip p: 10 seeds 2 / 2**10, 7 seeds 2 / 2**7 (twice): Holm gives 3 p1, 2 p2, max(2 p2, p2)
    df = study(lambda cell, s: 0.7 + (0.05 + 0.001 * s if cell["norm"] == "pre" else 0.0), seeds=range(10))
    one = dict(claim("better", factor="norm", levels=["post", "pre"]), where={"pos_enc": "none"})
    seven = dict(one, id="seven", where={"pos_enc": "none", "seed": list(range(7))})
    out = C.evaluate_claims([one, seven, dict(seven, id="seven-again")], df, None, FACTORS, CFG)
    raw = np.array([2 / 2**10, 2 / 2**7, 2 / 2**7])
    assert out["p_value"].to_numpy() == pytest.approx(raw, rel=1e-12)
    assert out["p_holm"].to_numpy() == pytest.approx(multipletests(raw, method="holm")[1], rel=1e-12)
    assert list(out["verdict"]) == ["SUPPORTED"] * 3  # 3 p1, 2 p2 = 0.03125 and max(0.03125, p2) <= 0.05
    # the second of two claims: Holm's factor 1 after the first's 2 p1
    out = C.evaluate_claims([one, seven], df, None, FACTORS, CFG)
    assert list(out["verdict"]) == ["SUPPORTED"] * 2 and out["p_holm"].iloc[1] == pytest.approx(2 / 2**7)


def test_grad_trend_is_not_contradicted_by_an_uncertain_growing_slope_and_a_flat_level():
    # growing slopes centred near 0.05 with a spread of 0.3 over seeds (the interval spans 0 even at
    # alpha 0.5, yet lies well below 1), flat slopes at 0: INCONCLUSIVE, not CONTRADICTED
    df = study(lambda cell, s: 0.9)
    spread = {s: 0.05 + 0.3 * (-1) ** s for s in range(8)}
    g = grads(df, lambda run: spread[run["seed"]] if run["norm"] == "post" else 0.0, noise=0.001)
    v, row = verdict(GRAD, df, g)
    assert v == "INCONCLUSIVE" and row["p_value"] == 1.0 and row["ci_lo"] < 0 < row["ci_hi"] < 1


def _slope(run_grads):
    return np.polyfit(run_grads["layer"].to_numpy(float), np.log(run_grads["grad_norm"].to_numpy(float)), 1)[0]


def test_grad_trend_cells_show_both_levels_intervals():
    from ablation import stats

    df, g = _grad_study()
    c = dict(GRAD, where={"pos_enc": "none"})
    v, row = verdict(c, df, g)
    slopes = g.groupby("run_id").apply(_slope, include_groups=False)
    sub = df[df["pos_enc"] == "none"].set_index("run_id")
    parts = []
    for level in ("post", "pre"):
        s = slopes[sub.index[sub["norm"] == level]].to_numpy()
        lo, hi, how = stats.mean_ci(s, 0.95, (-np.inf, np.inf), 0.0)
        parts.append((s.mean(), lo, hi, how))
    (gm, glo, ghi, ghow), (fm, flo, fhi, fhow) = parts
    assert v == "SUPPORTED" and (row["ci_lo"], row["ci_hi"]) == pytest.approx((glo, ghi), abs=1e-9)
    assert row["robustness"] == 1.0  # every leave-one-seed-out evaluation reads the gradient table too
    assert row["detail"].endswith(f"(pos_enc=none). mean over 1 cell(s): mean {gm:.4f} [{glo:.4f}, {ghi:.4f}] ({ghow}, 8 seeds); "
                                  f"flat level mean {fm:.4f} [{flo:.4f}, {fhi:.4f}] ({fhow})")  # fmt: skip
    # a diverged run: the verdict without it still reads the gradient table
    div = df.copy()
    div.loc[0, ["status", "test_acc"]] = ["diverged", np.nan]
    assert verdict(c, div, g)[1]["verdict_without_diverged"] == "SUPPORTED"


def test_more_than_eight_cells_are_summarised():
    lrs = [0.1 * (i + 1) for i in range(9)]
    df = study(lambda cell, s: 0.9 + 0.01 * s, seeds=range(3), levels={"pos_enc": ["none"], "norm": ["post"], "lr": lrs})
    c = claim("at_least", threshold=0.5)
    detail = verdict(c, df, factors=[*FACTORS, "lr"])[1]["detail"]
    assert detail.count(" seeds)") == 8 and detail.endswith(" seeds) | ... 1 more cell(s)")
    detail = verdict(c, df[df["lr"] < 0.85], factors=[*FACTORS, "lr"])[1]["detail"]
    assert detail.count(" seeds)") == 8 and detail.endswith(" seeds)") and "more cell" not in detail


def test_cell_labels_name_only_the_factors_that_vary_in_their_order():
    df = study(lambda cell, s: 0.9 + 0.01 * s, seeds=range(3), levels=dict(LEVELS, lr=[0.1, 0.2]))
    row = verdict(claim("at_least", threshold=0.5, where={"pos_enc": "none"}), df, factors=[*FACTORS, "lr"])[1]
    labels = [part.split(": mean")[0] for part in row["detail"].split(". ")[-1].split(" | ")]
    assert labels == ["norm=post, lr=0.1", "norm=post, lr=0.2", "norm=pre, lr=0.1", "norm=pre, lr=0.2"]
    # the same cells in the same order, whatever the order of the rows
    backwards = df.iloc[::-1]
    again = verdict(claim("at_least", threshold=0.5, where={"pos_enc": "none"}), backwards, factors=[*FACTORS, "lr"])[1]
    assert again["detail"] == row["detail"]
    row = verdict(claim("at_least", threshold=0.5, where={"pos_enc": "none", "norm": "pre"}, cells="average"), df,
                  factors=[*FACTORS, "lr"])[1]  # fmt: skip
    assert "mean over 2 cell(s): mean" in row["detail"]
    row = verdict(claim("at_least", threshold=0.5, where={"pos_enc": "none", "norm": "pre", "lr": 0.1},
                        cells="average"), df, factors=[*FACTORS, "lr"])[1]  # fmt: skip
    assert "mean over 1 cell(s): mean" in row["detail"]


def test_the_binding_cell_is_the_lowest_among_cells_with_two_seeds_or_more():
    # norm=post: 3 seeds near 0.8; norm=pre: 2 seeds near 0.9; the lower cell is shown
    df = study(lambda cell, s: (0.8 if cell["norm"] == "post" else 0.9) + (s % 2) / 300, seeds=range(3))
    df = df[~((df["norm"] == "pre") & (df["seed"] == 2))]
    row = verdict(claim("at_least", threshold=0.5, where={"pos_enc": "none"}), df)[1]
    assert row["n"] == 2 and row["estimate"] == pytest.approx(0.8 + 1 / 900, abs=1e-12)


def test_an_interval_clipped_at_the_range_lies_within_a_band_ending_there():
    # four seeds, one a little lower: the t interval reaches past 1 (past 0) and is clipped to it
    where = {"pos_enc": "none", "norm": "post"}
    high = study(lambda cell, s: 1.0 - 0.02 * (s == 3), seeds=range(4))
    v, row = verdict(claim("at_value", where=where, target=0.95, tolerance=0.05), high)
    assert v == "SUPPORTED" and row["ci_hi"] == 1.0
    low = study(lambda cell, s: 0.02 * (s == 3), seeds=range(4))
    v, row = verdict(claim("at_value", where=where, target=0.05, tolerance=0.05), low)
    assert v == "SUPPORTED" and row["ci_lo"] == 0.0


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
        plain = C.evaluate_family([("s", claims, df, g, FACTORS)], CFG, adaptive=adaptive)
        labels = df.assign(index=np.arange(len(df))[::-1], level_0="x")
        extra = C.evaluate_family([("s", claims, labels, g, FACTORS)], CFG, adaptive=adaptive)
        pd.testing.assert_frame_equal(plain, extra)


# --------------------------------------------------------------------------- adaptive studies


def test_an_adaptive_study_takes_the_e_process_p_and_every_seed():
    from ablation import sequential as Q

    gain = study(lambda cell, s: 0.5 + (0.3 + 0.01 * (s % 3) if cell["norm"] == "pre" else 0.0), seeds=range(12))
    c = dict(claim("better", factor="norm", levels=["post", "pre"]), where={"pos_enc": "none"})
    design = {"seeds": [0, 1, 2, 3], "max_seeds": 12, "batch": 2}
    row = C.evaluate_family([("g", [c], gain, None, FACTORS)], CFG, adaptive={"g": design}).iloc[0]
    sub = gain[gain["pos_enc"] == "none"].sort_values("seed")
    d = sub[sub["norm"] == "pre"]["test_acc"].to_numpy() - sub[sub["norm"] == "post"]["test_acc"].to_numpy()
    p_sup, p_con = Q.claim_p(c, [d], CFG["alpha"])
    assert row["n"] == 12 and 0.05 < p_sup < 1 and row["p_value"] == pytest.approx(p_sup, rel=1e-12)
    lo, hi = Q.confidence_sequence(d, Q.PAIRED_BOUNDS, 0.05)
    text = SEQ_TEXT
    assert row["detail"].endswith(
        f"averaged within seed (pos_enc=none); adaptive study: {text}. mean over 1 cell(s): mean {d.mean():.4f}, "
        f"confidence sequence [{lo[-1]:.4f}, {hi[-1]:.4f}] (12 seeds)")  # fmt: skip
    assert row["rule"] == (
        "mean seed difference > 0 -> SUPPORTED, < 0 -> CONTRADICTED (a betting e-process for each direction) "
        f"(every cell must pass; adaptive study: {text}); decisive when the claim's p survives Holm over all claims "
        "of the config at alpha 0.05; else INCONCLUSIVE")  # fmt: skip
    # at_least keeps its interval rule's text
    row = C.evaluate_family([("g", [claim("at_least", threshold=0.5)], gain, None, FACTORS)], CFG,
                            adaptive={"g": design}).iloc[0]  # fmt: skip
    assert row["rule"].startswith("interval lower bound of the mean over seeds >= 0.5 -> SUPPORTED; upper bound < 0.5"
                                  f" -> CONTRADICTED (every cell must pass; adaptive study: {text});")  # fmt: skip


SEQ_TEXT = ("anytime-valid betting confidence sequences over seeds (Waudby-Smith & Ramdas; valid under the adaptive "
            "rounds' stopping rule), p = 2 / largest capital")  # fmt: skip


def test_an_adaptive_study_judges_grad_trend_on_its_first_seeds():
    df, g = _grad_study()
    design = {"seeds": [0, 1, 2, 3], "max_seeds": 8, "batch": 2}
    row = C.evaluate_family([("g", [GRAD], df, g, FACTORS)], CFG, adaptive={"g": design}).iloc[0]
    assert row["verdict"] == "SUPPORTED" and row["n"] == 4 and row["rule"].endswith(
        "none below 2 seeds; adaptive study, no bounded statistic: fixed design on its first 4 seeds); decisive when "
        "the claim's p survives Holm over all claims of the config at alpha 0.05; else INCONCLUSIVE")  # fmt: skip


def test_an_adaptive_studys_verdict_without_diverged_runs_is_the_e_process_one():
    # six seeds far above the threshold: the fixed-design interval supports "at least 0.5", six bets
    # cannot (the e-process's p stays above alpha), with the diverged run and without it
    df = study(lambda cell, s: 0.9 + 0.01 * (s % 2), seeds=range(7))
    df.loc[(df["seed"] == 6), ["status", "test_acc"]] = ["diverged", np.nan]
    c = claim("at_least", threshold=0.5, where={"pos_enc": "none", "norm": "post"})
    design = {"seeds": [0, 1, 2, 3], "max_seeds": 12, "batch": 2}
    fixed = C.evaluate_family([("s", [c], df, None, FACTORS)], CFG).iloc[0]
    adaptive = C.evaluate_family([("s", [c], df, None, FACTORS)], CFG, adaptive={"s": design}).iloc[0]
    assert fixed["verdict_without_diverged"] == "SUPPORTED"
    assert adaptive["verdict_without_diverged"] == adaptive["verdict"] == "INCONCLUSIVE"
    # leaving a seed out keeps the e-process too (the fixed design supports it without any one)
    assert (fixed["verdict"], fixed["robustness"]) == ("SUPPORTED", 1.0) and adaptive["robustness"] == 1.0


def test_an_adaptive_claim_with_a_one_seed_cell_is_inconclusive():
    # "at least 0.8 in every cell": pos_enc=sinusoidal sits at 0.3 over 12 seeds (the e-process
    # contradicts it), pos_enc=none has seeds 0 and 1, and seed 1's run diverged
    df = study(lambda cell, s: 0.9 if cell["pos_enc"] == "none" else 0.3 + 0.01 * (s % 3), seeds=range(12),
               levels={"pos_enc": ["none", "sinusoidal"], "norm": ["post"]})  # fmt: skip
    df = df[(df["pos_enc"] == "sinusoidal") | (df["seed"] < 2)].reset_index(drop=True)
    df.loc[(df["pos_enc"] == "none") & (df["seed"] == 1), ["status", "test_acc"]] = ["diverged", np.nan]
    c = claim("at_least", threshold=0.8)
    design = {"s": {"seeds": [0, 1, 2, 3], "max_seeds": 12, "batch": 2}}
    row = C.evaluate_family([("s", [c], df, None, FACTORS)], CFG, adaptive=design).iloc[0]
    # leaving out seed 0 or 1 (and dropping the diverged run) leaves one seed in pos_enc=none: INCONCLUSIVE
    assert (row["verdict"], row["n"]) == ("CONTRADICTED", 2) and row["p_value"] < 0.001
    assert row["robustness"] == pytest.approx(10 / 12) and row["verdict_without_diverged"] == "INCONCLUSIVE"
    row = C.evaluate_family([("s", [c], df[df["seed"] != 1], None, FACTORS)], CFG, adaptive=design).iloc[0]
    assert (row["verdict"], row["n"]) == ("INCONCLUSIVE", 1) and "1 seed(s); an interval over seeds needs at least 2" in row["detail"]


def test_seed_means_keep_half_a_test_item_and_float_noise_is_no_spread():
    # two runs per seed in each cell (lr is not a factor): odd seeds' means are half a test item up,
    # a spread the interval keeps (a t interval, not all seeds equal)
    df = study(lambda cell, s: 0.9 + (s % 2) / 300 * (cell["lr"] == 0.2), seeds=range(6), levels=dict(LEVELS, lr=[0.1, 0.2]))
    for cells, where in (("every", {"pos_enc": "none"}), ("average", {"pos_enc": "none", "norm": "post"})):
        row = verdict(claim("at_least", threshold=0.5, where=where, cells=cells), df)[1]
        assert row["estimate"] == pytest.approx(0.9 + 1 / 1200, abs=1e-12) and row["detail"].endswith(
            "(skew-corrected t over seeds, 6 seeds)"), cells  # fmt: skip
    # accuracies a billionth apart (float noise, far below a test item of 1/300): the seeds are equal
    noisy = study(lambda cell, s: 0.9, seeds=range(6))
    noisy["test_acc"] += 1e-9 * noisy["seed"]
    row = verdict(claim("at_least", threshold=0.5, where={"pos_enc": "none", "norm": "post"}), noisy)[1]
    assert row["estimate"] == 0.9 and row["detail"].endswith("(Anderson bound (seeds all equal), 6 seeds)")
    # final_train_acc has no known resolution: values 1e-4 apart (a third of a test item) are a spread
    noisy["final_train_acc"] = 0.95 + 1e-4 * noisy["seed"]
    c = claim("at_least", threshold=0.5, where={"pos_enc": "none", "norm": "post"}, metric="final_train_acc")
    row = verdict(c, noisy)[1]
    assert row["estimate"] == pytest.approx(0.95025) and row["detail"].endswith("(skew-corrected t over seeds, 6 seeds)")


def test_grad_trend_on_average_without_any_usable_slope():
    df = study(lambda cell, s: 0.9)
    row = verdict(dict(GRAD, cells="average"), df, grads(df, lambda run: 0.5, depth=1))[1]
    assert (row["verdict"], row["n"]) == ("INCONCLUSIVE", 0) and "32 run(s) without a usable slope" in row["detail"]


def test_select_names_the_claim_and_a_missing_column():
    # evaluate_family checks 'where' against the results first; ablation.adaptive selects directly
    with pytest.raises(ValueError, match=r"^claim 'x': 'where' names column 'warmup', which is not in the results$"):
        C._select(study(lambda cell, s: 0.9), {"pos_enc": "none", "warmup": 0}, "x")


def test_paired_convergence_in_every_cell_takes_tangos_interval():
    # ten concordant seeds in each pos_enc cell (every difference 0): the paired-proportion bound per cell
    df = study(lambda cell, s: 1.0, seeds=range(10))
    c = claim("not_worse", factor="norm", levels=["post", "pre"], metric="converged", margin=0.1)
    row = verdict(c, df)[1]
    assert row["verdict"] == "INCONCLUSIVE" and row["ci_lo"] == pytest.approx(-0.2775, abs=1e-4)
    assert row["detail"].count("(Tango score over seeds (paired 0/1), 10 seeds)") == 2


def test_tied_claims_take_holms_ranks_in_their_order():
    # a claim on one seed (p = 1), then ten copies of one claim: the same p, and Holm ranks ties in the
    # claims' order (a stable sort; numpy's default sort reorders ties of ten): copy k takes factor
    # 11 - k, and its leave-one-seed-out evaluations with it, so the first copies are fragile, the last not
    gains = {s: 0.05 + 0.001 * s if s < 9 else -0.01 for s in range(10)}
    df = study(lambda cell, s: 0.7 + (gains[s] if cell["norm"] == "pre" else 0.0), seeds=range(10))
    one = dict(claim("better", factor="norm", levels=["post", "pre"]), where={"pos_enc": "none"})
    first = dict(one, id="one-seed", where={"pos_enc": "none", "seed": 0})
    out = C.evaluate_claims([first, *(dict(one, id=f"copy{i}") for i in range(10))], df, None, FACTORS, CFG)
    assert out["p_holm"].to_numpy() == pytest.approx([1.0] + [11 / 2**8] * 10)
    assert list(out["verdict"]) == ["INCONCLUSIVE"] + ["SUPPORTED"] * 10
    assert list(out["robustness"][1:]) == [0.1] * 5 + [1.0] * 5


def test_the_verdict_without_diverged_runs_takes_the_same_seed():
    # 20 seeds (the sign-flip test samples its permutations from the seed); a run outside the claim's
    # selection diverged: the verdict without it rests on the same data and the same draws
    rng = np.random.default_rng(5)
    gains = rng.normal(0.004, 0.01, 20)
    df = study(lambda cell, s: 0.7 + (gains[s] if cell["norm"] == "pre" else 0.0), seeds=range(20))
    df.loc[df["pos_enc"] == "sinusoidal", "status"] = "diverged"
    c = dict(claim("better", factor="norm", levels=["post", "pre"]), where={"pos_enc": "none"})
    for seed in (0, 1):
        row = C.evaluate_claims([c], df, None, FACTORS, CFG, seed=seed).iloc[0]
        assert row["verdict_without_diverged"] == row["verdict"] and "sign-flip permutation" in row["detail"]


def test_an_infinite_flat_margin_bounds_nothing():
    # every flat-level run has the same norms: equal slopes, whose interval (Anderson's, on an unbounded
    # range) is infinite and shown as nan; a flat_margin of infinity still contains it
    df, g = _grad_study()
    flat = g["run_id"].isin(df.loc[df["norm"] == "pre", "run_id"])
    g.loc[flat, "grad_norm"] = np.exp(-2.0)
    v, row = verdict(dict(GRAD, flat_margin=float("inf")), df, g)
    assert v == "SUPPORTED" and "flat level mean 0.0000 [nan, nan] (Anderson bound (seeds all equal))" in row["detail"]
    assert verdict(GRAD, df, g)[0] == "INCONCLUSIVE"  # a finite margin does not contain an infinite interval
