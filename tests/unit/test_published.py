"""A study's published result (``published``): what the config check refuses, in one line, before
any job; the table of our numbers beside it, and whether our means order the levels as the paper does
(ablation.published); the report's section is checked on the smoke run (tests/workflow/test_report.py)."""

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
    import json
    import re

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


@pytest.mark.parametrize("means, wrong", [
    (dict(none=0.9, t5=0.5, alibi=0.05, rope=0.1, sinusoidal=0.0), ["alibi < rope"]),
    (dict(none=0.9, t5=0.9, alibi=0.3, rope=0.0, sinusoidal=0.0), ["none = t5"]),  # a tie here is not the paper's order
    (dict(none=0.0, t5=0.5, alibi=0.3, rope=0.0, sinusoidal=0.0), ["none < t5", "none < alibi", "none = rope", "none = sinusoidal"]),
])  # fmt: skip
def test_a_ranking_is_not_reproduced_and_names_each_pair_out_of_the_papers_order(means, wrong):
    result = published.ranking(ours(**means))
    assert result["wrong"] == wrong and not result["reproduced"] and result["agree"] == 9 - len(wrong)
    assert published.words(result).startswith(f"not reproduced: {9 - len(wrong)} of 9 pairs")


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
