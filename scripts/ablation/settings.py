"""The settings of one training run.

Every setting (its name, type, default and allowed values) is declared once, in the JSON schema
``workflow/schemas/config.schema.yaml`` under ``definitions.settings``. This module turns that
declaration into a frozen dataclass, so the data, model and training code read ``s.heads`` while
a new setting needs only a schema entry (and the code that uses it).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json

import yaml

from . import SCHEMA_PATH

_PY_TYPES = {"integer": int, "number": float, "string": str, "boolean": bool}


@functools.cache
def schema() -> dict:
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def setting_specs() -> dict[str, dict]:
    """name -> schema of that setting, in declaration order."""
    return schema()["definitions"]["settings"]["properties"]


def defaults() -> dict:
    return {name: spec["default"] for name, spec in setting_specs().items()}


def choices(name: str) -> tuple | None:
    """The values a setting allows (its enum) or, for a setting whose names come from a registry,
    the built-in ones (its examples)."""
    spec = setting_specs()[name]
    values = spec.get("enum") or spec.get("examples")
    return tuple(values) if values else None


# Settings that runs trained before them lack: at their defaults they are left out of a run's
# settings (its hash, settings.json and metrics.csv), so those runs keep their hashes and files.
# plugin_code is not a config setting: the config's validation sets it (ablation.plugins).
LEFT_OUT_AT_DEFAULT = ("task", "task_settings", "positions", "plugin_code", "batch_size", "lr_decay", "weight_decay",
                       "rope_fraction", "attn_scale", "t5_bias_std")  # fmt: skip


def _make_class():
    fields = [("seed", int, dataclasses.field(default=0))]
    for name, spec in setting_specs().items():
        types = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
        py = tuple(_PY_TYPES.get(t, dict) for t in types if t != "null")
        annotation = py[0] if len(py) == 1 else object
        if "null" in types:
            annotation = annotation | None
        default = spec["default"]
        field = dataclasses.field(default_factory=dict) if default == {} else dataclasses.field(default=default)
        fields.append((name, annotation, field))
    # setting -> name -> {module, sha256}: the plugin, and the hash of its source, of each name the
    # run uses that a plugin registered (ablation.plugins); part of the run's hash
    fields.append(("plugin_code", dict, dataclasses.field(default_factory=dict)))

    names = tuple(name for name, *_ in fields)
    left_out = {name: defaults().get(name, {}) for name in LEFT_OUT_AT_DEFAULT}

    def as_dict(self) -> dict:
        # = dataclasses.asdict (every value is a scalar or a flat mapping), without its deep copy:
        # a 10,000-run dry run evaluates to_json once per job
        out = {name: getattr(self, name) for name in names}
        for name, default in left_out.items():
            if out[name] == default:
                del out[name]
        return out

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), sort_keys=True)

    def __post_init__(self):
        # a study's plugin_code covers every plugin name the study uses; a run keeps its own
        if self.plugin_code:
            code = {s: {getattr(self, s): names[getattr(self, s)]} for s, names in self.plugin_code.items()
                    if getattr(self, s) in names}  # fmt: skip
            object.__setattr__(self, "plugin_code", code)

    @property
    def effective_data_seed(self) -> int:
        return self.seed if self.data_seed is None else self.data_seed

    return dataclasses.make_dataclass(
        "Settings",
        fields,
        frozen=True,
        namespace={
            "as_dict": as_dict,
            "to_json": to_json,
            "effective_data_seed": effective_data_seed,
            "__post_init__": __post_init__,
            "__hash__": lambda self: hash(self.to_json()),  # a mapping field has no hash of its own
            "__doc__": "Every setting of one run (see definitions.settings in the config schema), plus its seed.",
        },
    )


Settings = _make_class()


def cost_estimate(s: "Settings") -> int:
    """A rough relative cost of training ``s`` (not a time): Snakemake starts the costliest training
    jobs first (the train rule's ``priority``), so that no long job is left alone at the end while
    the other cores idle. At these model sizes PyTorch's per-operation overhead dominates, and the
    cost grows about linearly in blocks, sequence length and heads (train_seconds of the benchmark
    harness's runs): epochs x blocks x (length + 8) x (heads + 2), scaled by the sequences. A decoder
    reads 2 seq_len + 1 positions (a copy task's prompt, separator and answer), and a step of it
    costs DECODER_STEP times an encoder step of the same blocks, positions and heads (its embedding,
    language-model head and cross-entropy over the vocabulary): benchmarks/probes/decoder_cost.md."""
    blocks = 1 if s.arch == "attention_only" else s.depth
    length, step = (2 * s.seq_len + 1, DECODER_STEP) if s.arch == "decoder" else (s.seq_len, 1.0)
    sequences = (s.n_train + 2 * s.n_test) / 700  # 1 at the lesson's 400 + 2 x 150
    return max(1, round(step * s.epochs * blocks * (length + 8) * (s.heads + 2) * sequences / 100))


DECODER_STEP = 2.3
"""CPU seconds per unit of a decoder run over an encoder run's, before this factor (the length study
against the position study's runs: benchmarks/probes/decoder_cost.md)."""


def from_dict(values: dict) -> "Settings":
    """Settings from a (possibly partial) mapping; unknown names are an error."""
    unknown = set(values) - {f.name for f in dataclasses.fields(Settings)}
    if unknown:
        raise ValueError(f"unknown settings: {', '.join(sorted(unknown))}")
    return Settings(**values)


def from_json(text: str) -> "Settings":
    return from_dict(json.loads(text))


HASH_CHARS = 16  # 64 bits of sha256: a collision needs billions of runs


@functools.cache
def _number_names() -> frozenset:
    """Settings the schema declares as ``number``: 1 and 1.0 there are the same setting."""
    return frozenset(name for name, spec in setting_specs().items() if spec["type"] == "number")


def canonical_json(s: "Settings") -> str:
    """Every setting of ``s`` (defaults applied, seed included) as JSON with sorted keys, numbers of
    ``number`` settings as floats: the same runs give the same text whatever the config's key order."""
    values = s.as_dict()
    for name in _number_names():
        if type(values.get(name)) is int:  # a setting left out at its default is absent
            values[name] = float(values[name])
    return json.dumps(values, sort_keys=True)


def run_hash(s: "Settings") -> str:
    """The name of the run's folder in the run store: a hash of :func:`canonical_json`."""
    return hashlib.sha256(canonical_json(s).encode()).hexdigest()[:HASH_CHARS]


def _missing(value) -> bool:
    try:
        return value is None or bool(value != value)  # NaN is the one value unequal to itself
    except TypeError:  # pandas' NA has no truth value
        return True


def sorted_levels(values) -> list:
    """Distinct non-missing values, numeric order when they are numbers, else string order.
    (Plain Python: the plots and the report order levels without importing the statistics.)"""
    u = list(dict.fromkeys(v for v in values if not _missing(v)))
    try:
        return sorted(u, key=lambda v: (float(v), str(v)))
    except (TypeError, ValueError):
        return sorted(u, key=str)
