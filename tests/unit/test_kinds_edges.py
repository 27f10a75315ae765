"""Claim kinds and claims (ablation.kinds) at the edges that tests/unit/test_claims.py and
tests/unit/test_claim_kinds.py leave open: a tie exactly at half a grid step, on a continuous scale
(step 0) and given as text or None; the kind decorator's own registry (the name it sets, the class it
returns, a name registered twice); kinds as dictionary keys; a comparison that leaves ties out, in its
rule's words; and a claim's frozen fields (its scope as tuples of levels, read-only copies of its
mappings, its lengths as a (from, to) pair) and its universes.
"""

from __future__ import annotations

from types import MappingProxyType

import pytest

from ablation import kinds

STEP = 0.01  # the metric's grid step: a difference within half of it (0.005) is a tie
BUILT_IN = [cls for cls in kinds.CLAIM_KINDS.values() if cls.__module__ == "ablation.kinds"]
LEVELS = {"factor": "norm", "levels": ["post", "pre"]}


def claim(kind: str = "at_least", keys: dict | None = None, **fields) -> kinds.Claim:
    """A claim built as ablation.config builds it: at least 0.5 unless ``kind`` and ``keys`` say otherwise."""
    return kinds.Claim(id="c", statement="x", kind=kinds.CLAIM_KINDS[kind](), keys={"threshold": 0.5} if keys is None else keys,
                       **fields)  # fmt: skip


# --------------------------------------------------------------------------- a tie


def test_a_tie_lies_strictly_within_half_a_grid_step_of_zero():
    x = [0.0, 0.004, -0.004, 0.0049, 0.005, -0.005, 0.006, 0.015]
    assert kinds.tied(x, x, STEP).tolist() == [True] * 4 + [False] * 4


def test_an_interval_is_a_tie_only_when_its_difference_is_known_exactly():
    """[lo, hi] with lo < hi (a diverged run's difference) is no tie, even inside half a step of 0."""
    assert kinds.tied([0.0, 0.0, 0.004, -0.004], [0.0, 0.004, 0.0, 0.0], STEP).tolist() == [True, False, False, False]


def test_on_a_continuous_scale_only_a_difference_of_zero_is_a_tie():
    """Step 0 (a slope, a continuous metric): the tie band is half of 1e-12, not half of a step."""
    x = [0.0, 1e-13, -4e-13, 1e-12, 0.3]
    assert kinds.tied(x, x, 0.0).tolist() == [True, True, True, False, False]


def test_differences_given_as_text_or_none_are_read_as_the_floats_they_are():
    """A difference read as text is the number it spells; a missing one (None, NaN) is no tie."""
    lo = ["0", "0.004", "-0.004", "0.02", None]
    hi = ["0.0", "4e-3", "-0.004", "0.02", None]
    assert kinds.tied(lo, hi, STEP).tolist() == [True, True, True, False, False]
    assert kinds.tied([0.0, 0.004], ["0", "0.004"], STEP).tolist() == [True, True]
    assert kinds.tied(["0", "0.004"], [0.0, 0.004], STEP).tolist() == [True, True]


# --------------------------------------------------------------------------- registering a kind


class Once(kinds.ClaimKind):
    """a seed's value is registered once."""


class Twice(kinds.ClaimKind):
    """a seed's value claims a name already taken."""


def test_a_kind_decorator_names_the_class_registers_it_under_that_name_and_returns_it():
    registry: dict = {}
    decorator = kinds._register(registry, "test kind")
    assert decorator("once")(Once) is Once
    assert registry == {"once": Once}
    assert Once.name == "once" and repr(Once()) == "<claim kind once>"


def test_a_name_registered_twice_is_refused_naming_the_registry_s_kind_and_the_name():
    registry: dict = {}
    decorator = kinds._register(registry, "test kind")
    decorator("taken")(Once)
    with pytest.raises(ValueError, match=r"^test kind 'taken' is registered twice$"):
        decorator("taken")(Twice)
    assert registry == {"taken": Once}
    with pytest.raises(ValueError, match=r"^claim kind 'at_least' is registered twice$"):
        kinds.claim_kind("at_least")(Twice)
    assert kinds.CLAIM_KINDS["at_least"] is kinds.AtLeast


def test_a_kind_without_a_docstring_is_described_by_its_name_and_its_config_still_validates():
    """A class does not inherit its base's docstring: a plugin's kind written without one is described
    by its name, so the config check (which describes every registered kind) does not break."""
    from ablation import config

    class Bare(kinds.ClaimKind):
        keys = {"ceiling": {"type": "number", "description": "The most a seed may reach."}}

        def parts(self, claim):
            return [kinds.Part(kinds.Condition(0.0, claim.keys["ceiling"], "stayed low"))]

        def rule(self, claim):
            return "a seed meets the claim when its value stays low"

    registry: dict = {}
    kinds._register(registry, "test kind")("bare_kind")(Bare)
    assert Bare.__doc__ is None and Bare().describe() == "the claim kind 'bare_kind' (its class has no docstring)"
    assert Once().describe() == "a seed's value is registered once."
    kinds.CLAIM_KINDS["bare_kind"] = Bare
    try:
        [built] = config.check_claims([{"id": "c", "statement": "x", "kind": "bare_kind", "ceiling": 0.6}], [], [])
        branch = next(b for b in config.claims_schema()["definitions"]["claim"]["oneOf"]
                      if b["properties"]["kind"]["const"] == "bare_kind")  # fmt: skip
    finally:
        del kinds.CLAIM_KINDS["bare_kind"]
    assert built.keys == {"ceiling": 0.6} and branch["description"] == f"bare_kind: {Bare().describe()}"


# --------------------------------------------------------------------------- a kind's identity


def test_kinds_are_dictionary_keys_by_their_class():
    """Two objects of one kind are one key; the built-in kinds hash apart from each other."""
    table = {cls(): cls.name for cls in BUILT_IN}
    assert len(table) == len(BUILT_IN) == 6
    assert all(table[cls()] == cls.name for cls in BUILT_IN)
    assert all(hash(cls()) == hash(cls()) for cls in BUILT_IN)
    assert len({hash(cls()) for cls in BUILT_IN}) == len(BUILT_IN)
    assert {kinds.AtLeast(), kinds.AtLeast(), kinds.Better()} == {kinds.Better(), kinds.AtLeast()}


# --------------------------------------------------------------------------- a comparison's ties


@pytest.mark.parametrize("kind, keys, meets", [
    ("equivalent", {"margin": 0.02}, "its difference lies within ±0.02"),
    ("not_worse", {"margin": 0.02}, "its difference is at least -0.02"),
    ("better", {}, "its difference is above 0"),
])  # fmt: skip
def test_a_comparison_that_excludes_ties_leaves_them_out_and_says_so_in_its_rule(kind, keys, meets):
    words = {"equivalent": "a tie lies within the margin", "not_worse": "a tie is not worse", "better": "a tie did not improve"}
    for ties, said, excluded in (({}, words[kind], False), ({"ties": "count"}, words[kind], False),
                                 ({"ties": "exclude"}, "a tie is left out (the claim speaks of the seeds where the setting "
                                                       "changes the outcome)", True)):  # fmt: skip
        c = claim(kind, LEVELS | keys | ties)
        assert c.rule() == f"a seed meets the claim when {meets}; {said}"
        [part] = c.parts
        assert part.condition.ties is excluded and part.compare == ("norm", "post", "pre")
        x = [0.0, 0.03]  # a tie and a clear difference: the tie counts unless excluded
        assert part.condition.counted(x, x, STEP).tolist() == [not excluded, True]


def test_equivalent_and_not_worse_draw_their_band_and_their_rule_from_the_margin_alone():
    """The two margin comparisons share one run (``kinds.MarginComparison``): their keys and their
    condition's band and words (their rules: the ties test above)."""
    for kind, band, words in (("equivalent", (-0.02, 0.02), "differed by at most ±2 pp"),
                              ("not_worse", (-0.02, float("inf")), "lost at most 2 pp")):  # fmt: skip
        cls = kinds.CLAIM_KINDS[kind]
        assert issubclass(cls, kinds.MarginComparison) and list(cls.keys) == ["factor", "levels", "ties", "margin"]
        [part] = claim(kind, LEVELS | {"margin": 0.02}).parts
        assert (part.condition.low, part.condition.high, part.condition.words) == (*band, words)


# --------------------------------------------------------------------------- a claim's frozen fields


def test_a_claim_s_scope_is_frozen_as_tuples_of_levels():
    lr = [0.003, 0.01]
    c = claim(robust_over={"lr": lr, "epochs": (2, 4)})
    lr.append(0.1)  # the config's list changing later does not change the claim
    assert c.robust_over == {"lr": (0.003, 0.01), "epochs": (2, 4)}
    assert isinstance(c.robust_over, MappingProxyType)
    assert all(type(levels) is tuple for levels in c.robust_over.values())
    assert claim().robust_over == {}


def test_a_claim_s_mappings_are_read_only_copies_of_what_it_was_given():
    keys, where, raw = {"threshold": 0.5}, {"norm": "pre"}, {"id": "c", "kind": "at_least", "threshold": 0.5}
    c = claim(keys=keys, where=where, raw=raw, robust_over={"lr": [0.01]})
    keys["threshold"], where["norm"], raw["threshold"] = 0.9, "post", 0.9
    assert (c.keys, c.where, c.to_dict()) == ({"threshold": 0.5}, {"norm": "pre"}, {"id": "c", "kind": "at_least", "threshold": 0.5})
    for mapping in (c.keys, c.where, c.raw, c.robust_over):
        with pytest.raises(TypeError):
            mapping["x"] = 1  # type: ignore[index]


def test_a_claim_s_lengths_are_a_from_to_pair_and_one_length_is_the_pair_of_itself():
    assert claim().lengths is None
    assert claim(lengths=64).lengths == (64, 64)
    for given in ([16, 64], (16, 64), range(16, 65, 48)):
        got = claim(lengths=given).lengths
        assert got == (16, 64) and type(got) is tuple


def test_a_claim_without_scope_has_no_universes():
    assert claim().universes() == []
    assert claim(robust_over={}).universes() == []


def test_a_claim_s_universes_are_every_combination_of_its_scope_in_the_config_s_order():
    assert claim(robust_over={"lr": [0.003, 0.01]}).universes() == [{"lr": 0.003}, {"lr": 0.01}]
    got = claim(robust_over={"lr": [0.003, 0.01], "epochs": [2, 4, 8]}).universes()
    assert got == [{"lr": lr, "epochs": e} for lr in (0.003, 0.01) for e in (2, 4, 8)]
    assert [list(u) for u in got] == [["lr", "epochs"]] * 6  # each universe lists the settings in the scope's order
