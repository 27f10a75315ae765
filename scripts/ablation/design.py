"""A study's design: its ``adaptive`` block with the schema's defaults, the order its seeds arrive in,
the combinations a claim reads, the universes of a claim's scope, and every run the study may train.

The run store (which runs a config references), the adaptive rounds (which runs to train next), the
workflow (which runs a study's index and its scope's index list) and the plan (what is still to train)
all read these, so they sit below all of them.

A claim with ``robust_over`` (``kinds.Claim.universes``) is judged in every universe: every
combination of its levels. The study's own universe is the study's runs; in each other universe only
the combinations the claim reads are trained, with the universe's settings over the study's fixed
ones, at the same seeds, so that a seed's outcomes stay paired across universes. Such a run's id
leads with the universe (``lr~0.003/pos_enc~learned/seed~3``).
"""

from __future__ import annotations

from . import settings
from .config import Run, Study, format_value, same_value
from .kinds import Claim


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


def combo_key(combo: dict) -> tuple:
    return tuple(format_value(v) for v in combo.values())


def make_run(study: Study, combo: dict, seed: int, universe: dict | None = None) -> Run:
    """The run of a combination and a seed, exactly as ``Study.runs`` names and hashes it; in a
    universe of a claim's scope, with the universe's settings and its id led by them."""
    one = {name: [combo[name]] for name in study.factor_names}
    run = Study(study.name, study.description, study.fixed | (universe or {}), one, [seed], []).runs()[0]
    if not universe:
        return run
    prefix = "/".join(f"{k}~{format_value(v)}" for k, v in universe.items())
    return Run(run.study, f"{prefix}/{run.run_id}", run.factors, run.settings, run.hash)


def claim_combinations(claim: Claim, study: Study) -> list[dict]:
    """The combinations of factor levels a claim reads: its ``where``, and for a claim on levels of a
    factor only those levels."""
    where = dict(claim.where)
    if claim.factor is not None:
        where[claim.factor] = claim.levels

    def keep(combo):
        for col, value in where.items():
            values = value if isinstance(value, (list, tuple)) else [value]
            if col in combo and not any(same_value(combo[col], v) for v in values):
                return False
        return True

    return [combo for combo in study.combinations() if keep(combo)]


def is_own(universe: dict, study: Study) -> bool:
    """Whether ``universe`` is the study's own setting (its runs are the study's)."""
    base = settings.defaults() | study.fixed
    return all(same_value(base[name], value) for name, value in universe.items())


def other_universes(claim: Claim, study: Study) -> list[dict]:
    """The universes of a claim's scope but the study's own."""
    return [u for u in claim.universes() if not is_own(u, study)]


def scope_runs(study: Study, seeds) -> list[Run]:
    """Every run the scopes of the study's claims train at ``seeds``: in each universe but the
    study's own, the combinations the claim reads. A run two claims' scopes share is listed once."""
    runs: dict[str, Run] = {}
    for claim in study.claims:
        for universe in other_universes(claim, study):
            for combo in claim_combinations(claim, study):
                for seed in seeds:
                    run = make_run(study, combo, seed, universe)
                    runs.setdefault(run.hash, run)
    return list(runs.values())


def scope_settings(study: Study) -> list[str]:
    """The settings the scopes of the study's claims vary, in the order the claims name them."""
    return list(dict.fromkeys(name for claim in study.claims for name in claim.robust_over))


def index_row(run: Run, factor_names: list, extra: list = ()) -> dict:
    """A run as a row of a study's runs.csv (``ablation.store``): its id, its hash, its factors' levels,
    the ``extra`` settings (a scope's universes) and its seed."""
    return (
        {"run_id": run.run_id, "hash": run.hash}
        | {f: format_value(run.factors[f]) for f in factor_names}
        | {name: format_value(getattr(run.settings, name)) for name in extra}
        | {"seed": str(run.settings.seed)}
    )


def potential_runs(study: Study, max_seeds: int) -> list[Run]:
    """Every run an adaptive study may train: each combination at each of its ``max_seeds`` seeds, and
    its scopes' runs at as many."""
    seeds = seed_sequence(study, max_seeds)
    own = Study(study.name, study.description, study.fixed, study.factors, seeds, []).runs()
    return own + scope_runs(study, seeds)


def every_run(study: Study, block: dict | None) -> list[Run]:
    """Every run a study may train: its own and its scopes' at its seeds, or (adaptive) at every seed
    its rounds may add."""
    return potential_runs(study, block["max_seeds"]) if block else study.runs() + scope_runs(study, study.seeds)
