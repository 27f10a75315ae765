"""Betting e-processes on per-seed values: the share estimand's test in adaptive rounds, and the
mean's where a claim asks for it (``test: betting``).

An adaptive study (``adaptive: {max_seeds, batch}``) trains more seeds while a claim is open, so
a claim is looked at after every round and stopped when it resolves. Fixed-n intervals lose their
error guarantee under that stopping rule (benchmarks/probes/naive_rounds.py simulates it); the e-processes
here keep it at every look, whatever the stopping rule.

The seed is the unit: one value per seed (or one paired difference per seed, matched on seed),
bounded in a known range (``bounds``: [0, 1] for accuracies and 0/1 convergence, [-1, 1] for their
differences), in rounds: the design's first round is its ``seeds``, each later round its next
``batch`` seeds (``rounds``: each seed's round; None, every seed a round of its own). For a boundary
``m`` the predictable plug-in betting capital (Waudby-Smith & Ramdas 2023, "Estimating means of
bounded random variables by betting", JRSS-B, Sec. 5) on values rescaled to [0, 1] is

    K+_t(m) = prod_{i<=t} (1 + l+_i (z_i - m)),   K-_t(m) = prod_{i<=t} (1 - l-_i (z_i - m)),
    l_r = sqrt(2 log(2/alpha) / (s2_{r-1} r log(1 + r))),  l+_i = min(l_r, c/m),  l-_i = min(l_r, c/(1-m))

with r the first step of seed i's round, s2 the plug-in variance (their eq. 26) of the seeds before
it and c = ``C_TRUNCATE``: every bet of a round is fixed before the round's seeds are seen, so the
capital at a round's end is the same for every order of its seeds (they are sorted within their
round, so to the last bit). Under mean <= m, K+ is a nonnegative supermartingale at the round ends
(mean >= m: K-), so by Ville's inequality ``min(1, 1 / max K)`` over the round ends so far is a
p-value valid at any stopping time; the capital is read at the round ends alone (the looks the
design takes), never inside a round. With a round of one seed each the bets are Waudby-Smith &
Ramdas' own. Each verdict is a one-sided test of its own hypothesis with its own capital, so
complementary verdicts do not split alpha: each keeps its error rate at most alpha (at a boundary
exactly between them both are wrong, and their rates add: alpha holds per direction). Evidence only
accumulates: once a verdict's p is below alpha it stays there.

A claim's condition (``ablation.kinds.Condition``) states its verdicts as tests of its band's ends:
for a one-sided condition (band lo == hi) SUPPORTED is "mean > lo" and CONTRADICTED "mean < lo"; for
a two-sided band SUPPORTED is "mean > lo and mean < hi" (the larger p: both must hold) and
CONTRADICTED "mean < lo or mean > hi" (Bonferroni over the two). ``ablation.seedtests`` puts the
seeds' 0/1 outcomes against the claim's share (estimand ``share`` in an adaptive study) or their
values (estimand ``mean`` with ``test: betting``) through these capitals; ``ablation.claims``
combines cells and runs Holm over a claim's family, which needs only valid p-values, so it stays
valid for any dependence between claims and at any stopping time. Unbounded values
(``grad_trend``'s slopes) have no betting capital: an adaptive study judges them with the
fixed-design test on its first round's seeds.
"""

from __future__ import annotations

import numpy as np

C_TRUNCATE = 0.9
"""Bets are truncated at c / m (K+) and c / (1 - m) (K-): the capital stays positive. Over the
seed distributions benchmarks/probes/bets.py simulates (unimodal, on the bound, 5-30 % of seeds failing), c = 0.9
reaches the right verdict after the fewest seeds on 0/1 outcomes, the data of the share estimand
every adaptive claim of the default config reads; over every scenario, bounded means included, only
0.95 needs fewer, by a tenth of a seed, and it needs more on 0/1 outcomes. Each wrong verdict keeps
alpha at every c. Seeds that all agree multiply the capital by 1 + c each at a share of 1/2: 7 such
seeds give p = 0.011, 9 give 0.0031 (``python benchmarks/probes/bets.py`` prints the comparison)."""
EDGE = 1e-9
"""A scaled value within this of 0 or 1 sits on the range's edge (k / n grids round there)."""


def _scale(x, bounds) -> np.ndarray:
    lo, hi = bounds
    x = np.asarray(x, dtype=float)
    if np.any(x < lo - 1e-12) or np.any(x > hi + 1e-12):
        raise ValueError(f"per-seed values must lie in [{lo:g}, {hi:g}]")
    return np.clip((x - lo) / (hi - lo), 0.0, 1.0)


def plugin_lambda(z: np.ndarray, alpha: float, rounds=None) -> np.ndarray:
    """The predictable plug-in bet of every step along the last axis (before truncation); with
    ``rounds``, each round's bets are its first step's, which reads the earlier rounds alone."""
    t = np.arange(1, z.shape[-1] + 1, dtype=float)
    mu = (0.5 + np.cumsum(z, axis=-1)) / (t + 1)
    s2 = (0.25 + np.cumsum((z - mu) ** 2, axis=-1)) / (t + 1)
    s2_prev = np.concatenate([np.full(z.shape[:-1] + (1,), 0.25), s2[..., :-1]], axis=-1)
    lam = np.sqrt(2 * np.log(2 / alpha) / (s2_prev * t * np.log1p(t)))
    if rounds is None:
        return lam
    return np.take_along_axis(lam, np.broadcast_to(round_starts(rounds), lam.shape), axis=-1)


def _round_marks(rounds) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of the rounds along the last axis: True where a round begins or ends."""
    rounds = np.asarray(rounds)
    change = rounds[..., 1:] != rounds[..., :-1]
    edge = np.ones(rounds.shape[:-1] + (1,), dtype=bool)
    return np.concatenate([edge, change], axis=-1), np.concatenate([change, edge], axis=-1)


def round_starts(rounds) -> np.ndarray:
    """The index of the first step of each step's round, along the last axis."""
    starts, _ = _round_marks(rounds)
    index = np.arange(starts.shape[-1])
    return np.maximum.accumulate(np.where(starts, index, 0), axis=-1)


def round_ends(rounds) -> np.ndarray:
    """True at the last step of each round (the looks), along the last axis."""
    return _round_marks(rounds)[1]


def in_round_order(z: np.ndarray, rounds) -> np.ndarray:
    """``z`` sorted within each round (the rounds' order kept): one order for every permutation of
    the seeds within a round, so the capital at a round's end is the same to the last bit."""
    if rounds is None:
        return z
    r = np.broadcast_to(np.asarray(rounds), z.shape)
    return np.take_along_axis(z, np.lexsort((z, r), axis=-1), axis=-1)


def log_capital(z: np.ndarray, m, alpha: float, truncate=None, rounds=None) -> tuple[np.ndarray, np.ndarray]:
    """Running maxima of log K+ and log K- at boundary ``m`` (scaled) over the looks, along the last
    axis: at each seed, the largest capital at a round's end up to it (K_0 = 1 included).

    ``z`` (..., seeds) in [0, 1]; ``m`` a scalar or an array broadcasting against z[..., :1];
    ``truncate`` the bets' c (default ``C_TRUNCATE``), or several: the capital is then their mean,
    an e-process too (a mean of nonnegative supermartingales is one). ``rounds``: each seed's round
    (non-decreasing along the last axis, broadcasting against ``z``): the bets are constant within a
    round, predictable from the earlier rounds, and the capital is read only at a round's end, so a
    permutation of the seeds within a round leaves every look's capital as it is. None: every seed
    a round of its own (a look after every seed)."""
    z = in_round_order(np.asarray(z, dtype=float), rounds)
    m = np.asarray(m, dtype=float)
    lam = plugin_lambda(z, alpha, rounds)
    ups, downs = [], []
    for c in np.atleast_1d(C_TRUNCATE if truncate is None else truncate):
        with np.errstate(divide="ignore"):  # m on an edge: no truncation on that side
            up = np.minimum(lam, c / m)
            down = np.minimum(lam, c / (1 - m))
        ups.append(np.cumsum(np.log1p(up * (z - m)), axis=-1))
        downs.append(np.cumsum(np.log1p(-down * (z - m)), axis=-1))
    log_up = np.logaddexp.reduce(ups, axis=0) - np.log(len(ups))
    log_down = np.logaddexp.reduce(downs, axis=0) - np.log(len(downs))
    if rounds is None:
        # the running maximum includes K_0 = 1 (log 0): a capital never below its start
        return (np.maximum(np.maximum.accumulate(log_up, axis=-1), 0.0),
                np.maximum(np.maximum.accumulate(log_down, axis=-1), 0.0))  # fmt: skip
    end = np.broadcast_to(round_ends(rounds), log_up.shape)
    return (np.maximum(np.maximum.accumulate(np.where(end, log_up, -np.inf), axis=-1), 0.0),
            np.maximum(np.maximum.accumulate(np.where(end, log_down, -np.inf), axis=-1), 0.0))  # fmt: skip


def _p(log_k: np.ndarray) -> np.ndarray:
    return np.minimum(1.0, np.exp(-log_k))


def directional_p(x, bound: float, bounds, alpha: float, rounds=None) -> tuple[np.ndarray, np.ndarray]:
    """Anytime-valid p-values for "mean > bound" and "mean < bound" after every seed, read at the
    looks (``rounds``: see ``log_capital``; None, after every seed): arrays shaped like ``x`` (...,
    seeds)."""
    lo, hi = bounds
    m = (bound - lo) / (hi - lo)
    z = _scale(x, bounds)
    if m <= 0 or m >= 1:
        # a boundary on or beyond the range's edge: the mean cannot lie beyond it, and lies inside
        # it for certain -- beyond the range from the start, on the edge itself once one value lies
        # inside the range (a mean on the edge puts every value there), seen at a look
        inside_low = (m < 0) | _seen(z > EDGE, rounds)
        inside_high = (m > 1) | _seen(z < 1 - EDGE, rounds)
        above = np.ones(z.shape) if m >= 1 else np.where(inside_low, 0.0, 1.0)
        below = np.ones(z.shape) if m <= 0 else np.where(inside_high, 0.0, 1.0)
        return above, below
    up, down = log_capital(z, m, alpha, rounds=rounds)
    return _p(up), _p(down)


def _seen(flag: np.ndarray, rounds) -> np.ndarray:
    """Per seed: whether ``flag`` held at some seed up to the last look at or before it."""
    so_far = np.logical_or.accumulate(flag, axis=-1)
    if rounds is None:
        return so_far
    return np.logical_or.accumulate(so_far & np.broadcast_to(round_ends(rounds), flag.shape), axis=-1)


def confidence_sequence(x, bounds, alpha: float, grid: int = 401) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper ends of the anytime-valid confidence sequence for the mean after every seed:
    the grid points m whose p-values for "mean > m" and "mean < m" both stay above alpha (running
    intersection, widened to the neighbouring grid point: conservative)."""
    lo, hi = bounds
    x = np.asarray(x, dtype=float)
    ms = np.linspace(lo, hi, grid)[1:-1]
    z = _scale(x, bounds)
    up, down = log_capital(np.broadcast_to(z, (len(ms), len(z))), ((ms - lo) / (hi - lo))[:, None], alpha)
    inside = (_p(up) > alpha) & (_p(down) > alpha)  # (grid, seeds)
    step = (hi - lo) / (grid - 1)
    any_in = inside.any(axis=0)
    first = np.where(any_in, ms[np.argmax(inside, axis=0)] - step, np.nan)
    last = np.where(any_in, ms[len(ms) - 1 - np.argmax(inside[::-1], axis=0)] + step, np.nan)
    return np.clip(first, lo, hi), np.clip(last, lo, hi)
