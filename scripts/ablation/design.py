"""A study's design: its ``adaptive`` block with the schema's defaults, the order its seeds arrive in,
and every run it may train.

The run store (which runs a config references) and the adaptive rounds (which runs to train next)
both read these, so they sit below both.
"""

from __future__ import annotations

from . import settings
from .config import Run, Study


def adaptive_block(raw_study: dict) -> dict | None:
    """The study's ``adaptive`` block with the schema's defaults filled in, or None (fixed design)."""
    block = raw_study.get("adaptive")
    if block is None:
        return None
    spec = settings.schema()["definitions"]["study"]["properties"]["adaptive"]["properties"]
    return {key: block.get(key, prop["default"]) for key, prop in spec.items()}


def seed_sequence(study: Study, max_seeds: int) -> list[int]:
    """The study's seeds, then max(seeds) + 1, + 2, ... up to ``max_seeds`` seeds: the order in
    which seeds arrive (and in which the e-processes read them)."""
    seeds = sorted(study.seeds)
    return seeds + list(range(seeds[-1] + 1, seeds[-1] + 1 + max(0, max_seeds - len(seeds))))


def potential_runs(study: Study, max_seeds: int) -> list[Run]:
    """Every run an adaptive study may train: each combination at each of its ``max_seeds`` seeds."""
    return Study(study.name, study.description, study.fixed, study.factors, seed_sequence(study, max_seeds), []).runs()
