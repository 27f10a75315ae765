"""What seeds decide when they come from a plausible truth: the price of each verdict, in seeds per cell.

`make plan` (``ablation.plan``) asks, per claim, how many seeds per cell reach SUPPORTED, and how many
CONTRADICTED, with probability POWER at a Holm level; an undecided row of the claims table can ask how
many further seeds would. docs/plan-noise.md explains the model; in short:

- The runs (``measure``): per cell and part, the claim's seed units as the claims table forms them
  (``seed_units.claim_cells``: a comparison's paired differences, matched on seed and every other factor,
  averaged within seed), from the run store (every metric, the evaluations and initial gradients), else
  the committed reference (``reference/<study>/summary.csv``: test_acc alone). A run counts when its hash
  is one of the study's runs, so the runs of another design never do.
- The noise: a cell with at least RESAMPLE_SEEDS known seeds lends its own seeds' deviations from their
  mean, resampled (a seed is a mixture: most seeds agree and a few stray, which a normal of their sd
  misdraws), smoothed by a normal of Silverman's bandwidth (``bandwidth``); a cell with fewer, a normal of its sd over its known seeds (at least
  NOISE_FLOOR); DEFAULT_NOISE where a cell has fewer than two known seeds.
- The truths (``truths``): SUPPORTED at the effect the runs show where it lies on SUPPORTED's side, else
  at the condition's centre (a band) or a margin inside its boundary (one side); CONTRADICTED in one cell
  (Bonferroni over the cells is the claim's rule) at the effect the runs show beyond the boundary, else a
  margin beyond the band (twice the margin from a band's centre), the other cells at SUPPORTED's truth.
  The share estimand: each further seed meets the condition with the runs' chance (k + 1) / (n + 2), or
  with SHARE_DEFAULTS' chance where a cell has no runs; a comparison read without its ties also ties as
  often as its runs did.
- The price (``Simulation``, ``seeds_to_decide_at``): DRAWS simulated studies (RNG_SEED) put through
  ``verdicts.p_values`` and ``verdicts.combine``, the very test and combination the claims table runs,
  whatever they are; a draw reaches a verdict when its p is the smaller one and at most the level.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import REPO_DIR, design, seed_units, seedtests, verdicts
from .config import Study
from .kinds import Claim, Part
from .seed_units import Cell, StudyRuns
from .store import STORE, evaluation_file

VERDICTS = ("SUPPORTED", "CONTRADICTED")
POWER = 0.8
"""The chance with which a priced design reaches a verdict that is true."""
DRAWS = 2000
"""Simulated studies per price: a power of 0.8 is known to about +-0.01 (its binomial sd)."""
RNG_SEED = 51
"""The simulations' seed: a price is the same on every machine and every run of the plan."""
COARSE_DRAWS = 200
"""The draws a search for the fewest seeds first reads (a power known to about +-0.03); every draw then
settles the count, a seed at a time."""
COARSE_SLACK = 0.15
"""Below POWER by more than this on the coarse draws at LIMIT seeds: not within LIMIT, unread further."""
LIMIT = 200
"""The most seeds per cell a price counts up to (more prints as ">200")."""
DEFAULT_NOISE = 0.02
"""The sd of one seed's value (a comparison's paired difference) in a cell without runs, in units of the
metric: 2 pp, the pooled sd (root mean square, 1.7 pp) of the paired per-seed differences over the 20
comparison cells of the committed reference runs (C3, C4, P3, P4: reference/ of commit 1dfd342),
rounded up. Their median cell has 0.64 pp and their largest 5.2 pp (one seed apart from the rest)."""
NOISE_FLOOR = 0.001
"""The least sd a cell's runs are read as having (0.1 pp): a cell whose seeds all agree (both models at
100 %) is read as the least noisy cell the reference shows that has any spread, not as noiseless."""
DEFAULT_EFFECT = 0.05
"""How far from a one-sided boundary a claim without a margin is priced, as a share of the metric's
range: 5 pp of accuracy (at_least, better with the estimand mean)."""
RESAMPLE_SEEDS = 5
"""The known seeds from which a cell's further seeds are its own seeds' deviations, resampled, rather
than a normal of their sd."""
SHARE_DEFAULTS = (0.9, 0.1)
"""The chance a further seed meets a share claim's condition in a cell without runs, for SUPPORTED and
CONTRADICTED at the claim's share 1/2; at another share s, 1 - (1 - s) / 5 and s / 5."""


# --------------------------------------------------------------------------- the study's runs


@dataclass(frozen=True)
class Source:
    """One place the study's runs come from: the runs it holds (``StudyRuns``), its name in words and
    what identifies it (its path and the hashes of its runs)."""

    runs: StudyRuns
    words: str
    key: tuple = ()


def study_runs(study: Study, block: dict | None, store: Path = STORE, reference: Path | None = None) -> list[Source]:
    """Where the study's runs are, best first: the run store (every metric, evaluations, initial
    gradients), then ``reference/<study>/summary.csv`` (test_acc alone). A run counts when its hash is
    one of the study's runs (an adaptive study's: at every seed its rounds may add), so the runs of
    another design never do; its factor levels and seed are the design's own. Empty: no runs."""
    seeds = design.seed_sequence(study, block["max_seeds"]) if block else study.seeds
    runs = {r.hash: r for r in Study(study.name, study.description, study.fixed, study.factors, seeds, []).runs()}
    factors = tuple(study.factor_names)
    out = []
    stored = [(r, Path(store) / h) for h, r in runs.items() if (Path(store) / h / "metrics.csv").is_file()]
    if stored:
        summary = pd.concat([pd.read_csv(d / "metrics.csv", dtype={"hash": str}).assign(hash=r.hash) for r, d in stored],
                            ignore_index=True)  # fmt: skip
        summary = _keyed(summary, runs, factors)
        grads = [pd.read_csv(d / "init_grads.csv").assign(run_id=r.run_id) for r, d in stored if (d / "init_grads.csv").is_file()]
        evaluations = [pd.read_csv(f).assign(run_id=r.run_id) for r, _ in stored if study.eval_lengths
                       and (f := evaluation_file(store, r.hash, r.settings, study.eval_lengths)).is_file()]  # fmt: skip
        out.append(Source(StudyRuns(study.name, summary, factors, pd.concat(grads) if grads else None,
                                    evaluations=pd.concat(evaluations) if evaluations else None),
                          f"{len(stored)} runs in the store", (str(Path(store).resolve()), *sorted(r.hash for r, _ in stored))))  # fmt: skip
    path = Path(reference if reference is not None else REPO_DIR / "reference") / study.name / "summary.csv"
    if path.is_file():
        summary = pd.read_csv(path, dtype={"hash": str})
        if "hash" in summary:
            summary = _keyed(summary[summary["hash"].isin(runs)], runs, factors)
            if len(summary):
                out.append(Source(StudyRuns(study.name, summary, factors), f"{len(summary)} runs of {path.parent.parent.name}/{study.name}",
                                  (str(path.resolve()), *sorted(summary["hash"]))))  # fmt: skip
    return out


def _keyed(summary: pd.DataFrame, runs: dict, factors: tuple) -> pd.DataFrame:
    """A summary's rows with the design's run id, factor levels and seed, by hash."""
    summary = summary.reset_index(drop=True).copy()
    summary["run_id"] = [runs[h].run_id for h in summary["hash"]]
    for f in factors:
        summary[f] = [runs[h].factors[f] for h in summary["hash"]]
    summary["seed"] = [runs[h].settings.seed for h in summary["hash"]]
    return summary


def _reads(claim: Claim, runs: StudyRuns) -> bool:
    """Whether ``runs`` hold what the claim reads (a source without a metric would read it as missing)."""
    if any(part.reads == "slope" for part in claim.parts):
        return runs.init_grads is not None
    if claim.evaluated:
        return runs.evaluations is not None and (runs.evaluations["metric"].astype(str) == claim.metric).any()
    return {"converged": "final_train_acc"}.get(claim.metric, claim.metric) in runs.summary


@dataclass(frozen=True)
class Measured:
    """A claim's cells as its runs show them (per cell, per part: a Cell of its seeds' units), and where
    the runs come from; no cells: no runs."""

    cells: list = field(default_factory=list)
    words: str = "no runs"

    def largest_sd(self) -> float | None:
        """The largest sd over seeds of a cell's known seed units (None: no cell of two known seeds)."""
        sds = [float(c.lo[c.known()].std(ddof=1)) for parts in self.cells for c in parts if int(c.known().sum()) >= 2]
        return max(sds) if sds else None


def measure(claim: Claim, sources: list[Source], cfg: dict | None = None) -> Measured:
    """The claim's seed units from the first source that holds what it reads and a cell of two seeds."""
    for source in sources:
        if not _reads(claim, source.runs):
            continue
        try:
            cells, _ = seed_units.claim_cells(claim, source.runs, cfg or {})
        except ValueError:  # the source lacks the claim's runs
            continue
        if any(int(c.known().sum()) >= 2 for parts in cells for c in parts):
            return Measured(cells, source.words)
    return Measured()


# --------------------------------------------------------------------------- the truths it prices


@dataclass(frozen=True)
class Truth:
    """What further seeds are drawn from, per cell and part (arrays of shape (cells, parts)). The mean
    estimand: ``effect`` plus a deviation: one of the cell's measured seeds' ``deviations`` from their
    mean, resampled, where it has them (``deviations[c][j]``; plus a normal of sd ``bandwidth``), else a
    normal of sd ``noise``; within the metric's range. The share estimand: a tie with chance ``ties`` (a
    comparison read without its ties), else meeting the condition with chance ``effect``; ``noise`` is
    unused. ``words``: the truth in a few words."""

    verdict: str
    effect: np.ndarray
    noise: np.ndarray
    ties: np.ndarray
    words: str = ""
    deviations: tuple = ()


def _stats(claim: Claim, part: Part, cell: Cell | None) -> dict:
    """One measured cell: its known seeds' mean and sd, and the condition's count (met, counted, tied)."""
    if cell is None or int(cell.known().sum()) < 2:
        return {}
    known = cell.known()
    values = cell.lo[known]
    cond = part.condition
    counted = cond.counted(cell.lo, cell.hi, cell.step)
    met = int((cond.sure(cell.lo, cell.hi) & counted).sum())
    return {"mean": float(values.mean()), "sd": float(values.std(ddof=1)), "met": met, "counted": int(counted.sum()),
            "tied": float((~counted).mean()),
            "deviations": values - values.mean() if len(values) >= RESAMPLE_SEEDS else None}  # fmt: skip


def _margin(claim: Claim, part: Part) -> float:
    """How far a truth lies from a one-sided boundary: the claim's margin, else DEFAULT_EFFECT of the range."""
    margin = claim.keys.get("margin")
    if margin is not None:
        return float(margin)
    lo, hi = seed_units.metric_range(claim.metric) if part.bounded else (0.0, 1.0)
    return DEFAULT_EFFECT * (hi - lo)


def _mean_truths(claim: Claim, part: Part, stats: dict, design: bool = False) -> tuple[float, float, float, bool, bool]:
    """(SUPPORTED's effect, CONTRADICTED's effect, noise, measured SUPPORTED, measured CONTRADICTED) of
    one cell and part under the mean estimand; ``design``: the effects a clear answer has (the band's
    centre, or a margin inside a one-sided boundary; as far beyond it), or the runs' effect where it is
    clearer still (further from the boundary on the verdict's side), with the runs' noise."""
    b0, b1 = part.condition.band
    if b1 != b0:  # a band: its centre, or a half-width beyond its edge (twice the margin from the centre)
        half = (b1 - b0) / 2
        sup, con, clear = b0 + half, b1 + half, half
        inside = lambda m: b0 < m < b1  # noqa: E731
        beyond = lambda m: m < b0 or m > b1  # noqa: E731
    else:  # one side: a margin inside the boundary, or as far beyond it
        d = _margin(claim, part)
        sup, con, clear = b0 + d, b0 - d, d
        inside = lambda m: m > b0  # noqa: E731
        beyond = lambda m: m < b0  # noqa: E731
    lo, hi = verdicts.bounds(claim, part)
    sup, con = float(np.clip(sup, lo, hi)), float(np.clip(con, lo, hi))
    if not stats:
        r0, r1 = seed_units.metric_range(claim.metric)
        return sup, con, DEFAULT_NOISE * (r1 - r0), False, False
    m = stats["mean"]
    if design:  # a clear answer, or the runs' own where they show one clearer still
        sup_runs = inside(m) and b1 == b0 and m - b0 > clear
        con_runs = beyond(m) and max(b0 - m, m - b1) > clear
        return (m if sup_runs else sup, m if con_runs else con, max(stats["sd"], NOISE_FLOOR), sup_runs, con_runs)
    return (m if inside(m) else sup, m if beyond(m) else con, max(stats["sd"], NOISE_FLOOR),
            inside(m), beyond(m))  # fmt: skip


def _share_truths(claim: Claim, stats: dict, design: bool = False) -> tuple[float, float, float, bool, bool]:
    """The same under the share estimand: chances that a further seed meets the condition, and ties;
    ``design``: every counted seed meets it (or none does), the runs' ties kept: a seed learns the task
    or fails, and seeds that agree are a plausible truth of a share."""
    s = claim.share
    if design:
        return 1.0, 0.0, stats.get("tied", 0.0), False, False
    sup, con = (SHARE_DEFAULTS if s == 0.5 else (1 - (1 - s) / 5, s / 5))
    if not stats:
        return sup, con, 0.0, False, False
    q = (stats["met"] + 1) / (stats["counted"] + 2)  # the runs' share, as the chance of a further seed
    return (q if q > s else sup, q if q < s else con, stats["tied"], q > s, q < s)


def truths(claim: Claim, measured: Measured, n_cells: int, design: bool = False) -> dict[str, Truth]:
    """SUPPORTED's and CONTRADICTED's truths for ``n_cells`` cells (measured cells first, the rest at
    the defaults). CONTRADICTED holds in one cell and part: the one whose runs show it most clearly,
    else the noisiest; every other cell and part stays at SUPPORTED's truth."""
    parts = claim.parts
    n_cells = max(n_cells, len(measured.cells))
    shape = (n_cells, len(parts))
    sup, con, noise, ties = (np.zeros(shape) for _ in range(4))
    sup_seen, con_seen = np.zeros(shape, bool), np.zeros(shape, bool)
    holds, fails = np.zeros(shape, bool), np.zeros(shape, bool)
    clarity = np.full(shape, -np.inf)
    deviations = [[None] * len(parts) for _ in range(n_cells)]
    for c in range(n_cells):
        for j, part in enumerate(parts):
            cell = measured.cells[c][j] if c < len(measured.cells) else None
            stats = _stats(claim, part, cell)
            deviations[c][j] = stats.get("deviations")
            if claim.estimand == "mean":
                sup[c, j], con[c, j], noise[c, j], sup_seen[c, j], con_seen[c, j] = _mean_truths(claim, part, stats, design)
                if stats:  # where the runs lie, whatever the truths priced: inside the band, or beyond its boundary
                    _, _, _, holds[c, j], fails[c, j] = _mean_truths(claim, part, stats)
                b0, b1 = part.condition.band
                beyond = max(b0 - con[c, j], con[c, j] - b1) / noise[c, j]  # in sds: how clearly the runs show it
                clarity[c, j] = beyond if con_seen[c, j] else -1 / noise[c, j]  # else: the noisiest cell
            else:
                sup[c, j], con[c, j], ties[c, j], sup_seen[c, j], con_seen[c, j] = _share_truths(claim, stats, design)
                clarity[c, j] = claim.share - con[c, j] if con_seen[c, j] else -c  # else: the first cell
    where = np.unravel_index(int(np.argmax(clarity)), shape)
    against = sup.copy()
    against[where] = con[where]
    resampled = claim.estimand == "mean" and any(d is not None for row in deviations for d in row)
    sup_noise, sup_deviations = _noise_where_it_holds(deviations, noise, holds, fails) if resampled else (noise, deviations)
    deviations = tuple(tuple(row) for row in deviations) if resampled else ()
    sup_deviations = tuple(tuple(row) for row in sup_deviations) if resampled else ()
    return {"SUPPORTED": Truth("SUPPORTED", sup, sup_noise, ties, _words(claim, sup, sup_noise, sup_seen, resampled=resampled),
                               sup_deviations),
            "CONTRADICTED": Truth("CONTRADICTED", against, noise, ties,
                                  _words(claim, con[where][None, None], noise[where][None, None], con_seen[where][None, None],
                                         " in one cell" if n_cells > 1 else "", resampled=resampled), deviations)}  # fmt: skip


def _noise_where_it_holds(deviations: list, noise: np.ndarray, inside: np.ndarray, beyond: np.ndarray) -> tuple:
    """SUPPORTED's noise and deviations per cell and part: a cell whose runs lie beyond the boundary
    (``beyond``) shows the spread of seeds where the claim fails, so SUPPORTED's draws there take the
    pooled deviations of the same part's cells whose runs lie inside it (``inside``), where any have
    them; every other cell keeps its own."""
    noise, out = noise.copy(), [list(row) for row in deviations]
    for j in range(noise.shape[1]):
        pool = [deviations[c][j] for c in range(noise.shape[0]) if inside[c, j] and deviations[c][j] is not None]
        if not pool:
            continue
        pooled = np.concatenate(pool)
        for c in np.flatnonzero(beyond[:, j]):
            out[c][j], noise[c, j] = pooled, max(float(pooled.std(ddof=1)), NOISE_FLOOR)
    return noise, out


def _words(claim: Claim, effect: np.ndarray, noise: np.ndarray, seen: np.ndarray, where: str = "",
           resampled: bool = False) -> str:
    """'seeds at mean -1.2 to 0.2 pp, sd 0.1 to 5.2 pp (measured)' or 'each seed meets it with
    chance 0.9 (assumed)'; ``where``: ' in one cell', before the basis; ``resampled``: the runs'
    seeds' own deviations are drawn about the mean."""

    def span(values, scale, unit):
        lo, hi = scale * float(np.min(values)), scale * float(np.max(values))
        return f"{lo:.2g}{unit}" if np.isclose(lo, hi) else f"{lo:.2g} to {hi:.2g}{unit}"

    basis = "measured" if seen.all() else "assumed" if not seen.any() else "measured where the runs show it"
    if claim.estimand == "mean":
        scale, unit = (100, " pp") if seed_units.metric_range(claim.metric) == (0.0, 1.0) else (1, "")
        drawn = ", its seeds' own deviations resampled" if resampled else ""
        return f"seeds at mean {span(effect, scale, unit)}, sd {span(noise, scale, unit)}{where} ({basis}){drawn}"
    return f"each seed meets it with chance {span(effect, 1, '')}{where} ({basis})"


# --------------------------------------------------------------------------- the simulation


def _points(claim: Claim, part: Part) -> tuple[float, float]:
    """(a value that meets the part's condition, one that does not), neither of them a tie."""
    cond = part.condition
    b0, b1 = cond.band
    lo, hi = verdicts.bounds(claim, part) if part.bounded else (b0 - 1.0, (b1 if np.isfinite(cond.high) else b0) + 1.0)
    if not np.isfinite(cond.high):
        return (b0 + hi) / 2, (lo + b0) / 2
    return b0 + (b1 - b0) / 4, (b1 + hi) / 2 if b1 < hi else (lo + b0) / 2


def bandwidth(deviations: np.ndarray) -> float:
    """The normal added to a resampled deviation (a smoothed bootstrap): Silverman's rule, 0.9 min(sd,
    IQR / 1.34) n^-1/5, at least NOISE_FLOOR, so that a few seeds do not become a few repeated values
    that no test of their shape would pass."""
    q75, q25 = np.percentile(deviations, [75, 25])
    spread = min(float(np.std(deviations, ddof=1)), float(q75 - q25) / 1.34) or float(np.std(deviations, ddof=1))
    return max(0.9 * spread * len(deviations) ** -0.2, NOISE_FLOOR)


def no_seeds(claim: Claim, n_cells: int) -> list[list[Cell]]:
    """``n_cells`` cells without seeds, one Cell per part: what the plan prices a design from."""
    empty = np.zeros(0)
    return [[Cell("", empty, empty, empty, 0.0) for _ in claim.parts] for _ in range(n_cells)]


class Simulation:
    """DRAWS studies: the claim's ``cells`` (its seeds so far), then further seeds drawn from ``truth``,
    the same draws for every count (common random numbers: the price of k + 1 seeds is that of k seeds
    and one more). ``p(k)``: the claim's p-values with k further seeds per cell, through the claims
    table's own test (``verdicts.p_values``, with an adaptive ``design``'s looks) and combination
    (``verdicts.combine``)."""

    def __init__(self, claim: Claim, cells: list[list[Cell]], truth: Truth, limit: int = LIMIT,
                 sequential_rule: bool = False, alpha: float = 0.05, draws: int = DRAWS,
                 design: dict | None = None):  # fmt: skip
        self.claim, self.cells, self.truth, self.limit, self.draws = claim, cells, truth, limit, draws
        self.sequential_rule, self.alpha, self.design = sequential_rule, alpha, design
        self._cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        # per cell and part: its own stream, drawn a seed (a row of every draw) at a time as counts grow
        self._rngs = [[np.random.default_rng([RNG_SEED, c, j]) for j in range(len(claim.parts))] for c in range(len(cells))]
        self._new = [[np.zeros((0, draws)) for _ in claim.parts] for _ in cells]  # (seeds, draws)

    def _further(self, c: int, j: int, k: int) -> np.ndarray:
        """The first ``k`` further seeds of cell ``c``, part ``j``, as (draws, k): drawn once, in order."""
        have = self._new[c][j]
        if have.shape[0] < k:
            more, truth, part = k - have.shape[0], self.truth, self.claim.parts[j]
            rng = self._rngs[c][j]
            if self.claim.estimand == "mean":
                lo, hi = verdicts.bounds(self.claim, part)
                pool = truth.deviations[c][j] if truth.deviations and c < len(truth.deviations) else None
                if pool is None:
                    x = truth.effect[c, j] + truth.noise[c, j] * rng.standard_normal((more, self.draws))
                else:  # the cell's own seeds' deviations, resampled: its strays as often as the runs show them
                    picked = pool[rng.integers(len(pool), size=(more, self.draws))]
                    x = truth.effect[c, j] + picked + bandwidth(pool) * rng.standard_normal((more, self.draws))
                x = np.clip(x, lo, hi)
            else:
                meet, fail = _points(self.claim, part)
                u = rng.random((more, self.draws))
                met = u < truth.ties[c, j] + (1 - truth.ties[c, j]) * truth.effect[c, j]
                x = np.where(u < truth.ties[c, j], 0.0, np.where(met, meet, fail))
            self._new[c][j] = have = np.concatenate([have, x])
        return have[:k].T

    def p(self, k: int, rows: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(p_sup, p_con) over the first ``rows`` draws (default all) with ``k`` further seeds per cell;
        1 and 1 (no verdict) where a cell would have fewer than 2 seeds, as in the claims table."""
        rows = rows or self.draws
        if (k, rows) not in self._cache:
            if min(cell.n for parts in self.cells for cell in parts) + k < 2:
                self._cache[k, rows] = (np.ones(rows), np.ones(rows))
            else:
                sup, con = [], []
                for c, parts in enumerate(self.cells):
                    ps = [self._cell_p(part, cell, self._further(c, j, k)[:rows]) for j, (part, cell) in enumerate(zip(self.claim.parts, parts))]
                    sup.append([p[0] for p in ps])
                    con.append([p[1] for p in ps])
                p_sup, p_con, _ = verdicts.combine(sup, con)
                self._cache[k, rows] = (np.asarray(p_sup, dtype=float), np.asarray(p_con, dtype=float))
        return self._cache[k, rows]

    def _looks(self, cell: Cell, n: int):
        """An adaptive design's looks at a cell of ``n`` seeds: its own, then those its rounds add."""
        if not self.sequential_rule or self.design is None:
            return None
        first = sorted(int(s) for s in self.design["seeds"])
        own = [int(s) for s in cell.seeds] if cell.n else first[: min(n, len(first))]
        top = max(own + first)
        return verdicts.looks_of(self.design, own + list(range(top + 1, top + 1 + n - len(own))))

    def _cell_p(self, part: Part, cell: Cell, new: np.ndarray):
        rows = new.shape[0]
        lo = np.concatenate([np.broadcast_to(cell.lo, (rows, cell.n)), new], axis=1)
        hi = np.concatenate([np.broadcast_to(cell.hi, (rows, cell.n)), new], axis=1)
        looks = self._looks(cell, lo.shape[1])
        p_sup, p_con = verdicts.p_values(self.claim, part, lo, hi, cell.step, self.sequential_rule, self.alpha,
                                         **({"looks": looks} if looks is not None else {}))  # fmt: skip
        return (np.broadcast_to(np.asarray(p_sup, dtype=float), (rows,)),
                np.broadcast_to(np.asarray(p_con, dtype=float), (rows,)))  # fmt: skip

    def power(self, k: int, level: float, rows: int | None = None) -> float:
        """The share of draws (the first ``rows``) that reach the truth's verdict at ``level`` with ``k``
        further seeds per cell."""
        p_sup, p_con = self.p(k, rows)
        mine, other = (p_sup, p_con) if self.truth.verdict == "SUPPORTED" else (p_con, p_sup)
        return float(np.mean((mine <= level) & (mine < other)))

    def fewest(self, level: float, power: float = POWER, start: int = 0) -> int | None:
        """The fewest further seeds per cell (from ``start``) that reach the verdict at ``level`` with
        at least ``power``; None beyond ``limit``. The exact share test's power is a sawtooth in the
        seeds, and cheap: every count in turn. Otherwise the power rises with the seeds (common
        draws): a galloping search (doubling up to limit), then a binary one, on the first
        COARSE_DRAWS draws, then every draw from there, a seed at a time."""
        if self.claim.estimand != "mean" and not self.sequential_rule:  # the exact share test: cheap, and a sawtooth
            return next((k for k in range(start, self.limit + 1) if self.power(k, level) >= power), None)
        coarse = min(COARSE_DRAWS, self.draws)
        if self.power(self.limit, level, coarse) < power - COARSE_SLACK:
            return None
        lo, hi = start, max(start, 1)
        while self.power(hi, level, coarse) < power and hi < self.limit:
            lo, hi = hi + 1, min(2 * hi, self.limit)
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if self.power(mid, level, coarse) >= power else (mid + 1, hi)
        k = lo
        if self.power(k, level) >= power:
            while k > start and self.power(k - 1, level) >= power:
                k -= 1
            return k
        return next((k for k in range(k + 1, self.limit + 1) if self.power(k, level) >= power), None)


def seeds_to_decide_at(claim: Claim, cells_values: list[list[Cell]], noise, effect, alpha_level: float,
                       power: float = POWER, limit: int = LIMIT, *, verdict: str = "SUPPORTED", ties=0.0,
                       sequential_rule: bool = False, alpha: float = 0.05, design: dict | None = None) -> int | None:  # fmt: skip
    """The fewest further seeds per cell with which the claim reaches ``verdict`` at ``alpha_level`` (the
    level of its Holm step) with probability at least ``power``, the further seeds drawn from a truth:
    per cell and part (arrays broadcasting to (cells, parts), or one number), normal about ``effect``
    with sd ``noise`` (the mean estimand), or meeting the condition with chance ``effect`` and tying with
    chance ``ties`` (the share estimand; ``noise`` unused). ``cells_values``: the claim's cells so far
    (``verdicts.Result.cells``; ``no_seeds`` for a design without runs); ``sequential_rule`` and
    ``design`` (an adaptive study's {seeds, max_seeds, batch}) as the claims table judges it, ``alpha``
    the one its tests take. None beyond ``limit``."""
    shape = (len(cells_values), len(claim.parts))
    truth = Truth(verdict, np.broadcast_to(np.asarray(effect, dtype=float), shape),
                  np.broadcast_to(np.asarray(noise if noise is not None else 0.0, dtype=float), shape),
                  np.broadcast_to(np.asarray(ties, dtype=float), shape))  # fmt: skip
    return Simulation(claim, cells_values, truth, limit, sequential_rule, alpha, design=design).fewest(alpha_level, power)


def further_seeds(claim: Claim, cells: list[list[Cell]], level: float, sequential_rule: bool, alpha: float,
                  design: dict | None = None, limit: int = LIMIT) -> dict[str, tuple[int | None, str]]:  # fmt: skip
    """Per verdict, (the fewest further seeds per cell that reach it at ``level`` with probability POWER,
    the truth it is priced at in words), the truths read from the claim's own ``cells``: what an
    undecided row of the claims table says would decide it. An adaptive study's rounds (``design``)
    count up to its max_seeds; None: not within ``limit``."""
    if sequential_rule and design is not None:  # the rounds stop at max_seeds
        limit = min(limit, design["max_seeds"] - min(cell.n for parts in cells for cell in parts))
    out = {}
    for verdict, truth in truths(claim, Measured(cells, "its seeds so far"), len(cells)).items():
        if limit < 1:
            out[verdict] = (None, truth.words)
            continue
        k = seeds_to_decide_at(claim, cells, truth.noise, truth.effect, level, limit=limit, verdict=verdict,
                               ties=truth.ties, sequential_rule=sequential_rule, alpha=alpha, design=design)  # fmt: skip
        out[verdict] = (k, truth.words)
    return out


def simulations(study: Study, claim: Claim, n_cells: int, alpha: float, adaptive_block: dict | None,
                sources: list[Source], design: bool = False) -> tuple[dict[str, Simulation], Measured]:  # fmt: skip
    """Per verdict, the simulated studies that price a design (``ablation.plan``): seeds in each of
    ``n_cells`` cells drawn at the verdict's truth, from the claim's runs in ``sources`` (defaults
    where there are none), up to LIMIT (an adaptive study's rounds: up to max_seeds, which they never
    pass); and the runs as measured. ``design``: at the truths of a clear answer (``truths``), what the
    plan refuses a design on; otherwise at the truths the runs show, what it prices."""
    sequential = adaptive_block is not None and claim.sequential
    seeds = claim.where.get("seed", study.seeds)
    limit = adaptive_block["max_seeds"] if sequential else max(LIMIT, len(seeds) if isinstance(seeds, list) else 1)
    measured = measure(claim, sources)
    rounds = {"seeds": study.seeds, **adaptive_block} if sequential else None
    return ({verdict: Simulation(claim, no_seeds(claim, n_cells), truth, limit, sequential, alpha, design=rounds)
             for verdict, truth in truths(claim, measured, n_cells, design).items()}, measured)  # fmt: skip


def sequential_robust_seeds(share: float, level: float, alpha: float, max_seeds: int) -> int | None:
    """Fewest seeds n at which SUPPORTED by the e-process on the seeds' outcomes, with one seed
    outside the claim, survives leaving any one seed out: every order of n - 1 outcomes with one
    0 among them reaches ``level`` (where the 0 falls changes the capital). None beyond ``max_seeds``."""
    for n in range(3, max_seeds + 1):
        z = np.ones((n - 1, n - 1))
        z[np.arange(n - 1), np.arange(n - 1)] = 0.0  # row j: the outcome outside the claim at place j
        p_sup, _ = seedtests.share_p_sequential(z, z, np.ones_like(z, dtype=bool), share, alpha)
        if np.all(p_sup <= level):
            return n
    return None
