"""Plugins: a user's own model variants and tasks, from their own Python modules.

A config's ``plugins:`` lists importable module names (found on PYTHONPATH or in the working
folder). Importing one runs its decorators, which add its names to the registries the built-ins
are in: ``positional_encoding``, ``attention_mask`` and ``norm_placement`` (ablation.model),
``architecture`` (ablation.architectures) and ``task`` (ablation.data). The config's names are then checked against those registries, and a
task's ``task_settings`` against the settings the task declares.

A run that uses a plugin's name records the plugin's module and the sha256 of its source in its
settings (``plugin_code``), so the plugin's code is part of the run's hash: editing a plugin
re-plans the runs that use its names and leaves every other run alone. The training job imports
the plugins its run names and refuses to train when their source is no longer the planned one.

The model's registries import torch, so a config without plugins is checked without them: its names
must then be the built-in ones the schema lists (its ``examples``; tests/unit/test_variants.py keeps
them equal to the registries). The tasks and the architectures declare themselves without torch, so
their declarations (a task's settings, whether it has twins) are checked either way.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import json
import os
import sys
from pathlib import Path

from . import settings
from .architectures import ARCHITECTURES
from .data import TASKS
from .validation import error_line_at, strict_validator

REGISTRY_SETTINGS = ("arch", "pos_enc", "attn_mask", "norm", "task")
_OWNER: dict[tuple[str, str], str] = {}  # (setting, name) -> the plugin that registered it
_CODE: dict[str, str] = {}  # plugin -> sha256 of its source, as imported


class PluginError(ValueError):
    """A plugin that cannot be used, or a name no registry has; its message is one line."""


def registries() -> dict[str, dict]:
    """setting -> the registry of its names (imports torch)."""
    from . import model  # noqa: PLC0415  (torch: only where a registry is needed)

    return {"arch": ARCHITECTURES, "pos_enc": model.POSITIONAL_ENCODINGS, "attn_mask": model.ATTENTION_MASKS,
            "norm": model.NORMS, "task": TASKS}  # fmt: skip


def source_files(module) -> list[Path]:
    """The plugin's source: its file, or every .py file of its package."""
    if hasattr(module, "__path__"):
        return sorted(p for folder in module.__path__ for p in Path(folder).rglob("*.py"))
    return [Path(module.__file__)] if getattr(module, "__file__", None) else []


def source_sha256(module) -> str:
    """sha256 over (name relative to the plugin, contents) of every file of source_files."""
    digest = hashlib.sha256()
    files = source_files(module)
    root = files[0].parent if files else Path()
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def load(names) -> dict[str, str]:
    """Import each plugin once, noting the names it registers; plugin -> sha256 of its source.

    The working folder is searched after PYTHONPATH. A plugin that fails to import is one line
    naming it and the error."""
    if names and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    regs = registries() if names else {}
    for name in names:
        if name in _CODE:
            continue
        before = {setting: set(registry) for setting, registry in regs.items()}
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001  (whatever the user's code raises is reported in one line)
            message = " ".join(f"{type(exc).__name__}: {exc}".split())
            raise PluginError(f"plugins: {name!r} failed to import: {message}") from None
        for setting, registry in regs.items():
            for key in set(registry) - before[setting]:
                _OWNER[(setting, key)] = name
        _CODE[name] = source_sha256(module)
    return {name: _CODE[name] for name in names}


def _names(registry: dict, setting: str) -> str:
    builtin = [name for name in registry if (setting, name) not in _OWNER]
    added = [f"{name} ({_OWNER[setting, name]})" for name in registry if (setting, name) in _OWNER]
    return ", ".join(builtin) + (f"; plugins: {', '.join(added)}" if added else "")


def _places(key: str, fixed: dict, factors: dict, origin) -> list[tuple[str, object]]:
    """(config key, value) of every value a study gives a setting: fixed (a setting also listed as a
    factor is refused later, by name), then its factor levels."""
    places = [(origin(key), fixed[key])] if key in fixed else []
    return places + [(f"factors.{key}[{i}]", value) for i, value in enumerate(factors.get(key, []))]


def resolve(study: str, fixed: dict, factors: dict, origin, plugins: list) -> tuple[dict, dict]:
    """A study's names checked against the registries and its task settings against its task's
    declaration (defaults filled in, numbers of ``number`` settings as floats); returns (fixed,
    factors) with ``plugin_code`` in fixed when the study uses a plugin's name. ``origin(key)``:
    the config key a fixed setting comes from."""
    if not plugins:
        return _builtin_only(study, fixed, factors, origin)
    regs = registries()
    code = {}
    for setting, registry in regs.items():
        for where, value in _places(setting, fixed, factors, origin):
            if value not in registry:
                close = difflib.get_close_matches(str(value), list(registry), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise PluginError(f"study {study!r}: {where}: {value!r} is not one of {_names(registry, setting)}{hint}")
            if (setting, value) in _OWNER:
                plugin = _OWNER[setting, value]
                code.setdefault(setting, {})[value] = {"module": plugin, "sha256": _CODE[plugin]}
    tasks = [v for _, v in _places("task", fixed, factors, origin)] or [settings.defaults()["task"]]
    if "task_settings" in factors:
        factors = factors | {"task_settings": [_task_settings(study, f"factors.task_settings[{i}]", tasks, v)
                                               for i, v in enumerate(factors["task_settings"])]}  # fmt: skip
    else:
        given = fixed.get("task_settings", {})
        fixed = fixed | {"task_settings": _task_settings(study, origin("task_settings"), tasks, given)}
    return (fixed | {"plugin_code": code} if code else fixed), factors


def _task_settings(study: str, where: str, tasks: list, given: dict) -> dict:
    """``given`` checked against the settings each of the study's tasks declares; with one task, its
    defaults filled in (a setting given at its default is the same run as one left out)."""
    for name in tasks:
        declared = TASKS[name].settings
        if given and not declared:
            raise PluginError(f"study {study!r}: {where}: task {name} has no task settings; got {json.dumps(given)}")
        schema = {"type": "object", "additionalProperties": False, "properties": declared}
        for error in strict_validator(schema).iter_errors(given):
            line = error_line_at(error, ())
            raise PluginError(f"study {study!r}: {where}: task {name}: {line.removeprefix('(top level): ')}")
    if len(tasks) > 1:
        return given
    declared = TASKS[tasks[0]].settings
    # a setting added after runs existed is filled in only when given: at its default it is left out,
    # so the runs trained before it keep their hashes
    values = {key: spec["default"] for key, spec in declared.items() if not spec.get("left_out_at_default")} | given
    values = {k: v for k, v in values.items() if not (declared[k].get("left_out_at_default") and v == declared[k]["default"])}
    return {k: float(v) if declared[k].get("type") == "number" and type(v) is int else v for k, v in values.items()}


def _builtin_only(study: str, fixed: dict, factors: dict, origin) -> tuple[dict, dict]:
    """Without plugins, the schema's built-in names (no torch needed to check them)."""
    for setting in REGISTRY_SETTINGS:
        builtin = settings.choices(setting)
        for where, value in _places(setting, fixed, factors, origin):
            if value not in builtin:
                close = difflib.get_close_matches(str(value), builtin, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else " (a plugin's name needs its module under 'plugins')"
                raise PluginError(f"study {study!r}: {where}: {value!r} is not one of {', '.join(builtin)}{hint}")
    tasks = [v for _, v in _places("task", fixed, factors, origin)] or [settings.defaults()["task"]]
    if "task_settings" in factors:
        factors = factors | {"task_settings": [_task_settings(study, f"factors.task_settings[{i}]", tasks, v)
                                               for i, v in enumerate(factors["task_settings"])]}  # fmt: skip
    else:
        filled = _task_settings(study, origin("task_settings"), tasks, fixed.get("task_settings", {}))
        if filled or "task_settings" in fixed:  # none given and none declared: the study stays as it was written
            fixed = fixed | {"task_settings": filled}
    return fixed, factors


def check_exact(study: str, claims: list, fixed: dict, factors: dict) -> None:
    """An exact claim needs swap twins: refused for a study where a task without them is judged."""
    if not any(claim.exact for claim in claims):
        return
    tasks = factors.get("task", [fixed.get("task", settings.defaults()["task"])])
    for claim in claims:
        where = claim.where.get("task", tasks)
        judged = [t for t in tasks if t in (where if isinstance(where, list) else [where])]
        for name in judged:
            if claim.exact and not TASKS[name].twins:
                raise PluginError(
                    f"study {study!r}: claim {claim.id!r}: 'exact' needs a task with swap twins; task {name} has none"
                )


def ensure(s) -> None:
    """Import the plugins a run's settings name; refuse when a plugin's source is not the planned one."""
    planned = {entry["module"]: entry["sha256"] for names in s.plugin_code.values() for entry in names.values()}
    found = load(sorted(planned))
    for module, sha in planned.items():
        if found[module] != sha:
            raise PluginError(
                f"plugin {module}: its source changed since this run was planned (sha256 {found[module][:12]}, "
                f"planned {sha[:12]}); run snakemake again to plan its runs anew"
            )

