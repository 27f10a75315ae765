"""The scope of a claim (robust_over) keeps its error rates, by simulation.

A scoped claim is judged in every universe on the same seeds, so a seed's outcomes are correlated
across universes: a seed that learns at one learning rate tends to learn at the other. Each
simulation draws, per seed, one latent uniform shared by the universes (a share ``rho`` of the
seeds keep it in every universe, the rest draw a fresh one), and each universe turns it into a test
accuracy on the grid k / 300 from its own seed distribution. A universe at its boundary null has a
seed meet the claim (at least 0.9) with probability exactly 1/2: there SUPPORTED and CONTRADICTED
are both wrong. The seed distributions: unimodal around the threshold (ties on the grid),
bound-touching (a seed at exactly 1.0 or exactly at chance 0.5) and a mixture (a seed fails at
chance or learns to about 1.0).

The rates asserted (each at most alpha + 3 Monte-Carlo standard errors):
- wrong ROBUST: one universe at its boundary null, the others surely true;
- wrong LIMITED: every universe at its boundary null, so any CONTRADICTED names a universe where the
  claim does not fail (Holm over the universes);
- both, when adaptive rounds give further seeds to the weakest undecided universe (the e-process's
  p-values, rounds of 5 seeds from 10 to 40), stopping as soon as the scope is decided.
And the scope decides what the evidence decides: every universe true -> ROBUST from 5 seeds; one
universe where every seed fails -> LIMITED naming exactly it.

The p-values are the pipeline's (``verdicts.p_values`` on the claim the config builds) and the
scope is ``scope.decide``, the function the claims rule and the rounds call.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

from ablation import config as ablation_config
from ablation import scope, verdicts

ALPHA = 0.05
GRID = 300
THRESHOLD = 270  # at least 0.9
SIMS = 2000
SCHEDULE = (10, 15, 20, 25, 30, 35, 40)


def limit(sims: int) -> float:
    return ALPHA + 3 * np.sqrt(ALPHA * (1 - ALPHA) / sims)


CLAIM = ablation_config.check_claims(
    [{"id": "c", "statement": "a typical seed reaches 0.9", "source": "simulation", "kind": "at_least",
      "threshold": 0.9, "robust_over": {"lr": [0.003, 0.01]}}],
    ["cell"], ["run_id", "test_acc", "test_total", "status"],
)[0]  # fmt: skip
PART = CLAIM.parts[0]


@pytest.fixture(autouse=True)
def _no_gc_per_holm(monkeypatch):
    monkeypatch.setattr(gc, "collect", lambda *args: 0)  # multipletests collects garbage on every call


# --------------------------------------------------------------------------- seeds from a shared latent
# A distribution maps a seed's latent uniform u to test_correct out of GRID; u < 1/2 meets the claim.


def unimodal(u, rng):
    """Around the threshold: u < 1/2 at 270-274, else at 265-269 (ties at the grid's resolution)."""
    step = rng.binomial(4, 0.3, u.shape)
    return np.where(u < 0.5, THRESHOLD + step, THRESHOLD - 1 - step)


def bound_touching(u, rng):
    """Exactly at 1.0, or exactly at chance."""
    return np.where(u < 0.5, GRID, GRID // 2)


def mixture(u, rng):
    """A seed learns (at or a few examples short of 1.0) or fails at chance."""
    return np.where(u < 0.5, GRID - rng.binomial(10, 0.1, u.shape), rng.binomial(GRID, 0.5, u.shape))


def surely_true(u, rng):
    return GRID - rng.binomial(10, 0.1, u.shape)


def surely_false(u, rng):
    return rng.binomial(GRID, 0.5, u.shape)


NULLS = {"unimodal": unimodal, "bound-touching": bound_touching, "mixture": mixture}


def universes(rng, dists, n: int, rho: float, sims: int = SIMS) -> list[np.ndarray]:
    """Per universe, (sims, n) test accuracies whose seeds share a latent uniform with probability rho."""
    shared = rng.random((sims, n))
    out = []
    for dist in dists:
        own = np.where(rng.random((sims, n)) < rho, shared, rng.random((sims, n)))
        out.append(dist(own, rng) / GRID)
    return out


def p_values(values: np.ndarray, sequential: bool) -> tuple[np.ndarray, np.ndarray]:
    return verdicts.p_values(CLAIM, PART, values, values, 1 / GRID, sequential, ALPHA)


def scopes(values: list[np.ndarray], sequential: bool = False) -> tuple[list[str], list[list[str]]]:
    """The scope and each universe's verdict of every simulation, on all its seeds."""
    ps = [p_values(v, sequential) for v in values]
    labels, each = [], []
    for i in range(values[0].shape[0]):
        label, verdict, _ = scope.decide([p[0][i] for p in ps], [p[1][i] for p in ps], verdicts.HolmStep(), ALPHA)
        labels.append(label)
        each.append(verdict)
    return labels, each


# --------------------------------------------------------------------------- fixed design


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("rho", [0.0, 0.8])
@pytest.mark.parametrize("null", list(NULLS))
@pytest.mark.parametrize("n", [5, 10])
def test_robust_is_wrong_at_most_alpha_when_one_universe_sits_at_its_boundary(n, null, rho, k):
    rng = np.random.default_rng([n, k, int(10 * rho), len(null)])
    labels, _ = scopes(universes(rng, [NULLS[null]] + [surely_true] * (k - 1), n, rho))
    rate = np.mean([label == "ROBUST" for label in labels])
    print(f"\nwrong ROBUST, one of {k} universes at its null ({null}, n={n}, rho={rho}): {rate:.4f} of {SIMS}")
    assert rate <= limit(SIMS)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("rho", [0.0, 0.8])
@pytest.mark.parametrize("null", list(NULLS))
@pytest.mark.parametrize("n", [5, 10])
def test_limited_names_a_universe_where_the_claim_does_not_fail_at_most_alpha(n, null, rho, k):
    """Every universe at its boundary null: any CONTRADICTED is wrong (the familywise rate over the
    universes, by Holm), and so is ROBUST."""
    rng = np.random.default_rng([n, k, int(10 * rho), len(null), 1])
    labels, each = scopes(universes(rng, [NULLS[null]] * k, n, rho))
    print(f"\nevery one of {k} universes at its null ({null}, n={n}, rho={rho}): wrong LIMITED "
          f"{np.mean([label == 'LIMITED' for label in labels]):.4f}, wrong ROBUST "
          f"{np.mean([label == 'ROBUST' for label in labels]):.4f} of {SIMS}")
    assert np.mean([label == "LIMITED" for label in labels]) <= limit(SIMS)
    assert np.mean([label == "ROBUST" for label in labels]) <= limit(SIMS)
    assert all(label != "LIMITED" or "CONTRADICTED" in verdict for label, verdict in zip(labels, each))


def test_the_scope_decides_what_agreeing_seeds_decide():
    """Every universe true, five seeds: ROBUST every time. One universe where every seed fails, ten
    seeds: LIMITED, naming exactly that universe, every time."""
    rng = np.random.default_rng(7)
    labels, _ = scopes(universes(rng, [surely_true] * 3, 5, 0.5, sims=200))
    assert set(labels) == {"ROBUST"}
    labels, each = scopes(universes(rng, [surely_true, surely_false, surely_true], 10, 0.5, sims=200))
    assert set(labels) == {"LIMITED"}
    assert all(v == ["SUPPORTED", "CONTRADICTED", "SUPPORTED"] for v in each)


# --------------------------------------------------------------------------- adaptive rounds


def adaptive(values: list[np.ndarray]) -> list[str]:
    """Rounds as ``adaptive._scope_round`` runs them: every universe starts at the first round's
    seeds; while the scope is UNSETTLED, the undecided universe whose smaller p is largest (the
    weakest) gets the next 5 seeds, up to 40; the scope when it is decided or no universe can grow."""
    ps = {n: [p_values(v[:, :n], True) for v in values] for n in SCHEDULE}
    out = []
    for i in range(values[0].shape[0]):
        at = [0] * len(values)  # index into SCHEDULE per universe
        while True:
            p_sup = [ps[SCHEDULE[a]][j][0][i] for j, a in enumerate(at)]
            p_con = [ps[SCHEDULE[a]][j][1][i] for j, a in enumerate(at)]
            label, each, _ = scope.decide(p_sup, p_con, verdicts.HolmStep(), ALPHA)
            grow = [j for j, v in enumerate(each) if v == "INCONCLUSIVE" and at[j] + 1 < len(SCHEDULE)]
            if label != "UNSETTLED" or not grow:
                break
            at[max(grow, key=lambda j: min(p_sup[j], p_con[j]))] += 1
        out.append(label)
    return out


@pytest.mark.parametrize("null", list(NULLS))
def test_adaptive_rounds_for_the_weakest_universe_keep_both_error_rates(null):
    rng = np.random.default_rng([len(null), 40])
    sims = SIMS
    one_null = adaptive(universes(rng, [NULLS[null], surely_true], 40, 0.8, sims=sims))
    assert np.mean([label == "ROBUST" for label in one_null]) <= limit(sims)
    all_null = adaptive(universes(rng, [NULLS[null]] * 2, 40, 0.8, sims=sims))
    print(f"\nadaptive rounds ({null}): wrong ROBUST with one universe at its null "
          f"{np.mean([label == 'ROBUST' for label in one_null]):.4f}; every universe at its null: wrong LIMITED "
          f"{np.mean([label == 'LIMITED' for label in all_null]):.4f}, wrong ROBUST "
          f"{np.mean([label == 'ROBUST' for label in all_null]):.4f} of {sims}")
    assert np.mean([label == "LIMITED" for label in all_null]) <= limit(sims)
    assert np.mean([label == "ROBUST" for label in all_null]) <= limit(sims)
