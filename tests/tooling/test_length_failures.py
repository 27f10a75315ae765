"""benchmarks/probes/length_failures.py sorts each decoded answer by what went wrong."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "probes"))

from length_failures import bands, failure_kinds  # noqa: E402

END = 2


def test_each_answer_is_sorted_by_its_first_error_and_early_ends_count_the_tokens_written():
    targets = torch.tensor([[5, 5, 5, END, 0]] * 5)  # n = 3 tokens, then the end token (then padding)
    predicted = torch.tensor([
        [5, 5, 5, END, 7],  # right: what follows the end token is never read
        [5, 5, END, 5, 5],  # ends early after 2 tokens
        [5, 5, 5, 5, 5],  # runs on
        [5, 6, 5, END, 0],  # a wrong token
        [END, 5, 5, END, 0],  # ends before writing anything
    ])  # fmt: skip
    kinds, written = failure_kinds(predicted, targets, END)
    assert kinds == ["right", "ends early", "runs on", "wrong token", "ends early"]
    assert written == [2, 0]


def test_bands_cover_every_length_once_with_a_short_last_band():
    assert bands([21, 22, 23, 24, 25, 26, 27], 3) == [(21, 23), (24, 26), (27, 27)]
