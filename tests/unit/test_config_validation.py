"""Bad configs are rejected up front: one line naming the study, the key and the problem; nothing runs.

Every case is checked at the Python level (ablation.config.validate / load_yaml / load); a
representative handful go through a real ``snakemake --cores 1`` in a temp copy of the project
(tests/workflow/test_config_errors_in_snakemake.py), to show the exit code, the one-line message
and the empty results/ folder.

Snakemake itself reads ``--configfile`` (PyYAML FullLoader via yte, in its command-line parsing,
before the Snakefile runs), so these files are refused by Snakemake with its own message before our
code can run (exit 1, nothing written); the tests assert exactly that:

- missing file: a Python traceback ending
  ``FileNotFoundError: [Errno 2] No such file or directory: 'config/bad.yaml'``;
- unsafe tag (``!!python/object/apply:os.system``) or broken YAML: ``WorkflowError:`` then
  ``Config file is not valid JSON or YAML. In case of YAML, make sure to not mix whitespace and tab
  indentation.`` (neither the file nor the tag is named; nothing is executed);
- not a mapping: ``WorkflowError:`` then ``Config file must be given as JSON or YAML with keys at top level.``

``python -m ablation.config FILE`` checks a file with our one-line messages for those cases too
(and for duplicate keys, which both loaders would silently accept, the later value winning).
What FullLoader does accept (``!!python/name``, ``!!python/tuple``, ``.nan``, 2.0 for an integer)
is rejected by our validation with the key named.
"""

import copy
import dataclasses
import json
import random

import pytest
import yaml

from ablation import config as C
from ablation import settings as S
from conftest import REPO

# A tiny valid config: one study, 4 runs of 2 epochs (if a check were missed, running it is cheap).
BASE = {
    "train_threads": 1,
    "defaults": {"n_train": 8, "n_test": 4, "epochs": 2, "d_model": 8},
    "studies": {
        "s1": {
            "fixed": {"arch": "encoder", "heads": 2, "depth": 1},
            "factors": {"norm": ["post", "pre"]},
            "seeds": [0, 1],
        },
    },
}


def mutate(fn):
    cfg = copy.deepcopy(BASE)
    fn(cfg)
    return cfg


def study(cfg):
    return cfg["studies"]["s1"]


def claim(**keys):
    """A mutation giving s1 one claim 'c' with these keys."""
    return lambda c: study(c).update(claims=[{"id": "c", "statement": "x", **keys}])


def rename_study(new):
    return lambda c: c["studies"].update({new: c["studies"].pop("s1")})


# (id, mutation, fragments the one-line message must contain: study, key, what is wrong)
CASES = [
    # unknown keys, at every level
    ("typo-factor", lambda c: study(c)["factors"].update(haeds=[1, 2]),
     ["study 's1'", "factors.haeds", "unknown setting", "did you mean 'heads'"]),
    ("typo-fixed", lambda c: study(c)["fixed"].update(haeds=2),
     ["study 's1'", "fixed", "unknown key 'haeds'", "did you mean 'heads'"]),
    ("typo-defaults", lambda c: c["defaults"].update(epoch=3),
     ["defaults", "unknown key 'epoch'", "did you mean 'epochs'"]),
    ("typo-study-level", lambda c: study(c).update(factor={"lr": [0.1]}),
     ["study 's1'", "unknown key 'factor'", "did you mean 'factors'"]),
    ("typo-top-level", lambda c: c.update(studys={}),
     ["(top level)", "unknown key 'studys'", "did you mean 'studies'"]),
    ("typo-stats", lambda c: c.update(stats={"alfa": 0.1}), ["stats", "unknown key 'alfa'"]),
    ("typo-two-keys", lambda c: c.update(stats={"alfa": 0.1, "confidense": 0.9}),
     ["stats: unknown key 'alfa' (did you mean 'alpha'?), 'confidense' (did you mean 'confidence'?); allowed: "]),
    ("outdir-up", lambda c: c.update(outdir="../elsewhere"), ["outdir: '../elsewhere' is not a relative folder"]),
    ("outdir-absolute", lambda c: c.update(outdir="/tmp/x"), ["outdir: '/tmp/x' is not a relative folder"]),
    ("study-named-runs", lambda c: c["studies"].update(runs=c["studies"].pop("s1")), ["study 'runs'", "used by"]),
    # wrong types
    ("type-heads-str", lambda c: study(c)["fixed"].update(heads="2"),
     ["study 's1'", "fixed.heads", "string '2'", "expected an integer", "remove the quotes"]),
    ("type-heads-float", lambda c: study(c)["fixed"].update(heads=2.0),
     ["study 's1'", "fixed.heads", "2.0", "expected an integer"]),
    ("type-heads-bool", lambda c: study(c)["fixed"].update(heads=True),
     ["study 's1'", "fixed.heads", "boolean", "expected an integer"]),
    ("type-lr-yaml11", lambda c: study(c)["fixed"].update(lr="1e-3"),
     ["study 's1'", "fixed.lr", "expected a number", "1.0e-3"]),
    ("type-factor-not-list", lambda c: study(c)["factors"].update(lr=0.1),
     ["study 's1'", "factors.lr", "expected a list"]),
    ("type-factor-value", lambda c: study(c)["factors"].update(epochs=[2, "3"]),
     ["study 's1'", "factors.epochs[1]", "expected an integer"]),
    ("type-seeds", lambda c: study(c).update(seeds=0), ["study 's1'", "seeds", "expected a list"]),
    ("type-study-null", lambda c: c["studies"].update(s1=None), ["study 's1'", "got null", "expected a mapping"]),
    ("type-studies-list", lambda c: c.update(studies=["s1"]), ["studies", "expected a mapping"]),
    ("type-threads", lambda c: c.update(train_threads="2"), ["train_threads", "expected an integer"]),
    ("type-study-name-int", lambda c: c["studies"].update({5: c["studies"].pop("s1")}),
     ["studies", "key 5", "expected a string"]),
    # heads must divide d_model, wherever each comes from
    ("heads-fixed", lambda c: study(c)["fixed"].update(heads=3),
     ["study 's1'", "fixed.heads", "heads=3 does not divide d_model=8", "defaults.d_model"]),
    ("heads-factor", lambda c: (study(c)["fixed"].pop("heads"), study(c)["factors"].update(heads=[2, 3])),
     ["study 's1'", "factors.heads", "heads=3 does not divide d_model=8"]),
    ("heads-dmodel-factor", lambda c: study(c)["factors"].update(d_model=[8, 6, 9]),
     ["study 's1'", "fixed.heads", "heads=2 does not divide d_model=9", "factors.d_model"]),
    ("heads-defaults", lambda c: (study(c)["fixed"].pop("heads"), c["defaults"].update(heads=5)),
     ["study 's1'", "defaults.heads", "heads=5 does not divide d_model=8"]),
    # ranges
    ("seq-len-1", lambda c: study(c)["fixed"].update(seq_len=1), ["study 's1'", "fixed.seq_len", "must be >= 2"]),
    ("seq-len-factor-1", lambda c: study(c)["factors"].update(seq_len=[8, 1]),
     ["study 's1'", "factors.seq_len[1]", "must be >= 2"]),
    ("d-model-0", lambda c: study(c)["fixed"].update(d_model=0), ["study 's1'", "fixed.d_model", "must be >= 1"]),
    ("ff-negative", lambda c: study(c)["fixed"].update(ff=-4), ["study 's1'", "fixed.ff", "must be >= 1"]),
    ("head-hidden-0", lambda c: study(c)["fixed"].update(head_hidden=0),
     ["study 's1'", "fixed.head_hidden", "must be >= 1"]),
    ("n-train-0", lambda c: c["defaults"].update(n_train=0), ["defaults.n_train", "must be >= 1"]),
    ("depth-0", lambda c: study(c)["fixed"].update(depth=0), ["study 's1'", "fixed.depth", "must be >= 1"]),
    ("epochs-0", lambda c: study(c)["fixed"].update(epochs=0), ["study 's1'", "fixed.epochs", "must be >= 1"]),
    ("epochs-factor-0", lambda c: study(c)["factors"].update(epochs=[2, 0]),
     ["study 's1'", "factors.epochs[1]", "must be >= 1"]),
    ("lr-0", lambda c: study(c)["fixed"].update(lr=0), ["study 's1'", "fixed.lr", "must be > 0"]),
    ("lr-negative-factor", lambda c: study(c)["factors"].update(lr=[0.01, -0.1]),
     ["study 's1'", "factors.lr[1]", "must be > 0"]),
    ("lr-nan", lambda c: study(c)["fixed"].update(lr=float("nan")),
     ["study 's1'", "fixed.lr", "not a finite number"]),
    ("lr-inf-factor", lambda c: study(c)["factors"].update(lr=[0.01, float("inf")]),
     ["study 's1'", "factors.lr[1]", "not a finite number"]),
    ("warmup-negative", lambda c: study(c)["fixed"].update(warmup=-1), ["study 's1'", "fixed.warmup", ">= 0"]),
    ("threads-0", lambda c: c.update(train_threads=0), ["train_threads", "must be >= 1"]),
    ("verify-sample-0", lambda c: c.update(verify={"sample": 0}), ["verify.sample", "must be >= 1"]),
    # factor lists
    ("factor-empty", lambda c: study(c)["factors"].update(lr=[]), ["study 's1'", "factors.lr", "must not be empty"]),
    ("factor-duplicate", lambda c: study(c)["factors"].update(lr=[0.1, 0.01, 0.1]),
     ["study 's1'", "factors.lr", "duplicate value 0.1"]),
    ("factor-duplicate-int-float", lambda c: study(c)["factors"].update(lr=[1, 1.0]),
     ["study 's1'", "factors.lr", "duplicate value"]),
    ("factor-duplicate-enum", lambda c: study(c)["factors"].update(norm=["pre", "post", "pre"]),
     ["study 's1'", "factors.norm", "duplicate value 'pre'"]),
    ("factor-also-fixed", lambda c: study(c)["factors"].update(heads=[1, 2]),
     ["study 's1'", "factors.heads", "also listed under fixed"]),
    ("factor-seed", lambda c: study(c)["factors"].update(seed=[1, 2]),
     ["study 's1'", "factors.seed", "under 'seeds'"]),
    ("factor-name-int", lambda c: study(c)["factors"].update({3: [1, 2]}), ["study 's1'", "factors", "key 3"]),
    # seeds
    ("seed-negative", lambda c: study(c).update(seeds=[0, -1]), ["study 's1'", "seeds[1]", "must be >= 0"]),
    ("seed-duplicate", lambda c: study(c).update(seeds=[0, 1, 0]), ["study 's1'", "seeds", "duplicate value(s) 0"]),
    ("seed-empty", lambda c: study(c).update(seeds=[]), ["study 's1'", "seeds", "must not be empty"]),
    ("seed-huge", lambda c: study(c).update(seeds=[2**64]), ["study 's1'", "seeds", "2**63 - 1"]),
    ("seed-missing", lambda c: study(c).pop("seeds"), ["study 's1'", "missing required key 'seeds'"]),
    ("data-seed-negative", lambda c: study(c)["fixed"].update(data_seed=-3),
     ["study 's1'", "fixed.data_seed", ">= 0"]),
    # names of choices
    ("norm-unknown", lambda c: study(c)["fixed"].update(norm="mid"),
     ["study 's1'", "fixed.norm", "'mid' is not one of post, pre"]),
    ("norm-unknown-factor", lambda c: study(c)["factors"].update(norm=["post", "sandwich"]),
     ["study 's1'", "factors.norm[1]", "'sandwich' is not one of"]),
    ("pos-enc-unknown", lambda c: study(c)["fixed"].update(pos_enc="shuffled"),
     ["study 's1'", "fixed.pos_enc", "'shuffled' is not one of none, sinusoidal"]),
    ("pos-enc-unknown-factor", lambda c: study(c)["factors"].update(pos_enc=["none", "xpos"]),
     ["study 's1'", "factors.pos_enc[1]", "'xpos'"]),
    ("plot-hue-not-a-factor", lambda c: study(c).update(plot={"hue": "heads"}),
     ["study 's1'", "plot: 'heads' is not a factor of the study"]),
    ("plot-facet-not-a-factor", lambda c: study(c).update(plot={"hue": "norm", "facet": "heads"}),
     ["study 's1'", "plot: 'heads' is not a factor of the study"]),
    ("plot-where-not-a-factor", lambda c: study(c).update(plot={"where": {"pos_enc": "none"}}),
     ["study 's1'", "plot: 'pos_enc' is not a factor of the study"]),
    ("headline-unknown-claim", lambda c: c.update(report={"headline": ["C9"]}),
     ["report.headline: 'C9' is not the id of a claim of any study"]),
    ("attn-mask-unknown", lambda c: study(c)["fixed"].update(attn_mask="sliding"),
     ["study 's1'", "fixed.attn_mask", "'sliding' is not one of bidirectional, causal"]),
    ("dropout-one", lambda c: study(c)["fixed"].update(dropout=1.0), ["study 's1'", "fixed.dropout", "1"]),
    ("arch-unknown", lambda c: study(c)["fixed"].update(arch="transformer"),
     ["study 's1'", "fixed.arch", "'transformer' is not one of attention_only, encoder, decoder"]),
    # a registry's name in the defaults is checked where a study uses it, as pos_enc's
    ("arch-unknown-defaults", lambda c: (study(c)["fixed"].pop("arch"), c["defaults"].update(arch="rnn")),
     ["study 's1'", "defaults.arch", "'rnn'"]),
    ("device-unknown", lambda c: study(c)["fixed"].update(device="tpu"), ["study 's1'", "fixed.device", "'tpu'"]),
    # study names: safe path components, no collisions
    ("name-dotdot", rename_study("../x"), ["studies", "'../x'", "not a safe folder name"]),
    ("name-slash", rename_study("a/b"), ["studies", "'a/b'", "not a safe folder name"]),
    ("name-empty", rename_study(""), ["studies", "''", "not a safe folder name"]),
    ("name-dot", rename_study(".."), ["studies", "'..'", "not a safe folder name"]),
    ("name-hidden", rename_study(".x"), ["studies", "'.x'", "not a safe folder name"]),
    ("name-space", rename_study("my study"), ["studies", "'my study'", "not a safe folder name"]),
    ("name-reserved", rename_study("checks.csv"), ["study 'checks.csv'", "used by the workflow"]),
    ("name-case", lambda c: c["studies"].update(S1=copy.deepcopy(study(c))),
     ["study 'S1'", "differs from study 's1' only in case"]),
    ("no-studies", lambda c: c.update(studies={}), ["studies", "at least one"]),
    ("no-studies-key", lambda c: c.pop("studies"), ["studies", "at least one"]),
    # plain data only (what Snakemake's FullLoader lets through)
    ("python-tuple", lambda c: study(c).update(seeds=(0, 1)), ["study 's1'", "seeds", "Python tuple", "!!python"]),
    ("python-function", lambda c: study(c)["fixed"].update(lr=len), ["study 's1'", "fixed.lr", "not plain data"]),
    ("python-in-claim", lambda c: study(c).update(
        claims=[{"id": "c", "statement": "x", "kind": "at_least", "threshold": print}]),
     ["study 's1'", "claims[0].threshold", "not plain data"]),
    # claims (checked by ablation.claims)
    ("claim-unknown-kind", lambda c: study(c).update(claims=[{"id": "c", "statement": "x", "kind": "maybe"}]),
     ["study 's1'", "claim 'c'", "kind: unknown kind 'maybe'"]),
    # claims: the schema's branch for the claim's kind, then what the schema cannot say
    ("claim-missing-key", claim(kind="at_value", target=0.5), ["study 's1'", "claim 'c'", "kind at_value needs key(s) tolerance"]),
    ("claim-missing-kind", claim(), ["study 's1'", "claim 'c'", "missing required key 'kind'"]),
    ("claim-missing-id", lambda c: study(c).update(claims=[{"statement": "x", "kind": "at_least", "threshold": 0.5}]),
     ["study 's1'", "claims[0]", "missing required key 'id'"]),
    ("claim-empty-id", claim(id="", kind="at_least", threshold=0.5), ["study 's1'", "claims[0].id", "must not be empty"]),
    ("claim-empty-statement", claim(statement="", kind="at_least", threshold=0.5),
     ["study 's1'", "claim 'c'", "statement", "must not be empty"]),
    ("claim-not-a-mapping", lambda c: study(c).update(claims=["c"]), ["study 's1'", "claims[0]", "expected a mapping"]),
    ("claim-kind-not-text", claim(kind=3), ["study 's1'", "claim 'c'", "kind: unknown kind 3 (one of at_value, at_least"]),
    ("claim-number-as-text", claim(kind="at_value", target=0.5, tolerance="small"),
     ["study 's1'", "claim 'c'", "tolerance: got a string 'small', expected a number"]),
    ("claim-threshold-above-1", claim(kind="at_least", threshold=1.5),
     ["study 's1'", "claim 'c'", "threshold: 1.5 is out of range: must be <= 1"]),
    ("claim-target-below-0", claim(kind="at_value", target=-0.1, tolerance=0.1),
     ["study 's1'", "claim 'c'", "target: -0.1 is out of range: must be >= 0"]),
    ("claim-tolerance-negative", claim(kind="at_value", target=0.5, tolerance=-1),
     ["study 's1'", "claim 'c'", "tolerance: -1 is out of range: must be >= 0"]),
    ("claim-margin-negative", claim(kind="equivalent", factor="norm", levels=["post", "pre"], margin=-0.1),
     ["study 's1'", "claim 'c'", "margin: -0.1 is out of range: must be >= 0"]),
    ("claim-flat-margin-negative", claim(kind="grad_trend", factor="norm", growing="post", flat="pre", flat_margin=-1),
     ["study 's1'", "claim 'c'", "flat_margin: -1 is out of range: must be >= 0"]),
    ("claim-unknown-key", claim(kind="at_least", threshold=0.5, tresh=0.6),
     ["study 's1'", "claim 'c'", "unknown key 'tresh' (did you mean 'threshold'?)", "allowed: id, statement"]),
    ("claim-key-of-another-kind", claim(kind="at_least", threshold=0.5, margin=0.1),
     ["study 's1'", "claim 'c'", "unknown key 'margin'"]),
    ("claim-metric-unknown", claim(kind="at_least", threshold=0.5, metric="loss"),
     ["study 's1'", "claim 'c'", "metric: 'loss' is not one of test_acc, converged, final_train_acc nor a metric a task declares"]),
    ("claim-metric-grad-trend", claim(kind="grad_trend", factor="norm", growing="post", flat="pre", flat_margin=0.1,
                                      metric="test_acc"),
     ["study 's1'", "claim 'c'", "metric: unknown key for kind grad_trend"]),
    ("claim-cells-unknown", claim(kind="at_least", threshold=0.5, cells="some"),
     ["study 's1'", "claim 'c'", "cells: 'some' is not one of every, average"]),
    ("claim-source-not-text", claim(kind="at_least", threshold=0.5, source=None),
     ["study 's1'", "claim 'c'", "source: got null, expected a string"]),
    ("claim-where-not-mapping", claim(kind="at_least", threshold=0.5, where=["norm"]),
     ["study 's1'", "claim 'c'", "where: got a list ['norm'], expected a mapping"]),
    ("claim-where-empty-list", claim(kind="at_least", threshold=0.5, where={"seed": []}),
     ["study 's1'", "claim 'c'", "where.seed: must not be empty"]),
    ("claim-where-nested-list", claim(kind="at_least", threshold=0.5, where={"seed": [[0]]}),
     ["study 's1'", "claim 'c'", "where.seed[0]: got a list [0], expected a string or a number"]),
    ("claim-where-unknown-column", claim(kind="at_least", threshold=0.5, where={"colour": "red"}),
     ["study 's1'", "claim 'c'", "'where' names column 'colour', which does not exist"]),
    ("claim-where-fixed-setting", claim(kind="at_least", threshold=0.5, where={"heads": 4}),
     ["study 's1'", "claim 'c'", "'where' names 'heads', which the study does not vary (a where picks a factor's levels or seeds)"]),
    ("claim-where-not-a-level", claim(kind="at_least", threshold=0.5, where={"norm": ["post", "mid"]}),
     ["study 's1'", "claim 'c'", "'where' norm='mid' is not a level of that factor (['post', 'pre'])"]),
    ("claim-where-fixes-factor", claim(kind="better", factor="norm", levels=["post", "pre"], where={"norm": "pre"}),
     ["study 's1'", "claim 'c'", "'where' fixes 'norm', the factor the claim compares"]),
    ("claim-factor-unknown", claim(kind="better", factor="heads", levels=[1, 2]),
     ["study 's1'", "claim 'c'", "'factor' 'heads' is not a factor of the study (norm)"]),
    ("claim-factor-not-text", claim(kind="better", factor=["norm"], levels=["post", "pre"]),
     ["study 's1'", "claim 'c'", "factor: got a list ['norm'], expected a string"]),
    ("claim-one-level", claim(kind="better", factor="norm", levels=["post"]),
     ["study 's1'", "claim 'c'", "levels: must be a list of exactly 2 values, got ['post']"]),
    ("claim-three-levels", claim(kind="not_worse", factor="norm", levels=["post", "pre", "post"], margin=0.1),
     ["study 's1'", "claim 'c'", "levels: must be a list of exactly 2 values"]),
    ("claim-same-level", claim(kind="better", factor="norm", levels=["pre", "pre"]),
     ["study 's1'", "claim 'c'", "'levels' name the same level twice ('pre')"]),
    ("claim-not-a-level", claim(kind="better", factor="norm", levels=["post", "mid"]),
     ["study 's1'", "claim 'c'", "level 'mid' is not a level of factor 'norm' (['post', 'pre'])"]),
    ("claim-growing-is-flat", claim(kind="grad_trend", factor="norm", growing="pre", flat="pre", flat_margin=0.1),
     ["study 's1'", "claim 'c'", "'growing' and 'flat' name the same level twice ('pre')"]),
    ("claim-flat-not-a-level", claim(kind="grad_trend", factor="norm", growing="pre", flat="mid", flat_margin=0.1),
     ["study 's1'", "claim 'c'", "level 'mid' is not a level of factor 'norm'"]),
    ("claim-duplicate-id", lambda c: study(c).update(claims=[
        {"id": "c", "statement": "x", "kind": "at_least", "threshold": 0.5},
        {"id": "c", "statement": "y", "kind": "at_least", "threshold": 0.6}]),
     ["study 's1'", "claims", "duplicate", "'c'"]),
]  # fmt: skip


def test_base_config_is_valid():
    cfg = C.validate(copy.deepcopy(BASE))
    assert cfg.studies["s1"].n_runs() == 4


@pytest.mark.parametrize("name, fn, fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_config_is_one_line_naming_study_and_key(name, fn, fragments):
    with pytest.raises(C.ConfigError) as info:
        C.validate(mutate(fn))
    msg = str(info.value)
    assert "\n" not in msg and "\r" not in msg, msg
    assert len(msg) < 400, msg
    for fragment in fragments:
        assert fragment in msg, f"{fragment!r} not in {msg!r}"


def test_config_files_of_the_project_are_valid_and_round_trip():
    from ablation.store import study_from_json, study_json

    for name in ("config.yaml", "smoke.yaml"):
        cfg = C.load(REPO / "config" / name)
        runs = {n: [(r.run_id, r.hash, r.settings) for r in s.runs()] for n, s in cfg.studies.items()}
        again = C.validate(json.loads(json.dumps(cfg.raw, default=str)))
        assert {n: [(r.run_id, r.hash, r.settings) for r in s.runs()] for n, s in again.studies.items()} == runs
        # the index rule passes each study as JSON with sorted keys: the same run ids, hashes, settings
        for n, study in cfg.studies.items():
            again = study_from_json(study_json(study))
            assert [(r.run_id, r.hash, r.settings) for r in again.runs()] == runs[n]


def test_settings_as_dict_and_json_are_those_of_dataclasses():
    """as_dict skips dataclasses.asdict's deep copy (a dry run calls to_json once per job): the same
    dict, less the settings left out where they are at their defaults."""
    import dataclasses

    for name in ("config.yaml", "smoke.yaml"):
        for study in C.load(REPO / "config" / name).studies.values():
            for run in study.runs():
                expected = dataclasses.asdict(run.settings)
                for left_out in S.LEFT_OUT_AT_DEFAULT:
                    if expected[left_out] == S.defaults().get(left_out, {}):  # plugin_code: {}
                        del expected[left_out]
                assert list(run.settings.as_dict().items()) == list(expected.items())
                assert run.settings.to_json() == json.dumps(expected, sort_keys=True)


def test_random_corruption_gives_config_error_never_a_crash():
    """Junk values at random places of the smoke config: ConfigError (one line) or a valid config."""
    smoke = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
    junk = [None, True, -1, 0, 2.5, float("nan"), "", "x", [], {}, [1, 1], {"a": 1}, ["none"], 10**30, (1,)]
    rng = random.Random(6)
    caught = 0
    for _ in range(300):
        cfg = copy.deepcopy(smoke)
        node, path = cfg, []
        while isinstance(node, (dict, list)) and node and rng.random() < 0.8:
            key = rng.choice(list(node) if isinstance(node, dict) else range(len(node)))
            if not isinstance(node[key], (dict, list)) or not node[key]:
                break
            node, path = node[key], [*path, key]
        if isinstance(node, dict):
            key = rng.choice([*node, "bogus"]) if node else "bogus"
        elif isinstance(node, list):
            key = rng.randrange(len(node))
        else:
            continue
        node[key] = rng.choice(junk)
        try:
            C.validate(cfg)
        except C.ConfigError as exc:
            assert "\n" not in str(exc), (path, key, str(exc))
            caught += 1
    assert caught > 200


# ---------------------------------------------------------------- loading files


def write(tmp_path, text, name="bad.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "text, fragments",
    [
        ("studies: !!python/object/apply:os.system ['touch {sentinel}']\n", ["unsafe or unknown tag", "line 1"]),
        ("studies: !!python/name:os.system\n", ["unsafe or unknown tag", "python/name:os.system"]),
        ("- a\n- b\n", ["must be a mapping", "got a list"]),
        ("just text\n", ["must be a mapping", "got a string"]),
        ("", ["is empty"]),
        ("studies: {s: [\n", ["not valid safe YAML", "line 2"]),
        ("studies:\n  s:\n    seeds: [0]\n  s:\n    seeds: [1]\n", ["duplicate key 's'", "line 4"]),
        ("studies:\n\ts: {}\n", ["not valid safe YAML"]),
        ("? [1]\n: a\nx: 1\nx: 2\n", ["duplicate key 'x'", "line 4"]),
    ],
    ids=["unsafe-apply", "unsafe-name", "list", "string", "empty", "broken", "duplicate-key", "tab",
         "duplicate-after-unhashable-key"],
)
def test_load_refuses_bad_files_in_one_line(tmp_path, text, fragments):
    sentinel = tmp_path / "executed"
    path = write(tmp_path, text.replace("{sentinel}", str(sentinel)))
    for loader in (C.load_yaml, C.load):
        with pytest.raises(C.ConfigError) as info:
            loader(path)
        msg = str(info.value)
        assert "\n" not in msg and msg.startswith(f"config file {path}:"), msg
        for fragment in fragments:
            assert fragment in msg, msg
    assert not sentinel.exists(), "an unsafe tag was executed"


def test_load_refuses_missing_file_and_folder(tmp_path):
    with pytest.raises(C.ConfigError, match=r"^config file .*nope\.yaml: not found$"):
        C.load(tmp_path / "nope.yaml")
    with pytest.raises(C.ConfigError, match="it is a folder"):
        C.load(tmp_path)


def test_command_line_checks_files(tmp_path, capsys):
    good = write(tmp_path, yaml.safe_dump(BASE), "good.yaml")
    bad = write(tmp_path, "studies:\n  s1: {seeds: [0]}\n  s1: {seeds: [1]}\n", "dup.yaml")
    assert C.main([str(good)]) == 0
    assert f"{good}: ok (1 studies, 4 runs)" in capsys.readouterr().out
    assert C.main([str(good), str(bad), str(tmp_path / "missing.yaml")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"config error: config file {bad}: not valid safe YAML: line 3, column 3: duplicate key 's1'"
        " (the later value would silently win)",
        f"config error: config file {tmp_path / 'missing.yaml'}: not found",
    ]


def test_load_validates(tmp_path):
    path = write(tmp_path, yaml.safe_dump(mutate(lambda c: study(c)["fixed"].update(heads=3))))
    with pytest.raises(C.ConfigError, match=r"^study 's1': fixed.heads: heads=3 does not divide d_model=8"):
        C.load(path)
    assert C.load(write(tmp_path, yaml.safe_dump(BASE), "good.yaml")).studies["s1"].n_runs() == 4


# ---------------------------------------------------------------- as config files (tests/workflow runs some through Snakemake)


def _yaml(fn):
    return yaml.safe_dump(mutate(fn), sort_keys=False)



# The global settings' bounds, each probed on both sides: the last value inside is accepted, the first
# outside (or the bound itself, where it is exclusive) is refused with the key and the bound named.
BOUNDS = [
    # key, accepted, (refused value, message)...
    ("stats.alpha", [1e-9, 0.05, 0.999], [(0, "must be > 0"), (1, "must be < 1"), (5, "must be < 1"), (-0.05, "must be > 0")]),
    ("stats.confidence", [0.500001, 0.95, 0.999], [(0.5, "must be > 0.5"), (1, "must be < 1"), (95, "must be < 1")]),
    ("stats.n_resamples", [99, 9999], [(98, "must be >= 99"), (0, "must be >= 99")]),
    ("stats.converged_threshold", [0, 0.95, 1], [(-0.01, "must be >= 0"), (1.01, "must be <= 1"), (95, "must be <= 1")]),
    ("stats.bootstrap_max_n", [1, 1000], [(0, "must be >= 1")]),
    ("verify.sample", [1, 3], [(0, "must be >= 1")]),
    ("train_threads", [1, 2], [(0, "must be >= 1"), (-1, "must be >= 1")]),
]  # fmt: skip


def _with(key: str, value):
    cfg = copy.deepcopy(BASE)
    *parents, leaf = key.split(".")
    node = cfg
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value
    return cfg


@pytest.mark.parametrize("key, accepted, refused", BOUNDS, ids=[b[0] for b in BOUNDS])
def test_global_settings_bounds(key, accepted, refused):
    for value in accepted:
        cfg = C.validate(_with(key, value))
        section, _, leaf = key.rpartition(".")
        assert (getattr(cfg, section)[leaf] if section else getattr(cfg, leaf)) == value
    for value, bound in refused:
        with pytest.raises(C.ConfigError) as info:
            C.validate(_with(key, value))
        assert str(info.value) == f"{key}: {value} is out of range: {bound}"


# ---------------------------------------------------------------- exact results of validation


def test_study_round_trips_through_its_dict_exactly():
    one_claim = [{"id": "c", "statement": "x", "kind": "at_least", "threshold": 0.5}]
    cfg = C.validate(mutate(lambda c: study(c).update(description="the s1 study", claims=one_claim)))
    s1 = cfg.studies["s1"]
    assert s1.to_dict() == {
        "name": "s1", "description": "the s1 study", "fixed": s1.fixed, "factors": {"norm": ["post", "pre"]},
        "seeds": [0, 1], "claims": one_claim,
    }  # fmt: skip
    assert s1.fixed["heads"] == 2 and s1.fixed["n_train"] == 8  # fixed over defaults
    assert C.Study.from_dict(json.loads(json.dumps(s1.to_dict()))) == s1
    assert C.validate(copy.deepcopy(BASE)).studies["s1"].description == ""


def test_run_ids_and_runs_are_exact():
    """The factors in a run id come in the schema's order of the settings, whatever the config's order."""
    cfg = C.validate(mutate(lambda c: study(c)["factors"].update(pos_enc=["none"], lr=[0.01])))
    runs = cfg.studies["s1"].runs()
    # factors in the schema's order of the settings, whatever the config's order
    order = [name for name in S.setting_specs() if name in ("norm", "pos_enc", "lr")]
    levels = {"pos_enc": lambda n: "none", "lr": lambda n: "0.01", "norm": lambda n: n}
    assert [r.run_id for r in runs] == [
        "/".join(f"{k}~{levels[k](n)}" for k in order) + f"/seed~{s}" for n in ("post", "pre") for s in (0, 1)
    ]
    assert {r.study for r in runs} == {"s1"}
    assert runs[-1].factors == {"norm": "pre", "pos_enc": "none", "lr": 0.01}
    assert list(runs[-1].factors) == order
    assert (runs[-1].settings.norm, runs[-1].settings.seed, runs[-1].settings.heads) == ("pre", 1, 2)
    # each run's folder in the run store: the hash of its settings, one per run
    assert [r.hash for r in runs] == [S.run_hash(r.settings) for r in runs] and len({r.hash for r in runs}) == 4


def test_format_value_and_duplicate_levels():
    assert [C.format_value(v) for v in (True, False, None, 0.01, 3, "pre")] == ["true", "false", "null", "0.01", "3", "pre"]
    # a mapping (a plugin's settings) reads the same whatever order its keys were written in
    assert C.format_value({"b": 1, "a": [2, 3]}) == C.format_value({"a": [2, 3], "b": 1}) == '{"a": [2, 3], "b": 1}'
    # 1 and 1.0 give the same runs; true and 1 do not (a boolean is never a number here)
    with pytest.raises(C.ConfigError, match=r"factors\.lr: duplicate value 1\.0"):
        C.validate(mutate(lambda c: study(c)["factors"].update(lr=[1, 1.0])))
    with pytest.raises(C.ConfigError, match=r"factors\.lr: duplicate value 0\.01"):
        C.validate(mutate(lambda c: study(c)["factors"].update(lr=[0.01, 0.02, 0.01])))


def test_defaults_are_filled_in_and_nothing_is_shared():
    raw = copy.deepcopy(BASE)
    first = C.validate(raw)
    assert raw == BASE  # the input is not changed
    assert first.stats == {"confidence": 0.95, "n_resamples": 9999, "bootstrap_max_n": 1000,
                           "converged_threshold": 0.95, "alpha": 0.05, "family": "study"}  # fmt: skip
    assert first.verify == {"sample": 3, "random_seed": 0}
    assert first.outdir == "." and C.validate(mutate(lambda c: c.update(outdir="smoke/a"))).outdir == "smoke/a"
    partial = C.validate(mutate(lambda c: c.update(stats={"alpha": 0.01}, verify={"sample": 1})))
    assert partial.stats == first.stats | {"alpha": 0.01} and partial.verify == {"sample": 1, "random_seed": 0}
    first.stats["alpha"] = 0.5  # a caller's change stays in its own result
    assert C.validate(copy.deepcopy(BASE)).stats["alpha"] == 0.05
    raw = mutate(claim(kind="at_least", threshold=0.5))
    built = C.validate(raw).studies["s1"].claims[0]
    with pytest.raises(dataclasses.FrozenInstanceError):  # a claim is built once and stays as built
        built.id = "d"
    with pytest.raises(TypeError):
        built.keys["threshold"] = 0.9
    assert built.keys == {"threshold": 0.5} and built.metric == "test_acc" and built.share == 0.5  # defaults filled
    built.to_dict()["threshold"] = 0.9  # nor does a change to a copy of its mapping reach the input
    assert raw["studies"]["s1"]["claims"] == [{"id": "c", "statement": "x", "kind": "at_least", "threshold": 0.5}]


@pytest.mark.parametrize("where", ["fixed", "factors", "defaults"])
def test_the_largest_seed_torch_takes_is_accepted_and_one_more_refused(where):
    top = 2**63 - 1

    def put(value):
        def fn(c):
            if where == "defaults":
                c["defaults"]["data_seed"] = value
            elif where == "fixed":
                study(c)["fixed"]["data_seed"] = value
            else:
                study(c)["factors"]["data_seed"] = [0, value]
        return fn

    C.validate(mutate(put(top)))
    with pytest.raises(C.ConfigError) as info:
        C.validate(mutate(put(top + 1)))
    assert str(info.value) == f"study 's1': {where}.data_seed: out of range: must be <= 2**63 - 1"
    C.validate(mutate(lambda c: study(c).update(seeds=[0, top])))
    with pytest.raises(C.ConfigError, match=r"^study 's1': seeds: 9223372036854775808 is out of range"):
        C.validate(mutate(lambda c: study(c).update(seeds=[0, top + 1])))


def test_unknown_study_names_the_known_ones():
    cfg = C.validate(mutate(lambda c: c["studies"].update(s2=copy.deepcopy(study(c)))))
    with pytest.raises(C.ConfigError) as info:
        cfg.study("s3")
    assert str(info.value) == "unknown study 's3' (known: s1, s2)"


def test_command_line_without_files_prints_its_usage(monkeypatch, capsys):
    assert C.main([]) == 2
    assert capsys.readouterr().err == "usage: python -m ablation.config CONFIG.yaml [...]\n"
    monkeypatch.setattr("sys.argv", ["ablation.config", str(REPO / "config" / "smoke.yaml")])
    assert C.main() == 0
    assert capsys.readouterr().out.startswith(f"{REPO / 'config' / 'smoke.yaml'}: ok (")


# ---------------------------------------------------------------- claims


def _claims(*claims, factors=None, columns=("norm", "heads")):
    return C.check_claims(list(claims), {"norm": ["post", "pre"], "heads": [1, 4]} if factors is None else factors,
                          columns)  # fmt: skip


def test_every_kind_of_claim_is_accepted_with_its_defaults_filled_in():
    base = {"id": "c", "statement": "x"}
    kinds = {
        "at_value": {"target": 0.5, "tolerance": 0.01},
        "at_least": {"threshold": 0.9, "metric": "converged", "cells": "average", "source": "s", "note": "n"},
        "equivalent": {"factor": "heads", "levels": ["4", 1], "margin": 0.02, "where": {"norm": "pre"}},
        "not_worse": {"factor": "norm", "levels": ["post", "pre"], "margin": 0, "where": {"seed": [0, 1]}},
        "better": {"factor": "heads", "levels": [1.0, 4], "where": {"norm": ["post", "pre"]}},
        "grad_trend": {"factor": "norm", "growing": "post", "flat": "pre", "flat_margin": 0.1},
    }
    branches = [b["properties"]["kind"]["const"] for b in C.claims_schema()["definitions"]["claim"]["oneOf"]]
    assert branches[: len(kinds)] == list(kinds)  # the built-in kinds first (a test may register more)
    for kind, keys in kinds.items():
        [out] = _claims({**base, "kind": kind, **keys})
        common = {"source": "", "note": "", "where": {}, "cells": "every", "estimand": "share", "test": "t", "share": 0.5,
                  "exact": False, "metric": "test_acc" if kind != "grad_trend" else None}  # fmt: skip
        common |= {k: v for k, v in keys.items() if k in common}
        own = {k: v for k, v in keys.items() if k not in common} | ({"min_slope": 0} if kind == "grad_trend" else {})
        own |= {"ties": "count"} if "levels" in keys else {}  # a comparison counts its ties by default
        assert out.kind.name == kind and out.id == "c" and out.statement == "x", kind
        assert {k: getattr(out, k) for k in common} == common and out.keys == own, kind
        assert out.to_dict() == {**base, "kind": kind, **keys}, kind  # the mapping as the config gave it
    given = {**base, "kind": "at_least", "threshold": 0.9, "where": {"norm": "pre"}}
    [out] = _claims(given)
    with pytest.raises(TypeError):
        out.where["norm"] = "post"
    assert given["where"] == {"norm": "pre"}  # the input is not changed
    # only names known (the claims job): levels are not checked, the rest is
    assert _claims({**base, "kind": "better", "factor": "norm", "levels": ["post", "mid"]}, factors=["norm"])
    with pytest.raises(C.ConfigError, match=r"^claim 'c': 'factor' 'heads' is not a factor of the study \(norm\)$"):
        _claims({**base, "kind": "better", "factor": "heads", "levels": [1, 4]}, factors=["norm"])
    with pytest.raises(C.ConfigError, match=r"^claim 'c': 'where' names column 'depth', which does not exist$"):
        _claims({**base, "kind": "at_least", "threshold": 0.5, "where": {"depth": 2}})
    with pytest.raises(C.ConfigError, match=r"^claim 'c': duplicate id in this study's claims$"):
        _claims({**base, "kind": "at_least", "threshold": 0.5}, {**base, "kind": "at_least", "threshold": 0.6})
    with pytest.raises(C.ConfigError) as info:  # the claim's own problem before the unknown key it causes
        _claims({**base, "kind": "at_value", "target": 0.5, "tolerance": "small", "tresh": 1})
    assert str(info.value) == "claim 'c': tolerance: got a string 'small', expected a number"
    with pytest.raises(C.ConfigError) as info:
        _claims({**base, "kind": "better", "factor": "depth", "levels": [1, 2]})
    assert str(info.value) == "claim 'c': 'factor' 'depth' is not a factor of the study (norm, heads)"
    with pytest.raises(C.ConfigError) as info:
        _claims({**base, "kind": "better", "factor": "depth", "levels": [1, 2]}, factors=[])
    assert str(info.value) == "claim 'c': 'factor' 'depth' is not a factor of the study (none)"
    with pytest.raises(C.ConfigError) as info:
        _claims({**base, "kind": "better", "factor": "heads", "levels": [4, 4.0]})
    assert str(info.value) == "claim 'c': 'levels' name the same level twice (4)"
    with pytest.raises(C.ConfigError, match=r"^claims\[1\]: missing required key 'id'$"):
        _claims({**base, "kind": "at_least", "threshold": 0.5}, {"statement": "y", "kind": "at_least", "threshold": 0.5})


def test_the_schemas_metric_examples_are_the_run_metrics_and_the_built_in_tasks_metrics():
    from ablation import data, measures

    task_metrics = list(dict.fromkeys(m for task in data.TASKS.values() for m in task.metrics))
    assert S.schema()["definitions"]["claim"]["properties"]["metric"]["examples"] == list(measures.METRICS) + task_metrics


def test_a_bounded_list_is_either_of_fixed_length_or_bounded_below():
    """The message for a list's length says 'exactly' where minItems == maxItems and 'at least' where
    only minItems bounds it: every bounded list of the schema is one of the two."""
    bounded = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("minItems", 1) > 1 or "maxItems" in node:
                bounded.append((node.get("minItems"), node.get("maxItems")))
            for sub in node.values():
                walk(sub)
        elif isinstance(node, list):
            for sub in node:
                walk(sub)

    walk(S.schema())
    assert bounded and all(lo == hi or hi is None for lo, hi in bounded), bounded
    assert (2, None) in bounded  # robust_over's levels: at least two universes per setting


def test_every_schema_property_has_a_description_and_a_default():
    """A required key has no default (none would be meaningful); a key a branch forbids (`not`) neither.
    A property that refers to a definition has that definition's description, unless it has its own."""
    missing = []

    def walk(node, path):
        if isinstance(node, dict):
            for name, spec in (node.get("properties") or {}).items():
                where = f"{path}.{name}"
                if "$ref" in spec:  # "#/definitions/x": x's description and default count
                    spec = S.schema()["definitions"][spec["$ref"].rpartition("/")[2]] | spec
                if not spec.get("description"):
                    missing.append(f"{where}: description")
                if "default" not in spec and name not in node.get("required", []) and "not" not in spec:
                    missing.append(f"{where}: default")
            for key, sub in node.items():
                walk(sub, f"{path}.{key}")
        elif isinstance(node, list):
            for i, sub in enumerate(node):
                walk(sub, f"{path}[{i}]")

    walk(S.schema(), "")
    assert not missing, missing


def test_command_line_names_the_claim_and_key_in_one_line(tmp_path, capsys):
    cfg = mutate(claim(kind="equivalent", factor="norm", levels=["post", "pre"], margin="small"))
    path = write(tmp_path, yaml.safe_dump(cfg))
    assert C.main([str(path)]) == 1
    assert capsys.readouterr().err == (
        "config error: study 's1': claim 'c': margin: got a string 'small', expected a number\n"
    )


# ---------------------------------------------------------------- exact messages

# The whole line, word for word: a fragment would let a garbled type name, hint or list through.
def heads_factor(fn):
    """fn, with heads a factor [1, 4] of s1 instead of fixed."""
    return lambda c: (study(c)["fixed"].pop("heads"), study(c)["factors"].update(heads=[1, 4]), fn(c))


A58 = "a" * 58  # its repr is 60 characters, the most a message shows whole
EXACT = [
    ("key-not-text", lambda c: c["studies"].update({5: c["studies"].pop("s1")}),
     "studies: key 5 is a number, expected a string (quote it: '5')"),
    ("python-object", lambda c: study(c)["fixed"].update(lr=len),
     "study 's1': fixed.lr: <built-in function len> is a Python builtin_function_or_method, not plain data (a string,"
     " number, boolean, null, list or mapping; remove any !!python tag, quote dates)"),
    ("boolean", lambda c: study(c)["fixed"].update(heads=True),
     "study 's1': fixed.heads: got a boolean true, expected an integer"),
    ("false", lambda c: study(c)["fixed"].update(norm=False), "study 's1': fixed.norm: got a boolean false, expected a string"),
    ("null", lambda c: study(c)["fixed"].update(norm=None), "study 's1': fixed.norm: got null, expected a string"),
    ("list", lambda c: study(c)["fixed"].update(heads=[2]), "study 's1': fixed.heads: got a list [2], expected an integer"),
    ("mapping", lambda c: study(c)["fixed"].update(heads={"a": 1}),
     "study 's1': fixed.heads: got a mapping {'a': 1}, expected an integer"),
    ("number", lambda c: study(c)["fixed"].update(norm=2.5), "study 's1': fixed.norm: got a number 2.5, expected a string"),
    ("study-null", lambda c: c["studies"].update(s1=None), "study 's1': got null, expected a mapping"),
    ("key-tuple", lambda c: c.update(stats={("a",): 1}), "stats: key ('a',) is tuple, expected a string (quote it: '('a',)')"),
    ("top-level", lambda c: c.update(studys={}), "(top level): unknown key 'studys' (did you mean 'studies'?); allowed: "
     "defaults, outdir, plugins, train_threads, stats, verify, report, studies"),
    ("nan", lambda c: study(c)["fixed"].update(lr=float("nan")), "study 's1': fixed.lr: nan is not a finite number"),
    ("outdir-not-text", lambda c: c.update(outdir=5), "outdir: got a number 5, expected a string"),
    ("outdir-pattern", lambda c: c.update(outdir="../x"),
     "outdir: '../x' is not a relative folder without '..' (letters, digits, _ . -, separated by /)"),
    ("claim-id-number", claim(id=5, kind="at_least", threshold=0.5), "study 's1': claims[0].id: got a number 5, expected a string"),
    ("two-types-quoted", lambda c: study(c)["fixed"].update(data_seed="3"),
     "study 's1': fixed.data_seed: got a string '3', expected an integer or null (remove the quotes)"),
    ("two-types", lambda c: study(c)["fixed"].update(data_seed="x"),
     "study 's1': fixed.data_seed: got a string 'x', expected an integer or null"),
    ("digits-for-a-list", lambda c: study(c).update(seeds="0"), "study 's1': seeds: got a string '0', expected a list"),
    ("yaml11-float", lambda c: study(c)["fixed"].update(lr="1e-3"),
     "study 's1': fixed.lr: got a string '1e-3', expected a number (YAML reads 1e-3 or 1.5e3 as text: write 1.0e-3,"
     " 1.5e+3 or 0.001)"),
    ("quoted-integer", lambda c: study(c)["fixed"].update(heads="2"),
     "study 's1': fixed.heads: got a string '2', expected an integer (remove the quotes)"),
    ("float-integer", lambda c: study(c)["fixed"].update(heads=2.0), "study 's1': fixed.heads: got a number 2.0, expected an integer"),
    ("repr-60", lambda c: study(c)["fixed"].update(heads=A58), f"study 's1': fixed.heads: got a string '{A58}', expected an integer"),
    ("repr-61", lambda c: study(c)["fixed"].update(heads=A58 + "a"),
     f"study 's1': fixed.heads: got a string '{A58[:-2]}..., expected an integer"),
    ("duplicates", lambda c: study(c).update(seeds=[0, 1, 0, 1, 2]), "study 's1': seeds: duplicate value(s) 0, 1"),
    ("missing", lambda c: study(c).pop("seeds"), "study 's1': missing required key 'seeds'"),
    ("two-missing", lambda c: study(c).update(claims=[{"kind": "at_least", "threshold": 0.5}]),
     "study 's1': claims[0]: missing required key 'id', 'statement'"),
    ("two-unknown", lambda c: c.update(stats={"alfa": 0.1, "confidense": 0.9}),
     "stats: unknown key 'alfa' (did you mean 'alpha'?), 'confidense' (did you mean 'confidence'?); allowed: confidence,"
     " n_resamples, bootstrap_max_n, converged_threshold, alpha, family"),
    ("unknown-no-hint", lambda c: c.update(verify={"zzz": 1}), "verify: unknown key 'zzz'; allowed: sample, random_seed"),
    ("id-outside-claims", lambda c: c.update(stats={"id": "x"}),  # only a claim is named by its id
     "stats: unknown key 'id'; allowed: confidence, n_resamples, bootstrap_max_n, converged_threshold, alpha, family"),
    ("study-name", rename_study("../x"),
     "studies: study name '../x' is not a safe folder name (letters, digits, _ . -; starting with a letter or digit)"),
    ("no-studies-key", lambda c: c.pop("studies"), "studies: at least one study is required"),
    ("no-studies", lambda c: c.update(studies={}), "studies: at least one entry is required"),
    ("factor-no-hint", lambda c: study(c)["factors"].update(zzzz=[1]), "study 's1': factors.zzzz: unknown setting"),
    # the first problem: nearest the top, then in key order; a claim's key before its unknown keys
    ("first-in-key-order", lambda c: study(c)["fixed"].update(heads="x", depth="y"),
     "study 's1': fixed.depth: got a string 'y', expected an integer"),
    ("first-nearest-the-top", lambda c: (study(c)["fixed"].update(heads="x"), study(c).update(bogus=1)),
     "study 's1': unknown key 'bogus'; allowed: description, fixed, factors, seeds, eval_lengths, published, plot,"
     " adaptive, claims"),
    ("claim-key-before-unknown-key", claim(kind="at_value", target=0.5, tolerance="small", tresh=1),
     "study 's1': claim 'c': tolerance: got a string 'small', expected a number"),
    ("claim-two-missing", claim(kind="at_value"), "study 's1': claim 'c': kind at_value needs key(s) target, tolerance"),
    ("claim-kind-true", claim(kind=True),
     "study 's1': claim 'c': kind: unknown kind true (one of at_value, at_least, equivalent, not_worse, better, grad_trend)"),
    ("claim-kind-false", claim(kind=False), "study 's1': claim 'c': kind: unknown kind false (one of at_value, at_least,"
     " equivalent, not_worse, better, grad_trend)"),
    ("claim-kind-null", claim(kind=None), "study 's1': claim 'c': kind: unknown kind null (one of at_value, at_least,"
     " equivalent, not_worse, better, grad_trend)"),
    # a boolean is never a level of a text or number factor, nor equal to a number
    ("claim-boolean-level", heads_factor(claim(kind="better", factor="heads", levels=[True, 4])),
     "study 's1': claim 'c': level True is not a level of factor 'heads' ([1, 4])"),
    ("claim-same-booleans", heads_factor(claim(kind="better", factor="heads", levels=[True, True])),
     "study 's1': claim 'c': 'levels' name the same level twice (True)"),
    ("claim-where-boolean", claim(kind="at_least", threshold=0.5, where={"norm": False}),
     "study 's1': claim 'c': 'where' norm=False is not a level of that factor (['post', 'pre'])"),
]  # fmt: skip


@pytest.mark.parametrize("name, fn, message", EXACT, ids=[c[0] for c in EXACT])
def test_exact_message(name, fn, message):
    with pytest.raises(C.ConfigError) as info:
        C.validate(mutate(fn))
    assert str(info.value) == message


@pytest.mark.parametrize("raw, what", [("x", "a string"), ([], "a list"), (None, "null")])
def test_a_config_that_is_not_a_mapping(raw, what):
    with pytest.raises(C.ConfigError) as info:
        C.validate(raw)
    assert str(info.value) == f"(top level): the config must be a mapping with a 'studies' key, got {what}"


@pytest.mark.parametrize("levels", [[0, None], [None, 0], [1, 1.5]])
def test_distinct_levels_are_not_duplicates(levels):
    """null is not 0 (nor 'null' text), 1 is not 1.5: each level its own runs."""
    assert C.validate(mutate(lambda c: study(c)["factors"].update(data_seed=[0, 1]))).studies["s1"].n_runs() == 8
    key = "lr" if 1.5 in levels else "data_seed"
    assert C.validate(mutate(lambda c: study(c)["factors"].update({key: levels}))).studies["s1"].n_runs() == 8


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("ctrl.yaml", b"a: \x07\n",
         "not valid safe YAML: unacceptable character #x0007: special characters are not allowed"),
        ("bad\n \nname.yaml", b"\xff\xfe",
         "unreadable ('utf-8' codec can't decode byte 0xff in position 0: invalid start byte)"),
        ("tag.yaml", b"studies: !!python/name:os.system\n",
         "not valid safe YAML: line 1, column 10: unsafe or unknown tag 'tag:yaml.org,2002:python/name:os.system'"
         " (only plain YAML is read: remove the tag)"),
        ("list.yaml", b"- a\n- b\n", "must be a mapping with a 'studies' key, got a list ['a', 'b']"),
        ("broken.yaml", b"studies: {s: [\n",
         "not valid safe YAML: line 2, column 1: expected the node content, but found '<stream end>'"),
    ],
)  # fmt: skip
def test_exact_messages_of_files(tmp_path, name, data, message):
    """One line even where the file name holds a line break."""
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(C.ConfigError) as info:
        C.load(path)
    assert str(info.value) == f"config file {tmp_path / name.replace(chr(10) + ' ' + chr(10), ' ')}: {message}"
    with pytest.raises(C.ConfigError) as info:
        C.load(tmp_path)
    assert str(info.value) == f"config file {tmp_path}: not found (it is a folder)"


# ---------------------------------------------------------------- messages the mutation run found untested


@pytest.mark.parametrize(
    "fn, message",
    [
        # d_model set nowhere: the schema's default is named as its origin
        (lambda c: (c["defaults"].pop("d_model"), study(c)["fixed"].update(heads=3)),
         "study 's1': fixed.heads: heads=3 does not divide d_model=16 (d_model (schema default))"),
        # heads set nowhere
        (lambda c: (study(c)["fixed"].pop("heads"), study(c)["fixed"].update(d_model=6)),
         "study 's1': heads (schema default): heads=4 does not divide d_model=6 (fixed.d_model)"),
        # a claim's unknown key: the keys every claim has, then those of its kind, each once
        (claim(kind="at_least", threshold=0.5, tresh=0.6),
         "study 's1': claim 'c': unknown key 'tresh' (did you mean 'threshold'?); allowed: id, statement, source, note,"
         " kind, where, metric, lengths, cells, estimand, test, share, robust_over, exact, undecidable_ok, threshold"),
        (claim(kind="better", factor="norm", levels=["post", "pre"], margin=0.1),
         "study 's1': claim 'c': unknown key 'margin'; allowed: id, statement, source, note, kind, where, metric, lengths,"
         " cells, estimand, test, share, robust_over, exact, undecidable_ok, factor, levels, ties"),
    ],
    ids=["d_model-schema-default", "heads-schema-default", "claim-unknown-key", "claim-key-of-another-kind"],
)  # fmt: skip
def test_exact_message_of_origins_and_claim_keys(fn, message):
    with pytest.raises(C.ConfigError) as info:
        C.validate(mutate(fn))
    assert str(info.value) == message


def test_a_headline_naming_a_claim_is_accepted():
    one_claim = [{"id": "c", "statement": "x", "kind": "at_least", "threshold": 0.5}]
    cfg = C.validate(mutate(lambda c: (study(c).update(claims=one_claim), c.update(report={"headline": ["c"]}))))
    assert cfg.raw["report"] == {"headline": ["c"]} and [cl.id for cl in cfg.studies["s1"].claims] == ["c"]


@pytest.mark.parametrize(
    "keys, message",
    [
        ({"kind": "at_least", "threshold": 0.5, "exact": True},
         "claim 'c': 'exact' needs kind at_value with target 0.5 (the twin certificate proves chance exactly)"),
        ({"kind": "at_value", "target": 0.6, "tolerance": 0.01, "exact": True},
         "claim 'c': 'exact' needs kind at_value with target 0.5 (the twin certificate proves chance exactly)"),
        ({"kind": "grad_trend", "factor": "norm", "growing": "post", "flat": "pre", "flat_margin": 0.1, "estimand": "mean"},
         "claim 'c': estimand mean is not for kind grad_trend (slopes have no bound); use share"),
        ({"kind": "at_least", "threshold": 0.5, "test": "betting"},
         "claim 'c': test: betting is a test of the mean; set estimand: mean, or drop test"),
        ({"kind": "at_least", "threshold": 0.5, "estimand": "share", "test": "t"},
         "claim 'c': test: t is a test of the mean; set estimand: mean, or drop test"),
        ({"kind": "at_least", "threshold": 0.5, "estimand": "mean", "test": "wilcoxon"},
         "claim 'c': test: 'wilcoxon' is not one of t, betting"),
    ],
    ids=["exact-at-least", "exact-off-chance", "mean-slopes", "betting-for-a-share", "t-for-a-share", "unknown-test"],
)  # fmt: skip
def test_an_estimand_that_cannot_hold_is_refused_in_one_line(keys, message):
    with pytest.raises(C.ConfigError) as info:
        _claims({"id": "c", "statement": "x", **keys}, factors=["norm"])
    assert str(info.value) == message


def test_the_mean_takes_the_t_test_unless_a_claim_asks_for_the_betting_e_process():
    base = {"id": "c", "statement": "x", "kind": "at_least", "threshold": 0.5}
    [t] = _claims({**base, "estimand": "mean"})
    [betting] = _claims({**base, "estimand": "mean", "test": "betting"})
    [share] = _claims(base)
    assert (t.test, betting.test, share.test) == ("t", "betting", "t")  # a share claim never reads its test
    assert betting.to_dict() == {**base, "estimand": "mean", "test": "betting"}


@pytest.mark.parametrize("share", [0, 1, 1.5, "half"])
def test_a_share_outside_zero_and_one_is_refused(share):
    with pytest.raises(C.ConfigError, match=r"^claim 'c': share: "):
        _claims({"id": "c", "statement": "x", "kind": "at_least", "threshold": 0.5, "share": share})


def test_a_claims_family_is_its_studys_non_exact_claims_or_the_whole_configs():
    def claims(n_exact, n_other):
        return [{"id": f"e{i}", "exact": True} for i in range(n_exact)] + [{"id": f"c{i}"} for i in range(n_other)]

    by_study = {"a": claims(1, 2), "b": claims(2, 3), "c": [{"id": "x", "exact": False}]}
    assert [C.family_size(by_study, name) for name in by_study] == [2, 3, 1]
    assert [C.family_size(by_study, name, "study") for name in by_study] == [2, 3, 1]
    assert [C.family_size(by_study, name, "config") for name in by_study] == [6, 6, 6]
    assert C.family_size({"a": claims(2, 0)}, "a") == 0
