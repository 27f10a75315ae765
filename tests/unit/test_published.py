"""A study's published result (``published``): what the config check refuses, in one line, before
any job; the table of our numbers beside it, and whether our means order the levels as the paper does
(ablation.published); the report's section is checked on the smoke run (tests/workflow/test_report.py)."""

import json
import re

import pandas as pd
import pytest

from ablation import config as C
from ablation import published
from test_config_validation import mutate, study

DECODER = {"arch": "decoder", "attn_mask": "causal", "task": "repeat_copy", "heads": 2, "depth": 1, "seq_len": 4}
PUBLISHED = {"source": "a paper", "protocol": "theirs", "metric": "exact_match", "lengths": [5, 8], "factor": "pos_enc",
             "values": {"none": 0.99, "rope": 0.0}}  # fmt: skip


def with_published(**changes):
    def fn(cfg):
        study(cfg).update(fixed=DECODER, factors={"pos_enc": ["none", "rope"]}, eval_lengths={"from": 1, "to": 8},
                          published=PUBLISHED | changes)  # fmt: skip

    return fn


def test_a_published_block_of_the_study_s_factor_metric_and_lengths_is_accepted():
    cfg = C.validate(mutate(with_published()))
    assert cfg.raw["studies"]["s1"]["published"]["values"] == {"none": 0.99, "rope": 0.0}


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"factor": "norm"}, "published.factor: 'norm' is not a factor of the study (its factors: pos_enc)"),
        ({"values": {"alibi": 0.3}}, "published.values: 'alibi' is not a level of pos_enc (none, rope)"),
        ({"metric": "accuracy"}, "published.metric: 'accuracy' is not a metric of task repeat_copy (its metrics: exact_match, token_accuracy)"),
        ({"lengths": [9, 16]}, "published.lengths: [9, 16] includes lengths the study does not evaluate: 9-16 (it evaluates 1-8)"),
        ({"lengths": [5, 12]}, "published.lengths: [5, 12] includes lengths the study does not evaluate: 9-12 (it evaluates 1-8)"),
        ({"lengths": [8, 5]}, "published.lengths: [8, 5] runs backwards; write [5, 8]"),
        ({"values": {"none": 98.56}}, "published.values.none: 98.56 lies outside exact_match's range [0, 1]; did you mean 0.9856?"),
        ({"values": {"rope": -0.1}}, "published.values.rope: -0.1 lies outside exact_match's range [0, 1]"),
        ({"lengths": [9]}, "published.lengths: must be a list of exactly 2 values, got [9]"),
        ({"task": "reverse"}, "published.task: 'reverse' is not a task of the study (its tasks: repeat_copy)"),
        ({"values": {"t5": 0.77}}, "published.values: 't5' is not a level of pos_enc (none, rope)"),
    ],
    ids=["factor", "level", "metric", "lengths", "lengths-partly", "lengths-backwards", "percent", "negative", "one-length",
         "task", "encoding"],
)  # fmt: skip
def test_a_wrong_published_block_is_one_line(changes, message):
    with pytest.raises(C.ConfigError) as info:
        C.validate(mutate(with_published(**changes)))
    assert str(info.value) == f"study 's1': {message}"


def test_every_published_number_of_the_default_config_is_the_papers_own_mean():
    """Each block names the paper's dataset and split in its source; its values are the means that
    benchmarks/probes/published_values.py recomputed from the paper's result file."""
    from conftest import REPO

    paper = json.loads((REPO / "benchmarks/probes/published_values.json").read_text())["published"]
    blocks = {name: body["published"] for name, body in C.load_yaml(REPO / "config/config.yaml")["studies"].items()
              if body.get("published")}  # fmt: skip
    assert len(blocks) >= 3
    for name, block in blocks.items():
        dataset, split = re.search(r"dataset\s+(\S+),\s+split\s+(\S+)", block["source"]).groups()
        assert block["values"] == {enc: paper[f"{dataset} {split}"][enc]["mean"] for enc in block["values"]}, name


PAPER = {"none": 0.9856, "t5": 0.7712, "alibi": 0.2893, "rope": 0.0002, "sinusoidal": 0.0}


def ours(**means) -> pd.DataFrame:
    tab = pd.DataFrame({"level": list(means), "here_mean": list(means.values())})
    return tab.assign(published=tab["level"].map(PAPER))


def test_a_ranking_is_reproduced_when_every_pair_the_paper_separates_is_in_its_order_here():
    """rope 0.0002 and sinusoidal 0.0 are closer than SEPARATED: that pair is unordered, so 9 of the 10 pairs count."""
    result = published.ranking(ours(none=0.9, t5=0.5, alibi=0.3, rope=0.0, sinusoidal=0.01))
    assert (result["pairs"], result["agree"], result["reproduced"]) == (9, 9, True)
    assert result["published"] == "none > t5 > alibi > rope > sinusoidal"
    assert result["here"] == "none > t5 > alibi > sinusoidal > rope"


@pytest.mark.parametrize("means, differs", [
    (dict(none=0.9, t5=0.5, alibi=0.05, rope=0.1, sinusoidal=0.0), [("alibi", "rope")]),
    (dict(none=0.9, t5=0.9, alibi=0.3, rope=0.0, sinusoidal=0.0), [("none", "t5")]),  # a tie here is not the paper's order
    (dict(none=0.0, t5=0.5, alibi=0.3, rope=0.0, sinusoidal=0.0), [("none", "t5"), ("none", "alibi"), ("none", "rope"), ("none", "sinusoidal")]),
])  # fmt: skip
def test_a_ranking_is_not_reproduced_and_names_each_pair_out_of_the_papers_order(means, differs):
    result = published.ranking(ours(**means))
    assert [(d["high"], d["low"]) for d in result["differs"]] == differs
    assert not result["reproduced"] and result["agree"] == 9 - len(differs)
    assert published.words(result).startswith(f"not reproduced: {9 - len(differs)} of 9 pairs")


def test_the_words_name_a_reversed_pair_a_tie_and_a_close_pair_with_both_sides_numbers():
    result = published.ranking(ours(none=0.9, t5=0.33, alibi=0.3, rope=0.3, sinusoidal=0.0))
    assert published.words(result) == (
        "not reproduced: 6 of 9 pairs the paper separates by 0.1 or more ordered its way here (our means by 0.05 or "
        "more, or a SUPPORTED claim); differs: t5 vs alibi (paper 0.77 vs 0.29; ours 0.330 vs 0.300, separated by "
        "less than 0.05), t5 vs rope (paper 0.77 vs 0.00; ours 0.330 vs 0.300, separated by less than 0.05), "
        "alibi = rope here (paper 0.29 vs 0.00; ours 0.300 vs 0.300)")
    assert "t5 < alibi here (paper 0.77 vs 0.29; ours 0.200 vs 0.300)" in published.words(
        published.ranking(ours(none=0.9, t5=0.2, alibi=0.3, rope=0.0, sinusoidal=0.0)))
    assert "t5 vs alibi (paper 0.77 vs 0.29; ours 0.280 vs 0.300, separated by less than 0.05)" in published.words(
        published.ranking(ours(none=0.9, t5=0.28, alibi=0.3, rope=0.0, sinusoidal=0.0)))


def test_a_pair_in_the_papers_order_but_closer_than_here_separated_is_not_reproduced():
    """t5 above alibi here by 0.03: in the paper's order, yet not separated by 0.05."""
    result = published.ranking(ours(none=0.9, t5=0.33, alibi=0.3, rope=0.0, sinusoidal=0.0))
    assert [(d["high"], d["low"]) for d in result["differs"]] == [("t5", "alibi")] and not result["reproduced"]
    assert published.ranking(ours(none=0.9, t5=0.35, alibi=0.3, rope=0.0, sinusoidal=0.0))["reproduced"]  # 0.05 apart: enough


def test_pairs_the_paper_does_not_separate_by_a_tenth_are_not_required():
    """rope 0.0002 and sinusoidal 0.0, and t5 0.77 against a planted 0.70: reversed here, tied here, still reproduced."""
    tab = ours(none=0.9, t5=0.5, alibi=0.3, rope=0.0, sinusoidal=0.01)
    tab.loc[tab["level"] == "alibi", "published"] = 0.70
    tab.loc[tab["level"] == "alibi", "here_mean"] = 0.5  # tied with t5 here, 0.07 apart in the paper
    result = published.ranking(tab)
    assert result["reproduced"] and result["pairs"] == 8 and not result["differs"]


def claims_table(verdict="SUPPORTED", levels=("alibi", "t5"), lengths=(5, 8)):
    """The study's config body (a better claim: levels[1] beats levels[0]) and its claims table with ``verdict``."""
    claim = {"id": "B1", "kind": "better", "factor": "pos_enc", "levels": list(levels), "metric": "exact_match",
             "lengths": list(lengths)}  # fmt: skip
    body = {"published": PUBLISHED, "claims": [claim, {"id": "A1", "kind": "at_least", "metric": "exact_match"}]}
    return pd.DataFrame({"id": ["A1", "B1"], "kind": ["at_least", "better"], "verdict": ["SUPPORTED", verdict]}), body


def test_a_pair_ordered_by_a_supported_better_claim_counts_though_our_means_lie_closer():
    tab = ours(none=0.9, t5=0.31, alibi=0.3, rope=0.0, sinusoidal=0.0)
    assert not published.ranking(tab)["reproduced"]
    result = published.ranking(tab, *claims_table())
    assert result["reproduced"] and result["agree"] == 9 and result["by_claim"] == ["t5 > alibi (B1)"]
    assert "ordered by a claim where our means lie closer: t5 > alibi (B1)" in published.words(result)


@pytest.mark.parametrize("verdict, levels, lengths", [
    ("INCONCLUSIVE", ("alibi", "t5"), (5, 8)),  # not decided
    ("CONTRADICTED", ("alibi", "t5"), (5, 8)),
    ("SUPPORTED", ("t5", "alibi"), (5, 8)),  # decided the other way: alibi beats t5
    ("SUPPORTED", ("alibi", "t5"), (1, 4)),  # at other lengths than the block's
], ids=["inconclusive", "contradicted", "other-way", "other-lengths"])  # fmt: skip
def test_a_claim_orders_a_pair_only_when_supported_in_the_papers_direction_at_the_blocks_lengths(verdict, levels, lengths):
    result = published.ranking(ours(none=0.9, t5=0.31, alibi=0.3, rope=0.0, sinusoidal=0.0), *claims_table(verdict, levels, lengths))
    assert not result["reproduced"] and [(d["high"], d["low"]) for d in result["differs"]] == [("t5", "alibi")]


def test_the_reference_rankings_read_with_their_claims():
    """reference/*/published.csv with its claims.csv: each ranking counts the pairs the paper separates and
    names those that differ; a claim that orders a pair our means already separate changes nothing."""
    from conftest import REPO

    raw = C.load_yaml(REPO / "config/config.yaml")["studies"]
    for name in ("length", "length_reverse", "length_copy"):
        tab = pd.read_csv(REPO / "reference" / name / "published.csv", dtype={"level": str})
        with_claims = published.ranking(tab, pd.read_csv(REPO / "reference" / name / "claims.csv"), raw[name])
        alone = published.ranking(tab)
        assert with_claims["agree"] >= alone["agree"] and with_claims["pairs"] == alone["pairs"] > 0
        for pair in with_claims["differs"]:
            assert pair["paper"][0] - pair["paper"][1] >= published.SEPARATED
            assert pair["here"][0] - pair["here"][1] < published.HERE_SEPARATED


def evaluations(rows) -> pd.DataFrame:
    """rows of (pos_enc, seed, length, value), two runs per seed for 'none' (as when a factor has two levels more)."""
    return pd.DataFrame([{"run_id": f"pos_enc~{enc}/seed~{seed}/r{run}", "pos_enc": enc, "seed": seed, "metric": "exact_match",
                          "length": length, "value": value, "task": "copy"} for enc, seed, run, length, value in rows])  # fmt: skip


def test_the_table_averages_each_run_over_the_lengths_then_each_seed_then_the_seeds():
    ev = evaluations([
        ("none", 0, 0, 3, 1.0), ("none", 0, 0, 4, 0.5), ("none", 0, 1, 3, 0.0), ("none", 0, 1, 4, 0.0),  # seed 0: (0.75 + 0) / 2
        ("none", 1, 0, 3, 1.0), ("none", 1, 0, 4, 1.0), ("none", 1, 0, 2, 0.0),  # length 2 lies outside [3, 4]
        ("rope", 0, 0, 3, 0.25), ("rope", 0, 0, 4, 0.25), ("rope", 1, 0, 3, 0.0), ("rope", 1, 0, 4, 0.0),
    ])  # fmt: skip
    block = {"factor": "pos_enc", "metric": "exact_match", "lengths": [3, 4], "values": {"none": 0.9, "rope": 0.1}}
    tab = published.table(ev, block, ["none", "rope", "alibi"])  # alibi: no runs, no row
    assert tab["level"].tolist() == ["none", "rope"]
    assert tab["here_mean"].tolist() == [(0.375 + 1.0) / 2, 0.125]
    assert tab[["here_seed_min", "here_seed_max", "here_seeds"]].values.tolist() == [[0.375, 1.0, 2], [0.0, 0.25, 2]]
    assert tab["here_rank"].tolist() == [1, 2] and tab["published_rank"].tolist() == [1, 2]
    assert published.table(ev, block | {"task": "reverse"}, ["none"]).empty  # the block's task only


def test_every_published_block_s_value_is_the_mean_of_the_papers_per_length_means():
    """The paper's per-length means (benchmarks/probes/published_values.json) at its test lengths 21-40,
    for each level of each block of the default config: 20 lengths, their mean the block's value up to
    the rounding of each to 4 places; the paper trained at lengths up to 20."""
    from conftest import REPO

    blocks = [body["published"] for body in C.load_yaml(REPO / "config/config.yaml")["studies"].values() if body.get("published")]
    for block in blocks:
        theirs = published.paper_lengths(block)
        assert set(theirs["level"]) == set(block["values"]), block["source"]
        for level, rows in theirs.groupby("level"):
            assert rows["length"].tolist() == list(range(21, 41))
            assert rows["published"].mean() == pytest.approx(block["values"][level], abs=1e-4), (block["source"], level)
        assert published.paper_trained(block) == (2, 20)


def test_a_block_whose_source_names_no_dataset_of_the_paper_has_no_per_length_numbers(tmp_path):
    assert published.paper_lengths(PUBLISHED).empty and published.paper_trained(PUBLISHED) is None
    named = PUBLISHED | {"source": "the paper, dataset s2s_copy, split rsc_tr20_ts40"}
    assert published.paper_lengths(named, tmp_path / "missing.json").empty


def paper_file(tmp_path):
    """A planted published_values.json: 'd s' with none at lengths 9 and 10, the paper trained at 2-8."""
    entry = {"mean": 0.5, "seeds": 3, "values": [0.5] * 3, "per_length": {"9": 0.75, "10": 0.25}, "trained_lengths": [2, 8]}
    path = tmp_path / "paper.json"
    path.write_text(json.dumps({"measured": {}, "published": {"d s": {"none": entry}}}))
    return path


def test_the_lengths_table_holds_ours_per_seed_and_length_beside_the_papers_per_length_means(tmp_path):
    """Per level and length: each seed's runs averaged, then the mean over seeds, the seeds' range and count,
    whether the runs trained there; the paper's mean at each of its lengths beside ours, empty where one
    side has no number; levels in the study's order."""
    ev = evaluations([
        ("none", 0, 0, 3, 1.0), ("none", 0, 1, 3, 0.5), ("none", 1, 0, 3, 0.0),  # seed 0: 0.75 at length 3
        ("none", 0, 0, 9, 0.5), ("none", 0, 1, 9, 0.5), ("none", 1, 0, 9, 0.25),
        ("rope", 0, 0, 3, 1.0), ("rope", 0, 0, 9, 0.0),
    ]).assign(trained=lambda d: d["length"] <= 3)  # fmt: skip
    block = PUBLISHED | {"source": "the paper, dataset d, split s", "lengths": [9, 9]}
    tab = published.lengths_table(ev, block, ["rope", "none"], paper_file(tmp_path))
    assert list(tab.columns) == list(published.LENGTH_COLUMNS)
    assert tab[["level", "length"]].values.tolist() == [["rope", 3], ["rope", 9], ["none", 3], ["none", 9], ["none", 10]]
    none = tab[tab["level"] == "none"].set_index("length")
    assert none.loc[3, ["here_mean", "here_seed_min", "here_seed_max", "here_seeds"]].tolist() == [0.375, 0.0, 0.75, 2]
    assert none.loc[9, ["here_mean", "published"]].tolist() == [0.375, 0.75]
    assert none.loc[10, "here_mean"] != none.loc[10, "here_mean"] and none.loc[10, "published"] == 0.25  # the paper's only
    assert none["trained"].tolist()[:2] == [True, False]
    assert tab.loc[tab["level"] == "rope", "published"].isna().all()
    assert published.lengths_table(ev, block | {"task": "reverse"}, ["none"], paper_file(tmp_path))["here_mean"].isna().all()


def test_the_length_figure_draws_a_panel_per_study_and_says_when_there_is_nothing(tmp_path):
    from PIL import Image

    from ablation.plots import empty_reason

    ev = evaluations([(enc, seed, 0, n, 1.0 / n) for enc in ("none", "rope") for seed in (0, 1) for n in (1, 2, 3)])
    ev = ev.assign(trained=ev["length"] <= 2)
    blocks = {"a": PUBLISHED | {"source": "dataset d, split s"}, "b": PUBLISHED, "c": None}
    widths = {}
    for studies in (["a"], ["a", "b"], ["a", "b", "c"]):
        path = tmp_path / f"{len(studies)}.png"
        published.length_figure({name: ev for name in studies}, blocks, path)
        assert empty_reason(path) is None
        widths[len(studies)] = Image.open(path).size[0]
    assert widths[2] > widths[1] and widths[3] == widths[2]  # a study without a block has no panel
    published.length_figure({"c": ev}, blocks, tmp_path / "none.png")
    assert empty_reason(tmp_path / "none.png")
    table = published.lengths_table(ev, blocks["a"])  # the table as published_lengths.csv holds it draws the same panel
    published.length_figure({"a": table}, blocks, tmp_path / "table.png")
    assert Image.open(tmp_path / "table.png").size == Image.open(tmp_path / "1.png").size


def test_the_scale_counts_the_parameters_the_settings_build_and_the_steps_they_take():
    """The length study: a learned table adds positions x d_model = 82 x 32 parameters to the model without
    positional encoding; 5000 sequences in batches of 100 for 7 epochs are 350 steps (Copy: 10 epochs, 500)."""
    from conftest import REPO

    cfg = C.validate(C.load_yaml(REPO / "config/config.yaml"))
    text = published.scale(cfg.study("length"), cfg.raw["studies"]["length"]["published"])
    low, high = (int(n.replace(",", "")) for n in re.search(r"\(([\d,]+) \(none\) to ([\d,]+) \(learned\) parameters by pos_enc\)", text).groups())
    assert high - low == 82 * 32
    assert "3-block decoder of d_model 32" in text and "5,000 sequences of lengths 1 to 20 for 350 steps (7 epochs in batches of 100" in text
    assert "tested at lengths 21 to 40, 10 seeds" in text
    copy = published.scale(cfg.study("length_copy"), cfg.raw["studies"]["length_copy"]["published"])
    assert "5,000 sequences of lengths 1 to 8 for 500 steps (10 epochs in batches of 100" in copy


def test_the_table_command_writes_the_table_the_lengths_and_the_figure_and_headers_without_a_block(tmp_path):
    from ablation.plots import empty_reason

    ev = evaluations([(enc, seed, 0, n, 0.5) for enc in ("none", "rope") for seed in (0, 1) for n in (5, 8)])
    ev.assign(trained=False).to_csv(tmp_path / "evaluations.csv", index=False)
    for block, rows in ((PUBLISHED, 4), (None, 0)):
        out = tmp_path / str(rows)
        args = ["table", "--study-json", json.dumps({"published": block, "levels": ["none", "rope"]}), "--study", "s1",
                "--evaluations", str(tmp_path / "evaluations.csv"), "--out", str(out / "tables/published.csv"),
                "--lengths-out", str(out / "tables/published_lengths.csv"), "--figure", str(out / "figures/published_lengths.png")]  # fmt: skip
        assert published.main(args) == 0
        lengths = pd.read_csv(out / "tables/published_lengths.csv")
        assert list(lengths.columns) == list(published.LENGTH_COLUMNS) and len(lengths) == rows
        assert (empty_reason(out / "figures/published_lengths.png") is None) == bool(block)
