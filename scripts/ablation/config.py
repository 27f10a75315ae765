"""Load, validate and expand the study configuration.

The config (``config/config.yaml``) holds named studies; each study has ``fixed`` settings,
``factors`` (a list of values per setting) and ``seeds``. Validation is the JSON schema
(``workflow/schemas/config.schema.yaml``) plus the checks a schema cannot express; every problem
is reported as ONE line naming the study, the key and what is wrong (:class:`ConfigError`), before
any job runs.

A run is identified inside its study by ``factor~value/.../seed~N`` (the layout of Snakemake's
``Paramspace``), so ``results/<study>/runs/<run_id>/`` holds one run, and adding a seed or a factor
value adds new run folders without renaming the old ones.
"""

from __future__ import annotations

import copy
import difflib
import itertools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
import yaml

from . import settings as S


class ConfigError(ValueError):
    """A problem in the configuration; its message is one line."""


# ---------------------------------------------------------------- loading


def load_yaml(path) -> dict:
    """Safe-load a YAML config file; refuses missing files, unsafe tags and non-mappings."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path}: not found")
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0]
        raise ConfigError(f"config file {path}: not valid safe YAML ({first})") from None
    if not isinstance(data, dict):
        raise ConfigError(
            f"config file {path}: must be a mapping with a 'studies' key, got {type(data).__name__}"
        )
    return data


# ---------------------------------------------------------------- data model


def format_value(value) -> str:
    """How a factor value appears in a run id (and a folder name)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return str(value)


@dataclass(frozen=True)
class Run:
    study: str
    run_id: str
    factors: dict
    settings: "S.Settings"


@dataclass
class Study:
    name: str
    description: str
    fixed: dict  # defaults + study's fixed settings (resolved; no factor keys)
    factors: dict  # name -> list of values, in config order
    seeds: list
    claims: list = field(default_factory=list)

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
        base = S.defaults() | self.fixed
        out = []
        for combo in self.combinations():
            for seed in self.seeds:
                run_id = "/".join(
                    [f"{k}~{format_value(v)}" for k, v in combo.items()] + [f"seed~{seed}"]
                )
                values = base | combo | {"seed": seed}
                out.append(Run(self.name, run_id, combo, S.Settings(**values)))
        return out

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "description": self.description,
            "fixed": self.fixed,
            "factors": self.factors,
            "seeds": self.seeds,
            "claims": self.claims,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Study":
        return cls(d["name"], d["description"], d["fixed"], d["factors"], d["seeds"], d["claims"])


@dataclass
class Config:
    studies: dict[str, Study]
    train_threads: int
    stats: dict
    verify: dict
    raw: dict

    def study(self, name: str) -> Study:
        try:
            return self.studies[name]
        except KeyError:
            raise ConfigError(f"unknown study {name!r} (known: {', '.join(self.studies)})") from None


# ---------------------------------------------------------------- validation


def _schema_error_line(error: jsonschema.ValidationError) -> str:
    path = list(error.absolute_path)
    where = ""
    if len(path) >= 2 and path[0] == "studies":
        where = f"study {path[1]!r}: "
        path = path[2:]
    key = ".".join(str(p) for p in path) or "(top level)"
    if error.validator == "additionalProperties":
        extra = re.findall(r"'([^']+)' was unexpected", error.message)
        allowed = list(error.schema.get("properties", {}))
        hints = []
        for name in extra:
            close = difflib.get_close_matches(name, allowed, n=1)
            hints.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        what = "unknown key " + ", ".join(hints) if hints else error.message
        return f"{where}{key}: {what}"
    if "propertyNames" in error.schema_path:
        return f"{where}{key}: study name {error.instance!r} is not a safe folder name (letters, digits, _ . -; not starting with . or -)"
    if error.validator == "enum":
        return f"{where}{key}: {error.instance!r} is not one of {error.validator_value}"
    if error.validator == "type":
        return f"{where}{key}: {error.instance!r} is not of type {error.validator_value}"
    return f"{where}{key}: {error.message}"


def _validator() -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(S.schema())


def _fill_defaults(instance: dict, schema: dict, root: dict) -> dict:
    """Fill in defaults of the top-level and study-level properties (not inside settings)."""
    out = copy.deepcopy(instance)
    for key, spec in schema.get("properties", {}).items():
        if key not in out and "default" in spec:
            out[key] = copy.deepcopy(spec["default"])
        if isinstance(out.get(key), dict) and "properties" in spec and key != "defaults":
            out[key] = _fill_defaults(out[key], spec, root)
    return out


def _check_value(study: str, key: str, value) -> None:
    specs = S.setting_specs()
    try:
        jsonschema.Draft7Validator(specs[key]).validate(value)
    except jsonschema.ValidationError as exc:
        raise ConfigError(f"study {study!r}: factors.{key}: value {value!r}: {exc.message}") from None


def validate(raw: dict) -> Config:
    """Schema plus semantic checks; returns the resolved :class:`Config` or raises ConfigError."""
    if not isinstance(raw, dict):
        raise ConfigError(f"config must be a mapping, got {type(raw).__name__}")
    errors = sorted(_validator().iter_errors(raw), key=lambda e: (len(e.absolute_path), str(e.absolute_path)))
    if errors:
        # the deepest, most specific error of the first failing place
        raise ConfigError(_schema_error_line(errors[0]))
    schema = S.schema()
    cfg = _fill_defaults(raw, schema, schema)
    if not cfg.get("studies"):
        raise ConfigError("studies: at least one study is required")
    setting_names = list(S.setting_specs())
    defaults = cfg.get("defaults") or {}
    studies = {}
    for name, body in cfg["studies"].items():
        if name in {".", ".."}:
            raise ConfigError(f"study {name!r}: not a safe folder name")
        body = _fill_defaults(body, schema["definitions"]["study"], schema)
        fixed = dict(defaults) | dict(body.get("fixed") or {})
        factors = dict(body.get("factors") or {})
        for key, values in factors.items():
            if key == "seed":
                raise ConfigError(f"study {name!r}: factors.seed: list seeds under 'seeds', not as a factor")
            if key not in setting_names:
                close = difflib.get_close_matches(key, setting_names, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise ConfigError(f"study {name!r}: factors.{key}: unknown setting{hint}")
            if key in (body.get("fixed") or {}):
                raise ConfigError(f"study {name!r}: factors.{key}: also listed under fixed; keep one")
            seen = []
            for v in values:
                _check_value(name, key, v)
                if any(v == s and type(v) is type(s) for s in seen) or format_value(v) in map(format_value, seen):
                    raise ConfigError(f"study {name!r}: factors.{key}: duplicate value {v!r}")
                seen.append(v)
        seeds = list(body["seeds"])
        # heads must divide d_model for every combination that can occur
        heads = factors.get("heads", [fixed.get("heads", S.defaults()["heads"])])
        dims = factors.get("d_model", [fixed.get("d_model", S.defaults()["d_model"])])
        for h, d in itertools.product(heads, dims):
            if d % h:
                key = "factors.heads" if "heads" in factors else "fixed.heads"
                raise ConfigError(f"study {name!r}: {key}: heads={h} does not divide d_model={d}")
        study = Study(name, body.get("description", ""), fixed, factors, seeds, list(body.get("claims") or []))
        _check_claims(study)
        studies[name] = study
    return Config(
        studies=studies,
        train_threads=cfg["train_threads"],
        stats=cfg["stats"],
        verify=cfg["verify"],
        raw=raw,
    )


def _check_claims(study: Study) -> None:
    ids = set()
    for claim in study.claims:
        cid = claim.get("id")
        if cid in ids:
            raise ConfigError(f"study {study.name!r}: claims: duplicate id {cid!r}")
        ids.add(cid)
    try:
        from . import claims as C  # noqa: PLC0415 (the claims module is optional until written)
    except ImportError:
        return
    columns = ["seed", *S.setting_specs()]
    for claim in study.claims:
        try:
            C.check_claim(claim, study.factors, columns)
        except ValueError as exc:
            raise ConfigError(f"study {study.name!r}: claims: {exc}") from None


def load(path) -> Config:
    return validate(load_yaml(path))
