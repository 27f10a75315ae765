"""The scope of a claim (robust_over) and its family keep their error rates, by simulation.

A scoped claim is judged in every universe on the same seeds, so a seed's outcomes are correlated
across universes: a seed that learns at one learning rate tends to learn at the other. Each
simulation draws, per seed, one latent uniform shared by the universes (a share ``rho`` of the
seeds keep it in every universe, the rest draw a fresh one), and each universe turns it into a test
accuracy on the grid k / 300 from its own seed distribution. A universe at its boundary null has a
seed meet the claim (at least 0.9) with probability exactly 1/2: there SUPPORTED and CONTRADICTED
are both wrong. The seed distributions: unimodal around the threshold (ties on the grid),
bound-touching (a seed at exactly 1.0 or exactly at chance 0.5) and a mixture (a seed fails at
chance or learns to about 1.0). The first universe is the study's own.

The rates asserted (each at most alpha + 3 Monte-Carlo standard errors):
- wrong ROBUST: one universe at its boundary null (the study's own or another), the others surely
  true; and the mirror image, a claim CONTRADICTED everywhere but one universe at its null;
- wrong LIMITED: the claim surely true at the study's setting and every other universe at its
  boundary null, so any LIMITED names a universe where the claim does not fail;
- the family-wise error over claims and scopes together: a family of the scoped claim and two
  other claims, every hypothesis at its boundary null or surely true in mixed configurations; per
  direction (a verdict is a one-sided statement), any SUPPORTED where the truth lies just below its
  boundary, or any CONTRADICTED where it lies just above, among the claims and the universes;
- both scope errors when adaptive rounds give further seeds (the e-process's p-values, rounds of 5
  seeds from 10 to 40): to the study's own cells while its verdict is open, then to the weakest
  undecided universe, stopping as soon as the scope is decided.
And the scope decides what the evidence decides: every universe true -> ROBUST from 5 seeds; every
universe false -> CONTRADICTED and ROBUST; one universe where every seed fails -> LIMITED naming
exactly it.

The p-values are the pipeline's (``verdicts.p_values`` on the claim the config builds), the family's
steps ``scope.family_steps`` and the scope ``scope.judge_scope``: the functions the claims rule and
the rounds call.
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


def judged(values: list[np.ndarray], others: list[np.ndarray] = (), sequential: bool = False, n_at=None):
    """Per simulation: (the scoped claim's verdict, its scope, each universe's verdict, the other claims'
    verdicts), judged as the claims table judges a family: ``values`` per universe (the study's own
    first), ``others`` per unscoped claim of the family."""
    ps = [p_values(v, sequential) for v in values]
    qs = [p_values(v, sequential) for v in others]
    judge = verdicts.Judge.of({"alpha": ALPHA})
    out = []
    for i in range(values[0].shape[0]):
        tested = [({"lr": j}, j == 0, None, verdicts.Result(float(p[0][i]), float(p[1][i]), 2, 0, [], []))
                  for j, p in enumerate(ps)]  # fmt: skip
        raw = [min(ps[0][0][i], ps[0][1][i])] + [min(q[0][i], q[1][i]) for q in qs]
        steps, scoped = scope.family_steps(raw, {0: scope.scope_test(tested)})
        s = scope.judge_scope(tested, judge, steps[0], scoped[0])
        rest = [verdicts.decided(q[0][i], q[1][i], step, ALPHA) for q, step in zip(qs, steps[1:])]
        out.append((s.verdict, s.label, s.verdicts, rest))
    return out


def rate(outcomes, wrong) -> float:
    return float(np.mean([wrong(*o) for o in outcomes]))


# --------------------------------------------------------------------------- fixed design


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("rho", [0.0, 0.8])
@pytest.mark.parametrize("null", list(NULLS))
@pytest.mark.parametrize("n", [5, 10])
def test_robust_is_wrong_at_most_alpha_when_one_universe_sits_at_its_boundary(n, null, rho, k):
    rng = np.random.default_rng([n, k, int(10 * rho), len(null)])
    own_null = judged(universes(rng, [NULLS[null]] + [surely_true] * (k - 1), n, rho))
    other_null = judged(universes(rng, [surely_true] * (k - 1) + [NULLS[null]], n, rho))
    # a claim false everywhere but one universe at its null: ROBUST (CONTRADICTED everywhere) is wrong
    mirror = judged(universes(rng, [surely_false] + [NULLS[null]] + [surely_false] * (k - 2), n, rho))
    rates = [rate(o, lambda v, label, each, rest: label == "ROBUST") for o in (own_null, other_null, mirror)]
    print(f"\nwrong ROBUST, one of {k} universes at its null ({null}, n={n}, rho={rho}): the study's own "
          f"{rates[0]:.4f}, another {rates[1]:.4f}, CONTRADICTED elsewhere {rates[2]:.4f} of {SIMS}")
    assert max(rates) <= limit(SIMS)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("rho", [0.0, 0.8])
@pytest.mark.parametrize("null", list(NULLS))
@pytest.mark.parametrize("n", [5, 10])
def test_limited_names_a_universe_where_the_claim_does_not_fail_at_most_alpha(n, null, rho, k):
    """The claim surely true at the study's setting, every other universe at its boundary null: any
    LIMITED names a universe where the claim does not fail; every universe at its null: any verdict,
    and so any scope, is wrong."""
    rng = np.random.default_rng([n, k, int(10 * rho), len(null), 1])
    true_here = judged(universes(rng, [surely_true] + [NULLS[null]] * (k - 1), n, rho))
    all_null = judged(universes(rng, [NULLS[null]] * k, n, rho))
    limited = rate(true_here, lambda v, label, each, rest: label == "LIMITED")
    any_scope = rate(all_null, lambda v, label, each, rest: label != "UNSETTLED")
    print(f"\n{k} universes ({null}, n={n}, rho={rho}): wrong LIMITED {limited:.4f} with the study's own true; "
          f"any scope {any_scope:.4f} with every universe at its null, of {SIMS}")
    assert limited <= limit(SIMS) and any_scope <= limit(SIMS)
    assert all(label != "LIMITED" or "CONTRADICTED" in each for _, label, each, _ in true_here)


@pytest.mark.parametrize("null", list(NULLS))
@pytest.mark.parametrize("n", [5, 10])
def test_the_family_wise_error_over_claims_and_scopes_together_is_at_most_alpha(n, null):
    """A family of three claims, the first scoped over two universes. Truth: (a) every hypothesis at
    its boundary null; (b) the scoped claim surely true at the study's setting, its other universe
    and the other claims at their nulls; (c) the scoped claim true everywhere, the other two at their
    nulls. A verdict is directional, so its family-wise error is counted per direction, as each
    verdict's own error is: at a null, a statement of SUPPORTED (a claim SUPPORTED, a universe where
    ROBUST says it holds) is wrong when the truth lies just below the boundary, and one of
    CONTRADICTED (a claim CONTRADICTED, a universe where LIMITED says it fails) when it lies just
    above. Each direction's rate over claims and scopes together is at most alpha."""
    rng = np.random.default_rng([n, len(null), 3])
    dist = NULLS[null]
    cases = {
        "every hypothesis null": (universes(rng, [dist, dist], n, 0.8), [True, True]),
        "own true, other universe null": (universes(rng, [surely_true, dist], n, 0.8), [False, True]),
        "scoped claim true everywhere": (universes(rng, [surely_true, surely_true], n, 0.8), [False, False]),
    }
    for name, (values, null_at) in cases.items():
        outcomes = judged(values, universes(rng, [dist, dist], n, 0.0))
        for direction in ("SUPPORTED", "CONTRADICTED"):

            def wrong(verdict, label, each, rest, null_at=null_at, d=direction):
                return any(v == d for v in rest) or any(u_null and v == d for u_null, v in zip(null_at, each))

            fwer = rate(outcomes, wrong)
            print(f"\nfamily-wise error of {direction} over 3 claims and a scope ({name}, {null}, n={n}): {fwer:.4f}")
            assert fwer <= limit(SIMS), (name, direction)


def test_the_scope_decides_what_agreeing_seeds_decide():
    """Every universe true, five seeds: ROBUST every time; every universe false: CONTRADICTED and
    ROBUST. One universe where every seed fails, ten seeds: LIMITED, naming exactly it."""
    rng = np.random.default_rng(7)
    out = judged(universes(rng, [surely_true] * 3, 5, 0.5, sims=200))
    assert {(v, label) for v, label, *_ in out} == {("SUPPORTED", "ROBUST")}
    out = judged(universes(rng, [surely_false] * 2, 5, 0.5, sims=200))
    assert {(v, label) for v, label, *_ in out} == {("CONTRADICTED", "ROBUST")}
    out = judged(universes(rng, [surely_true, surely_false, surely_true], 10, 0.5, sims=200))
    assert {label for _, label, *_ in out} == {"LIMITED"}
    assert all(each[:2] == ["SUPPORTED", "CONTRADICTED"] for _, _, each, _ in out)


# --------------------------------------------------------------------------- adaptive rounds


def adaptive(values: list[np.ndarray]) -> list[str]:
    """Rounds as ``adaptive._scope_round`` runs them: every universe starts at the first round's
    seeds; the study's own universe gets the next 5 seeds while the claim's verdict is open; then,
    while the scope is UNSETTLED, the undecided universe whose smaller p is largest (the weakest) gets
    them, up to 40; the scope when it is decided or no universe can grow."""
    ps = {n: [p_values(v[:, :n], True) for v in values] for n in SCHEDULE}
    judge = verdicts.Judge.of({"alpha": ALPHA})
    out = []
    for i in range(values[0].shape[0]):
        at = [0] * len(values)  # index into SCHEDULE per universe
        while True:
            p_sup = [ps[SCHEDULE[a]][j][0][i] for j, a in enumerate(at)]
            p_con = [ps[SCHEDULE[a]][j][1][i] for j, a in enumerate(at)]
            tested = [({"lr": j}, j == 0, None, verdicts.Result(float(s), float(c), 2, 0, [], []))
                      for j, (s, c) in enumerate(zip(p_sup, p_con))]  # fmt: skip
            steps, scoped = scope.family_steps([min(p_sup[0], p_con[0])], {0: scope.scope_test(tested)})
            s = scope.judge_scope(tested, judge, steps[0], scoped[0])
            if s.verdict == "INCONCLUSIVE":
                grow = [0] if at[0] + 1 < len(SCHEDULE) else []
            else:
                grow = [j for j, v in enumerate(s.verdicts) if v == "INCONCLUSIVE" and at[j] + 1 < len(SCHEDULE)]
            if s.label != "UNSETTLED" or not grow:
                break
            at[max(grow, key=lambda j: min(p_sup[j], p_con[j]))] += 1
        out.append(s.label)
    return out


@pytest.mark.parametrize("null", list(NULLS))
def test_adaptive_rounds_for_the_weakest_universe_keep_both_error_rates(null):
    rng = np.random.default_rng([len(null), 40])
    sims = SIMS
    one_null = adaptive(universes(rng, [surely_true, NULLS[null]], 40, 0.8, sims=sims))
    all_null = adaptive(universes(rng, [NULLS[null]] * 2, 40, 0.8, sims=sims))
    robust = np.mean([label == "ROBUST" for label in one_null])
    limited = np.mean([label == "LIMITED" for label in one_null])
    print(f"\nadaptive rounds ({null}): the study's own true, the other universe at its null: wrong ROBUST "
          f"{robust:.4f}, wrong LIMITED {limited:.4f}; every universe at its null: any scope "
          f"{np.mean([label != 'UNSETTLED' for label in all_null]):.4f} of {sims}")
    assert robust <= limit(sims) and limited <= limit(sims)
    assert np.mean([label != "UNSETTLED" for label in all_null]) <= limit(sims)
