"""Claim kinds, each declared once, and the claims a config builds from them.

A kind is one class registered under the name a claim's ``kind`` uses (``@claim_kind("at_least")``),
as model variants and tasks register: its own keys (a JSON schema each, ``keys``), what it puts to
each seed (``parts``: a per-seed ``Condition`` and the runs' values it reads) and the words of its
rule. Everything downstream reads a kind through its parts, never through its name: the seed units
(``ablation.seed_units``), the tests (``ablation.seedtests``), the verdicts (``ablation.claims``), the
adaptive rounds, the plan and the report. A plugin module registers its own kind with the same
decorator, and the config validates its keys like a built-in's.

=============  =====================================  =============================================
kind           keys                                   a seed meets the condition when
=============  =====================================  =============================================
at_value       target, tolerance                      its value lies in target +- tolerance
at_least       threshold                              its value is at least threshold
equivalent     factor, levels [a, b], margin, ties    its difference b - a lies in +- margin
not_worse      factor, levels [baseline, other],      its difference other - baseline is at least
               margin, ties                           -margin
better         factor, levels [baseline, treatment],  its difference is above 0
               ties
grad_trend     factor, growing, flat, flat_margin,    the `growing` level's slope of ln(initial
               min_slope                              gradient norm) over layers is above min_slope,
                                                      and the `flat` level's lies in +- flat_margin
=============  =====================================  =============================================

One tie rule: a comparison's seed is judged on its difference, a tie (a difference of 0) included: a
tie did not improve (``better``), is not worse (``not_worse``) and lies within the margin
(``equivalent``). ``ties: exclude`` reads a claim among the seeds where the setting changes the
outcome (McNemar's reading, natural for a 0/1 metric such as ``converged``): ties count for neither
verdict.

A claim (``Claim``) is frozen and typed: the keys every claim has, its kind (the object), and the
kind's own keys with their defaults. ``ablation.config`` builds and validates it once from the config.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Mapping

import numpy as np

from .outputs import RUN_METRICS
from .registry import registrar

EPS = 1e-9
"""Values on the metric's grid (k / n) compare to a bound with float noise below this."""


# --------------------------------------------------------------------------- what a seed must show


def tied(lo, hi, step: float) -> np.ndarray:
    """Seeds whose difference is known to be 0 (within half the metric's grid step): a tie."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    return (lo == hi) & (np.abs(lo) < max(step, 1e-12) / 2)


@dataclass(frozen=True)
class Condition:
    """What one seed must show: a value in [low, high] (``strict``: above low, not at it). A value at 0
    (within half the grid step) is a tie: it meets the condition or not like any value, unless
    ``ties`` (a claim's ``ties: exclude``) leaves it out of both verdicts."""

    low: float
    high: float
    words: str
    strict: bool = False
    ties: bool = False

    def sure(self, lo, hi) -> np.ndarray:
        """Seeds whose whole interval [lo, hi] meets the condition."""
        above = lo > self.low + EPS if self.strict else lo >= self.low - EPS
        return above & (hi <= self.high + EPS)

    def possible(self, lo, hi) -> np.ndarray:
        """Seeds whose interval [lo, hi] may meet the condition."""
        above = hi > self.low + EPS if self.strict else hi >= self.low - EPS
        return above & (lo <= self.high + EPS)

    def counted(self, lo, hi, step: float) -> np.ndarray:
        """Seeds that count for a verdict: all of them, or (``ties``) all but the ties."""
        if not self.ties:
            return np.ones(np.shape(lo), dtype=bool)
        return ~tied(lo, hi, step)

    @property
    def band(self) -> tuple[float, float]:
        """The decision boundary as (lo, hi): a one-sided condition has hi == lo."""
        return (self.low, self.low) if not np.isfinite(self.high) else (self.low, self.high)

    def favourable(self, bounds: tuple[float, float]) -> dict[str, list[float]]:
        """Per verdict, the per-seed values most favourable to it: the range's end beyond a one-sided
        boundary; the band's centre for SUPPORTED of a two-sided one and either end of the range
        against it."""
        lo, hi = self.band
        blo, bhi = bounds
        if hi == lo:
            return {"SUPPORTED": [bhi], "CONTRADICTED": [blo]}
        return {"SUPPORTED": [(lo + hi) / 2], "CONTRADICTED": [blo, bhi]}


@dataclass(frozen=True)
class Part:
    """One per-seed condition of a claim and the runs' values it is put to.

    ``reads``: "metric" (the claim's metric per run) or "slope" (the run's least-squares slope of
    ln(initial gradient norm) over its layers: unbounded, so no betting e-process and no mean test).
    ``compare``: (factor, baseline, other) when a seed's value is the paired difference other -
    baseline; ``level``: (factor, level) when only the runs at one level are read."""

    condition: Condition
    reads: str = "metric"
    compare: tuple | None = None
    level: tuple | None = None

    @property
    def factor(self) -> str | None:
        """The factor whose levels this part reads (compares, or fixes), if any."""
        return (self.compare or self.level or (None,))[0]

    @property
    def bounded(self) -> bool:
        return self.reads == "metric"


# --------------------------------------------------------------------------- the kinds


class ClaimKind:
    """The base of every claim kind: no keys, no parts. A subclass declares its ``keys`` (JSON schema
    each; ``$ref`` into the config schema's definitions), ``level_keys`` (its keys whose values are
    levels of its ``factor``), its ``parts`` and its ``rule`` in words."""

    name = ""
    keys: dict = {}
    level_keys: tuple = ()

    def parts(self, claim: "Claim") -> list[Part]:
        raise NotImplementedError

    def rule(self, claim: "Claim") -> str:
        """'a seed meets the claim when ...'."""
        raise NotImplementedError

    def exact_ok(self, claim: "Claim") -> bool:
        """Whether the claim may be ``exact`` (checked on every run's twin certificate)."""
        return False

    def describe(self) -> str:
        """The kind in one line: its docstring's first line, or its name for a kind without one (a
        class does not inherit its base's docstring)."""
        lines = (self.__doc__ or "").strip().splitlines()
        return lines[0] if lines else f"the claim kind {self.name!r} (its class has no docstring)"

    def __eq__(self, other) -> bool:  # a kind is stateless: its class is its identity
        return type(self) is type(other)

    def __hash__(self) -> int:
        return hash(type(self))

    def __repr__(self) -> str:
        return f"<claim kind {self.name}>"


CLAIM_KINDS: dict[str, type[ClaimKind]] = {}


def _register(registry: dict, kind: str):
    named = registrar(registry, kind)

    def claim_kind(name: str):
        def register(cls):
            cls.name = name
            return named(name)(cls)

        return register

    return claim_kind


claim_kind = _register(CLAIM_KINDS, "claim kind")
"""A class decorator: ``@claim_kind("at_least")`` registers the class under "at_least"."""

FACTOR = {"$ref": "#/definitions/claim_factor"}
LEVELS = {"$ref": "#/definitions/claim_levels"}
MARGIN = {"$ref": "#/definitions/claim_margin"}
TIES = {
    "type": "string", "enum": ["count", "exclude"], "default": "count",
    "description": "How a seed whose difference is 0 counts: count (by the kind's condition: not an improvement "
                   "for better, not worse for not_worse, within the margin for equivalent) or exclude (left out of "
                   "both verdicts: the claim speaks of the seeds where the setting changes the outcome).",
}  # fmt: skip


def pct(x: float) -> str:
    return f"{100 * x:.4g} %"


def pp(x: float) -> str:
    return f"{100 * x:.4g} pp"


@claim_kind("at_value")
class AtValue(ClaimKind):
    """a seed's value lies inside target +- tolerance."""

    keys = {
        "target": {"type": "number", "minimum": 0, "maximum": 1, "description": "The value the metric should have."},
        "tolerance": {"type": "number", "minimum": 0, "description": "Half-width of the band around target."},
    }

    def parts(self, claim):
        t, tol = claim.keys["target"], claim.keys["tolerance"]
        return [Part(Condition(t - tol, t + tol, f"within {pp(tol)} of {pct(t)}"))]

    def rule(self, claim):
        return f"a seed meets the claim when its value lies within {claim.keys['target']} ± {claim.keys['tolerance']}"

    def exact_ok(self, claim):
        return claim.keys["target"] == 0.5


@claim_kind("at_least")
class AtLeast(ClaimKind):
    """a seed's value reaches threshold."""

    keys = {"threshold": {"type": "number", "minimum": 0, "maximum": 1, "description": "The least value of the metric."}}

    def parts(self, claim):
        return [Part(Condition(claim.keys["threshold"], np.inf, f"reached {pct(claim.keys['threshold'])}"))]

    def rule(self, claim):
        return f"a seed meets the claim when its value is at least {claim.keys['threshold']}"


class Comparison(ClaimKind):
    """A kind on the paired difference levels[1] - levels[0] of one factor, per seed."""

    keys = {"factor": FACTOR, "levels": LEVELS, "ties": TIES}
    level_keys = ("levels",)
    tie_words = ""  # how a tie counts, in the claim's words

    def condition(self, claim) -> Condition:
        raise NotImplementedError

    def parts(self, claim):
        a, b = claim.keys["levels"]
        condition = replace(self.condition(claim), ties=claim.keys.get("ties", "count") == "exclude")
        return [Part(condition, compare=(claim.keys["factor"], a, b))]

    def ties_rule(self, claim) -> str:
        """How a tie counts, in words."""
        if claim.keys.get("ties", "count") == "exclude":
            return "a tie is left out (the claim speaks of the seeds where the setting changes the outcome)"
        return self.tie_words


class MarginComparison(Comparison):
    """A comparison whose seed meets the claim when its difference lies in a band the ``margin`` sets:
    a subclass gives the band (``band``) and the rule's words for it (``rule_words``)."""

    keys = Comparison.keys | {"margin": MARGIN}

    def band(self, margin: float) -> tuple[float, float, str]:
        """(low, high, what a seed that meets it did) for ``margin``."""
        raise NotImplementedError

    def rule_words(self, margin) -> str:
        """'lies within ±0.02': what a seed's difference does when it meets the claim."""
        raise NotImplementedError

    def condition(self, claim):
        return Condition(*self.band(claim.keys["margin"]))

    def rule(self, claim):
        return f"a seed meets the claim when its difference {self.rule_words(claim.keys['margin'])}; {self.ties_rule(claim)}"


@claim_kind("equivalent")
class Equivalent(MarginComparison):
    """a seed's difference levels[1] - levels[0] lies inside +- margin."""

    tie_words = "a tie lies within the margin"

    def band(self, margin):
        return -margin, margin, f"differed by at most ±{pp(margin)}"

    def rule_words(self, margin):
        return f"lies within ±{margin}"


@claim_kind("not_worse")
class NotWorse(MarginComparison):
    """a seed's difference levels[1] - levels[0] is at least -margin."""

    tie_words = "a tie is not worse"

    def band(self, margin):
        return -margin, np.inf, f"lost at most {pp(margin)}"

    def rule_words(self, margin):
        return f"is at least -{margin}"


@claim_kind("better")
class Better(Comparison):
    """a seed's difference levels[1] - levels[0] is above 0 (a tie did not improve)."""

    tie_words = "a tie did not improve"

    def condition(self, claim):
        return Condition(0.0, np.inf, "improved", strict=True)

    def rule(self, claim):
        return f"a seed meets the claim when its difference is above 0; {self.ties_rule(claim)}"


@claim_kind("grad_trend")
class GradTrend(ClaimKind):
    """the slope of log initial gradient norm over layers grows at one level, is flat at another."""

    keys = {
        "factor": FACTOR,
        "growing": {"$ref": "#/definitions/level", "description": "The level whose slope should be > 0."},
        "flat": {"$ref": "#/definitions/level", "description": "The level whose slope should be within +- flat_margin."},
        "flat_margin": MARGIN | {"description": "How far from 0 a flat slope may be."},
        "min_slope": {"type": "number", "minimum": 0, "default": 0,
                      "description": "The slope (per layer) a growing level's seed must exceed, so that a flat truth can be CONTRADICTED."},
        "metric": {"not": {}, "description": "unknown key for kind grad_trend (it judges initial gradients, not a metric)"},
    }  # fmt: skip
    level_keys = ("growing", "flat")

    def parts(self, claim):
        k = claim.keys
        growing = Condition(k["min_slope"], np.inf, f"grew by more than {k['min_slope']:g} per layer", strict=True)
        flat = Condition(-k["flat_margin"], k["flat_margin"], f"stayed within ±{k['flat_margin']:g} per layer")
        return [Part(growing, reads="slope", level=(k["factor"], k["growing"])),
                Part(flat, reads="slope", level=(k["factor"], k["flat"]))]  # fmt: skip

    def rule(self, claim):
        k = claim.keys
        return (f"a seed meets the claim when the growing level's slope is above {k['min_slope']} and the flat "
                f"level's within ±{k['flat_margin']}")  # fmt: skip


# --------------------------------------------------------------------------- a claim


@dataclass(frozen=True)
class Claim:
    """One claim of a study, as the config states it, defaults filled in (``ablation.config``
    builds and validates it). ``keys``: its kind's own keys; ``raw``: the mapping the config gave."""

    id: str
    statement: str
    kind: ClaimKind
    keys: Mapping = field(default_factory=dict)
    source: str = ""
    note: str = ""
    where: Mapping = field(default_factory=dict)
    metric: str | None = "test_acc"
    cells: str = "every"
    estimand: str = "share"
    test: str = "t"  # the mean's test (estimand mean): t, its assumption checked, or betting
    share: float = 0.5
    exact: bool = False
    lengths: tuple | None = None  # (from, to), inclusive, for a metric of the task; None: each run's trained lengths
    robust_over: Mapping = field(default_factory=dict)  # setting -> its levels: the universes of the claim's scope
    undecidable_ok: str = ""  # why the plan may accept seeds that cannot reach both verdicts ("": it refuses them)
    raw: Mapping = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self):
        for name in ("keys", "where", "raw"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))
        object.__setattr__(self, "robust_over", MappingProxyType({k: tuple(v) for k, v in dict(self.robust_over).items()}))
        if isinstance(self.lengths, int):
            object.__setattr__(self, "lengths", (self.lengths, self.lengths))
        elif self.lengths is not None:
            object.__setattr__(self, "lengths", tuple(self.lengths))

    @property
    def evaluated(self) -> bool:
        """Whether the claim reads a metric of its task from the study's evaluations (at test lengths)
        rather than a run's own metric from its summary."""
        return self.metric is not None and self.metric not in RUN_METRICS

    @property
    def parts(self) -> list[Part]:
        return self.kind.parts(self)

    @property
    def factor(self) -> str | None:
        """The factor whose levels the claim reads (compares, or reads at given levels), if any."""
        return next((p.factor for p in self.parts if p.factor is not None), None)

    @property
    def levels(self) -> list:
        """The levels of ``factor`` the claim reads, in its kind's order."""
        out = []
        for key in self.kind.level_keys:
            value = self.keys[key]
            out += list(value) if isinstance(value, (list, tuple)) else [value]
        return out

    @property
    def scale(self) -> str:
        """What one seed's value is: "slope" (per layer), "difference" (of the metric between two
        levels) or "value" (of the metric)."""
        part = self.parts[0]
        return "slope" if part.reads == "slope" else "difference" if part.compare else "value"

    @property
    def sequential(self) -> bool:
        """Whether the claim can be judged in adaptive rounds (by a test valid at the design's looks:
        the betting e-process, or the t-test with Bonferroni over the looks): one condition on bounded
        values of the runs' own metrics (evaluations come after the rounds' training)."""
        parts = self.parts
        return len(parts) == 1 and parts[0].bounded and not self.evaluated

    def rule(self) -> str:
        return self.kind.rule(self)

    def universes(self) -> list[dict]:
        """Every combination of the ``robust_over`` levels ({setting: level}, one dict per universe,
        the study's own among them), in the order the config lists them; [] when the claim has no
        scope."""
        out = [{}]
        for setting, levels in self.robust_over.items():
            out = [u | {setting: level} for u in out for level in levels]
        return out if self.robust_over else []

    def to_dict(self) -> dict:
        """The claim as the config gave it."""
        return dict(self.raw)
