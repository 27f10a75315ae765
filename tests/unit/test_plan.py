"""Tests of ablation.plan: which verdicts a config's seeds can reach, before any training."""

from __future__ import annotations

import copy
import io
import math

import pandas as pd
import pytest
from scipy import stats as sps

from ablation import config as C
from ablation import design
from ablation import plan as P
from ablation import timing as T
from ablation.settings import cost_estimate
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


@pytest.mark.parametrize("m", [3, 4, 6])
def test_a_verdict_reachable_only_at_a_later_holm_step_is_named_with_its_step(m, tmp_path, capsys):
    """Four agreeing seeds give the sign test p = 2**-4 = 0.0625 per cell: SUPPORTED of a one-cell
    claim is never within alpha = 0.05, whatever its rank; with alpha 0.2 it is within alpha / k for k
    <= 3, so from Holm step m - 2 (every step where m <= 3)."""
    claims = [dict(AT_LEAST, id=f"c{i}", where={"norm": "post"}) for i in range(m)]
    raw = one_study(claims, range(4))
    row = P.plan(C.validate(raw)).iloc[0]
    assert (row["supported"], row["supported_step"]) == ("no", None)
    raw["stats"] = dict(raw.get("stats") or {}, alpha=0.2)
    row = P.plan(C.validate(raw)).iloc[0]
    first = next(k for k in range(1, m + 1) if 0.5**4 <= 0.2 / (m - k + 1))
    assert first == max(1, m - 2) and row["supported_step"] == first
    assert row["supported"] == ("yes" if first == 1 else "no")
    (tmp_path / "c.yaml").write_text(__import__("yaml").safe_dump(raw))
    assert P.main([str(tmp_path / "c.yaml"), "--no-timing"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    if first > 1:
        assert f"note: c0: its 4 seeds reach SUPPORTED only from Holm step {first} of {m}" in out
        assert f"SUPPORTED from Holm step {first} of {m}" in out  # the claim's row says it too
    assert "warning: c0" not in out


def test_a_larger_share_is_harder_to_support_and_easier_to_contradict():
    row = P.plan(C.validate(one_study([dict(AT_LEAST, share=0.8)], range(10)))).iloc[0]
    # 0.8**10 = 0.107 > alpha: ten seeds all meeting the condition do not show a share above 0.8
    assert (row["supported"], row["contradicted"]) == ("no", "yes")


def test_exact_claims_need_no_seeds_and_join_no_family():
    exact = {"id": "x", "statement": "chance", "kind": "at_value", "target": 0.5, "tolerance": 0.0034, "exact": True}
    table = P.plan(C.validate(one_study([exact, AT_LEAST], range(5)))).set_index("claim")
    assert table.loc["x", "test"] == "exact" and pd.isna(table.loc["x", "family"])
    # AT_LEAST is alone in its family: 2**-5 <= 0.05
    assert table.loc["c", "supported"] == "yes" and table.loc["c", "family"] == 1 and table.loc["c", "level"] == 0.05


def test_one_seed_reaches_nothing_and_main_warns(capsys):
    row = P.plan(C.validate(one_study([AT_LEAST], [0]))).iloc[0]
    assert (row["supported"], row["contradicted"]) == ("no", "no")
    assert P.main([str(REPO / "config" / "smoke.yaml"), "--no-timing"]) == 0
    assert "warning: C2-pe-100: its 2 seeds reach neither verdict; 6 would reach both" in capsys.readouterr().out


def test_the_plans_numbers_are_fields_and_its_note_says_only_the_rest():
    """What the note of a claim used to say in words are columns: the test, the family and its
    Holm level, the seeds after which each verdict is reached, and from how many it is robust."""
    grad = {"id": "g", "statement": "grows", "kind": "grad_trend", "factor": "norm", "growing": "post", "flat": "pre",
            "flat_margin": 0.1}
    raw = one_study([AT_LEAST, dict(AT_LEAST, id="s8", share=0.8), grad], range(12))
    table = P.plan(C.validate(raw)).set_index("claim")
    c = table.loc["c"]
    # three claims in the family: SUPPORTED needs 2**-n <= 0.05 / 3 (6 seeds); CONTRADICTED in one of the 2 cells
    # 2 * 2**-n <= 0.05 / 3 (7 seeds); a seed of slack for leaving one out
    assert (c["test"], c["family"], c["bonferroni"], c["supported_after"], c["contradicted_after"], c["robust_from"]) == (
        "sign", 3, 2, 6, 7, 8)  # fmt: skip
    assert c["note"] == "" and table.loc["s8", "note"] == "share > 0.8"
    assert table.loc["g", "bonferroni"] == 2 * 1 and "2 conditions a cell" in table.loc["g", "note"]


def _printed(capsys, *argv) -> list[str]:
    assert P.main(list(argv)) == 0
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("config", ["config.yaml", "smoke.yaml"])
def test_make_plan_fits_100_columns(capsys, config):
    lines = _printed(capsys, str(REPO / "config" / config), "--no-timing")
    assert max(map(len, lines)) <= P.WIDTH, max(lines, key=len)
    ids = list(P.plan(C.load(REPO / "config" / config))["claim"])
    # one row of numbers per claim and at most one line of words under it; the legend once
    assert all(sum(line.strip().startswith(i) for line in lines) == 1 for i in ids)
    assert sum(line.startswith("test: ") for line in lines) == 1
    header = next(line for line in lines if line.startswith("claim "))
    assert header.split() == list(P.HEADERS)


def test_the_cost_lines_fit_100_columns_with_a_calibration_and_a_busy_machine():
    cfg = C.load(REPO / "config" / "config.yaml")
    cal = T.Calibration(per_unit=0.01, per_run=0.1, other_job=2.0, start=3.0, basis="timed here: 8 of 70 shapes",
                        seconds=3.2, other_share=0.5)  # fmt: skip
    est = {"cores": 2, "left": True, "calibration": cal, "table": P.cost(cfg, cal, store=REPO / "no-store-here"),
           "wall_minutes": (40.0, 55.0), "busy_minutes": (80.0, 110.0)}  # fmt: skip
    lines = P.cost_lines(est)
    assert max(map(len, lines)) <= P.WIDTH, max(lines, key=len)
    text = " ".join(lines)
    assert "about 40-55 minutes" in text and "50 % of the CPU" in text and "about 80-110 minutes" in text


def test_a_claim_id_too_long_for_its_column_stands_on_its_own_line(capsys):
    long_id = "a-claim-whose-id-says-everything-" * 4  # 132 characters
    raw = one_study([dict(AT_LEAST, id=long_id, where={"norm": "post"})], range(6))
    lines = P.layout(P.plan(C.validate(raw)), 0.05)
    assert max(map(len, lines)) <= P.WIDTH
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(long_id[:40]))
    assert lines[at + 2].split()[:3] == ["at_least", "6", "1"]  # the id over two lines, then its numbers


def test_wide_and_csv_print_every_field(capsys):
    wide = "\n".join(_printed(capsys, str(REPO / "config" / "smoke.yaml"), "--no-timing", "--wide"))
    assert all(col in wide for col in ("supported_after", "robust_from", "seeds_needed", "bonferroni"))
    csv_text = "\n".join(_printed(capsys, str(REPO / "config" / "smoke.yaml"), "--no-timing", "--csv"))
    table = pd.read_csv(io.StringIO(csv_text.split("\n\n")[0]))
    assert list(table.columns) == P.PLAN_COLUMNS and len(table) == 11


def test_the_plan_prices_what_is_left_to_train_per_study_and_once_for_all(tmp_path):
    import json

    cfg = C.validate(one_study([AT_LEAST], range(3)))
    runs = cfg.studies["s"].runs()
    for run in runs[:2]:  # two finished runs
        d = tmp_path / run.hash
        d.mkdir()
        (d / "settings.json").write_text(json.dumps(run.settings.as_dict()))
        (d / "metrics.csv").write_text("train_seconds\n2.0\n")
    cal = T.Calibration(per_unit=0.01, per_run=0.5, other_job=1.0, start=1.0, basis="b")
    row = P.cost(cfg, cal, store=tmp_path).set_index("study").loc["s"]
    left = sum(0.5 + 0.01 * cost_estimate(r.settings) for r in runs[2:]) / 60
    assert (row["runs"], row["in_store"], row["to_train"]) == (str(len(runs)), "2", str(len(runs) - 2))
    assert float(row["cpu_minutes"]) == pytest.approx(left, abs=0.05)
    assert P.cost(cfg, None, store=tmp_path)["cpu_minutes"].tolist() == ["", ""]


def test_the_default_config_passes_its_own_plan(capsys):
    """Every claim of config/config.yaml can reach both verdicts (the factorial and position studies
    through adaptive rounds), `make plan` prints no warning, and an adaptive study is priced from its
    first round to every round at max_seeds in the cells its claims read, its scopes' runs (robust_over,
    at its own seeds) in both."""
    from ablation import adaptive as A

    cfg = C.load(REPO / "config" / "config.yaml")
    table = P.plan(cfg)
    share = table[table["test"] != "e-mean"]
    assert (share["supported"] == "yes").all(), table
    # the length studies' trained-lengths claims (5 cells, 8 seeds) reach CONTRADICTED in one cell, the
    # sign test's 1/256 over Bonferroni's 5 cells, from the first Holm step whose level it meets: the
    # second of their family's 3 (alpha / 2), once one other claim is decided (the config says so)
    late = share[share["contradicted"] == "no"]
    assert set(late["claim"]) == {"LR1-trained-lengths", "LC1-trained-lengths"}, table
    for row in late.itertuples():
        study = next(s for s in cfg.studies.values() if any(c.id == row.claim for c in s.claims))
        p, m = 0.5 ** len(study.seeds) * len(study.factors["pos_enc"]), row.family
        first = next(k for k in range(1, m + 1) if p <= cfg.stats["alpha"] / (m - k + 1))
        assert (m, first, row.contradicted_step) == (3, 2, 2)
    assert P.main([str(REPO / "config" / "config.yaml"), "--no-timing"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    # a mean claim's margin of 2 pp costs the bounded mean test about 200 seeds per cell: the plan warns
    # for exactly the claims whose seeds cannot reach a verdict even at Holm's last step, notes those
    # that reach it only at a later step, and prints each mean claim's price
    short = table[(table["supported"] == "no") | (table["contradicted"] == "no")]
    assert set(short[~short["claim"].isin(late["claim"])]["test"]) <= {"e-mean"}
    never = short[short["supported_step"].isna() | short["contradicted_step"].isna()]
    assert sorted(w.split(":")[0] for w in out.split("warning: ")[1:]) == sorted(never["claim"])
    assert sorted(w.split(":")[0] for w in out.split("note: ")[1:]) == sorted(set(short["claim"]) - set(never["claim"]))
    assert "note: LR1-trained-lengths: its 8 seeds reach CONTRADICTED only from Holm step 2 of 3" in out
    for claim in short[~short["claim"].isin(late["claim"])]["claim"]:
        assert f"- {claim}: estimand mean; " in out and "the mean test reaches SUPPORTED from " in out
    costs = P.cost(cfg, None, store=REPO / "no-store-here").set_index("study")
    for name in ("factorial", "position", "depth"):
        study, block = cfg.studies[name], design.adaptive_block(cfg.raw["studies"][name])
        extra = A.round_runs(study, block["max_seeds"])
        first = len(study.runs()) + len(design.scope_runs(study, study.seeds))
        assert costs.loc[name, "runs"] == f"{first}-{first + len(extra)}"
        assert not {r.hash for r in extra} & {r.hash for r in study.runs()}
    # the rounds add seeds only in the cells a claim with rounds reads: C3's and C4's 20 of 48
    assert len(A.round_runs(cfg.studies["factorial"], 9)) == 20 * 2


def test_the_plan_prices_each_scope_and_says_what_its_seeds_can_reach(capsys):
    """Per claim with robust_over: its universes, the runs its other universes add at the study's seeds,
    the agreeing seeds for ROBUST (SUPPORTED at the claim's Holm level in every universe) and the failing
    seeds for LIMITED (CONTRADICTED at Holm over the universes: a stricter level, so never fewer)."""
    cfg = C.load(REPO / "config" / "config.yaml")
    table = P.plan(cfg)
    rows = {r["claim"]: r for r in P.scope_plan(cfg, table, store=REPO / "no-store-here")}
    scoped = {c.id: (name, c) for name, s in cfg.studies.items() for c in s.claims if c.robust_over}
    assert set(rows) == set(scoped) and rows
    for cid, (name, c) in scoped.items():
        study, r = cfg.studies[name], rows[cid]
        assert r["universes"] == len(c.universes()) and r["runs"] == r["to_train"]
        assert r["runs"] == len({run.hash for run in design.scope_runs(study, study.seeds)
                                 if run.hash in {x.hash for u in design.other_universes(c, study)
                                                 for combo in design.claim_combinations(c, study)
                                                 for x in [design.make_run(study, combo, s, u) for s in study.seeds]}})
        supported_after = table.set_index("claim").loc[cid, "supported_after"]
        assert (pd.isna(r["robust_after"]) and pd.isna(supported_after)) or r["robust_after"] == supported_after
        sup_alone, con_alone = P.agreeing_seeds(c, 0.05, 1, False, 0.05, P.MAX_SEEDS)
        assert r["limited_after"] is None or r["limited_after"] >= con_alone
    assert P.main([str(REPO / "config" / "config.yaml"), "--no-timing"]) == 0
    out = capsys.readouterr().out
    assert "Where it holds (claims with robust_over):" in out
    assert all(f"- scope of {cid}: 2 universes over lr; " in " ".join(out.split()) for cid in scoped)
