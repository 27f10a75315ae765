"""A study's published result (``published``): what the config check refuses, in one line, before
any job; the report's section is checked on the smoke run (tests/workflow/test_report.py)."""

import pytest

from ablation import config as C
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
    ],
    ids=["factor", "level", "metric", "lengths", "lengths-partly", "lengths-backwards", "percent", "negative", "one-length"],
)  # fmt: skip
def test_a_wrong_published_block_is_one_line(changes, message):
    with pytest.raises(C.ConfigError) as info:
        C.validate(mutate(with_published(**changes)))
    assert str(info.value) == f"study 's1': {message}"
