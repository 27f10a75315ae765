"""Tests of ablation.plan: which verdicts a config's seeds can reach, before any training."""

from __future__ import annotations

import copy

import pandas as pd
import pytest
from scipy import stats as sps

from ablation import config as C
from ablation import plan as P
from ablation import stats
from conftest import REPO

SMOKE = C.load_yaml(REPO / "config" / "smoke.yaml")


def test_better_with_few_seeds_is_unreachable_and_says_how_many_would_do(capsys):
    table = P.plan(C.validate(SMOKE)).set_index("claim")
    m = len(table)
    row = table.loc["C5b-warmup-helps-post"]
    # 2 seeds: the sign-flip test's smallest p is 0.5; the Holm level over m claims is alpha / m
    assert (row["seeds"], row["supported"], row["contradicted"]) == (2, "no", "no")
    assert row["seeds_needed"] == stats.seeds_to_reach(0.05 / m) and 2 / 2 ** row["seeds_needed"] <= 0.05 / m
    assert 2 / 2 ** (row["seeds_needed"] - 1) > 0.05 / m
    assert P.main([str(REPO / "config" / "smoke.yaml")]) == 0
    assert "warning: claim C5b-warmup-helps-post" in capsys.readouterr().out


def test_more_seeds_make_it_reachable_and_one_seed_reaches_nothing():
    raw = copy.deepcopy(SMOKE)
    raw["studies"]["depth"]["seeds"] = list(range(10))
    row = P.plan(C.validate(raw)).set_index("claim").loc["C5b-warmup-helps-post"]
    assert row["supported"] == "yes"
    raw["studies"]["lesson"]["seeds"] = [0]
    lesson = P.plan(C.validate(raw)).set_index("claim").loc[["C1-chance", "C2-pe-100"]]
    assert (lesson["supported"] == "no").all() and (lesson["contradicted"] == "no").all()


@pytest.mark.parametrize("threshold, reachable", [(0.3, "yes"), (0.4, "no")])
def test_converged_at_least_follows_clopper_pearson(threshold, reachable):
    raw = copy.deepcopy(SMOKE)
    raw["studies"]["depth"]["seeds"] = list(range(5))
    raw["studies"]["depth"]["claims"] = [dict(id="conv", statement="converges", kind="at_least",
                                              metric="converged", threshold=threshold)]  # fmt: skip
    row = P.plan(C.validate(raw)).set_index("claim").loc["conv"]
    # all 5 seeds converged: lower bound (alpha / m / 2) ** (1 / 5), m = claims of the config
    m = sum(len(s.get("claims") or []) for s in raw["studies"].values())
    assert row["supported"] == reachable and ((0.05 / m / 2) ** (1 / 5) >= threshold) == (reachable == "yes")


@pytest.mark.parametrize("margin, reachable", [(0.5, "yes"), (0.1, "no")])
def test_converged_not_worse_follows_the_paired_proportion_bound(margin, reachable):
    raw = copy.deepcopy(SMOKE)
    raw["studies"]["depth"]["seeds"] = list(range(10))
    claim = next(c for c in raw["studies"]["depth"]["claims"] if c["id"] == "C5a-prenorm-converges")
    claim["margin"] = margin
    row = P.plan(C.validate(raw)).set_index("claim").loc["C5a-prenorm-converges"]
    # every pair concordant (both levels converge at every seed): Tango's bound z^2 / (n + z^2) at
    # the Holm level alpha / m must fit in the margin
    m = sum(len(s.get("claims") or []) for s in raw["studies"].values())
    z2 = sps.norm.ppf(1 - 0.05 / m / 2) ** 2
    assert row["supported"] == "yes" and (z2 / (10 + z2) <= margin) == (reachable == "yes")
    needed = next(k for k in range(2, 1000) if z2 / (k + z2) <= margin)
    assert pd.isna(row["seeds_needed"]) if reachable == "yes" else row["seeds_needed"] == needed
    assert ("that decides too" in row["note"]) == (reachable == "yes")
