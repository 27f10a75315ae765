"""One claim's test and verdict: select -> seed units -> test -> verdict.

A claim (``ablation.kinds.Claim``) travels down once:

1. Select (``seed_units.select``): ``where`` picks the runs (values cast to the column's type).
2. Seed units (``seed_units.claim_cells``): per part of the claim (its kind's per-seed conditions),
   values (a comparison: differences matched on seed and every other factor) averaged within each
   seed, per cell (``cells: every``) or over cells (``average``). The seed is the unit. A diverged
   run's accuracy is unknown, so its seed's value is an interval over the metric's range, and it
   counts against whichever verdict is being tested.
3. Test (``p_values``, ``seedtests.condition_p``): the estimand ``share`` (default) tests the share
   of seeds that meet the condition against ``share`` (default 1/2, the typical seed) with the exact
   binomial test (an adaptive study: the e-process, read at its round ends); ``mean`` tests the mean
   over seeds with the claim's ``test``: the t-test, its assumption checked on each cell's seeds (the
   share test where it fails; an adaptive study: Bonferroni over its looks), or the betting
   e-process. An adaptive study's looks come from its design (``looks_of``). SUPPORTED and
   CONTRADICTED are one-sided tests of complementary hypotheses. Over cells and parts (``combine``):
   SUPPORTED needs every condition of every cell (intersection-union: the largest p), CONTRADICTED
   one (Bonferroni).
4. Verdict (``decided``): at the claim's step of Holm's step-down over its family (``holm_steps``);
   equal p-values point nowhere (INCONCLUSIVE).

An ``exact`` claim is not estimated: every run's twin certificate is checked (``certificate``).
``robustness`` (leave one seed out, at the same Holm step) and ``seeds_to_decide`` / ``reachable``
(what the most favourable further seeds would do) are asked by the claims table
(``ablation.claims``), a claim's scope (``ablation.scope``) and the adaptive rounds alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from . import kinds, measures, seed_units, seedtests, significance
from .kinds import Claim, Part
from .outputs import CERTIFICATE_COLUMNS
from .design import adaptive_block
from .seed_units import Cell, StudyRuns

VERDICTS = ("SUPPORTED", "CONTRADICTED", "INCONCLUSIVE")
EXACT_GAP = 1e-3
"""The largest |logit - twin logit| a run blind to order may show: float32 rounding of sums taken in
another order, which grows with the logits' size; an exact claim's evidence prints the largest gap
its runs show, and a model that sees order gives its twins gaps orders of magnitude larger."""
SEEDS_TO_DECIDE_LIMIT = 100
"""The most further seeds per cell an undecided claim's row counts up to."""


@dataclass(frozen=True)
class Judge:
    """The config's statistics settings that decide verdicts (its ``stats``, defaults filled in)."""

    cfg: dict = field(default_factory=dict)

    @classmethod
    def of(cls, stats: dict | None) -> "Judge":
        return cls(measures.resolve_cfg(stats))

    @property
    def alpha(self) -> float:
        return self.cfg["alpha"]

    @property
    def confidence(self) -> float:
        return self.cfg["confidence"]

    def family_name(self, study: str) -> str:
        if self.cfg.get("family") == "config":
            return "every claim of the config"
        return f"study {study}" if study else "these claims"


@dataclass(frozen=True)
class HolmStep:
    """A claim's step in Holm's step-down over its family: its factor, the floor (the largest
    adjusted p ranked before it), its adjusted p and the family's size. A claim alone: factor 1."""

    factor: float = 1
    floor: float = 0.0
    adjusted: float = np.nan
    size: int = 1
    scoped: int = 0  # the family's scope hypotheses, judged in one procedure with its claims


# --------------------------------------------------------------------------- the test of one cell


def bounds(claim: Claim, part: Part) -> tuple[float, float]:
    """The range of one seed's value: the metric's, or its differences' for a comparison."""
    lo, hi = seed_units.metric_range(claim.metric)
    return (lo - hi, hi - lo) if part.compare else (lo, hi)


def p_values(claim: Claim, part: Part, lo, hi, step: float, sequential_rule: bool, alpha: float,
             looks: seedtests.Looks | None = None):  # fmt: skip
    """(p_sup, p_con) of one part's condition on seed units [lo, hi] (..., seeds): the test the claims
    table puts one cell to, and the simulations thousands of simulated cells at once. ``looks``: an
    adaptive design's (``looks_of``), for ``sequential_rule``; without them a look after every seed."""
    bounded = bounds(claim, part) if part.bounded else None
    return seedtests.condition_p(part.condition, claim.estimand, claim.share, lo, hi, step, bounded, sequential_rule, alpha,
                                 claim.test, looks)  # fmt: skip


def looks_of(design: dict | None, seeds) -> seedtests.Looks | None:
    """Where an adaptive ``design`` ({seeds, max_seeds, batch}) looks at a cell's ``seeds`` (sorted):
    its own seeds are round 0, and the seeds after them (max(seeds) + 1, + 2, ...) come ``batch`` a
    round; K counts the round ends from its seeds to max_seeds. None without a design."""
    if design is None:
        return None
    filled = adaptive_block({"adaptive": design}) | {"seeds": design["seeds"]}  # the schema's defaults where unsaid
    first = {int(s) for s in filled["seeds"]}
    top, batch = max(first), max(int(filled["batch"]), 1)
    rounds = []
    for seed in np.asarray(seeds).tolist():
        try:
            value = int(seed)
        except (TypeError, ValueError):
            value = top
        rounds.append(0 if value <= top else 1 + (value - top - 1) // batch)
    rounds = np.maximum.accumulate(np.asarray(rounds, dtype=int)) if rounds else np.zeros(0, dtype=int)
    return seedtests.Looks(tuple(int(r) for r in rounds), seedtests.looks_count(len(first), batch, filled["max_seeds"]))


def test_words(claim: Claim, sequential_rule: bool, looks: seedtests.Looks | None = None) -> str:
    """The test a claim's seeds are put to, in words (``looks``: an adaptive design's, for its K)."""
    share = f"share > {claim.share:g}"
    if claim.estimand == "mean" and claim.test == "betting":
        at = "at a round end" if sequential_rule else "after the seeds (one look)"
        return f"mean over seeds, betting e-process (anytime-valid), p = 1 / largest capital {at}"
    if sequential_rule:
        shared = f"{share}, betting e-process on the seeds' outcomes (anytime-valid), p = 1 / largest capital at a round end"
    else:
        ties = any(part.condition.ties for part in claim.parts)
        shared = f"{share}, exact binomial test over seeds" + (" that changed (the sign test, ties left out)" if ties else "")
    if claim.estimand != "mean":
        return shared
    return f"{t_test_name(claim)}, its assumption checked on each cell's seeds{bonferroni_words(looks)} (where it fails: {shared})"


def t_test_name(claim: Claim) -> str:
    """'paired t-test (TOST) on the mean' and the like: the t-test of a claim's one condition."""
    part = claim.parts[0]
    lo, hi = part.condition.band
    return f"{'paired t-test' if part.compare else 't-test'} ({'one-sided' if lo == hi else 'TOST'}) on the mean"


def bonferroni_words(looks: seedtests.Looks | None) -> str:
    """', Bonferroni over the design's 4 looks (p = 4 x the smallest p at a round end)' ('' without)."""
    if looks is None:
        return ""
    k = looks.count
    return f", Bonferroni over the design's {k} looks (p = {k} x the smallest p at a round end)"


@dataclass
class Evidence:
    """What one cell's seeds show about one condition, and the two one-sided p-values."""

    words: str
    p_sup: float
    p_con: float
    n: int  # seeds counted
    met: int  # seeds that surely meet the condition
    mean: float  # of the seeds' known values
    test: str = ""  # the test this cell's seeds were put to, in words (the t-test: whether its assumption held)
    t_held: bool = False  # the mean's t-test was used (its assumption held on these seeds)


def tally(cell: Cell) -> tuple[int, int, int, int]:
    """A comparison cell's seeds by the sign of their difference: (improved, worsened, tied, unknown:
    a diverged run's seed whose interval straddles 0)."""
    tol = max(cell.step, 1e-12) / 2
    tie = kinds.tied(cell.lo, cell.hi, cell.step)
    improved, worsened = int((cell.lo >= tol).sum()), int((cell.hi <= -tol).sum())
    return improved, worsened, int(tie.sum()), cell.n - improved - worsened - int(tie.sum())


def tally_words(cell: Cell) -> str:
    """'7 improved, 2 worsened, 1 tied of 10 seeds': what a comparison's seeds show, ties included."""
    improved, worsened, tie, unknown = tally(cell)
    more = f", {unknown} unknown (a diverged run)" if unknown else ""
    return f"{improved} improved, {worsened} worsened, {tie} tied{more} of {cell.n} seeds"


def typical_tie_words(cell: Cell) -> str:
    """'the typical seed tied: 32 of 64; of the 32 that changed, 24 improved' when the median seed's
    difference is 0 (fewer than half the seeds improved and fewer than half worsened), else ''."""
    improved, worsened, tie, unknown = tally(cell)
    if not tie or 2 * (improved + unknown) >= cell.n or 2 * (worsened + unknown) >= cell.n:
        return ""
    changed = cell.n - tie
    return f"the typical seed tied: {tie} of {cell.n}; of the {changed} that changed, {improved} improved"


def cell_evidence(claim: Claim, part: Part, cell: Cell, sequential_rule: bool, alpha: float,
                  design: dict | None = None) -> Evidence:  # fmt: skip
    """One cell's evidence: the seeds that meet the condition (a comparison's in the words of its tie
    rule: how many improved, worsened and tied; a ``better`` claim that counts its ties against
    SUPPORTED also whether the typical seed tied), the test (the mean's t-test: whether its assumption
    held), the p-values of both verdicts. ``design``: an adaptive study's, whose looks a
    ``sequential_rule`` reads."""
    cond = part.condition
    counted = cond.counted(cell.lo, cell.hi, cell.step)
    sure, possible = cond.sure(cell.lo, cell.hi) & counted, cond.possible(cell.lo, cell.hi) & counted
    n, k = int(counted.sum()), int(sure.sum())
    known = cell.known()
    mean = float(cell.lo[known].mean()) if known.any() else np.nan
    unsure = int((possible & ~sure).sum())
    met = f"{k} of {n} seeds {cond.words}"
    improvement = cond.strict and cond.low == 0 and not np.isfinite(cond.high)  # the condition is the improvement
    if part.compare is None:
        words = met
    elif cond.ties:  # ties left out: the claim speaks of the seeds that changed
        words = f"{tally_words(cell)}; {k} of the {n} that changed {cond.words}"
    elif improvement:
        typical = typical_tie_words(cell)
        words = f"{tally_words(cell)} ({claim.kind.ties_rule(claim)})" + (f"; {typical}" if typical else "")
    else:
        words = f"{met} ({tally_words(cell)}; {claim.kind.ties_rule(claim)})"
    if unsure:
        words += f"; {unsure} seed(s) with a diverged run count against each verdict"
    if claim.estimand == "mean":
        words = f"mean {mean:.4g} over {cell.n} seeds; " + words
    looks = looks_of(design, cell.seeds) if sequential_rule else None
    p_sup, p_con = p_values(claim, part, cell.lo, cell.hi, cell.step, sequential_rule, alpha, looks)
    test, held = cell_test_words(claim, part, cell, sequential_rule, looks)
    return Evidence(words, float(p_sup), float(p_con), n, k, mean, test, held)


def cell_test_words(claim: Claim, part: Part, cell: Cell, sequential_rule: bool,
                    looks: seedtests.Looks | None) -> tuple[str, bool]:  # fmt: skip
    """(the test one cell's seeds were put to, in words; whether the mean's t-test was used): 'paired
    t-test (TOST) on the mean, normality checked on the 8 seeds: holds', or '...: fails: 7 of 8 seeds
    tie (difference 0); share of seeds instead: share > 0.5, exact binomial test over seeds'."""
    if claim.estimand != "mean" or claim.test != "t":
        return test_words(claim, sequential_rule, looks), False
    bounded = bounds(claim, part) if part.bounded else None
    check = seedtests.normality_words(cell.lo, cell.hi, bounded, cell.step, part.compare is not None)
    share = replace(claim, estimand="share")
    if check.endswith(": holds"):
        return f"{t_test_name(claim)}, {check}{bonferroni_words(looks)}", True
    return f"{t_test_name(claim)}, {check}; share of seeds instead: {test_words(share, sequential_rule, looks)}", False


def combine(p_sup, p_con) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A claim's (p_sup, p_con, deciding cell) from its cells' and parts' p-values (cells, parts, ...):
    SUPPORTED needs every condition of every cell (intersection-union: the largest p); CONTRADICTED
    one (Bonferroni over the cells and conditions). The deciding cell: the one with the largest
    p_sup, or the smallest p_con when that is the smaller."""
    p_sup, p_con = np.asarray(p_sup, dtype=float), np.asarray(p_con, dtype=float)
    n_cells, n_parts = p_sup.shape[:2]
    sup = p_sup.max(axis=1)
    con = np.minimum(1.0, n_parts * p_con.min(axis=1))
    claim_sup, claim_con = sup.max(axis=0), np.minimum(1.0, n_cells * con.min(axis=0))
    # among cells whose p ties, the one closest to the other verdict: SUPPORTED's weakest cell is the one
    # with the largest p_sup, then the smallest p_con; CONTRADICTED's strongest the smallest p_con, then
    # the largest p_sup
    weakest = np.argmin(np.where(sup == claim_sup, con, np.inf), axis=0)
    strongest = np.argmax(np.where(con == con.min(axis=0), sup, -np.inf), axis=0)
    deciding = np.where(claim_con < claim_sup, strongest, weakest)
    return claim_sup, claim_con, deciding


def closest_of_ties(claim: Claim, evidence: list, deciding: int) -> int:
    """Among the cells whose p-values equal the deciding cell's (``combine``'s), the one whose seeds'
    mean lies closest to the condition's boundary (the first of them at equal distances): of the cells
    that decide a claim, its row shows the least rosy."""
    def ps(ev) -> tuple[float, float]:
        return max(e.p_sup for e in ev), min(e.p_con for e in ev)

    lo, hi = claim.parts[0].condition.band
    tied = [i for i, ev in enumerate(evidence) if ps(ev) == ps(evidence[deciding])]
    return min(tied, key=lambda i: min(abs(evidence[i][0].mean - lo), abs(evidence[i][0].mean - hi))
               if np.isfinite(evidence[i][0].mean) else np.inf)  # fmt: skip


@dataclass
class Result:
    """A claim's p-values over its cells, the cell that decides, and what the seeds show there."""

    p_sup: float
    p_con: float
    n: int
    deciding: int
    evidence: list  # per cell: [Evidence per part]
    cells: list  # per cell: [Cell per part]
    desc: str = ""
    seeds: tuple = ()
    sequential: bool = False  # judged by an adaptive study's rule, at its looks
    design: dict | None = None  # the adaptive study's, whose looks a sequential rule reads


def claim_test(claim: Claim, runs: StudyRuns, judge: Judge) -> Result:
    """Select -> seed units -> test, for one (non-exact) claim. An adaptive study (``runs.design``)
    judges a claim by its sequential rule at the design's looks; one without a bounded statistic on
    its first round's seeds."""
    sequential_rule = runs.design is not None and claim.sequential
    if runs.design is not None and not sequential_rule:
        runs = runs.first_round()
    cells, desc = seed_units.claim_cells(claim, runs, judge.cfg)
    design = runs.design if sequential_rule else None
    evidence = [[cell_evidence(claim, part, cell, sequential_rule, judge.alpha, design) for part, cell in zip(claim.parts, parts)]
                for parts in cells]  # fmt: skip
    p_sup, p_con, deciding = combine([[e.p_sup for e in ev] for ev in evidence], [[e.p_con for e in ev] for ev in evidence])
    p_sup, p_con, deciding = float(p_sup), float(p_con), closest_of_ties(claim, evidence, int(deciding))
    n = min(cell.n for parts in cells for cell in parts)
    if n < 2:  # no verdict from fewer than 2 seeds: equal p-values point nowhere (decided)
        p_sup = p_con = 1.0
    seeds = tuple(sorted({s for parts in cells for cell in parts for s in cell.seeds}, key=str))
    return Result(p_sup, p_con, n, int(deciding), evidence, cells, desc, seeds, sequential_rule, design)


# --------------------------------------------------------------------------- exact claims


def certificate(claim: Claim, summary: pd.DataFrame) -> tuple[str, str, int]:
    """An exact claim's verdict from every selected run's twin certificate: (verdict, evidence in
    words, runs). A run holds it when no twin pair is predicted differently and its logits differ
    from its twins' by at most EXACT_GAP; a run without a certificate (diverged, or trained before
    runs recorded one) leaves the claim INCONCLUSIVE."""
    sub = seed_units.select(summary, claim.where, claim.id)
    missing_cols = [col for col in CERTIFICATE_COLUMNS if col not in sub]
    if missing_cols:
        return "INCONCLUSIVE", f"no run has a twin certificate ({', '.join(missing_cols)} missing)", len(sub)
    gap, differ = measures.numeric(sub, "twin_logit_gap"), measures.numeric(sub, "twin_pairs_differ")
    absent = ~(np.isfinite(gap) & np.isfinite(differ))
    broken = ~absent & ((differ > 0) | (gap > EXACT_GAP))
    ids = sub["run_id"].astype(str).to_numpy() if "run_id" in sub else np.arange(len(sub)).astype(str)
    if broken.any():
        named = ", ".join(f"{r} ({int(d)} twin pairs predicted differently, logit gap {g:.3g})"
                          for r, d, g in zip(ids[broken][:5], differ[broken][:5], gap[broken][:5]))  # fmt: skip
        more = f" and {int(broken.sum()) - 5} more" if broken.sum() > 5 else ""
        return "CONTRADICTED", f"{int(broken.sum())} of {len(sub)} runs break the twin certificate: {named}{more}", len(sub)
    if absent.any():
        return "INCONCLUSIVE", (f"{int(absent.sum())} of {len(sub)} runs have no twin certificate (diverged or "
                                f"trained without one): {', '.join(ids[absent][:5])}"), len(sub)  # fmt: skip
    return "SUPPORTED", (f"all {len(sub)} runs hold the twin certificate: every twin pair predicted alike, "
                         f"largest logit gap {np.max(gap, initial=0.0):.2g}"), len(sub)  # fmt: skip


# --------------------------------------------------------------------------- verdicts


def direction(p_sup: float, p_con: float) -> str | None:
    """The verdict with the smaller p; None at a tie (equal p-values point nowhere)."""
    if p_sup < p_con:
        return "SUPPORTED"
    if p_con < p_sup:
        return "CONTRADICTED"
    return None


def decided(p_sup: float, p_con: float, step: HolmStep, alpha: float) -> str:
    """The verdict whose p, at its Holm step (times the step's factor, at least its floor: the
    adjusted p of the claims ranked before it), is at most alpha; INCONCLUSIVE at a tie of the two
    p-values. The adaptive rounds decide with the same function."""
    toward = direction(p_sup, p_con)
    if toward is None or max(step.floor, step.factor * min(p_sup, p_con)) > alpha:
        return "INCONCLUSIVE"
    return toward


def holm_steps(raw) -> list[HolmStep]:
    """Each p-value's step in Holm's step-down over one family, in the given order."""
    raw = np.asarray(raw, dtype=float)
    adjusted, order, m = significance.holm(raw), np.argsort(raw, kind="stable"), len(raw)
    out = [None] * m
    for rank, j in enumerate(order):
        floor = float(np.max(np.minimum(1.0, (m - np.arange(rank)) * raw[order[:rank]]), initial=0.0))
        out[j] = HolmStep(m - rank, floor, float(adjusted[j]), m)
    return out


def graph_steps(raw, weights, transitions, size: int) -> list[HolmStep]:
    """Each p-value's step in a graphical procedure (``significance.graphical``) over one family of
    ``size`` claims and the hypotheses of their scopes (the rest of ``raw``), in the given order."""
    factor, floor, adjusted = significance.graphical(raw, weights, transitions)
    return [HolmStep(float(f), float(fl), float(a), size, len(raw) - size) for f, fl, a in zip(factor, floor, adjusted)]


def verdict_alone(claim: Claim, runs: StudyRuns, judge: Judge, step: HolmStep) -> tuple[str, int]:
    """A claim's verdict (and its seeds, or runs for an exact claim) on ``runs`` at its Holm step."""
    if claim.exact:
        verdict, _, n = certificate(claim, runs.summary)
        return verdict, n
    r = claim_test(claim, runs, judge)
    return decided(r.p_sup, r.p_con, step, judge.alpha), r.n


def robustness(claim: Claim, runs: StudyRuns, judge: Judge, step: HolmStep, verdict: str, seeds) -> float:
    """The share of leave-one-seed-out evaluations that repeat ``verdict`` at the claim's Holm step
    (NaN without seeds): the claims table's robustness, and what makes an adaptive round call a
    verdict fragile."""
    same = []
    for seed in seeds:
        try:
            left, _ = verdict_alone(claim, runs.without_seed(seed), judge, step)
        except ValueError:  # the seed was the last of a cell
            left = "INCONCLUSIVE"
        same.append(left == verdict)
    return float(np.mean(same)) if same else float("nan")


# --------------------------------------------------------------------------- what would decide it


def _grown(cells: list[list[Cell]], k, value: float) -> list[list[Cell]]:
    """Every cell with further seeds at ``value``: ``k`` each, or one count per cell; the further seeds
    are those after the cell's largest, so that an adaptive design's rounds place them."""
    ks = k if isinstance(k, list) else [k] * len(cells)
    return [[replace(cell.grown(n_more, value), seeds=_seeds_after(cell.seeds, n_more)) for cell in parts]
            for parts, n_more in zip(cells, ks)]  # fmt: skip


def _seeds_after(seeds: np.ndarray, k: int) -> np.ndarray:
    """``seeds`` and the ``k`` seeds after the largest (0, 1, ... for seeds without a number)."""
    try:
        numbers = np.asarray(seeds).astype(int)
    except (TypeError, ValueError):
        return np.arange(len(seeds) + k)
    after = int(np.max(numbers, initial=-1)) + 1
    return np.append(numbers, np.arange(after, after + k))


def _p_with(claim: Claim, cells: list[list[Cell]], sequential_rule: bool, alpha: float,
            design: dict | None = None) -> tuple[float, float]:  # fmt: skip
    per = [[p_values(claim, part, c.lo, c.hi, c.step, sequential_rule, alpha, looks_of(design, c.seeds) if sequential_rule else None)
            for part, c in zip(claim.parts, parts)] for parts in cells]  # fmt: skip
    p_sup, p_con, _ = combine([[p[0] for p in ps] for ps in per], [[p[1] for p in ps] for ps in per])
    return float(p_sup), float(p_con)


def favourable(claim: Claim) -> dict[str, list[float]]:
    """Per verdict, the per-seed values most favourable to it (one condition on bounded values)."""
    part = claim.parts[0]
    return part.condition.favourable(bounds(claim, part))


def seeds_to_decide(claim: Claim, result: Result, step: HolmStep, alpha: float,
                    limit: int = SEEDS_TO_DECIDE_LIMIT) -> dict[str, int | None]:  # fmt: skip
    """Per verdict, the fewest further seeds per cell, every one at the value most favourable to
    it, with which the claim's rule gives that verdict at its Holm step; None beyond ``limit``. What
    an undecided claim's row says would decide it, and (on cells without seeds) what the plan says
    a design needs. Not given for a claim of several conditions or unbounded values."""
    if not claim.sequential or not result.cells:
        return {}
    out = {}
    for verdict, values in favourable(claim).items():
        out[verdict] = None
        for k in range(1, limit + 1):
            at_step = HolmStep(step.factor, 0.0, step.adjusted, step.size)
            if any(decided(*_p_with(claim, _grown(result.cells, k, v), result.sequential, alpha, result.design), at_step,
                           alpha) == verdict for v in values):  # fmt: skip
                out[verdict] = k
                break
    return out


def reachable(claim: Claim, runs: StudyRuns, judge: Judge, level: float) -> bool:
    """Could an adaptive claim's p reach ``level`` by ``max_seeds``? Optimistically: every further
    seed of every cell takes the value most favourable to one verdict. The futility rule: a claim or
    universe this denies gets no more seeds, since no outcome of them could decide it. A claim of
    the mean's t-test is never denied while seeds remain: further seeds can move a t statistic in
    ways no single value stands for."""
    cells, _ = seed_units.claim_cells(claim, runs, judge.cfg)
    n_more = [runs.design["max_seeds"] - parts[0].n for parts in cells]
    if min(n_more, default=0) <= 0:
        return False
    if claim.estimand == "mean" and claim.test == "t":
        return True
    for value in (v for values in favourable(claim).values() for v in values):
        if min(_p_with(claim, _grown(cells, n_more, value), True, judge.alpha, runs.design)) <= level:
            return True
    return False


def all_tied(claim: Claim, result: Result) -> str:
    """'no seed differed in 20: warmup 0 and 100 give the same converged in every seed' for a
    comparison whose every seed tied in every cell, else ''."""
    part = claim.parts[0]
    if part.compare is None or not result.cells:
        return ""
    if not all(tally(parts[0])[2] == parts[0].n for parts in result.cells):
        return ""
    factor, a, b = part.compare
    return (f"no seed differed in {result.n}: {factor} {format_level(a)} and {format_level(b)} give the same "
            f"{claim.metric} in every seed")  # fmt: skip


def format_level(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def futility(claim: Claim, runs: StudyRuns, result: Result, judge: Judge, step: HolmStep) -> tuple[bool, str]:
    """(whether no further seeds are spent on an undecided claim or universe, why in one sentence):
    it has max_seeds, or even the most favourable seeds up to max_seeds could not decide it at its step
    (the futility rule: it gets no more); the sentence also says when every seed tied, stopped or not."""
    tie = all_tied(claim, result)
    if runs.design is None or not claim.sequential:
        return False, tie
    max_seeds = runs.design["max_seeds"]
    if result.n >= max_seeds:
        return True, "; ".join(filter(None, [tie, f"it has max_seeds ({max_seeds})"]))
    level = judge.alpha / step.factor if np.isfinite(step.factor) and step.factor > 0 else 0.0
    if reachable(claim, runs, judge, level):
        return False, tie
    more = max_seeds - result.n
    return True, "; ".join(filter(None, [tie, f"even {more} more seed(s) per cell, each the most favourable to a verdict, "
                                        f"could not decide it within max_seeds ({max_seeds}): it gets no more"]))  # fmt: skip


def open_reason(claim: Claim, runs: StudyRuns, result: Result, judge: Judge, step: HolmStep) -> str:
    """Why an undecided claim (or universe) is open, in one sentence: the futility rule's reason, or
    how many further seeds, every one meeting the claim, could decide it."""
    stopped, stop = futility(claim, runs, result, judge, step)
    if stopped:
        return stop
    need = seeds_to_decide(claim, result, step, judge.alpha).get("SUPPORTED")
    more = f"{need} more seed(s) per cell, every one meeting the claim, could decide it" if need else ""
    return "; ".join(filter(None, [stop, more])) or "its seeds do not yet decide it"
