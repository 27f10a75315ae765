"""Tests of ablation.plan: which verdicts a config's seeds can reach, before any training."""

from __future__ import annotations

import copy
import math

import pytest
from scipy import stats as sps

from ablation import config as C
from ablation import design
from ablation import plan as P
from conftest import REPO

SMOKE = C.load_yaml(REPO / "config" / "smoke.yaml")
AT_LEAST = {"id": "c", "statement": "reaches it", "kind": "at_least", "threshold": 0.9}


def one_study(claims, seeds, factors=None) -> dict:
    raw = copy.deepcopy(SMOKE)
    raw["studies"] = {"s": {"fixed": {"arch": "encoder", "depth": 2}, "factors": factors or {"norm": ["post", "pre"]},
                            "seeds": list(seeds), "claims": claims}}  # fmt: skip
    raw.get("report", {}).pop("headline", None)
    return raw


@pytest.mark.parametrize("m", [1, 2, 4])
def test_the_share_rule_needs_the_binomial_floor_below_alpha_over_the_family_and_a_seed_of_slack(m):
    claims = [dict(AT_LEAST, id=f"c{i}", where={"norm": "post"}) for i in range(m)]
    floor = math.ceil(math.log(0.05 / m) / math.log(0.5))  # the fewest seeds with 2**-n <= alpha / m
    for n, reachable in [(floor - 1, "no"), (floor, "yes")]:
        row = P.plan(C.validate(one_study(claims, range(n)))).iloc[0]
        assert (row["supported"], row["contradicted"]) == (reachable, reachable), n
        assert row["seeds_needed"] == floor + 1  # a verdict on exactly `floor` seeds falls with any one of them
    # the floor is the exact binomial test's own smallest p
    assert sps.binomtest(floor, floor, 0.5, "greater").pvalue <= 0.05 / m < sps.binomtest(floor - 1, floor - 1, 0.5, "greater").pvalue


def test_contradicted_in_every_cell_pays_bonferroni_over_the_cells():
    row = P.plan(C.validate(one_study([AT_LEAST], range(5), {"norm": ["post", "pre"], "heads": [1, 2, 4]}))).iloc[0]
    # SUPPORTED: every cell at 2**-5 <= 0.05; CONTRADICTED in one of 6 cells: 6 * 2**-5 > 0.05
    assert (row["cells"], row["supported"], row["contradicted"]) == (6, "yes", "no")
    assert row["seeds_needed"] == math.ceil(math.log(0.05 / 6) / math.log(0.5)) + 1


def test_a_larger_share_is_harder_to_support_and_easier_to_contradict():
    row = P.plan(C.validate(one_study([dict(AT_LEAST, share=0.8)], range(10)))).iloc[0]
    # 0.8**10 = 0.107 > alpha: ten seeds all meeting the condition do not show a share above 0.8
    assert (row["supported"], row["contradicted"]) == ("no", "yes")


def test_exact_claims_need_no_seeds_and_join_no_family():
    exact = {"id": "x", "statement": "chance", "kind": "at_value", "target": 0.5, "tolerance": 0.0034, "exact": True}
    table = P.plan(C.validate(one_study([exact, AT_LEAST], range(5)))).set_index("claim")
    assert table.loc["x", "supported"] == "yes" and "twin certificate" in table.loc["x", "note"]
    # AT_LEAST is alone in its family: 2**-5 <= 0.05
    assert table.loc["c", "supported"] == "yes" and "over the 1 claim(s) of its family" in table.loc["c", "note"]


def test_one_seed_reaches_nothing_and_main_warns(capsys):
    row = P.plan(C.validate(one_study([AT_LEAST], [0]))).iloc[0]
    assert (row["supported"], row["contradicted"]) == ("no", "no")
    assert P.main([str(REPO / "config" / "smoke.yaml")]) == 0
    assert "warning: claim" in capsys.readouterr().out


def test_the_plan_prices_what_is_left_to_train_from_the_stores_runs(tmp_path):
    import json

    from ablation.settings import cost_estimate

    cfg = C.validate(one_study([AT_LEAST], range(3)))
    runs = cfg.studies["s"].runs()
    for run, seconds in zip(runs[:2], (2.0, 4.0)):  # two finished runs: 2 and 4 s, the same cost units
        d = tmp_path / run.hash
        d.mkdir()
        (d / "settings.json").write_text(json.dumps(run.settings.as_dict()))
        (d / "metrics.csv").write_text(f"train_seconds\n{seconds}\n")
    per_unit, n = P.seconds_per_unit(tmp_path)
    assert n == 2 and per_unit == pytest.approx(3.0 / cost_estimate(runs[0].settings))
    table, basis = P.cost(cfg, store=tmp_path, cores=2)
    assert basis == f"2 finished run(s) of {tmp_path}"
    row = table.iloc[0]
    left = sum(cost_estimate(r.settings) for r in runs[2:]) * per_unit / 60
    assert (row["runs"], row["in_store"], row["to_train"]) == (str(len(runs)), "2", str(len(runs) - 2))
    assert float(row["cpu_minutes"]) == pytest.approx(left, abs=0.05) and float(row["wall_minutes"]) == pytest.approx(left / 2, abs=0.05)
    assert P.cost(cfg, store=tmp_path / "empty", cores=2)[1] == ""


def test_before_any_run_the_plan_prices_the_design_by_the_references_train_seconds(tmp_path):
    import json

    import pandas as pd

    from ablation.settings import cost_estimate

    cfg = C.validate(one_study([AT_LEAST], range(3)))
    runs = cfg.studies["s"].runs()
    (tmp_path / "s").mkdir()
    pd.DataFrame({"run_id": [r.run_id for r in runs[:2]], "hash": [r.hash for r in runs[:2]], "train_seconds": [3.0, 5.0]}).to_csv(
        tmp_path / "s" / "summary.csv", index=False)  # fmt: skip
    (tmp_path / "s" / "environment.json").write_text(json.dumps({"cpu_model": "Some CPU"}))
    table, basis = P.cost(cfg, store=tmp_path / "empty-store", cores=2, reference=tmp_path)
    per_unit = 4.0 / cost_estimate(runs[0].settings)
    every = sum(cost_estimate(r.settings) for r in runs) * per_unit / 60
    assert table.iloc[0]["to_train"] == str(len(runs)) and float(table.iloc[0]["cpu_minutes"]) == pytest.approx(every, abs=0.05)
    assert basis == f"2 run(s) of {tmp_path} (trained on Some CPU: this machine may be faster or slower)"
    # a reference that holds none of the config's runs prices nothing
    other = C.validate(one_study([AT_LEAST], [7]))
    assert P.cost(other, store=tmp_path / "empty-store", cores=2, reference=tmp_path)[1] == ""


def test_the_committed_reference_prices_the_default_config_before_any_run():
    cfg = C.load(REPO / "config" / "config.yaml")
    table, basis = P.cost(cfg, store=REPO / "no-store-here", cores=2, reference=REPO / "reference")
    assert "run(s) of" in basis and "trained on" in basis, basis
    assert all(float(m.split("-")[0]) > 0 for m in table["cpu_minutes"]), table


def test_the_default_config_passes_its_own_plan(capsys):
    """Every claim of config/config.yaml can reach both verdicts (the factorial and position studies
    through adaptive rounds), `make plan` prints no warning, and an adaptive study is priced from its
    first round to every round at max_seeds in the cells its claims read."""
    from ablation import adaptive as A

    cfg = C.load(REPO / "config" / "config.yaml")
    table = P.plan(cfg)
    assert (table["supported"] == "yes").all() and (table["contradicted"] == "yes").all(), table
    assert P.main([str(REPO / "config" / "config.yaml")]) == 0
    assert "warning" not in capsys.readouterr().out
    costs = P.cost(cfg, store=REPO / "no-store-here", cores=2)[0].set_index("study")
    for name in ("factorial", "position", "depth"):
        study, block = cfg.studies[name], design.adaptive_block(cfg.raw["studies"][name])
        extra = A.round_runs(study, block["max_seeds"])
        assert costs.loc[name, "runs"] == f"{len(study.runs())}-{len(study.runs()) + len(extra)}"
        assert not {r.hash for r in extra} & {r.hash for r in study.runs()}
    # the rounds add seeds only in the cells a claim with rounds reads: C3's and C4's 20 of 48
    assert len(A.round_runs(cfg.studies["factorial"], 9)) == 20 * 2
