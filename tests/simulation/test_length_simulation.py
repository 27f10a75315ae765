"""A claim on a task's metric at test lengths keeps its error rates, by simulation, when seeds split.

The estimand is new: per seed, the mean of the metric over the claim's test lengths
(``seed_units.length_means``, the function the claims rule calls on evaluations.csv), then the claim's
own test over seeds (``verdicts.p_values``). Seeds split as the length study shows: a seed extrapolates
to every unseen length, to none, or to the first few only. Each simulation puts the claim exactly on
its boundary null, where SUPPORTED and CONTRADICTED are both wrong, and asserts each wrong rate is at
most alpha plus 3 Monte-Carlo standard errors, over 2,000 simulated studies of 5 and 10 seeds:

- share (the typical seed reaches 0.9 over lengths 9-16): a seed meets it with probability exactly 1/2;
  the seeds that do not are partial extrapolators (the first j of 8 lengths, j < 8) or fail at 0, or
  sit at the grid point of the mean just below 0.9 (460 of 512 sequences right);
- mean (the mean over seeds is at least 0.5): a mixture of seeds at 1.0 everywhere and seeds at 0
  everywhere, half and half (bound-touching), or partial extrapolators whose mean is exactly 0.5.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ablation import config as ablation_config
from ablation import seed_units, settings, verdicts

ALPHA = 0.05
SIMS = 2000
LENGTHS = list(range(9, 17))  # the unseen lengths; the runs also have trained lengths 1-8 in the table
TOTAL = 64  # test sequences per length
BASE = settings.defaults() | {"arch": "decoder", "attn_mask": "causal", "task": "repeat_copy", "seq_len": 8, "positions": 33}


def limit(sims: int) -> float:
    return ALPHA + 3 * np.sqrt(ALPHA * (1 - ALPHA) / sims)


def claim(**keys):
    c = {"id": "c", "statement": "x", "source": "simulation", "kind": "at_least", "metric": "exact_match",
         "lengths": [9, 16], **keys}  # fmt: skip
    return ablation_config.check_claims([c], ["pos_enc"], ["run_id", "exact_match"], "s",
                                        (BASE, list(range(1, 17))))[0]  # fmt: skip


def evaluations(correct: np.ndarray) -> pd.DataFrame:
    """evaluations.csv of (sims, seeds) runs: correct[..., length] of TOTAL at each unseen length, and
    every trained length (1-8) at TOTAL: the claim must read only its own lengths."""
    sims, seeds, _ = correct.shape
    run = np.arange(sims * seeds).repeat(16).astype(str)
    length = np.tile(np.arange(1, 17), sims * seeds)
    k = np.concatenate([np.full((sims * seeds, 8), TOTAL), correct.reshape(sims * seeds, 8)], axis=1).ravel()
    return pd.DataFrame({"run_id": run, "metric": "exact_match", "length": length, "value": k / TOTAL, "correct": k,
                         "total": TOTAL, "trained": length <= 8})  # fmt: skip


def p_values(c, correct: np.ndarray):
    """Per simulated study: (p_sup, p_con) of the claim on its seeds' means over lengths 9-16."""
    sims, seeds, _ = correct.shape
    sub = pd.DataFrame({"run_id": np.arange(sims * seeds).astype(str), "status": "ok"})
    means, step = seed_units.length_means(c, sub, evaluations(correct))
    values = means.reshape(sims, seeds)
    return verdicts.p_values(c, c.parts[0], values, values, step, False, ALPHA)


def partial(rng, size, below: int):
    """A seed that extrapolates to the first j unseen lengths and to none after (j < ``below``)."""
    j = rng.integers(0, below, size)
    return np.where(np.arange(8) < j[..., None], TOTAL, 0)


def share_null(kind: str):
    """Seeds that meet 'mean over 9-16 at least 0.9' with probability exactly 1/2."""

    def draw(rng, size):
        meets = rng.random(size) < 0.5
        every = np.full((*size, 8), TOTAL)  # extrapolates everywhere: mean 1.0
        if kind == "split":
            fails = partial(rng, size, 8)  # mean j / 8 <= 7 / 8 < 0.9
        elif kind == "ties":  # 460 of 512 sequences right: the grid point of the mean just below 0.9
            fails = np.broadcast_to(np.array([58] * 7 + [54]), (*size, 8))
        else:  # "bound": fails at 0 everywhere
            fails = np.zeros((*size, 8), dtype=int)
        return np.where(meets[..., None], every, fails)

    return draw


def mean_null(kind: str):
    """Seeds whose expected mean over 9-16 is exactly 0.5."""

    def draw(rng, size):
        if kind == "bound":  # half at 1.0 everywhere, half at 0
            return np.where((rng.random(size) < 0.5)[..., None], TOTAL, np.zeros((*size, 8), dtype=int))
        return np.where(np.arange(8) < rng.integers(0, 9, size)[..., None], TOTAL, 0)  # j of 8, j uniform on 0..8

    return draw


@pytest.mark.parametrize("n", [5, 10])
@pytest.mark.parametrize("kind", ["split", "ties", "bound"])
def test_the_share_of_seeds_over_lengths_is_wrong_at_most_alpha_when_seeds_split(kind, n):
    rng = np.random.default_rng([n, len(kind)])
    p_sup, p_con = p_values(claim(threshold=0.9), share_null(kind)(rng, (SIMS, n)))
    assert np.mean(p_sup <= ALPHA) <= limit(SIMS) and np.mean(p_con <= ALPHA) <= limit(SIMS)


@pytest.mark.parametrize("n", [5, 10])
@pytest.mark.parametrize("kind", ["bound", "split"])
def test_the_mean_over_seeds_of_the_mean_over_lengths_is_wrong_at_most_alpha(kind, n):
    rng = np.random.default_rng([n, len(kind), 1])
    p_sup, p_con = p_values(claim(threshold=0.5, estimand="mean"), mean_null(kind)(rng, (SIMS, n)))
    assert np.mean(p_sup <= ALPHA) <= limit(SIMS) and np.mean(p_con <= ALPHA) <= limit(SIMS)


def test_seeds_that_all_extrapolate_decide_and_the_trained_lengths_are_not_read():
    """Five seeds at 1.0 over 9-16: SUPPORTED at p = 1/32; five seeds at 0 over 9-16 (and 1.0 at the
    trained lengths the table also holds): CONTRADICTED at 1/32."""
    c = claim(threshold=0.9)
    p_sup, p_con = p_values(c, np.full((1, 5, 8), TOTAL))
    assert (p_sup[0], p_con[0]) == (1 / 32, 1.0)
    p_sup, p_con = p_values(c, np.zeros((1, 5, 8), dtype=int))
    assert (p_sup[0], p_con[0]) == (1.0, 1 / 32)
