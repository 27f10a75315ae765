"""Tests of ablation.plan: which verdicts a config's seeds can reach, before any training."""

from __future__ import annotations

import copy
import io

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats as sps

from ablation import config as C
from ablation import design
from ablation import plan as P
from ablation import timing as T
from ablation.settings import cost_estimate
from conftest import REPO

SMOKE = C.load_yaml(REPO / "config" / "smoke.yaml")


@pytest.fixture(autouse=True)
def _no_run_store(tmp_path, monkeypatch):
    """The run store is results/runs under the working folder: a test that says "no runs" reads an
    empty one, whatever a run in the checkout left there (the reference stays the repository's)."""
    monkeypatch.chdir(tmp_path)

AT_LEAST = {"id": "c", "statement": "reaches it", "kind": "at_least", "threshold": 0.9}


def one_study(claims, seeds, factors=None) -> dict:
    raw = copy.deepcopy(SMOKE)
    raw["studies"] = {"s": {"fixed": {"arch": "encoder", "depth": 2}, "factors": factors or {"norm": ["post", "pre"]},
                            "seeds": list(seeds), "claims": claims}}  # fmt: skip
    raw.get("report", {}).pop("headline", None)
    return raw


def exact_sign_power(n: int, chance: float, level: float) -> float:
    """The sign test's chance to reach SUPPORTED at ``level`` on ``n`` seeds, each meeting the claim
    with ``chance``: exact, from the binomial (the simulation's 2,000 draws must agree)."""
    k = np.arange(n + 1)
    return float(sps.binom.pmf(k, n, chance)[sps.binom.sf(k - 1, n, 0.5) <= level].sum())


def test_a_share_claim_is_priced_at_seeds_that_meet_it_by_chance_not_every_one():
    """Two claims in the family (alpha / 2), no runs: each seed meets the claim with chance 0.9. The
    sign test reaches SUPPORTED with probability 0.8 from 12 seeds (exact: 0.89; 11 seeds: 0.70), not
    from the 6 that every seed meeting it would need (2**-6 <= 0.025)."""
    fewest = next(n for n in range(2, 40) if exact_sign_power(n, 0.9, 0.025) >= P.pricing.POWER)
    assert fewest == 12 and exact_sign_power(11, 0.9, 0.025) < 0.75 < 0.85 < exact_sign_power(12, 0.9, 0.025)
    claims = [dict(AT_LEAST, id=f"c{i}", where={"norm": "post"}) for i in range(2)]
    for n in (11, 12):
        row = P.plan(C.validate(one_study(claims, range(n)))).iloc[0]
        assert (row["supported_after"], row["contradicted_after"]) == (fewest, fewest)  # 0.1 mirrors 0.9
        assert "chance 0.9 (assumed)" in row["supported_at"] and row["runs"] == "no runs"
    # whether the design can decide at all is judged at the truth of a clear answer, every seed agreeing:
    # 6 seeds reach alpha / 2 (2**-6), 5 do not
    for n, reachable in [(5, "no"), (6, "yes")]:
        row = P.plan(C.validate(one_study(claims, range(n)))).iloc[0]
        assert (row["supported"], row["contradicted"]) == (reachable, reachable), n


def test_contradicted_in_one_of_more_cells_pays_bonferroni_and_supported_needs_every_cell():
    one = P.plan(C.validate(one_study([dict(AT_LEAST, where={"norm": "post"})], range(12)))).iloc[0]
    six = P.plan(C.validate(one_study([AT_LEAST], range(12), {"norm": ["post", "pre"], "heads": [1, 2, 4]}))).iloc[0]
    assert (one["cells"], six["cells"], six["bonferroni"]) == (1, 6, 6)
    assert six["contradicted_after"] > one["contradicted_after"] and six["supported_after"] > one["supported_after"]


def test_the_plan_refuses_a_claim_its_seeds_cannot_decide_in_one_line_naming_the_seeds(tmp_path, capsys):
    raw = one_study([dict(AT_LEAST, where={"norm": "post"})], range(4))
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(raw))
    assert P.main([str(tmp_path / "c.yaml"), "--no-timing"]) == 1
    out, err = capsys.readouterr()
    need = P.plan(C.validate(raw)).iloc[0]
    assert need["supported_after"] == next(n for n in range(2, 40) if exact_sign_power(n, 0.9, 0.05) >= P.pricing.POWER)
    assert err.splitlines() == [
        f"error: c: its 4 seeds per cell reach neither verdict at Holm's first step (alpha / 1) with probability 0.8: "
        f"it needs {max(need['supported_after'], need['contradicted_after'])} seeds per cell. Add seeds, or say why "
        "in the claim's undecidable_ok"]  # fmt: skip
    assert max(map(len, out.splitlines())) <= P.WIDTH  # the plan itself, printed in full before the error
    # --csv refuses it too
    assert P.main([str(tmp_path / "c.yaml"), "--no-timing", "--csv"]) == 1
    assert capsys.readouterr().err.startswith("error: c: ")


def test_undecidable_ok_accepts_the_claim_knowingly_and_says_why(tmp_path, capsys):
    raw = one_study([dict(AT_LEAST, where={"norm": "post"}, undecidable_ok="a pilot: its runs size the study")], range(4))
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(raw))
    assert P.main([str(tmp_path / "c.yaml"), "--no-timing"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "accepted: c: its 4 seeds per cell reach neither verdict" in " ".join(out.split())
    assert "undecidable_ok: a pilot: its runs size the study" in " ".join(out.split())
    raw["studies"]["s"]["claims"][0]["undecidable_ok"] = True  # a reason, not a flag
    with pytest.raises(C.ConfigError, match="undecidable_ok"):
        C.validate(raw)


NOT_WORSE = {"id": "nw", "statement": "pre is not worse", "kind": "not_worse", "factor": "norm", "levels": ["post", "pre"],
             "margin": 0.02, "estimand": "mean"}  # fmt: skip


def paired_store(store, cfg, differences, acc=0.8):
    """Runs in ``store``: each seed's post-norm run at ``acc``, its pre-norm run ``differences[seed]``
    apart (on the grid of 300 test sequences)."""
    for run in cfg.studies["s"].runs():
        value = acc + (differences[run.settings.seed] if run.factors["norm"] == "pre" else 0.0)
        (store / run.hash).mkdir(parents=True, exist_ok=True)
        pd.DataFrame([{"test_acc": value, "test_total": 300, "status": "ok", "final_train_acc": 1.0,
                       "train_seconds": 1.0}]).to_csv(store / run.hash / "metrics.csv", index=False)  # fmt: skip


def test_the_noise_is_the_sd_of_the_runs_paired_differences(tmp_path):
    """Not two independent models on the test set: the sd over seeds of the claim's own paired
    differences, from the run store, and from the reference where the store has none."""
    cfg = C.validate(one_study([NOT_WORSE], range(10)))
    d = np.array([0, 1, -1, 2, 0, -2, 1, 0, -1, 1]) / 300
    paired_store(tmp_path / "runs", cfg, d)
    row = P.plan(cfg, store=tmp_path / "runs", reference=tmp_path / "none").iloc[0]
    assert row["noise"] == pytest.approx(np.std(d, ddof=1), rel=1e-9) and row["runs"] == "20 runs in the store"
    assert "sd 0.4 pp (measured)" in row["supported_at"]  # 1.2 test sequences of 300
    # the committed reference's form: hash, test_acc and status only; a run of another design is left out
    summary = pd.concat([pd.read_csv(tmp_path / "runs" / r.hash / "metrics.csv").assign(hash=r.hash)
                         for r in cfg.studies["s"].runs()])  # fmt: skip
    summary = pd.concat([summary, pd.DataFrame([{"hash": "0" * 16, "test_acc": 0.0, "status": "ok"}])])
    (tmp_path / "ref" / "s").mkdir(parents=True)
    summary[["hash", "test_acc", "status"]].to_csv(tmp_path / "ref" / "s" / "summary.csv", index=False)
    row = P.plan(cfg, store=tmp_path / "empty", reference=tmp_path / "ref").iloc[0]
    assert row["noise"] == pytest.approx(np.std(d, ddof=1), rel=1e-9) and row["runs"] == "20 runs of ref/s"
    # no runs: the stated default
    row = P.plan(cfg, store=tmp_path / "empty", reference=tmp_path / "none").iloc[0]
    assert row["noise"] == P.pricing.DEFAULT_NOISE and row["runs"] == "no runs"


def test_a_mean_claim_is_priced_at_the_noise_its_runs_show_not_at_the_range_s_ends(tmp_path):
    """Seeds priced at +-100 pp would decide in a handful whatever the noise; priced at the runs' own
    effect and noise, noisier runs need more seeds, and CONTRADICTED (twice the margin away, -4 pp) fewer
    than SUPPORTED of an effect near the margin."""
    cfg = C.validate(one_study([NOT_WORSE], range(10)))
    rng = np.random.default_rng(0)
    prices = {}
    for name, spread in (("quiet", 1), ("noisy", 30)):
        d = rng.integers(-spread, spread + 1, size=10) / 300
        d -= d.mean() - 0.005  # mean +0.5 pp: 2.5 pp inside the margin
        paired_store(tmp_path / name, cfg, np.round(d * 300) / 300)
        prices[name] = P.plan(cfg, store=tmp_path / name, reference=tmp_path / "none").iloc[0]
    quiet, noisy = prices["quiet"], prices["noisy"]
    assert quiet["noise"] < 0.01 < noisy["noise"]
    assert quiet["supported_after"] < noisy["supported_after"] and quiet["contradicted_after"] < noisy["contradicted_after"]
    assert noisy["supported_after"] > 10 and noisy["supported"] == "no"
    # the truths it prices: the runs' mean and sd for SUPPORTED; 2 x margin below 0 for CONTRADICTED
    sims, measured = P.pricing.simulations(cfg.studies["s"], cfg.studies["s"].claims[0], 1, 0.05, None,
                                   P.pricing.study_runs(cfg.studies["s"], None, tmp_path / "quiet", tmp_path / "none"))  # fmt: skip
    cell = measured.cells[0][0]
    assert sims["SUPPORTED"].truth.effect[0, 0] == pytest.approx(cell.lo.mean())
    assert sims["CONTRADICTED"].truth.effect[0, 0] == pytest.approx(-0.04)
    drawn = sims["SUPPORTED"]._further(0, 0, 50)
    # the cell's own seeds, resampled, plus a normal of Silverman's bandwidth
    spread = np.hypot(cell.lo.std(), P.pricing.bandwidth(cell.lo - cell.lo.mean()))
    assert abs(drawn.mean() - cell.lo.mean()) < 0.001 and drawn.std() == pytest.approx(spread, rel=0.05)


def test_a_cell_s_stray_seed_is_drawn_as_often_as_its_runs_show_it_not_spread_over_every_seed(tmp_path):
    """Nine seeds within a pp and one 15 pp out (C3's post-norm cell at length 32 looks so): a normal of
    their sd (4.7 pp) would put a third of further seeds beyond the 2 pp margin; the runs' own seeds,
    resampled, put a tenth there, as the runs do, and the rest where the nine lie."""
    cfg = C.validate(one_study([NOT_WORSE], range(10)))
    d = np.array([0, 1, 0, -1, 0, 1, 2, 0, -1, -45]) / 300
    paired_store(tmp_path / "runs", cfg, d)
    sims, measured = P.pricing.simulations(cfg.studies["s"], cfg.studies["s"].claims[0], 1, 0.05, None,
                                   P.pricing.study_runs(cfg.studies["s"], None, tmp_path / "runs", tmp_path / "none"))  # fmt: skip
    drawn = sims["SUPPORTED"]._further(0, 0, 50)
    beyond = float((drawn < -0.02).mean())
    assert beyond == pytest.approx(0.1, abs=0.01)
    assert abs(np.median(drawn)) < 0.005
    assert "its seeds' own deviations resampled" in sims["SUPPORTED"].truth.words


def test_supported_in_a_cell_where_the_claim_fails_is_priced_with_the_spread_of_the_cells_where_it_holds(tmp_path):
    """An equivalent claim over two cells: in heads=1 the seeds tie within a step of 0; in heads=4 they lie
    7 pp below with one seed 3 pp apart (P4's bidirectional length-32 cell looks so). SUPPORTED at a clear
    answer draws heads=4's seeds from heads=1's spread, not from the stray of seeds where the claim
    fails; CONTRADICTED keeps each cell's own, at the runs' effect, 7 pp out: clearer than twice the margin."""
    equivalent = {"id": "eq", "statement": "about as good", "kind": "equivalent", "factor": "norm",
                  "levels": ["post", "pre"], "margin": 0.02, "estimand": "mean"}  # fmt: skip
    cfg = C.validate(one_study([equivalent], range(10), {"norm": ["post", "pre"], "heads": [1, 4]}))
    differences = {1: np.array([0, 0, 1, 0, -1, 0, 0, 1, 0, 0]) / 300,
                   4: np.array([-21, -21, -20, -22, -21, -21, -12, -20, -22, -21]) / 300}  # fmt: skip
    store = tmp_path / "runs"
    for run in cfg.studies["s"].runs():
        value = 0.9 + (differences[run.factors["heads"]][run.settings.seed] if run.factors["norm"] == "pre" else 0.0)
        (store / run.hash).mkdir(parents=True, exist_ok=True)
        pd.DataFrame([{"test_acc": value, "test_total": 300, "status": "ok", "final_train_acc": 1.0,
                       "train_seconds": 1.0}]).to_csv(store / run.hash / "metrics.csv", index=False)  # fmt: skip
    study, c = cfg.studies["s"], cfg.studies["s"].claims[0]
    sources = P.pricing.study_runs(study, None, store, tmp_path / "none")
    clear, measured = P.pricing.simulations(study, c, 2, 0.05, None, sources, design=True)
    inside, beyond = (measured.cells[i][0].lo - measured.cells[i][0].lo.mean() for i in (0, 1))
    sup, con = clear["SUPPORTED"].truth, clear["CONTRADICTED"].truth
    np.testing.assert_allclose(np.sort(sup.deviations[1][0]), np.sort(inside))
    np.testing.assert_allclose(np.sort(con.deviations[1][0]), np.sort(beyond))
    assert sup.noise[1, 0] == pytest.approx(max(inside.std(ddof=1), P.pricing.NOISE_FLOOR))
    drawn = clear["SUPPORTED"]._further(1, 0, 50)
    assert float((np.abs(drawn) > 0.02).mean()) == 0.0  # no draw past the margin at the band's centre
    # CONTRADICTED at a clear answer is twice the margin out, or the runs' effect where it lies further out
    assert con.effect[1, 0] == pytest.approx(measured.cells[1][0].lo.mean()) and con.effect[0, 0] == 0.0
    assert "(measured)" in con.words
    twice = P.pricing.simulations(study, c, 2, 0.05, None, [], design=True)[0]["CONTRADICTED"].truth
    assert float(np.max(twice.effect)) == pytest.approx(0.04)  # no runs: twice the margin from the centre


def test_a_verdict_reachable_only_at_a_later_holm_step_is_named_with_its_step(capsys, tmp_path):
    """Six seeds, every one meeting the claim (the truth of a clear answer): the sign test's p is
    2**-6 = 0.0156, above alpha / 6 and alpha / 4, at most alpha / 3: with six claims in the family,
    SUPPORTED only from Holm step 4 of 6; the error says so beside the seeds it needs."""
    claims = [dict(AT_LEAST, id=f"c{i}", where={"norm": "post"}) for i in range(6)]
    raw = one_study(claims, range(6))
    row = P.plan(C.validate(raw)).iloc[0]
    first = next(k for k in range(1, 7) if 2.0**-6 <= 0.05 / (6 - k + 1))
    assert first == 4 and (row["supported"], row["supported_step"]) == ("no", first)
    assert f"SUPPORTED from Holm step {first} of 6" in row["note"]
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(raw))
    assert P.main([str(tmp_path / "c.yaml"), "--no-timing"]) == 1
    assert f"SUPPORTED only from Holm step {first} of 6" in capsys.readouterr().err.splitlines()[0]


def test_the_holm_steps_read_one_simulation_of_the_claim_s_seeds(monkeypatch):
    """Every Holm step's level is read off the same simulated p-values at the claim's seeds: one call of
    the claims table's test per cell and count of seeds, however many steps the family has."""
    calls = []
    original = P.verdicts.p_values
    monkeypatch.setattr(P.verdicts, "p_values", lambda *a, **k: calls.append(a[2].shape) or original(*a, **k))
    P._PLANNED.clear()
    P.plan(C.validate(one_study([dict(AT_LEAST, id=f"c{i}", where={"norm": "post"}) for i in range(6)], range(12))))
    at_its_seeds = [shape for shape in calls if shape == (P.pricing.DRAWS, 12)]
    # six claims, two verdicts, each once at the runs' truth (its price) and once at a clear answer's
    # (whether the design can decide)
    assert len(at_its_seeds) == 6 * 2 * 2


def test_exact_claims_need_no_seeds_and_join_no_family():
    exact = {"id": "x", "statement": "chance", "kind": "at_value", "target": 0.5, "tolerance": 0.0034, "exact": True}
    table = P.plan(C.validate(one_study([exact, AT_LEAST], range(5)))).set_index("claim")
    assert table.loc["x", "test"] == "exact" and pd.isna(table.loc["x", "family"])
    assert table.loc["c", "family"] == 1 and table.loc["c", "level"] == 0.05
    assert P.refusals(table.reset_index())[0][0].startswith("error: c: ")  # x is never refused


def test_one_seed_reaches_nothing():
    row = P.plan(C.validate(one_study([AT_LEAST], [0]))).iloc[0]
    assert (row["supported"], row["contradicted"]) == ("no", "no")
    assert row["note"].startswith("no verdict from fewer than 2 seeds")


def test_the_plans_numbers_are_fields_and_its_note_says_only_the_rest():
    """The test, the family and its Holm level, the seeds after which each verdict is reached, the
    truths they are priced at and from how many seeds a verdict is robust are columns."""
    grad = {"id": "g", "statement": "grows", "kind": "grad_trend", "factor": "norm", "growing": "post", "flat": "pre",
            "flat_margin": 0.1}
    raw = one_study([AT_LEAST, dict(AT_LEAST, id="s8", share=0.8), grad], range(24))
    table = P.plan(C.validate(raw)).set_index("claim")
    c = table.loc["c"]
    assert (c["test"], c["family"], c["bonferroni"]) == ("sign", 3, 2)
    assert c["robust_from"] == max(c["supported_after"], c["contradicted_after"]) + 1  # a seed of slack
    assert c["note"] == "" and table.loc["s8", "note"].startswith("share > 0.8")
    assert "chance 0.96 (assumed)" in table.loc["s8", "supported_at"]  # 1 - (1 - 0.8) / 5
    assert table.loc["g", "bonferroni"] == 2 * 1 and "2 conditions a cell" in table.loc["g", "note"]


def _printed(capsys, *argv) -> list[str]:
    """The plan's lines on stdout (its errors go to stderr, whatever they refuse)."""
    P.main(list(argv))
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("config", ["config.yaml", "smoke.yaml"])
def test_make_plan_fits_100_columns(capsys, config):
    lines = _printed(capsys, str(REPO / "config" / config), "--no-timing")
    assert max(map(len, lines)) <= P.WIDTH, max(lines, key=len)
    ids = list(P.plan(C.load(REPO / "config" / config))["claim"])
    # one row of numbers per claim and at most one line of words under it; the legend once
    rows = lines[: next(k for k, line in enumerate(lines) if line.startswith("test: "))]  # the table
    assert all(sum(line.strip().startswith(i) for line in rows) == 1 for i in ids)
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
    assert all(col in wide for col in ("supported_after", "robust_from", "seeds_needed", "bonferroni", "noise", "supported_at"))
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
    """Every claim of config/config.yaml reaches both verdicts at Holm's first step with probability
    0.8 at its priced truths, or says why not (undecidable_ok): `make plan` refuses nothing. Each
    claim's pricing names where its runs come from, and an adaptive study is priced from its first
    round to every round at max_seeds in the cells its claims read, its scopes' runs (robust_over) at
    its own seeds in both and in their own rounds in the second."""
    from ablation import adaptive as A

    cfg = C.load(REPO / "config" / "config.yaml")
    table = P.plan(cfg)
    errors, accepted = P.refusals(table)
    assert errors == [], "\n".join(errors)
    short = table[(table["supported"] == "no") | (table["contradicted"] == "no")]
    assert set(short["claim"]) == {r.split(": ")[1] for r in accepted}
    assert (short["undecidable_ok"] != "").all()
    assert P.main([str(REPO / "config" / "config.yaml"), "--no-timing"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for r in table[table["test"] != "exact"].itertuples():
        assert r.claim in out.split("How each verdict is priced")[1] and f"({r.runs})" in out
    costs = P.cost(cfg, None, store=REPO / "no-store-here").set_index("study")
    adaptive = [name for name in cfg.studies if design.adaptive_block(cfg.raw["studies"][name]) is not None]
    assert adaptive == ["depth"]
    for name in adaptive:
        study, block = cfg.studies[name], design.adaptive_block(cfg.raw["studies"][name])
        extra = A.round_runs(study, block["max_seeds"])
        first = len(study.runs()) + len(design.scope_runs(study, study.seeds))
        assert costs.loc[name, "runs"] == f"{first}-{first + len(extra)}"
        assert not {r.hash for r in extra} & {r.hash for r in study.runs()}


def _default_with_scopes(tmp_path):
    """config/config.yaml with the question its comments leave out: where C5b and P4 hold over the
    learning rate (robust_over: {lr: [0.003, 0.01]}), as a user asks it."""
    raw = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    for name, cid in (("depth", "C5b-warmup-helps-post"), ("position", "P4-learned-like-sinusoidal")):
        claim = next(c for c in raw["studies"][name]["claims"] if c["id"] == cid)
        claim["robust_over"] = {"lr": [0.003, 0.01]}
    (tmp_path / "scoped.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    return C.load(tmp_path / "scoped.yaml")


def test_the_most_an_adaptive_study_can_train_holds_every_run_its_reference_trained(tmp_path):
    """The plan's upper count (first round, scope runs at the study's seeds, every round to max_seeds)
    holds each run the depth study's reference trained; a scope's universe takes rounds of its own, so
    with C5b asked over lr the count holds lr 0.003 runs past the study's first seeds."""
    import pandas as pd

    from ablation import adaptive as A

    def possible(cfg):
        study, block = cfg.studies["depth"], design.adaptive_block(cfg.raw["studies"]["depth"])
        runs = [*study.runs(), *design.scope_runs(study, study.seeds), *A.round_runs(study, block["max_seeds"])]
        return study, runs

    study, runs = possible(C.load(REPO / "config" / "config.yaml"))
    trained = set(pd.read_csv(REPO / "reference" / "depth" / "summary.csv", dtype=str)["hash"])
    assert trained <= {r.hash for r in runs}
    study, runs = possible(_default_with_scopes(tmp_path))
    rounds = [r for r in runs if r.settings.lr == 0.003 and r.settings.seed >= len(study.seeds)]
    assert rounds and {r.settings.seed for r in rounds} == set(range(len(study.seeds), 20))


def test_the_default_config_s_margin_claims_are_priced_at_the_reference_runs_paired_noise():
    """The committed reference runs of the factorial and position studies give C3, C4, P3 and P4 their
    noise: the sd over seeds of each cell's paired differences (0.1 to 5.2 pp), not the 4.1 pp two
    independent models on 300 test sequences would differ by."""
    cfg = C.load(REPO / "config" / "config.yaml")
    table = P.plan(cfg, store=REPO / "no-store-here").set_index("claim")
    for cid in ("C3-heads", "C4-seq-len", "P3-rope-not-worse-at-32", "P4-learned-like-sinusoidal"):
        row = table.loc[cid]
        assert row["runs"].endswith(f"runs of reference/{row['study']}"), row["runs"]
        assert 0.001 < row["noise"] < 0.06 and "(measured" in row["supported_at"]


def test_the_plan_prices_each_scope_and_says_what_its_seeds_can_reach(capsys, tmp_path):
    """Per claim with robust_over: its universes, the runs its other universes add at the study's seeds,
    the seeds for ROBUST (SUPPORTED at the claim's Holm level in every universe) and for LIMITED
    (CONTRADICTED at Holm over the universes: a stricter level, so never fewer)."""
    cfg = _default_with_scopes(tmp_path)
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
        row = table.set_index("claim").loc[cid]
        assert (pd.isna(r["robust_after"]) and pd.isna(row["supported_after"])) or r["robust_after"] == row["supported_after"]
        # LIMITED: CONTRADICTED's truth in one universe at a stricter level than the claim's, so never fewer seeds
        assert r["limited_after"] is None or pd.isna(row["contradicted_after"]) or r["limited_after"] >= row["contradicted_after"]
    P.main([str(tmp_path / "scoped.yaml"), "--no-timing"])
    out = capsys.readouterr().out
    assert "Where it holds (claims with robust_over):" in out
    assert all(f"- scope of {cid}: 2 universes over lr; " in " ".join(out.split()) for cid in scoped)


def test_a_share_claim_is_warned_of_noise_across_its_margin_only_where_its_metric_steps_below_it():
    """test_acc moves in steps of one test sequence, so seeds near a 10 pp margin are pushed across it
    by noise of 32 pp; converged is 0 or 1 per seed, so a paired difference ties or clears any margin
    below 1, and its seeds' spread is whether they converge, which no warning should call noise."""
    table = pd.DataFrame([dict(claim=cid, test="sign", margin=0.1, noise=0.32, runs="10 runs", supported_at="s",
                               contradicted_at="c") for cid in ("acc", "conv")])  # fmt: skip
    steps = {"acc": P.measures.resolution(pd.DataFrame(), "test_acc"),
             "conv": P.measures.resolution(pd.DataFrame(), "converged")}  # fmt: skip
    warned = [line for line in P.price_lines(table, 10**6, steps) if line.startswith("warning:")]
    assert len(warned) == 1 and warned[0].startswith("warning: acc: its margin (10 pp)"), warned


def test_the_default_plan_does_not_call_c5a_s_converged_seeds_noise(capsys):
    """C5a reads converged (0 or 1 per seed) under a 10 pp margin: the plan prices it, and warns of
    nothing, since a seed's paired difference ties or clears the margin."""
    assert P.main([str(REPO / "config" / "config.yaml"), "--cores", "2"]) == 0
    out = capsys.readouterr().out
    assert "C5a-prenorm-converges" in out and "warning: C5a" not in out.replace("\n", " ")
