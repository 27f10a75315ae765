"""ablation.stats: the tables of one study (cells, stability, paired comparisons, main effects and marginal
means) on synthetic study summaries, each against its definition (real computations, no mocks)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from ablation import intervals, measures, settings, significance, stats, variance

CFG = {"confidence": 0.95, "n_resamples": 999, "converged_threshold": 0.95, "alpha": 0.05}


def make_summary(levels: dict, seeds, acc_fn, n_test=150, diverged=None) -> pd.DataFrame:
    """One row per (cell, seed); test_acc = acc_fn(cell dict, seed) rounded to the test grid.

    ``diverged``: set of (cell tuple, seed) marked diverged with NaN accuracies."""
    diverged = diverged or set()
    rows = []
    names = list(levels)
    for combo in itertools.product(*levels.values()):
        cell = dict(zip(names, combo))
        for s in seeds:
            total = 2 * n_test
            div = (combo, s) in diverged
            acc = float(np.clip(acc_fn(cell, s), 0, 1))
            correct = round(acc * total)
            rows.append(dict(
                study="t", run_id=f"r{len(rows):05d}", seed=s, **cell, status="diverged" if div else "ok",
                epochs_run=300, final_train_acc=np.nan if div else min(1.0, acc + 0.03),
                test_correct=np.nan if div else correct, test_total=total,
                test_acc=np.nan if div else correct / total, n_test=n_test,
            ))  # fmt: skip
    return pd.DataFrame(rows)


def big_summary(n_cells_levels=(10, 10, 5, 4), n_seeds=5, seed=0) -> pd.DataFrame:
    """A vectorised synthetic study of prod(levels) * n_seeds runs (10,000 by default)."""
    rng = np.random.default_rng(seed)
    names = ["a", "b", "c", "d"]
    grid = np.array(list(itertools.product(*[range(k) for k in n_cells_levels])))
    cells = np.repeat(grid, n_seeds, axis=0)
    seeds = np.tile(np.arange(n_seeds), len(grid))
    p = np.clip(0.6 + 0.03 * cells[:, 0] + rng.normal(0, 0.03, len(cells)), 0, 1)
    correct = rng.binomial(300, p)
    frame = pd.DataFrame(cells, columns=names)
    frame.insert(0, "seed", seeds)
    frame["run_id"] = [f"r{i}" for i in range(len(frame))]
    frame["status"] = np.where(rng.random(len(frame)) < 0.01, "diverged", "ok")
    frame["final_train_acc"] = np.clip(p + 0.05, 0, 1)
    frame["test_correct"] = correct.astype(float)
    frame["test_total"] = 300
    frame["test_acc"] = correct / 300
    frame.loc[frame["status"] == "diverged", ["test_acc", "test_correct", "final_train_acc"]] = np.nan
    frame["n_test"] = 150
    return frame


# --------------------------------------------------------------------------- helpers


# --------------------------------------------------------------------------- cell table


def test_cell_table_degenerate_cell_and_diverged_run():
    levels = {"pos_enc": ["none", "sinusoidal"], "heads": [1, 4]}

    def acc(cell, s):
        return 1.0 if cell["pos_enc"] == "sinusoidal" else 0.5 + 0.01 * s

    df = make_summary(levels, range(5), acc, diverged={(("none", 4), 2)})
    cells = stats.cell_table(df, ["pos_enc", "heads"], CFG)
    assert list(cells.columns[:2]) == ["pos_enc", "heads"] and len(cells) == 4
    perfect = cells[cells["pos_enc"] == "sinusoidal"]
    assert (perfect[["boot_lo", "boot_hi", "mean", "testset_hi", "ci_hi"]] == 1.0).all().all()
    assert (perfect["boot_method"] == "constant").all()
    # five perfect seeds do not pin the mean over seeds to 1 (a 6 % rate of failed seeds leaves all
    # five perfect 73 % of the time); only the test-set-sampling interval is that narrow
    assert (perfect["ci_method"] == "Clopper-Pearson over seeds").all()
    assert perfect["ci_lo"].to_numpy() == pytest.approx(0.025 ** (1 / 5))
    assert perfect["testset_lo"].between(0.99, 1.0).all()
    row = cells[(cells["pos_enc"] == "none") & (cells["heads"] == 4)].iloc[0]
    assert (row["n"], row["n_ok"], row["n_diverged"], row["n_imputed"]) == (5, 4, 1, 1)
    # the diverged run counts as chance (0.5), not as missing
    assert row["mean"] == pytest.approx(np.mean([0.5, 0.51, 0.5, 0.53, 0.54]), abs=1e-3)
    assert row["pooled_total"] == 1500 and row["pooled_correct"] == 150 + 153 + 150 + 159 + 162
    assert row["converged_frac"] == 0.0


def test_every_interval_stays_in_unit_interval_and_is_finite():
    rng = np.random.default_rng(3)
    levels = {"f": ["a", "b", "c"], "g": [1, 2]}
    df = make_summary(levels, range(4), lambda c, s: rng.choice([0.0, 1.0, rng.uniform()]),
                      diverged={(("a", 1), 0), (("c", 2), 3)})  # fmt: skip
    single = df.iloc[[0]].assign(f="z")  # a one-run cell
    df = pd.concat([df, single], ignore_index=True)
    cells = stats.cell_table(df, ["f", "g"], CFG)
    for lo, hi in [("boot_lo", "boot_hi"), ("testset_lo", "testset_hi")]:
        assert cells[[lo, hi]].notna().all().all()
        assert (cells[lo] >= 0).all() and (cells[hi] <= 1).all() and (cells[lo] <= cells[hi]).all()
    stab = stats.stability_table(df, ["f", "g"], CFG)
    for c in ["conv_lo", "conv_hi", "div_lo", "div_hi"]:
        assert stab[c].between(0, 1).all()
    ci = cells[cells["n"] >= 2]
    assert (ci["ci_lo"] >= 0).all() and (ci["ci_hi"] <= 1).all() and (ci["ci_lo"] <= ci["ci_hi"]).all()
    assert cells.loc[cells["n"] == 1, "ci_method"].eq("n < 2").all()
    marg = stats.marginal_means(df, ["f", "g"], CFG)
    ci = marg[marg["n_seeds"] >= 2]
    assert ci[["ci_lo", "ci_hi"]].stack().between(0, 1).all()


def test_no_factors_gives_one_row_and_results_are_deterministic():
    df = make_summary({"x": [1]}, range(6), lambda c, s: 0.8 + 0.02 * s)
    a = stats.cell_table(df, [], CFG, seed=0)
    assert len(a) == 1 and a["n"].iloc[0] == 6
    pd.testing.assert_frame_equal(a, stats.cell_table(df, [], CFG, seed=0))
    assert not a[["boot_lo", "boot_hi"]].equals(stats.cell_table(df, [], CFG, seed=1)[["boot_lo", "boot_hi"]])


# --------------------------------------------------------------------------- paired comparisons


def _paired_study():
    rng = np.random.default_rng(7)
    levels = {"norm": ["post", "pre"], "heads": [1, 2, 4], "pos_enc": ["none", "sinusoidal"]}
    seed_effect = {s: 0.08 * s for s in range(5)}  # large: mis-paired runs would not cancel it
    noise = {(n, h, p, s): rng.normal(0, 0.002) for n in levels["norm"] for h in levels["heads"]
             for p in levels["pos_enc"] for s in range(5)}  # fmt: skip

    def acc(c, s):
        return (0.55 + seed_effect[s] + (0.04 if c["norm"] == "pre" else 0.0) + 0.01 * c["heads"]
                + noise[(c["norm"], c["heads"], c["pos_enc"], s)])  # fmt: skip

    return make_summary(levels, range(5), acc, n_test=5000)


def test_pairing_matches_on_seed_and_other_factors():
    df = _paired_study()
    factors = ["norm", "heads", "pos_enc"]
    out = stats.paired_comparisons(df, factors, CFG)
    assert list(out.columns) == stats.PAIRED_COLUMNS
    norm = out[out["factor"] == "norm"].iloc[0]
    assert (norm["level_a"], norm["level_b"], norm["n_pairs"]) == ("post", "pre", 30)
    assert norm["mean_diff"] == pytest.approx(0.04, abs=0.002)
    # matched differences only carry the small noise, not the 0.08-per-seed effect
    assert norm["ci_hi"] - norm["ci_lo"] < 0.005
    # five seeds are five units, however many cells: the sign-flip test cannot go below 2 / 2**5
    assert norm["n_seeds"] == 5 and norm["effect_size"] > 5 and not norm["significant"]
    assert norm["min_p"] == 0.0625 and "unreachable" in norm["note"] and np.isnan(norm["mde"])
    heads = out[out["factor"] == "heads"]
    assert [(a, b) for a, b in zip(heads["level_a"], heads["level_b"])] == [(1, 2), (1, 4), (2, 4)]
    assert heads["mean_diff"].to_numpy() == pytest.approx([0.01, 0.03, 0.02], abs=0.002)
    # same answer whatever the row order
    shuffled = df.sample(frac=1.0, random_state=3).reset_index(drop=True)
    pd.testing.assert_frame_equal(out, stats.paired_comparisons(shuffled, factors, CFG))
    # the same pairs through the public helper
    pairs, unmatched = stats.pair_runs(shuffled, "norm", "post", "pre", factors)
    assert unmatched == 0 and len(pairs) == 30
    assert set(pairs.columns) == {"seed", "heads", "pos_enc", "value_a", "value_b", "diff"}
    assert (pairs["diff"].abs() < 0.05).all()


def test_pairing_notes_unmatched_runs_and_design_limit():
    df = make_summary({"norm": ["post", "pre"]}, range(5), lambda c, s: 0.7 + 0.05 * (c["norm"] == "pre") + 0.01 * s)
    df = df[~((df["norm"] == "pre") & (df["seed"] == 4))]  # seed 4 has no partner
    out = stats.paired_comparisons(df, ["norm"], CFG).iloc[0]
    assert out["n_pairs"] == 4 and out["n_seeds"] == 4 and out["min_p"] == 0.125
    assert "unreachable: min p 0.125 > alpha 0.05 with 4 seeds" in out["note"]
    assert "1 runs without a partner" in out["note"]
    assert not out["significant"]
    five = stats.paired_comparisons(make_summary({"norm": ["post", "pre"]}, range(5),
                                             lambda c, s: 0.7 + (0.01 * s + 0.01) * (c["norm"] == "pre")),
                                ["norm"], CFG).iloc[0]  # fmt: skip
    assert five["test"] == "sign-flip exact" and five["min_p"] == 0.0625 and five["p_value"] == pytest.approx(0.0625)


def test_a_paired_comparison_counts_the_seeds_that_move_each_way_and_the_share_that_moves_with_the_majority():
    # pre - post per seed, in steps of the test grid (1/300): a difference of one step moves, 0 is a tie
    steps = [2, 1, 0, -1, 3, 0, 1]
    df = make_summary({"norm": ["post", "pre"]}, range(7), lambda c, s: 0.7 + steps[s] / 300 * (c["norm"] == "pre"))
    out = stats.paired_comparisons(df, ["norm"], {**CFG, "confidence": 0.9}).iloc[0]
    assert (out["n_up"], out["n_down"]) == (4, 1)
    ci = sps.binomtest(4, 5).proportion_ci(0.9, method="exact")
    assert (out["share_lo"], out["share_hi"]) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert (out["seed_min"], out["seed_max"]) == pytest.approx((-1 / 300, 3 / 300), abs=1e-12)
    down = stats.paired_comparisons(df.assign(norm=df["norm"].map({"post": "pre", "pre": "post"})), ["norm"], CFG)
    assert tuple(down.iloc[0][["n_up", "n_down"]]) == (1, 4)


# --------------------------------------------------------------------------- stability, main effects


def test_stability_counts_and_clopper_pearson():
    levels = {"norm": ["post", "pre"]}
    df = make_summary(levels, range(10), lambda c, s: 0.99 if (c["norm"] == "pre" or s < 4) else 0.6,
                      diverged={(("post",), 9)})  # fmt: skip
    st = stats.stability_table(df, ["norm"], CFG).set_index("norm")
    assert list(st.columns) == stats.STABILITY_COLUMNS
    assert (st.loc["pre", "converged"], st.loc["post", "converged"], st.loc["post", "diverged"]) == (10, 4, 1)
    ref = sps.binomtest(4, 10).proportion_ci(0.95, method="exact")
    assert (st.loc["post", "conv_lo"], st.loc["post", "conv_hi"]) == pytest.approx((ref.low, ref.high), abs=1e-8)
    assert st.loc["pre", "conv_hi"] == 1.0 and st.loc["pre", "div_lo"] == 0.0


def test_main_effects_rank_the_big_factor_first():
    rng = np.random.default_rng(5)
    levels = {"small": [0, 1], "none": ["x", "y", "z"], "big": ["off", "on"]}
    df = make_summary(levels, range(5),
                      lambda c, s: 0.6 + 0.3 * (c["big"] == "on") + 0.02 * c["small"]
                      + rng.normal(0, 0.01))  # fmt: skip
    me = stats.main_effects(df, list(levels), CFG)
    assert list(me.columns) == stats.MAIN_EFFECT_COLUMNS
    assert list(me["factor"]) == ["big", "small", "none"] and list(me["rank"]) == [1, 2, 3]
    big = me.iloc[0]
    assert big["eta_sq"] > 0.9 and big["best_level"] == "on"
    assert big["spread_lo"] <= 0.3 <= big["spread_hi"] and big["spread"] == pytest.approx(0.3, abs=0.01)
    assert me["eta_sq"].sum() <= 1.0
    marg = stats.marginal_means(df, list(levels), CFG)
    assert len(marg) == 7 and set(marg["factor"]) == set(levels)


def test_ten_thousand_runs_give_every_table():
    # how long this takes is measured by the benchmark harness, not asserted here
    df = big_summary()
    assert len(df) == 10_000
    factors = ["a", "b", "c", "d"]
    cfg = dict(CFG, n_resamples=9999)
    cells = stats.cell_table(df, factors, cfg)
    stab = stats.stability_table(df, factors, cfg)
    me = stats.main_effects(df, factors, cfg)
    assert len(cells) == 2000 and len(stab) == 2000 and me["factor"].iloc[0] == "a"
    assert cells[["boot_lo", "boot_hi", "ci_lo", "ci_hi"]].notna().all().all()


def test_paired_zero_one_differences_get_tango():
    # ten seeds, each converged at both levels: the difference is 0 at every seed, and the
    # interval is Tango's [-0.278, 0.278], not [0, 0] (and not Anderson's [-0.41, 0.41] for a
    # continuous difference)
    lo, hi, how = intervals.mean_ci(np.zeros(10), bounds=(-1.0, 1.0), step=1.0)
    assert how == "Tango score over seeds (paired 0/1)" and (lo, hi) == pytest.approx((-0.2775, 0.2775), abs=1e-4)
    lo, hi, how = intervals.mean_ci([1, 0, 0, -1, 1, 1, 0, 0], bounds=(-1.0, 1.0), step=1.0)
    assert how == "Tango score over seeds (paired 0/1)" and (lo, hi) == pytest.approx([float(v) for v in intervals.tango_ci(3, 1, 8)], abs=1e-12)
    # the same values at an accuracy's resolution are a continuous difference: Anderson / t
    assert intervals.mean_ci(np.zeros(10), bounds=(-1.0, 1.0), step=1 / 300)[2] == "Anderson bound (seeds all equal)"


# --------------------------------------------------------------------------- every argument pinned
# The tests below recompute each table from its definition (the module docstring), one step at a
# time with explicit arguments, on designs that reach every branch: unmatched levels, one seed,
# more than EXACT_SIGN_FLIP_MAX_N seeds, several runs per seed, settings other than the defaults.

ODD_CFG = {"confidence": 0.9, "n_resamples": 300, "converged_threshold": 0.9, "alpha": 0.1, "bootstrap_max_n": 1000}


def _oracle_paired(summary, factors, cfg, seed=0):
    """paired_comparisons by its definition, with pandas."""
    acc = measures.run_accuracy(summary)[0]
    step = 1 / summary["test_total"].max()
    rows = []
    for f in factors:
        others = ["seed"] + [g for g in factors if g != f]
        for a, b in stats.level_pairs(settings.sorted_levels(summary[f])):
            left = summary.assign(v=acc)[summary[f] == a][others + ["v"]]
            right = summary.assign(v=acc)[summary[f] == b][others + ["v"]]
            m = left.merge(right, on=others, suffixes=("_a", "_b"))
            per_seed = (m["v_b"] - m["v_a"]).groupby(m["seed"]).agg(["mean", "size"])
            dstep = step / per_seed["size"].max() if len(per_seed) else 0.0
            d = np.round(per_seed["mean"].to_numpy() / dstep) * dstep if len(per_seed) else np.array([])
            lo, hi, how = intervals.mean_ci(d, cfg["confidence"], (-1.0, 1.0), dstep)
            p, nz, test = significance.sign_flip_test(d, dstep, cfg["n_resamples"], seed) if len(d) else (np.nan, 0, "none")
            rows.append(dict(factor=f, level_a=a, level_b=b, n_pairs=len(m), n_seeds=len(d), ci_lo=lo, ci_hi=hi,
                             ci_method=how, p_value=p, test=test, unmatched=len(left) + len(right) - 2 * len(m),
                             mean_diff=d.mean() if len(d) else np.nan, effect=significance.cohen_dz(d),
                             min_p=significance.reachable_p(nz) if len(d) else np.nan,
                             sd=d.std(ddof=1) if len(d) >= 2 else np.nan))  # fmt: skip
    return pd.DataFrame(rows)


def _odd_design():
    """norm x heads x seeds 0..19; heads=8 only at seeds 0..2 (few pairs), heads=3 only with seed 0
    at norm=post (one seed), a seed with two runs in one cell is avoided; diverged runs at chance."""
    rng = np.random.default_rng(11)
    rows = []
    for norm in ("post", "pre"):
        for heads in (1, 2, 3, 4, 8):
            for s in range(20):
                if heads == 8 and s > 2 or heads == 3 and s > 0:
                    continue
                p = 0.6 + 0.05 * (norm == "pre") + 0.01 * heads + 0.003 * s + rng.normal(0, 0.01)
                k = int(round(min(1, p) * 300))
                rows.append(dict(seed=s, norm=norm, heads=heads, status="ok", test_correct=k, test_total=300,
                                 test_acc=k / 300, final_train_acc=min(1.0, p + 0.3), n_test=150))  # fmt: skip
    df = pd.DataFrame(rows)
    df.loc[3, ["status", "test_acc", "test_correct"]] = ["diverged", np.nan, np.nan]
    return df


@pytest.mark.parametrize("cfg", [CFG, ODD_CFG], ids=["default", "odd"])
def test_paired_comparisons_follow_their_definition(cfg):
    df = _odd_design()
    out = stats.paired_comparisons(df, ["norm", "heads"], cfg, seed=5)
    ref = _oracle_paired(df, ["norm", "heads"], measures.resolve_cfg(cfg), seed=5)
    assert list(out.columns) == stats.PAIRED_COLUMNS and len(out) == len(ref) == 1 + 4  # heads: 5 levels, neighbours
    assert list(zip(out["level_a"], out["level_b"])) == list(zip(ref["level_a"], ref["level_b"]))
    for col in ("n_pairs", "n_seeds", "test"):
        assert list(out[col]) == list(ref[col]), col
    for col, rcol in (("mean_diff", "mean_diff"), ("ci_lo", "ci_lo"), ("ci_hi", "ci_hi"), ("p_value", "p_value"),
                      ("effect_size", "effect"), ("min_p", "min_p")):  # fmt: skip
        np.testing.assert_allclose(out[col].astype(float), ref[rcol].astype(float), rtol=1e-12, atol=1e-15, err_msg=col)
    assert list(out["ci_method"]) == list(ref["ci_method"])
    assert (out["test"] == "sign-flip permutation").sum() >= 1  # 20 seeds: the random-sign branch
    p_holm = significance.holm(ref["p_value"])
    np.testing.assert_allclose(out["p_holm"], p_holm, rtol=1e-12)
    assert list(out["significant"]) == list(p_holm < measures.resolve_cfg(cfg)["alpha"])
    alpha = measures.resolve_cfg(cfg)["alpha"]
    strictest = alpha / len(ref)
    for r, o in zip(ref.itertuples(), out.itertuples()):
        note = []
        if r.n_seeds < 2:
            note.append("one seed: no interval")
        if r.min_p > alpha:
            note.append(f"unreachable: min p {r.min_p:.4g} > alpha {alpha:g} with {r.n_seeds} seeds")
            assert np.isnan(o.mde)
        else:
            assert o.mde == pytest.approx(significance.mde(r.sd, r.n_seeds, strictest), rel=1e-12)
        if r.unmatched:
            note.append(f"{r.unmatched} runs without a partner")
        assert o.note == "; ".join(note)
    one = out[(out["level_a"] == 2) & (out["level_b"] == 3)].iloc[0]
    assert one["n_seeds"] == 1 and one["note"].startswith("one seed: no interval; unreachable: min p 1 > alpha")


def test_paired_comparisons_without_matched_pairs_and_without_runs():
    df = make_summary({"norm": ["post", "pre"]}, range(3), lambda c, s: 0.7 + 0.01 * s)
    df.loc[df["norm"] == "pre", "seed"] += 10  # no seed in common
    row = stats.paired_comparisons(df, ["norm"], CFG).iloc[0]
    assert (row["n_pairs"], row["n_seeds"], row["test"]) == (0, 0, "none")
    assert np.isnan(row["mean_diff"]) and np.isnan(row["p_value"]) and np.isnan(row["min_p"]) and np.isnan(row["p_holm"])
    assert np.isnan(row["ci_lo"]) and row["ci_method"] == "n < 2" and not row["significant"] and np.isnan(row["mde"])
    assert row["note"] == "no matched pairs; 6 runs without a partner"
    empty = stats.paired_comparisons(df.iloc[:0], ["norm"], CFG)
    assert list(empty.columns) == stats.PAIRED_COLUMNS and empty.empty
    assert list(stats.paired_comparisons(df, [], CFG).columns) == stats.PAIRED_COLUMNS


def test_significant_is_strictly_below_alpha_and_mde_uses_the_strictest_holm_level():
    # seven seeds all positive, one comparison: p = 2 / 2**7 = 0.015625; alpha at exactly that p
    df = make_summary({"norm": ["post", "pre"]}, range(7), lambda c, s: 0.7 + (0.01 + 0.002 * s) * (c["norm"] == "pre"))
    at = stats.paired_comparisons(df, ["norm"], dict(CFG, alpha=2 / 2**7)).iloc[0]
    assert at["p_holm"] == 2 / 2**7 and not at["significant"]
    above = stats.paired_comparisons(df, ["norm"], dict(CFG, alpha=0.02)).iloc[0]
    assert above["significant"] and above["note"] == ""
    d = df[df["norm"] == "pre"]["test_acc"].to_numpy() - df[df["norm"] == "post"]["test_acc"].to_numpy()
    sd = np.std(d, ddof=1)
    assert above["mde"] == pytest.approx(significance.mde(sd, 7, 0.02), rel=1e-3)
    # min p exactly alpha: reachable (the note fires only above alpha)
    five = make_summary({"norm": ["post", "pre"]}, range(5), lambda c, s: 0.7 + (0.01 + 0.002 * s) * (c["norm"] == "pre"))
    row = stats.paired_comparisons(five, ["norm"], dict(CFG, alpha=0.0625)).iloc[0]
    assert row["min_p"] == 0.0625 and "unreachable" not in row["note"] and np.isfinite(row["mde"])


def test_small_helpers_at_their_edges():
    assert list(significance.holm([0.03])) == [0.03] and np.isnan(significance.holm([np.nan])).all()
    assert significance.holm([]).shape == (0,)
    # mde: n = 2 is enough; sd NaN or n < 2 gives NaN
    assert significance.mde(0.1, 2, 0.05) == pytest.approx((sps.t.ppf(0.975, 1) + sps.t.ppf(0.8, 1)) * 0.1 / np.sqrt(2))
    assert significance.mde(0.1, 3, 0.01, power=0.9) == pytest.approx((sps.t.ppf(0.995, 2) + sps.t.ppf(0.9, 2)) * 0.1 / np.sqrt(3))
    assert np.isnan(significance.mde(np.nan, 5)) and np.isnan(significance.mde(0.1, 1))
    # Cohen's d_z
    assert significance.cohen_dz([0.1, 0.3]) == pytest.approx(0.2 / np.std([0.1, 0.3], ddof=1))
    assert significance.cohen_dz([0.0, 0.0, 0.0]) == 0.0 and np.isnan(significance.cohen_dz([0.5, 0.5, 0.5]))
    assert np.isnan(significance.cohen_dz([0.2])) and np.isnan(significance.cohen_dz([]))
    assert significance.cohen_dz([1, 2, 3]) == pytest.approx(2.0)
    # level pairs: up to 4 levels every pair; 5 numeric levels: neighbours; text or bool: every pair
    assert stats.level_pairs([1, 2, 3, 4]) == list(itertools.combinations([1, 2, 3, 4], 2))
    assert stats.level_pairs([1, 2, 3, 4, 5]) == [(1, 2), (2, 3), (3, 4), (4, 5)]
    assert stats.level_pairs([1.0, 2, np.int64(3), np.float64(4), 5]) == [(1.0, 2), (2, 3), (3, 4.0), (4.0, 5)]
    assert len(stats.level_pairs(list("abcde"))) == 10 and len(stats.level_pairs([True, False, 1, 2, 3])) == 10
    assert significance.seeds_to_reach(0.5) == 2 and significance.seeds_to_reach(0.05) == 6 and significance.seeds_to_reach(1.0) == 1
    assert significance.reachable_p(1) == 1.0 and significance.reachable_p(3) == 0.25


def _oracle_main_effects(summary, factors, cfg, seed):
    """main_effects and marginal_means by their definitions (one resampling batch: small designs)."""
    acc = measures.run_accuracy(summary)[0]
    cells = summary.groupby(factors, sort=True).ngroup().to_numpy()
    n_cells = cells.max() + 1
    seed_ids, seed_code = np.unique(summary["seed"].to_numpy(), return_inverse=True)
    n_seeds, B = len(seed_ids), cfg["n_resamples"]
    rng = np.random.default_rng([seed, n_seeds, 1])
    picks = rng.integers(0, n_seeds, (B, n_seeds))
    weights = np.zeros((B, n_seeds))
    for b in range(B):
        np.add.at(weights[b], picks[b], 1.0)
    total, count = np.zeros((n_cells, n_seeds)), np.zeros((n_cells, n_seeds))
    np.add.at(total, (cells, seed_code), acc)
    np.add.at(count, (cells, seed_code), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        cell_means = (total @ weights.T) / (count @ weights.T)
    grand = acc.mean()
    ss_total = ((acc - grand) ** 2).sum()
    keys = summary.groupby(factors, sort=True).size().reset_index()
    rows, marg = {}, []
    a = (1 - cfg["confidence"]) / 2
    step = 1 / summary["test_total"].max() / n_cells
    for f in factors:
        levels = settings.sorted_levels(summary[f])
        means = np.array([acc[summary[f] == lev].mean() for lev in levels])
        ns = np.array([(summary[f] == lev).sum() for lev in levels])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            boot = np.array([np.nanmean(cell_means[(keys[f] == lev).to_numpy()], axis=0) for lev in levels])
        spread = np.nanmax(boot, axis=0) - np.nanmin(boot, axis=0)
        rows[f] = dict(eta_sq=(ns * (means - grand) ** 2).sum() / ss_total, spread=means.max() - means.min(),
                       spread_lo=max(0.0, np.nanquantile(spread, a)), spread_hi=np.nanquantile(spread, 1 - a),
                       n_levels=len(levels), best=levels[int(np.argmax(means))], worst=levels[int(np.argmin(means))])  # fmt: skip
        for lev, m, n in zip(levels, means, ns):
            sel = (summary[f] == lev).to_numpy()
            by_seed = pd.Series(acc[sel]).groupby(summary["seed"].to_numpy()[sel]).mean().to_numpy()
            lo, hi, how = intervals.mean_ci(np.round(by_seed / step) * step, cfg["confidence"], (0.0, 1.0), step)
            marg.append(dict(factor=f, level=lev, n=n, n_seeds=len(by_seed), mean=m, ci_lo=lo, ci_hi=hi, ci_method=how))
    return rows, pd.DataFrame(marg)


@pytest.mark.parametrize("cfg", [dict(CFG, n_resamples=400), ODD_CFG], ids=["default", "odd"])
def test_main_effects_and_marginal_means_follow_their_definition(cfg):
    rng = np.random.default_rng(2)
    levels = {"big": ["off", "on"], "three": [1, 2, 3]}
    df = make_summary(levels, range(6), lambda c, s: 0.6 + 0.2 * (c["big"] == "on") + 0.02 * c["three"] + 0.01 * s
                      + rng.normal(0, 0.01))  # fmt: skip
    df = df[~((df["big"] == "on") & (df["three"] == 3) & (df["seed"] == 5))].reset_index(drop=True)  # unbalanced
    ref, ref_marg = _oracle_main_effects(df, list(levels), measures.resolve_cfg(cfg), seed=3)
    me = stats.main_effects(df, list(levels), cfg, seed=3)
    assert list(me.columns) == stats.MAIN_EFFECT_COLUMNS and list(me["factor"]) == ["big", "three"]
    assert list(me["rank"]) == [1, 2]
    for row in me.itertuples():
        r = ref[row.factor]
        assert (row.eta_sq, row.spread) == pytest.approx((r["eta_sq"], r["spread"]), rel=1e-12)
        assert (row.spread_lo, row.spread_hi) == pytest.approx((r["spread_lo"], r["spread_hi"]), rel=1e-12)
        assert (row.n_levels, row.best_level, row.worst_level) == (r["n_levels"], r["best"], r["worst"])
    assert me.iloc[1]["marginal_means"] == "; ".join(f"{lev}={m:.4f}" for lev, m in zip(ref_marg["level"][2:], ref_marg["mean"][2:]))
    marg = stats.marginal_means(df, list(levels), cfg, seed=3)
    assert list(marg.columns) == stats.MARGINAL_COLUMNS
    pd.testing.assert_frame_equal(marg.reset_index(drop=True), ref_marg[stats.MARGINAL_COLUMNS], check_dtype=False)
    # ranked by eta_sq, ties in the order of the factors
    flat = make_summary({"x": ["a", "b"], "y": ["c", "d"]}, range(3), lambda c, s: 0.7 + 0.01 * s)
    assert list(stats.main_effects(flat, ["y", "x"], CFG)["factor"]) == ["y", "x"]
    assert (stats.main_effects(flat, ["y", "x"], CFG)["eta_sq"] == 0).all()
    assert list(stats.main_effects(flat, [], CFG).columns) == stats.MAIN_EFFECT_COLUMNS
    missing = flat.astype({"x": object})
    missing.loc[0, "x"] = None
    with pytest.raises(ValueError, match="factor 'x' has missing values"):
        stats.main_effects(missing, ["x"], CFG)


def test_stability_table_follows_its_definition():
    df = _odd_design().sample(frac=1.0, random_state=4).reset_index(drop=True)  # cells in no particular order
    for cfg in (CFG, ODD_CFG):
        out = stats.stability_table(df, ["norm", "heads"], cfg)
        assert list(out.columns) == ["norm", "heads"] + stats.STABILITY_COLUMNS
        conv = measures.converged_mask(df, cfg["converged_threshold"])
        div = measures.is_diverged(df)
        for row in out.itertuples():
            sel = ((df["norm"] == row.norm) & (df["heads"] == row.heads)).to_numpy()
            n, k, j = int(sel.sum()), int(conv[sel].sum()), int(div[sel].sum())
            assert (row.n, row.converged, row.diverged) == (n, k, j)
            assert (row.conv_frac, row.div_frac) == (k / n, j / n)
            assert (row.conv_lo, row.conv_hi) == pytest.approx([float(v) for v in intervals.clopper_pearson_ci(k, n, cfg["confidence"])])
            assert (row.div_lo, row.div_hi) == pytest.approx([float(v) for v in intervals.clopper_pearson_ci(j, n, cfg["confidence"])])
        assert out["n"].dtype.kind == "i" and out["converged"].dtype.kind == "i"
    assert out["diverged"].sum() == 1 and out["converged"].sum() < len(df)


def test_pairing_refuses_duplicates_and_pairs_given_values():
    df = make_summary({"norm": ["post", "pre"], "heads": [1, 2]}, range(3), lambda c, s: 0.6 + 0.1 * (c["norm"] == "pre"))
    with pytest.raises(ValueError, match=r"^6 runs at norm='post' share seed and every other factor value; cannot pair "
                       r"them \(is a varying setting missing from the factors\?\)$"):  # fmt: skip
        stats.pair_runs(df, "norm", "post", "pre", ["norm"])
    pairs, unmatched = stats.pair_runs(df, "norm", "post", "pre", ["norm", "heads"])
    assert list(pairs["seed"]) == [0, 0, 1, 1, 2, 2] and list(pairs["heads"]) == [1, 2] * 3 and unmatched == 0
    assert pairs["diff"].to_numpy() == pytest.approx(np.full(6, 0.1)) and pairs["value_a"].dtype == float
    given, _ = stats.pair_runs(df, "norm", "post", "pre", ["norm", "heads"], values=np.arange(len(df)))
    assert list(given["diff"]) == [6.0] * 6 and given["value_b"].dtype == float
    with pytest.raises(ValueError, match="'seed' is never a factor"):
        stats.pair_runs(df, "norm", "post", "pre", ["norm", "seed"])
    with pytest.raises(ValueError, match="factor column\\(s\\) not in summary: depth, width"):
        stats.paired_comparisons(df, ["depth", "width"], CFG)
    assert significance.seeds_to_reach(0.0625) == 5 and significance.seeds_to_reach(0.06) == 6


def _pairs_by_merge(summary, values, factor, level_a, level_b, factors):
    """The pairing written out with pandas' merge: each level's runs, refused on a shared key, joined
    on seed and every other factor, sorted by those keys."""
    keys = ["seed"] + [f for f in factors if f != factor]
    sides = []
    for level in (level_a, level_b):
        sel = summary[factor].to_numpy() == level
        part = summary.loc[sel, keys].reset_index(drop=True)
        part["__value__"] = values[sel]
        dup = part.duplicated(keys, keep=False)
        if dup.any():
            return f"{int(dup.sum())} runs at {factor}={level!r} share seed"
        sides.append(part)
    merged = sides[0].merge(sides[1], on=keys, how="inner", suffixes=("__a", "__b"))
    merged = merged.sort_values(keys, kind="stable").reset_index(drop=True)
    a, b = merged.pop("__value____a").to_numpy(dtype=float), merged.pop("__value____b").to_numpy(dtype=float)
    return merged, a, b, len(sides[0]) + len(sides[1]) - 2 * len(merged)


@pytest.mark.parametrize("kind", ["int", "str", "float with NaN", "bool", "category"])
def test_pairing_is_a_merge_on_the_keys(kind):
    # random summaries with partners missing, keys shared within a level, NaN keys, a shuffled
    # index: the same pairs, order, dtypes, values, unmatched count and refusal as pandas' merge
    rng = np.random.default_rng(len(kind))
    for trial in range(60):
        n = int(rng.integers(0, 40))
        g = {"int": lambda: rng.integers(0, 3, n), "str": lambda: rng.choice(["a", "b", "c"], n).astype(object),
             "float with NaN": lambda: np.where(rng.random(n) < 0.3, np.nan, rng.integers(0, 3, n).astype(float)),
             "bool": lambda: rng.choice([True, False], n), "category": lambda: pd.Categorical(rng.choice(["u", "v"], n))}[kind]()  # fmt: skip
        df = pd.DataFrame({"seed": rng.integers(0, 6 if trial % 2 else 40, n), "f": rng.choice(["x", "y", "z"], n),
                           "g": g, "h": rng.choice(["pre", "post"], n)}, index=rng.permutation(n) + 100)  # fmt: skip
        values = np.where(rng.random(n) < 0.1, np.nan, rng.random(n))
        want = _pairs_by_merge(df, values, "f", "x", "y", ["f", "g", "h"])
        if isinstance(want, str):
            with pytest.raises(ValueError, match=f"^{want} and every other factor value"):
                stats.pair_frame(df, values, "f", "x", "y", ["f", "g", "h"])
            continue
        keys, a, b, unmatched = stats.pair_frame(df, values, "f", "x", "y", ["f", "g", "h"])
        pd.testing.assert_frame_equal(keys, want[0])
        assert np.array_equal(a, want[1], equal_nan=True) and np.array_equal(b, want[2], equal_nan=True), trial
        assert unmatched == want[3], trial


def test_each_cells_bootstrap_sees_its_runs_in_their_order():
    # three interleaved cells of 300 runs: the cell table's bootstrap must resample each cell's
    # values in run order (a stable split), as bootstrap_mean_ci of the cells in run order does
    rng = np.random.default_rng(9)
    n = 900
    df = pd.DataFrame({"f": np.tile(["a", "b", "c"], n // 3), "seed": np.repeat(np.arange(n // 3), 3), "status": "ok",
                       "test_total": 300, "final_train_acc": 1.0})  # fmt: skip
    df["test_correct"] = rng.binomial(300, 0.8, n)
    df["test_acc"] = df["test_correct"] / 300
    cfg = dict(CFG, n_resamples=200)
    table = stats.cell_table(df, ["f"], cfg, seed=2)
    in_order = intervals.bootstrap_mean_ci([df.loc[df["f"] == lev, "test_acc"].to_numpy() for lev in "abc"], 0.95, 200, seed=2)
    assert list(table["boot_lo"]) == list(in_order[0]) and list(table["boot_hi"]) == list(in_order[1])


def _check_main_effects_against_oracle(df, factors, cfg, seed):
    ref, ref_marg = _oracle_main_effects(df, factors, measures.resolve_cfg(cfg), seed)
    me = stats.main_effects(df, factors, cfg, seed=seed)
    for row in me.itertuples():
        r = ref[row.factor]
        assert (row.eta_sq, row.spread) == pytest.approx((r["eta_sq"], r["spread"]), rel=1e-12)
        assert (row.spread_lo, row.spread_hi) == pytest.approx((r["spread_lo"], r["spread_hi"]), rel=1e-12)
        assert (row.best_level, row.worst_level) == (r["best"], r["worst"])
    marg = stats.marginal_means(df, factors, cfg, seed=seed)
    pd.testing.assert_frame_equal(marg.reset_index(drop=True), ref_marg[stats.MARGINAL_COLUMNS], check_dtype=False,
                                  check_exact=False, rtol=1e-12, atol=0)  # fmt: skip
    return me, marg


def test_seed_bootstrap_in_several_batches_is_the_one_batch_bootstrap():
    # 1,000 cells: the bootstrap of main effects draws its resamples in batches of
    # BATCH_ELEMENTS // (4 * cells) = 500; 999 resamples are two unequal batches, which must give
    # the same resamples as drawing all 999 at once (the oracle)
    rng = np.random.default_rng(4)
    levels = {"a": list(range(250)), "b": ["w", "x", "y", "z"]}
    df = make_summary(levels, range(3), lambda c, s: 0.5 + 0.001 * c["a"] + 0.05 * (c["b"] == "y") + rng.normal(0, 0.02))
    assert measures.BATCH_ELEMENTS // (4 * 1000) == 500
    me, _ = _check_main_effects_against_oracle(df, ["a", "b"], dict(CFG, n_resamples=999), seed=1)
    assert me.set_index("factor").loc["b", "best_level"] == "y"


def test_marginal_means_of_an_unbalanced_design_are_on_the_grid_of_a_mean_of_cells():
    # 2 x 2 x 2 cells, one run missing: that seed's mean of a level averages 3 runs (multiples of
    # 1 / (3 T)), which the marginal interval rounds to the grid 1 / (T n_cells) = 1 / (8 T)
    rng = np.random.default_rng(8)
    levels = {"x": ["a", "b"], "y": [1, 2], "z": ["p", "q"]}
    df = make_summary(levels, range(5), lambda c, s: 0.6 + 0.1 * (c["x"] == "b") + rng.normal(0, 0.03), n_test=50)
    df = df[~((df["x"] == "a") & (df["y"] == 1) & (df["z"] == "p") & (df["seed"] == 2))].reset_index(drop=True)
    _, marg = _check_main_effects_against_oracle(df, list(levels), CFG, seed=0)
    by_seed = df[df["x"] == "a"].groupby("seed")["test_acc"].mean()
    step = 1 / 100 / 8
    assert abs(by_seed[2] / step - round(by_seed[2] / step)) > 0.1  # off the grid before rounding


def test_main_effects_without_a_seed_column_take_each_run_as_a_seed():
    df = make_summary({"x": ["a", "b"]}, range(3), lambda c, s: 0.6 + 0.1 * (c["x"] == "a") + 0.01 * s)
    me = stats.main_effects(df.drop(columns="seed"), ["x"], CFG).iloc[0]
    assert (me["best_level"], me["worst_level"], me["n_levels"]) == ("a", "b", 2)  # worst is not the first level
    marg = stats.marginal_means(df.drop(columns="seed"), ["x"], CFG)
    assert list(marg["n_seeds"]) == [3, 3] and list(marg["n"]) == [3, 3]
    pd.testing.assert_frame_equal(marg, stats.marginal_means(df, ["x"], CFG))  # one run per seed and level here


def test_main_effects_when_no_run_differs_and_when_there_are_no_runs():
    # every run at 0.7 (210 / 300): their float mean is off by rounding, and the shares of
    # variance were once ratios of rounding noise (eta_sq 4.0); nothing varies, so they are 0
    df = make_summary({"x": ["a", "b"], "y": [1, 2, 3]}, range(4), lambda c, s: 0.7)
    assert df["test_acc"].mean() != 0.7
    me = stats.main_effects(df, ["y", "x"], CFG)
    assert list(me["eta_sq"]) == [0.0, 0.0] and list(me["factor"]) == ["y", "x"] and list(me["spread"]) == [0.0, 0.0]
    assert list(variance.interactions(df, ["x", "y"])["eta_sq"]) == [0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no mean of an empty array
        assert stats.main_effects(df.iloc[:0], [], CFG).empty and stats.marginal_means(df.iloc[:0], [], CFG).empty


def test_cell_table_in_any_row_order_without_status_and_over_seeds_not_runs():
    df = make_summary({"norm": ["post", "pre"], "heads": [1, 2]}, range(5), lambda c, s: 0.6 + 0.1 * (c["norm"] == "pre") + 0.01 * s)
    shuffled = df.sample(frac=1.0, random_state=3).reset_index(drop=True)
    table = stats.cell_table(shuffled, ["norm", "heads"], CFG).set_index(["norm", "heads"])
    for (norm, heads), row in table.iterrows():
        acc = df[(df["norm"] == norm) & (df["heads"] == heads)]["test_acc"]
        assert (row["n"], row["mean"], row["max"]) == (5, pytest.approx(acc.mean(), abs=1e-12), acc.max())
    # no status column: every run counts as ok (none diverged)
    bare = stats.cell_table(df.drop(columns="status"), ["norm"], CFG)
    assert list(bare["n_ok"]) == [10, 10] and list(bare["n_diverged"]) == [0, 0]
    # two runs (heads 1 and 2, same accuracy) per seed in a norm cell: the interval is over the 5 seeds
    by_norm = stats.cell_table(df, ["norm"], CFG).set_index("norm")
    seeds = df[df["norm"] == "pre"].groupby("seed")["test_acc"].mean().to_numpy()
    lo, hi, how = intervals.mean_ci(seeds, 0.95, (0.0, 1.0), 1 / 300)
    assert (by_norm.loc["pre", "ci_lo"], by_norm.loc["pre", "ci_hi"]) == pytest.approx((lo, hi), abs=1e-12)
    assert by_norm.loc["pre", "ci_method"] == how and abs(intervals.mean_ci(df[df["norm"] == "pre"]["test_acc"])[0] - lo) > 1e-3


def test_cell_table_takes_bootstrap_max_n_and_seed_zero_by_default():
    rng = np.random.default_rng(1)
    df = make_summary({"norm": ["post", "pre"]}, range(4), lambda c, s: 0.7 + rng.normal(0, 0.02))
    t = stats.cell_table(df, ["norm"], dict(CFG, bootstrap_max_n=3))
    assert list(t["boot_method"]) == ["t (n > 3)"] * 2
    assert "t (n > 4)" not in set(stats.cell_table(df, ["norm"], dict(CFG, bootstrap_max_n=4))["boot_method"])
    default, zero, one = (stats.cell_table(df, ["norm"], CFG, *s) for s in ((), (0,), (1,)))
    pd.testing.assert_frame_equal(default, zero)
    assert not default[["boot_lo", "boot_hi"]].equals(one[["boot_lo", "boot_hi"]])


def test_sorted_levels_numbers_in_numeric_order_text_as_text():
    assert settings.sorted_levels(["10", "2", "1", "2"]) == ["1", "2", "10"]  # numbers written as text: numeric order
    assert settings.sorted_levels([1.0, 1, 0.5]) == [0.5, 1.0] and settings.sorted_levels(["b", 1, "a", None]) == [1, "a", "b"]


def test_paired_comparisons_of_equal_differences_and_of_two_seeds():
    # every seed gains exactly 0.1: Anderson's bound on [-1, 1] for the interval
    df = make_summary({"norm": ["post", "pre"]}, range(7), lambda c, s: 0.6 + 0.01 * s + 0.1 * (c["norm"] == "pre"))
    row = stats.paired_comparisons(df, ["norm"], CFG).iloc[0]
    lo, hi = intervals.anderson_ci(np.full(7, 0.1), 0.95, (-1.0, 1.0))
    assert row["ci_method"] == "Anderson bound (seeds all equal)" and (row["ci_lo"], row["ci_hi"]) == pytest.approx((lo[0], hi[0]))
    assert row["significant"] and stats.paired_comparisons(df, ["norm"], CFG)["significant"].dtype == bool
    # two seeds: an interval and, at an alpha the design can reach, an mde
    two = make_summary({"norm": ["post", "pre"]}, range(2), lambda c, s: 0.6 + (0.1 + 0.05 * s) * (c["norm"] == "pre"))
    row = stats.paired_comparisons(two, ["norm"], dict(CFG, alpha=0.6)).iloc[0]
    assert row["note"] == "" and np.isfinite(row["ci_lo"]) and np.isfinite(row["mde"])


def _summary(levels: dict, seeds, acc_fn, total=300) -> pd.DataFrame:
    rows = []
    for combo in itertools.product(*levels.values()):
        cell = dict(zip(levels, combo))
        for s in seeds:
            correct = round(acc_fn(cell, s) * total)
            rows.append(dict(seed=s, **cell, status="ok", final_train_acc=1.0, test_correct=correct,
                             test_total=total, test_acc=correct / total, n_test=total // 2))  # fmt: skip
    return pd.DataFrame(rows)


def test_cell_table_rows_in_sorted_order_with_int_counts_and_the_given_confidence():
    rng = np.random.default_rng(3)
    df = _summary({"norm": ["pre", "post"], "heads": [4, 1]}, range(4), lambda c, s: 0.6 + rng.normal(0, 0.05))
    table = stats.cell_table(df, ["norm", "heads"], {"confidence": 0.9, "n_resamples": 99})
    assert list(zip(table["norm"], table["heads"])) == [("post", 1), ("post", 4), ("pre", 1), ("pre", 4)]
    for col in ["n", "n_ok", "n_diverged", "n_imputed", "pooled_correct", "pooled_total"]:
        assert table[col].dtype == np.int64, col
    lo, hi = intervals.wilson_ci(table["pooled_correct"], table["pooled_total"], 0.9)
    assert list(table["testset_lo"]) == list(lo) and list(table["testset_hi"]) == list(hi)
    assert (intervals.wilson_ci(table["pooled_correct"], table["pooled_total"])[0] < lo).all()  # 95 % is wider
    # without a seed column each run is its own seed
    bare = stats.cell_table(df.drop(columns="seed"), ["norm"], {"n_resamples": 99})
    assert list(bare["n"]) == [8, 8] and bare["ci_method"].str.startswith("skew-corrected t").all()


def test_cell_table_seed_means_within_half_a_test_step_are_ties():
    # norm cells hold two runs (heads 1 and 2) per seed; every seed's mean is 30/300 except seed 0's,
    # (30 + 31) / 600: half a step of 1/300 above, a tie at the resolution, so every seed counts as equal
    def acc(c, s):
        return (31 if (s == 0 and c["heads"] == 2) else 30) / 300

    df = _summary({"norm": ["post", "pre"], "heads": [1, 2]}, range(5), acc)
    row = stats.cell_table(df, ["norm"], {"n_resamples": 99}).iloc[0]
    assert row["ci_method"] == "Anderson bound (seeds all equal)"
    lo, hi = intervals.anderson_ci(np.full(5, 0.1))
    assert (row["ci_lo"], row["ci_hi"]) == (lo[0], hi[0])


def test_default_seeds_and_confidence_are_those_documented():
    rng = np.random.default_rng(9)
    df = _summary({"x": ["a", "b", "c"]}, range(5), lambda c, s: 0.6 + 0.05 * (c["x"] == "b") + rng.normal(0, 0.03))
    cfg = {"n_resamples": 199}
    for fn in (stats.main_effects, stats.marginal_means, stats.paired_comparisons, stats.cell_table):
        pd.testing.assert_frame_equal(fn(df, ["x"], cfg), fn(df, ["x"], cfg, seed=0))
    assert not stats.main_effects(df, ["x"], cfg).equals(stats.main_effects(df, ["x"], cfg, seed=1))
    x = rng.uniform(0.5, 0.9, (3, 6))
    for got, want in ((intervals.anderson_ci(x), intervals.anderson_ci(x, 0.95, (0.0, 1.0))),
                      (intervals.mean_cis(x), intervals.mean_cis(x, 0.95, (0.0, 1.0), 0.0)),
                      (intervals.t_mean_ci(x), intervals.t_mean_ci(x, 0.95, (0.0, 1.0))),
                      (intervals.skew_t_ci(x), intervals.skew_t_ci(x, 0.95)),
                      (intervals.tango_ci([1, 3], [2, 0], 6), intervals.tango_ci([1, 3], [2, 0], 6, 0.95))):  # fmt: skip
        for g, w in zip(got, want):
            assert list(g) == list(w)
    d = rng.normal(0.01, 0.02, 20)
    assert significance.sign_flip_test(d) == significance.sign_flip_test(d, 0.0, 9999, 0) != significance.sign_flip_test(d, 0.0, 9999, 1)
    assert significance.sign_flip_test(d)[0] * 10000 == pytest.approx(round(significance.sign_flip_test(d)[0] * 10000))


def test_paired_comparisons_of_equal_differences_have_no_mde():
    # every seed gains exactly 32/256 (binary fractions: their mean is exact, their sd exactly 0),
    # so there is no detectable-difference estimate (NaN, not 0)
    df = _summary({"norm": ["post", "pre"]}, range(7), lambda c, s: (150 + s + 32 * (c["norm"] == "pre")) / 256, 256)
    row = stats.paired_comparisons(df, ["norm"], {"n_resamples": 99}).iloc[0]
    assert row["n_seeds"] == 7 and row["note"] == "" and np.isnan(row["mde"])


def test_pairing_refuses_runs_sharing_a_key_whatever_their_values():
    df = _summary({"norm": ["post", "pre"], "heads": [1, 2]}, range(2), lambda c, s: 0.6 + 0.1 * (c["heads"] == 2))
    with pytest.raises(ValueError, match=r"^4 runs at norm='post' share seed"):
        stats.pair_runs(df, "norm", "post", "pre", ["norm"])


def test_sorted_levels_break_numeric_ties_by_text():
    assert settings.sorted_levels(["1.0", "1", "0.5"]) == ["0.5", "1", "1.0"]
    assert settings.sorted_levels(["1", "1.0"]) == ["1", "1.0"]


def test_empty_marginal_means_have_their_columns():
    df = _summary({"x": ["a", "b"]}, range(3), lambda c, s: 0.6)
    assert list(stats.marginal_means(df.iloc[:0], [], {"n_resamples": 99}).columns) == stats.MARGINAL_COLUMNS
    assert list(variance.interactions(df, ["x"]).columns) == variance.INTERACTION_COLUMNS


def test_marginal_means_of_a_one_level_factor_use_the_test_step():
    # x has one level (one cell); a setting left out of the factors (z) gives each seed two runs, so
    # seed means fall on half steps, which the interval rounds to the test step 1/300
    units = {0: (30, 31), 1: (31, 31), 2: (32, 33), 3: (30, 30), 4: (33, 34)}
    df = pd.DataFrame([dict(seed=s, x="a", z=i, status="ok", test_total=300, test_correct=k, test_acc=k / 300)
                       for s, ks in units.items() for i, k in enumerate(ks)])  # fmt: skip
    row = stats.marginal_means(df, ["x"], {"n_resamples": 99}).iloc[0]
    means = df.groupby("seed")["test_acc"].mean().to_numpy()
    lo, hi, how = intervals.mean_ci(measures.quantize(means, 1 / 300), 0.95, (0.0, 1.0), 1 / 300)
    assert (row["ci_lo"], row["ci_hi"], row["ci_method"]) == (lo, hi, how)
    assert (lo, hi) != intervals.mean_ci(measures.quantize(means, 1 / 600), 0.95, (0.0, 1.0), 1 / 600)[:2]


def test_paired_comparisons_draw_their_permutations_from_seed_zero_by_default():
    # 20 seeds: the sign-flip test samples sign patterns, so the seed matters
    rng = np.random.default_rng(10)
    df = _summary({"x": ["a", "b"]}, range(20), lambda c, s: 0.6 + 0.01 * (c["x"] == "b") + rng.normal(0, 0.03))
    cfg = {"n_resamples": 199}
    out = stats.paired_comparisons(df, ["x"], cfg)
    assert out["test"].iloc[0] == "sign-flip permutation"
    pd.testing.assert_frame_equal(out, stats.paired_comparisons(df, ["x"], cfg, seed=0))
    assert out["p_value"].iloc[0] != stats.paired_comparisons(df, ["x"], cfg, seed=1)["p_value"].iloc[0]


def test_paired_comparisons_of_equal_inexact_differences_have_no_mde_and_no_effect_size():
    # every seed gains exactly 30 of 300 test items (0.1, not a binary fraction): numpy's sd of seven
    # 0.1s can come out a rounding error above 0, yet the differences have no spread at all, so there
    # is no detectable-difference estimate and no d_z (NaN, as for binary fractions)
    df = _summary({"norm": ["post", "pre"]}, range(7), lambda c, s: 0.6 + 0.01 * s + 0.1 * (c["norm"] == "pre"))
    va = df[df["norm"] == "post"]["test_acc"].to_numpy()
    vb = df[df["norm"] == "pre"]["test_acc"].to_numpy()
    d = measures.quantize(vb - va, 1 / 300)
    assert np.ptp(d) == 0 and d[0] == 0.1
    row = stats.paired_comparisons(df, ["norm"], {"n_resamples": 99}).iloc[0]
    assert row["n_seeds"] == 7 and row["note"] == "" and row["mean_diff"] == pytest.approx(0.1)
    assert np.isnan(row["mde"]) and np.isnan(row["effect_size"])
