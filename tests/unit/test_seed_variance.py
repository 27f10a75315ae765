"""ablation.variance: the seed's share of a study's variance (a mixed model, checked against statsmodels and
the ANOVA estimator) and the two-factor interactions (checked against their definition), with every way a fit
can fail named in the table."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from test_stats import make_summary

from ablation import variance


def _seed_variance_row(summary, factors):
    return variance.seed_variance(summary, factors).iloc[0].to_dict()


def test_seed_variance_rows_when_it_cannot_fit():
    base = "MixedLM (REML): test_acc ~ factors + (1 | seed)"
    one_seed = pd.DataFrame({"seed": [3, 3, 3], "test_acc": [0.6, 0.7, 0.8], "x": ["a", "b", "c"]})
    out = variance.seed_variance(one_seed, ["x"])
    assert list(out.columns) == variance.SEED_VARIANCE_COLUMNS and len(out) == 1
    row = out.iloc[0].to_dict()
    assert (row["n_runs"], row["n_seeds"], row["runs_per_seed"]) == (3, 1, 3.0)
    assert np.isnan([row["var_seed"], row["var_residual"], row["icc"], row["n_eff"]]).all()
    assert row["method"] == base + "; not fitted: fewer than 2 seeds"
    # without a seed column every run has seed 0
    row = _seed_variance_row(one_seed.drop(columns="seed"), [])
    assert (row["n_runs"], row["n_seeds"], row["method"]) == (3, 1, base + "; not fitted: fewer than 2 seeds")
    same = pd.DataFrame({"seed": [0, 0, 1, 1], "test_acc": [0.75] * 4, "x": ["a", "b"] * 2})
    row = _seed_variance_row(same, ["x"])
    assert (row["n_runs"], row["n_seeds"], row["runs_per_seed"]) == (4, 2, 2.0)
    assert row["method"] == base + "; not fitted: every run has the same accuracy"
    assert np.isnan(row["var_seed"]) and np.isnan(row["icc"])
    with pytest.raises(ValueError, match=r"^'seed' is never a factor$"):
        variance.seed_variance(same, ["seed"])


def test_seed_variance_of_two_seeds_with_a_factor_is_statsmodels_fit():
    from statsmodels.regression.mixed_linear_model import MixedLM

    rng = np.random.default_rng(5)
    seeds = np.repeat(np.arange(2), 6)
    x = np.tile(["a", "b", "c"], 4)
    acc = 0.6 + 0.1 * (x == "b") + 0.2 * (x == "c") + 0.02 * seeds + rng.normal(0, 0.01, 12)
    df = pd.DataFrame({"seed": seeds, "x": x, "test_acc": acc})
    row = _seed_variance_row(df, ["x"])
    exog = np.column_stack([np.ones(12), x == "b", x == "c"]).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = MixedLM(acc, exog, groups=seeds).fit(reml=True, method="lbfgs")
    var_seed, var_res = float(np.asarray(fit.cov_re)[0, 0]), float(fit.scale)
    assert row["method"] == "MixedLM (REML): test_acc ~ factors + (1 | seed)"
    assert (row["n_runs"], row["n_seeds"], row["runs_per_seed"]) == (12, 2, 6.0)
    assert (row["var_seed"], row["var_residual"]) == pytest.approx((var_seed, var_res), rel=1e-6)
    icc = var_seed / (var_seed + var_res)
    assert row["icc"] == pytest.approx(icc, rel=1e-6) and 0 < icc < 1
    assert row["n_eff"] == pytest.approx(12 / (1 + 5 * icc), rel=1e-6)


def test_interactions_follow_their_definition():
    # 3 x 2 design, 2 seeds; y matters only at x = "c"
    levels = {"x": ["a", "b", "c"], "y": [1, 2], "z": ["p", "q"]}
    rows = []
    for (xv, yv, zv), s in itertools.product(itertools.product(*levels.values()), range(2)):
        rows.append(dict(seed=s, x=xv, y=yv, z=zv, status="ok",
                         test_acc=0.6 + 0.05 * (xv == "b") + 0.2 * (xv == "c") * (yv == 2) + 0.01 * s + 0.03 * (zv == "q")))
    df = pd.DataFrame(rows)
    acc = df["test_acc"].to_numpy()
    ss_total = ((acc - acc.mean()) ** 2).sum()
    table = variance.interactions(df, ["x", "y", "z"])
    assert list(table.columns) == variance.INTERACTION_COLUMNS
    expected = {}
    for fa, fb in itertools.combinations(["x", "y", "z"], 2):
        g = df.groupby([fa, fb])["test_acc"]
        m, n = g.mean(), g.size()
        ma, mb = df.groupby(fa)["test_acc"].mean(), df.groupby(fb)["test_acc"].mean()
        ss = sum(n[k] * (m[k] - ma[k[0]] - mb[k[1]] + acc.mean()) ** 2 for k in m.index)
        spreads = "; ".join(f"{fb}={lev}: {m.xs(lev, level=1).max() - m.xs(lev, level=1).min():.4f}"
                            for lev in sorted(df[fb].unique()))  # fmt: skip
        expected[(fa, fb)] = (ss / ss_total, spreads)
    got = {(r.factor_a, r.factor_b): (r.eta_sq, r.simple_spreads) for r in table.itertuples()}
    assert got.keys() == expected.keys()
    for key, (eta, spreads) in expected.items():
        assert got[key][0] == pytest.approx(eta, rel=1e-9, abs=1e-15) and got[key][1] == spreads, key
    assert list(table["eta_sq"]) == sorted(table["eta_sq"], reverse=True)
    assert (table.iloc[0]["factor_a"], table.iloc[0]["factor_b"]) == ("x", "y") and table.iloc[0]["eta_sq"] > 0.1
    assert got[("x", "y")][1] == "y=1: 0.0500; y=2: 0.2000"


def test_interactions_of_equal_size_keep_the_order_of_the_factor_pairs():
    # 6 two-level factors, effects in binary fractions (every mean exact): a x b, c x f and a x e
    # interact; the other 12 pairs have eta_sq exactly 0 and keep their order
    names = list("abcdef")
    rows = []
    for combo in itertools.product([0, 1], repeat=len(names)):
        c = dict(zip(names, combo))
        acc = (128 + 16 * c["a"] * c["b"] + 8 * c["c"] * c["f"] + 4 * c["d"] + 2 * c["a"] * c["e"]) / 256
        rows.append(dict(seed=0, **c, test_acc=acc, status="ok"))
    table = variance.interactions(pd.DataFrame(rows), names)
    pairs = list(zip(table["factor_a"], table["factor_b"]))
    rest = [p for p in itertools.combinations(names, 2) if p not in {("a", "b"), ("c", "f"), ("a", "e")}]
    assert pairs == [("a", "b"), ("c", "f"), ("a", "e"), *rest]
    assert (table["eta_sq"].iloc[3:] == 0.0).all() and (table["eta_sq"].iloc[:3] > 0).all()


def test_seed_variance_names_the_optimizer_that_fitted_and_those_that_failed():
    from pathlib import Path

    summary = pd.read_csv(Path(__file__).parents[1] / "fixtures" / "mixedlm_singular.csv")
    row = _seed_variance_row(summary, ["a", "b", "c", "d"])
    first, second = variance.MIXEDLM_OPTIMIZERS[:2]
    assert row["method"] == f"MixedLM (REML): test_acc ~ factors + (1 | seed); fitted with {second} ({first} failed)"
    assert (row["n_runs"], row["n_seeds"]) == (len(summary), summary["seed"].nunique())


def test_seed_variance_when_no_optimizer_fits():
    # two factors with the same levels run for run: the fixed effects are not identifiable
    rng = np.random.default_rng(0)
    x = np.tile(["p", "q"], 8)
    df = pd.DataFrame({"seed": np.repeat(np.arange(4), 4), "x": x, "y": x,
                       "test_acc": 0.6 + 0.1 * (x == "q") + rng.normal(0, 0.02, 16)})  # fmt: skip
    out = variance.seed_variance(df, ["x", "y"])
    assert list(out.columns) == variance.SEED_VARIANCE_COLUMNS
    row = out.iloc[0].to_dict()
    assert row["method"] == ("MixedLM (REML): test_acc ~ factors + (1 | seed); not fitted: no optimizer converged ("
                             + ", ".join(variance.MIXEDLM_OPTIMIZERS) + ")")  # fmt: skip
    assert (row["n_runs"], row["n_seeds"], row["runs_per_seed"]) == (16, 4, 4.0)
    assert np.isnan([row["var_seed"], row["var_residual"], row["icc"], row["n_eff"]]).all()


def test_seed_variance_when_the_factors_explain_every_run():
    # no residual and no seed variance: the icc (0 / 0) and n_eff are NaN, not an error
    x = np.tile(["p", "q"], 8)
    df = pd.DataFrame({"seed": np.repeat(np.arange(4), 4), "x": x, "test_acc": 0.5 + 0.25 * (x == "q")})
    row = _seed_variance_row(df, ["x"])
    assert (row["var_seed"], row["var_residual"]) == (0.0, 0.0) and np.isnan(row["icc"]) and np.isnan(row["n_eff"])
    assert row["method"] == "MixedLM (REML): test_acc ~ factors + (1 | seed)"


def test_seed_variance_lists_every_optimizer_that_failed_before_the_one_that_fitted(monkeypatch):
    # on this fixture L-BFGS meets a singular matrix and BFGS does not converge: both are named as
    # failed, in the order tried, before Powell's fit
    from pathlib import Path

    summary = pd.read_csv(Path(__file__).parents[1] / "fixtures" / "mixedlm_singular.csv")
    monkeypatch.setattr(variance, "MIXEDLM_OPTIMIZERS", ("lbfgs", "bfgs", "powell", "nm"))
    row = _seed_variance_row(summary, ["a", "b", "c", "d"])
    assert row["method"] == "MixedLM (REML): test_acc ~ factors + (1 | seed); fitted with powell (lbfgs, bfgs failed)"
    assert 0 <= row["var_seed"] < 1e-9


def test_seed_variance_agrees_with_the_anova_estimator_and_interactions_are_found():
    # balanced one-way random effects (no factor): REML's seed variance is the ANOVA estimator
    rng = np.random.default_rng(11)
    seeds, per_seed = 12, 6
    u = rng.normal(0, 0.03, seeds)
    acc = 0.7 + np.repeat(u, per_seed) + rng.normal(0, 0.03, seeds * per_seed)
    df = pd.DataFrame({"seed": np.repeat(np.arange(seeds), per_seed), "test_acc": acc, "status": "ok",
                       "x": np.tile(np.arange(per_seed), seeds)})  # fmt: skip
    out = variance.seed_variance(df, []).iloc[0]
    groups = acc.reshape(seeds, per_seed)
    msw = groups.var(axis=1, ddof=1).mean()
    msb = per_seed * groups.mean(axis=1).var(ddof=1)
    assert out["var_residual"] == pytest.approx(msw, rel=1e-4)
    assert out["var_seed"] == pytest.approx((msb - msw) / per_seed, rel=1e-3)
    icc = out["icc"]
    assert out["n_eff"] == pytest.approx(seeds * per_seed / (1 + (per_seed - 1) * icc))
    # one seed: no fit, and the reason
    assert "fewer than 2 seeds" in variance.seed_variance(df[df["seed"] == 0], [])["method"].iloc[0]
    # a factor that matters only at one level of another: the interaction carries it
    levels = {"pe": ["none", "sin"], "heads": [1, 4], "norm": ["post", "pre"]}
    inter = make_summary(levels, range(4), lambda c, s: 0.5 + (0.3 + 0.1 * (c["heads"] == 4)) * (c["pe"] == "sin"))
    table = variance.interactions(inter, list(levels))
    assert list(table.columns) == variance.INTERACTION_COLUMNS and len(table) == 3
    top = table.iloc[0]
    assert (top["factor_a"], top["factor_b"]) == ("pe", "heads") and top["eta_sq"] > 0.01
    assert table.iloc[1:]["eta_sq"].max() < 1e-12  # norm interacts with nothing


def test_seed_variance_survives_a_singular_fit():
    """A full factorial run's summary (half its runs exactly at chance) on which statsmodels' default
    optimizer meets a singular matrix: the next optimizer fits it, the method says which, and at this
    boundary (no seed variance) the residual variance is ordinary least squares' residual mean square."""
    from statsmodels.regression.mixed_linear_model import MixedLM

    summary = pd.read_csv(Path(__file__).parents[1] / "fixtures" / "mixedlm_singular.csv")
    factors = ["a", "b", "c", "d"]
    acc = summary["test_acc"].to_numpy()
    dummies = pd.get_dummies(summary[factors].astype(str), drop_first=True, dtype=float)
    exog = np.column_stack([np.ones(len(acc)), dummies])
    with pytest.raises(np.linalg.LinAlgError):
        MixedLM(acc, exog, groups=summary["seed"]).fit(reml=True)
    out = variance.seed_variance(summary, factors).iloc[0]
    assert f"fitted with {variance.MIXEDLM_OPTIMIZERS[1]}" in out["method"]
    resid = acc - exog @ np.linalg.lstsq(exog, acc, rcond=None)[0]
    assert 0 <= out["var_seed"] < 1e-9 and out["icc"] < 1e-6
    assert out["var_residual"] == pytest.approx(resid @ resid / (len(acc) - exog.shape[1]), rel=1e-3)
    assert out["n_eff"] == pytest.approx(len(acc), rel=1e-4)
