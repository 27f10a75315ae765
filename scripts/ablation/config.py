"""Load, validate and expand the study configuration.

The config (``config/config.yaml``) holds named studies; each study has ``fixed`` settings,
``factors`` (a list of values per setting) and ``seeds``. Validation is the JSON schema
(``workflow/schemas/config.schema.yaml``) plus the checks a schema cannot express; every problem
is reported as ONE line naming the study, the key and what is wrong (:class:`ConfigError`), before
any job runs.

A run is identified inside its study by ``factor~value/.../seed~N`` (the layout of Snakemake's
``Paramspace``), its factors in the schema's order of the settings, whatever the config's key
order; its files live in the run store under the hash of its settings (:mod:`ablation.store`).
"""

from __future__ import annotations

import copy
import difflib
import functools
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from . import data, kinds, plugins, settings
from .outputs import RUN_METRICS
from .architectures import check_study
from .validation import describe_type, error_line, error_line_at, error_rank, lengths_text, location, one_line
from .validation import short_repr, strict_validator


class ConfigError(ValueError):
    """A problem in the configuration; its message is one line."""


# ---------------------------------------------------------------- loading


class _SafeUniqueLoader(yaml.SafeLoader):
    """PyYAML's safe loader (no Python tags), refusing a key given twice in one mapping; a key that
    overrides one merged in by ``<<`` is YAML's way of sharing a block, not a duplicate."""


def _construct_unique_mapping(loader, node):  # PyYAML calls it without `deep`
    seen = set()
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node)
        try:
            duplicate = key in seen
        except TypeError:
            continue  # unhashable: construct_mapping reports it
        if duplicate:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (the later value would silently win)", key_node.start_mark
            )
        seen.add(key)
    loader.flatten_mapping(node)
    return loader.construct_mapping(node)


_SafeUniqueLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_unique_mapping)


def _yaml_error_line(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).strip().splitlines()[0]
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    if "could not determine a constructor for the tag" in problem:
        problem = problem.replace("could not determine a constructor for the tag", "unsafe or unknown tag")
        problem += " (only plain YAML is read: remove the tag)"
    return f"{where}{problem}"


def load_yaml(path) -> dict:
    """Safe-load a YAML config file; refuses missing files, unsafe tags, duplicate keys and non-mappings."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path}: not found" + (" (it is a folder)" if path.is_dir() else ""))
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.load(fh, Loader=_SafeUniqueLoader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.YAMLError as exc:
        raise ConfigError(one_line(f"config file {path}: not valid safe YAML: {_yaml_error_line(exc)}")) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(one_line(f"config file {path}: unreadable ({exc})")) from None
    if data is None:
        raise ConfigError(f"config file {path}: is empty; it must be a mapping with a 'studies' key")
    if not isinstance(data, dict):
        raise ConfigError(
            f"config file {path}: must be a mapping with a 'studies' key, got {describe_type(data)} {short_repr(data)}"
        )
    return data


# ---------------------------------------------------------------- data model


def format_value(value) -> str:
    """How a factor value appears in a run id (and a folder name)."""
    return json.dumps(value, sort_keys=True) if isinstance(value, (bool, dict)) or value is None else str(value)


@dataclass(frozen=True)
class Run:
    study: str
    run_id: str
    factors: dict
    settings: "settings.Settings"
    hash: str  # settings.run_hash(settings): the run's folder in the run store


@dataclass
class Study:
    name: str
    description: str
    fixed: dict  # defaults + study's fixed settings (resolved; no factor keys)
    factors: dict  # name -> list of values, names in the schema's order, values in config order
    seeds: list
    claims: list = field(default_factory=list)  # kinds.Claim, built and checked by check_claims
    eval_lengths: list = field(default_factory=list)  # the study's test lengths (besides each run's trained ones)

    @property
    def factor_names(self) -> list[str]:
        return list(self.factors)

    def n_runs(self) -> int:
        return math.prod(len(v) for v in self.factors.values()) * len(self.seeds)

    def combinations(self):
        """Every combination of factor values (a dict each), in config order."""
        names = self.factor_names
        for values in itertools.product(*(self.factors[n] for n in names)):
            yield dict(zip(names, values))

    def runs(self) -> list[Run]:
        base = settings.defaults() | self.fixed
        out = []
        for combo in self.combinations():
            for seed in self.seeds:
                run_id = "/".join(
                    [f"{k}~{format_value(v)}" for k, v in combo.items()] + [f"seed~{seed}"]
                )
                values = settings.Settings(**(base | combo | {"seed": seed}))
                out.append(Run(self.name, run_id, combo, values, settings.run_hash(values)))
        return out

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "description": self.description,
            "fixed": self.fixed,
            "factors": self.factors,
            "seeds": self.seeds,
            "claims": [claim.to_dict() for claim in self.claims],
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Study":
        claims = check_claims(d["claims"], d["factors"], list(settings.setting_specs()), d["name"])
        return cls(d["name"], d["description"], d["fixed"], d["factors"], d["seeds"], claims)


@dataclass
class Config:
    studies: dict[str, Study]
    train_threads: int
    stats: dict
    verify: dict
    raw: dict
    outdir: str = "."  # this config's results/ and reports/ live under it

    def study(self, name: str) -> Study:
        try:
            return self.studies[name]
        except KeyError:
            raise ConfigError(f"unknown study {name!r} (known: {', '.join(self.studies)})") from None


# ---------------------------------------------------------------- validation

# Names directly under results/ that the workflow itself uses (a study folder must not collide).
RESERVED_STUDY_NAMES = ("benchmarks", "checks.csv", "figures", "logs", "runs", "verify.csv")
MAX_SEED = 2**63 - 1  # torch.manual_seed's range
def _fill_defaults(instance: dict, schema: dict) -> dict:
    """Fill in defaults of the top-level and study-level properties (not inside settings)."""
    out = copy.deepcopy(instance)
    for key, spec in schema.get("properties", {}).items():
        if key not in out and "default" in spec:
            out[key] = copy.deepcopy(spec["default"])
        if isinstance(out.get(key), dict):  # a mapping without `properties` (the settings) is copied as is
            out[key] = _fill_defaults(out[key], spec)
    return out


def _check_plain(value, path: tuple = ()) -> None:
    """Only plain data (what JSON and safe YAML give): string keys, finite numbers, no Python objects.

    Snakemake reads --configfile with PyYAML's FullLoader, which builds tuples, bytes and even
    Python functions from !!python/... tags; this rejects them, and NaN/infinity, by their key.
    """
    if isinstance(value, dict):
        for key, sub in value.items():
            if not isinstance(key, str):
                raise ConfigError(f"{location(path)}key {key!r} is {describe_type(key)}, expected a string (quote it: '{key}')")
            _check_plain(sub, (*path, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            _check_plain(sub, (*path, i))
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ConfigError(f"{location(path)}{value!r} is not a finite number")
    elif not isinstance(value, (str, int, bool, type(None))):
        raise ConfigError(
            f"{location(path)}{short_repr(value)} is a Python {type(value).__name__}, not plain data "
            "(a string, number, boolean, null, list or mapping; remove any !!python tag, quote dates)"
        )


def _check_value(study: str, key: str, index: int, value) -> None:
    specs = settings.setting_specs()
    for error in strict_validator(specs[key]).iter_errors(value):
        raise ConfigError(error_line_at(error, ("studies", study, "factors", key, index)))


def same_value(a, b) -> bool:
    """Two factor values that would give the same runs (1 and 1.0 too) or the same folder name."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b or format_value(a) == format_value(b)


def validate(raw: dict) -> Config:
    """Schema plus semantic checks; returns the resolved :class:`Config` or raises ConfigError.

    Every message is one line: '[study '<name>': ]<key>: <what is wrong>'.
    """
    try:
        return _validate(raw)
    except (ConfigError, plugins.PluginError) as exc:
        raise ConfigError(one_line(str(exc))) from None


def _validate(raw: dict) -> Config:
    if not isinstance(raw, dict):
        raise ConfigError(f"(top level): the config must be a mapping with a 'studies' key, got {describe_type(raw)}")
    _check_plain(raw)
    schema = settings.schema()
    listed = raw.get("plugins", schema["properties"]["plugins"]["default"])
    if not list(strict_validator(schema["properties"]["plugins"]).iter_errors(listed)):
        plugins.load(listed)  # first: plugins add to the registries (claim kinds too) that the rest is checked against
    errors = sorted(strict_validator(claims_schema()).iter_errors(raw), key=error_rank)
    if errors:
        # the first failing place, nearest the top (an unknown study key before a bad value inside it)
        raise ConfigError(error_line(errors[0], raw))
    cfg = _fill_defaults(raw, schema)
    if not cfg.get("studies"):
        raise ConfigError("studies: at least one study is required")
    setting_names = list(settings.setting_specs())
    defaults = cfg.get("defaults") or {}
    folded = {}
    for name in cfg["studies"]:
        if name in RESERVED_STUDY_NAMES:
            raise ConfigError(f"study {name!r}: the name is used by the workflow under results/; choose another")
        other = folded.setdefault(name.lower(), name)
        if other != name:
            raise ConfigError(
                f"study {name!r}: differs from study {other!r} only in case (the same folder on macOS and Windows)"
            )
    studies = {}
    for name, body in cfg["studies"].items():
        body = _fill_defaults(body, schema["definitions"]["study"])
        own_fixed = dict(body.get("fixed") or {})
        fixed = dict(defaults) | own_fixed
        factors = dict(body.get("factors") or {})
        origin = functools.partial(_origin, own_fixed, defaults, {})  # where a fixed value comes from
        fixed, factors = plugins.resolve(name, fixed, factors, origin, cfg["plugins"])  # names from the registries
        for key, values in factors.items():
            if key == "seed":
                raise ConfigError(f"study {name!r}: factors.seed: list seeds under 'seeds', not as a factor")
            if key not in setting_names:
                close = difflib.get_close_matches(key, setting_names, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise ConfigError(f"study {name!r}: factors.{key}: unknown setting{hint}")
            if key in own_fixed:
                raise ConfigError(f"study {name!r}: factors.{key}: also listed under fixed; keep one")
            seen = []
            for i, v in enumerate(values):
                _check_value(name, key, i, v)
                if any(same_value(v, s) for s in seen):
                    raise ConfigError(f"study {name!r}: factors.{key}: duplicate value {v!r}")
                seen.append(v)
        seeds = list(body["seeds"])
        for seed in seeds:
            if seed > MAX_SEED:
                raise ConfigError(f"study {name!r}: seeds: {seed} is out of range: must be <= 2**63 - 1")
        data_seeds = factors.get("data_seed", [fixed.get("data_seed")])
        if any(d is not None and d > MAX_SEED for d in data_seeds):
            key = _origin(own_fixed, defaults, factors, "data_seed")
            raise ConfigError(f"study {name!r}: {key}: out of range: must be <= 2**63 - 1")
        # heads must divide d_model for every combination that can occur
        base = settings.defaults() | fixed
        heads = factors.get("heads", [base["heads"]])
        dims = factors.get("d_model", [base["d_model"]])
        for h, d in itertools.product(heads, dims):
            if d % h:
                raise ConfigError(
                    f"study {name!r}: {_origin(own_fixed, defaults, factors, 'heads')}: heads={h} does not divide"
                    f" d_model={d} ({_origin(own_fixed, defaults, factors, 'd_model')})"
                )
        plot = body.get("plot") or {}
        for key in [plot.get("hue"), plot.get("facet"), *(plot.get("where") or {})]:
            if key and key not in factors:
                raise ConfigError(f"study {name!r}: plot: {key!r} is not a factor of the study")
        # one home per setting: a factor is not also shown as fixed; factors in the schema's order
        fixed = {k: v for k, v in fixed.items() if k not in factors}
        factors = {k: factors[k] for k in setting_names if k in factors}
        eval_lengths = _eval_lengths(name, body["eval_lengths"])
        try:
            check_study(name, settings.defaults() | fixed, factors, eval_lengths, origin)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        claims = check_claims(body["claims"], factors, setting_names, name, (settings.defaults() | fixed, eval_lengths))
        plugins.check_exact(name, claims, fixed, factors)
        _check_published(name, body.get("published"), factors, settings.defaults() | fixed, eval_lengths)
        studies[name] = Study(name, body["description"], fixed, factors, seeds, claims, eval_lengths)
    claim_ids = {claim.id for study in studies.values() for claim in study.claims}
    for cid in cfg["report"]["headline"]:
        if cid not in claim_ids:
            raise ConfigError(f"report.headline: {cid!r} is not the id of a claim of any study")
    return Config(
        studies=studies,
        train_threads=cfg["train_threads"],
        stats=cfg["stats"],
        verify=cfg["verify"],
        raw=raw,
        outdir=cfg["outdir"],
    )


def _check_published(study: str, published: dict | None, factors: dict, base: dict, eval_lengths: list) -> None:
    """A published result names a factor of the study, levels of it, a task of the study (if any), a
    metric its tasks declare and lengths the study evaluates."""
    if not published:
        return
    where, factor, tasks = f"study {study!r}: published.", published["factor"], factors.get("task", [base["task"]])
    if factor not in factors:
        raise ConfigError(f"{where}factor: {factor!r} is not a factor of the study (its factors: {', '.join(factors) or 'none'})")
    for level in published["values"]:
        if not any(format_value(v) == level for v in factors[factor]):
            raise ConfigError(f"{where}values: {level!r} is not a level of {factor} ({', '.join(map(format_value, factors[factor]))})")
    if published.get("task"):
        if published["task"] not in tasks:
            raise ConfigError(f"{where}task: {published['task']!r} is not a task of the study (its tasks: {', '.join(tasks)})")
        tasks = [published["task"]]
    for name in tasks:
        if published["metric"] not in data.TASKS[name].metrics:
            raise ConfigError(f"{where}metric: {published['metric']!r} is not a metric of task {name} "
                              f"(its metrics: {', '.join(data.TASKS[name].metrics)})")  # fmt: skip
    for level, value in published["values"].items():
        for name in tasks:
            low, high = data.TASKS[name].metrics[published["metric"]].range
            if not low <= value <= high:
                hint = f"; did you mean {value / 100:g}?" if low <= value / 100 <= high else ""
                raise ConfigError(f"{where}values.{level}: {value:g} lies outside {published['metric']}'s range "
                                  f"[{low:g}, {high:g}]{hint}")  # fmt: skip
    lo, hi = published["lengths"]
    if lo > hi:
        raise ConfigError(f"{where}lengths: [{lo}, {hi}] runs backwards; write [{hi}, {lo}]")
    _check_throughout(f"{where}lengths", lo, hi, set(eval_lengths))


def _check_throughout(where: str, lo: int, hi: int, evaluated: set) -> None:
    """A range of lengths is read at every length in it: each one must be evaluated, or a mean over
    "lo-hi" would silently be a mean over fewer lengths than it says."""
    missing = [n for n in range(lo, hi + 1) if n not in evaluated]
    if missing:
        raise ConfigError(f"{where}: [{lo}, {hi}] includes lengths the study does not evaluate: {lengths_text(missing)} "
                          f"(it evaluates {lengths_text(evaluated) or 'none'})")  # fmt: skip


def _eval_lengths(study: str, given) -> list[int]:
    """A study's ``eval_lengths``, a list or a range {from, to}, as sorted lengths."""
    if isinstance(given, dict):
        if given["from"] > given["to"]:
            raise ConfigError(f"study {study!r}: eval_lengths: from {given['from']} is above to {given['to']}")
        return list(range(given["from"], given["to"] + 1))
    return sorted(given)


def _origin(own_fixed: dict, defaults: dict, factors: dict, key: str) -> str:
    """The config key a study's setting comes from: a factor, its fixed settings, the defaults or the schema."""
    for where, mapping in (("factors", factors), ("fixed", own_fixed), ("defaults", defaults)):
        if key in mapping:
            return f"{where}.{key}"
    return f"{key} (schema default)"


def claims_schema(names: tuple | None = None) -> dict:
    """The config schema with one ``oneOf`` branch per registered claim kind under
    ``definitions.claim`` (the built-in kinds and those plugins registered): a kind declares its own
    keys (``ablation.kinds``), the schema the keys every claim has."""
    return _claims_schema(tuple(kinds.CLAIM_KINDS) if names is None else names)


@functools.cache
def _claims_schema(names: tuple) -> dict:
    schema = copy.deepcopy(settings.schema())
    branches = []
    for name in names:
        kind = kinds.CLAIM_KINDS[name]
        required = [k for k, spec in kind.keys.items() if "default" not in spec and "not" not in spec]
        branches.append({"description": f"{name}: {kind().describe()}", "required": ["kind", *required],
                         "properties": {"kind": {"const": name, "description": "The kind of this branch."}} | kind.keys})  # fmt: skip
    schema["definitions"]["claim"]["oneOf"] = branches
    return schema


def check_claims(claims: list, factors, columns, study: str | None = None, context: tuple | None = None) -> list[kinds.Claim]:
    """A study's claims (mappings as the config gives them), checked against the schema and their kind,
    and for what a schema cannot say; built into frozen ``kinds.Claim`` objects, defaults filled in.

    ``factors``: the study's factor names, or name -> levels (then the levels a claim names must be
    among them). ``columns``: what ``where`` may name besides 'seed'. ``context``: the study's
    (settings of its runs but the factors, eval_lengths), when the metric a claim names must be one
    its task declares at lengths the study evaluates. Raises ConfigError naming the claim and the key.
    """
    prefix, root = ("claims",), {"claims": claims}
    if study is not None:
        prefix, root = ("studies", study, "claims"), {"studies": {study: root}}
    definitions = claims_schema()["definitions"]
    validator = strict_validator({"$ref": "#/definitions/claim", "definitions": definitions})
    levels = factors if isinstance(factors, dict) else None
    columns = {"seed", *columns}
    out, ids = [], set()
    for i, raw in enumerate(claims):
        raw = raw.to_dict() if isinstance(raw, kinds.Claim) else raw
        errors = sorted(validator.iter_errors(raw), key=error_rank)
        if errors:
            raise ConfigError(error_line_at(errors[0], (*prefix, i), root))
        where = location((*prefix, i), root)
        claim = _build_claim(raw, definitions)

        known = lambda value, factor: levels is None or any(same_value(value, level) for level in levels[factor])  # noqa: E731

        if claim.id in ids:
            raise ConfigError(f"{where}duplicate id in this study's claims")
        ids.add(claim.id)
        factor = claim.factor
        if factor is not None and factor not in factors:
            raise ConfigError(f"{where}'factor' {factor!r} is not a factor of the study ({', '.join(factors) or 'none'})")
        pair = claim.levels
        if len(pair) == 2 and same_value(*pair):
            keys = " and ".join(f"'{k}'" for k in claim.kind.level_keys)
            raise ConfigError(f"{where}{keys} name the same level twice ({pair[0]!r})")
        for value in pair:
            if not known(value, factor):
                raise ConfigError(f"{where}level {value!r} is not a level of factor '{factor}' ({levels[factor]})")
        for col, value in claim.where.items():
            if col not in columns:
                raise ConfigError(f"{where}'where' names column {col!r}, which does not exist")
            if col == factor or (levels is not None and col not in levels and col != "seed"):  # results: a column per factor
                raise ConfigError(f"{where}'where' " + (f"fixes '{col}', the factor the claim compares" if col == factor else
                                  f"names {col!r}, which the study does not vary (a where picks a factor's levels or seeds)"))
            for v in value if isinstance(value, list) else [value]:
                if col in factors and not known(v, col):
                    raise ConfigError(f"{where}'where' {col}={v!r} is not a level of that factor ({levels[col]})")
        if claim.exact and not claim.kind.exact_ok(claim):
            raise ConfigError(f"{where}'exact' needs kind at_value with target 0.5 (the twin certificate proves chance exactly)")
        if claim.estimand == "mean" and not all(part.bounded for part in claim.parts):
            raise ConfigError(f"{where}estimand mean is not for kind {claim.kind.name} (slopes have no bound); use share")
        if "test" in raw and claim.estimand != "mean":
            raise ConfigError(f"{where}test: {raw['test']} is a test of the mean; set estimand: mean, or drop test")
        task_metrics = list(dict.fromkeys(m for task in data.TASKS.values() for m in task.metrics))
        if claim.evaluated and claim.metric not in task_metrics:
            raise ConfigError(f"{where}metric: {claim.metric!r} is not one of {', '.join(RUN_METRICS)} nor a metric a task "
                              f"declares ({', '.join(task_metrics)})")  # fmt: skip
        if claim.lengths is not None and not claim.evaluated:
            raise ConfigError(f"{where}lengths: {claim.metric} is a run's own metric, at its training length; a metric of "
                              "the task (accuracy, exact_match, ...) is read at test lengths")  # fmt: skip
        if context is not None and claim.evaluated:
            _check_evaluated(claim, where, factors, *context)
        _check_scope(claim, where, (*prefix, i), root, factors, context[0] if context is not None else None)
        out.append(claim)
    return out


def _check_scope(claim: kinds.Claim, where: str, path: tuple, root, factors, base: dict | None) -> None:
    """``robust_over``: settings the study holds fixed, levels valid for each and holding the study's
    own value (``base``: the study's settings, when known), and not on an exact claim."""
    if not claim.robust_over:
        return
    if claim.exact:
        raise ConfigError(f"{where}robust_over: an exact claim holds by construction, in every setting (each run's "
                          "twin certificate is checked): it has no universes to survive")  # fmt: skip
    specs = settings.setting_specs()
    for name, levels in claim.robust_over.items():
        if name == "seed":
            raise ConfigError(f"{where}robust_over: seed: seeds are the claim's replicates in every universe, not a "
                              "setting to hold fixed")  # fmt: skip
        if name not in specs:
            close = difflib.get_close_matches(name, list(specs), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{where}robust_over: unknown setting {name!r}{hint}")
        if name in factors:
            raise ConfigError(f"{where}robust_over.{name}: {name} is a factor of the study, so the claim is judged at "
                              "each of its levels already; robust_over names a setting the study holds fixed")  # fmt: skip
        for j, level in enumerate(levels):
            for error in strict_validator(specs[name]).iter_errors(level):
                raise ConfigError(error_line_at(error, (*path, "robust_over", name, j), root))
        if base is not None and not any(same_value(base[name], level) for level in levels):
            raise ConfigError(f"{where}robust_over.{name}: the levels {list(levels)} do not include the study's own value "
                              f"{base[name]!r}; add it: the verdict at the study's setting is one of the universes")  # fmt: skip


def _check_evaluated(claim: kinds.Claim, where: str, factors, base: dict, eval_lengths: list) -> None:
    """A claim on a metric of the task: every task it reads declares the metric, and the study
    evaluates a length in the claim's range."""
    chosen = claim.where.get("task")
    tasks = list(factors["task"]) if isinstance(factors, dict) and "task" in factors else [base["task"]]
    if chosen is not None:
        tasks = [t for t in tasks if any(same_value(t, c) for c in (chosen if isinstance(chosen, list) else [chosen]))]
    for name in tasks:
        task = data.TASKS[name]
        if claim.metric not in task.metrics:
            own = f"its metrics: {', '.join(task.metrics)}; a run's own: {', '.join(RUN_METRICS)}"
            sequence_metrics = {m for other in data.TASKS.values() if other.outputs == "sequence" for m in other.metrics}
            if task.outputs == "label" and claim.metric in sequence_metrics:
                raise ConfigError(f"{where}metric: {claim.metric!r} scores generated sequences, and task {name} gives one "
                                  f"label per sequence ({own})")  # fmt: skip
            raise ConfigError(f"{where}metric: {claim.metric!r} is not a metric of task {name} ({own})")
    if not eval_lengths:
        raise ConfigError(f"{where}metric: {claim.metric!r} is read from the study's evaluations, and the study has no "
                          "eval_lengths")  # fmt: skip
    if claim.lengths is None:
        return
    lo, hi = claim.lengths
    if lo > hi:
        raise ConfigError(f"{where}lengths: [{lo}, {hi}] runs backwards; write [{hi}, {lo}]")
    levels = factors.get("seq_len", [base["seq_len"]]) if isinstance(factors, dict) else [base["seq_len"]]
    evaluated = set(eval_lengths)
    for seq_len in levels:
        evaluated |= set(data.task_of(settings.Settings(**(base | {"seq_len": seq_len}))).trained_lengths(
            settings.Settings(**(base | {"seq_len": seq_len}))))  # fmt: skip
    _check_throughout(f"{where}lengths", lo, hi, evaluated)


def _build_claim(raw: dict, definitions: dict) -> kinds.Claim:
    """A claim from its validated mapping: the keys every claim has, then its kind's, defaults filled."""
    kind = kinds.CLAIM_KINDS[raw["kind"]]
    common = _fill_defaults(raw, {"properties": definitions["claim"]["properties"]})
    own = _fill_defaults(raw, {"properties": kind.keys})
    overridden = {k for k, spec in kind.keys.items() if "not" in spec}  # a key the kind has no use for
    fields = {k: common[k] for k in definitions["claim"]["properties"] if k in common and k not in overridden and k != "kind"}
    fields.setdefault("metric", None)
    return kinds.Claim(kind=kind(), keys={k: own[k] for k in kind.keys if k in own and k not in overridden}, raw=raw,
                       **fields)  # fmt: skip


def family_size(claims_by_study: dict, study: str, family: str = "study") -> int:
    """How many claims share ``study``'s error family: its non-exact claims (``family: study``) or
    every non-exact claim of the config (``family: config``). Exact claims belong to no family."""
    members = claims_by_study.values() if family == "config" else [claims_by_study[study]]
    return sum(not _is_exact(c) for claims in members for c in claims)


def _is_exact(claim) -> bool:
    return claim.exact if isinstance(claim, kinds.Claim) else bool(claim.get("exact", False))


def load(path) -> Config:
    return validate(load_yaml(path))


def main(argv=None) -> int:
    """``python -m ablation.config FILE...``: check config files the way the workflow will, with our
    one-line messages also for what Snakemake's own loader refuses first (a missing file, a file that
    is not a mapping, unsafe tags, duplicate keys)."""
    import sys  # noqa: PLC0415

    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        print("usage: python -m ablation.config CONFIG.yaml [...]", file=sys.stderr)
        return 2
    status = 0
    for path in paths:
        try:
            cfg = load(path)
            print(f"{path}: ok ({len(cfg.studies)} studies, {sum(st.n_runs() for st in cfg.studies.values())} runs)")
        except ConfigError as exc:
            print(f"config error: {exc}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
