"""The config schema's strict validator, and the one line that says where and what it refuses.

Both the config (``ablation.config``) and the plugins' task settings (``ablation.plugins``) are
checked by it, so it sits below both: every message reads '[study '<name>': ][claim '<id>': ]<key>:
<what is wrong>'.
"""

from __future__ import annotations

import difflib
import re

import jsonschema

from . import settings

_TYPE_NAMES = {"object": "a mapping", "array": "a list", "integer": "an integer", "number": "a number",
               "string": "a string", "boolean": "true or false", "null": "null"}  # fmt: skip


def short_repr(value, limit: int = 60) -> str:
    """repr of a value, cut to ``limit`` characters, on one line."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def one_line(text: str) -> str:
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


def location(path, root=None) -> str:
    """'study 'x': claim 'c': key.sub: ' (or 'key: ') for a path into ``root``, the raw config."""
    path, prefix = list(path), ""
    if len(path) >= 2 and path[0] == "studies":
        prefix, root, path = f"study {path[1]!r}: ", _get(root, path[:2]), path[2:]
        if not path:
            return prefix
    claim = _get(root, path[:2]) if path[:1] == ["claims"] else None
    if isinstance(claim, dict) and isinstance(claim.get("id"), str) and claim["id"]:
        prefix, path = prefix + f"claim {claim['id']!r}: ", path[2:]
        if not path:
            return prefix
    return prefix + (_dotted(path) or "(top level)") + ": "


def _get(node, keys):
    """node[k0][k1]..., or None where there is no such item."""
    for key in keys:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def _dotted(path) -> str:
    """['factors', 'lr', 1] -> 'factors.lr[1]'."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _type_name(types) -> str:
    types = types if isinstance(types, list) else [types]
    return " or ".join(_TYPE_NAMES[t] for t in types)


def describe_type(value) -> str:
    """'a string', 'a list'...: what a value is, in the words of the messages."""
    kinds = ((bool, "a boolean"), (type(None), "null"), (str, "a string"), ((int, float), "a number"),
             (dict, "a mapping"), (list, "a list"))  # fmt: skip
    return next((name for types, name in kinds if isinstance(value, types)), type(value).__name__)


def _show(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return short_repr(value)


def _number_hint(value, expected) -> str:
    """A number written as text: say why (quotes, or YAML 1.1 reading 1e-3 as a string)."""
    types = expected if isinstance(expected, list) else [expected]
    if not isinstance(value, str) or not {"number", "integer"} & set(types):
        return ""
    try:
        float(value)
    except ValueError:
        return ""
    if "e" in value.lower():  # YAML 1.1 floats need a dot and a signed exponent
        return " (YAML reads 1e-3 or 1.5e3 as text: write 1.0e-3, 1.5e+3 or 0.001)"
    return " (remove the quotes)"


def error_rank(error: jsonschema.ValidationError):
    """Which error to report first: nearest the top, then in key order; at one place, unknown keys last
    (a claim whose branch fails leaves that branch's keys unevaluated: the branch's problem comes first)."""
    return len(error.absolute_path), error.validator == "unevaluatedProperties", [str(p) for p in error.absolute_path]


def kind_branch(schema: dict, kind) -> tuple[int, dict] | tuple[None, dict]:
    """The oneOf branch of a claim schema whose `kind` is ``kind``: (its index, its properties)."""
    for i, branch in enumerate(schema.get("oneOf", [])):
        if branch["properties"]["kind"]["const"] == kind:
            return i, branch["properties"]
    return None, {}


def error_line(error: jsonschema.ValidationError, root=None) -> str:
    where = location(error.absolute_path, root)
    inst = error.instance
    if error.validator == "oneOf" and isinstance(inst, dict):
        # a claim: its `kind` picks the branch; report that branch's first problem
        i, _ = kind_branch(error.schema, inst.get("kind"))
        if i is None:
            kinds = ", ".join(b["properties"]["kind"]["const"] for b in error.validator_value)
            return f"{where}kind: unknown kind {_show(inst.get('kind'))} (one of {kinds})"
        first = min((e for e in error.context if e.relative_schema_path[0] == i), key=error_rank)
        if first.validator == "required":
            missing = [key for key in first.validator_value if key not in inst]
            return f"{where}kind {inst['kind']} needs key(s) {', '.join(missing)}"
        return error_line(first, root)
    if error.validator in ("additionalProperties", "unevaluatedProperties"):
        extra = re.findall(r"'([^']+)'", error.message)  # "... ('a', 'b' were unexpected)"
        allowed = list(error.schema["properties"])  # and a claim's, those of its kind
        allowed += [k for k in kind_branch(error.schema, inst.get("kind"))[1] if k not in allowed]
        hints = []
        for name in extra:
            close = difflib.get_close_matches(name, allowed, n=1)
            hints.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        return f"{where}unknown key {', '.join(hints)}; allowed: {', '.join(allowed)}"
    if "propertyNames" in error.schema_path:
        return (
            f"{where}study name {inst!r} is not a safe folder name "
            "(letters, digits, _ . -; starting with a letter or digit)"
        )
    if error.validator == "pattern" and list(error.absolute_path) == ["outdir"]:
        return f"{where}{short_repr(inst)} is not a relative folder without '..' (letters, digits, _ . -, separated by /)"
    if error.validator == "not":
        return f"{where}{error.schema['description']}"
    if error.validator == "enum":
        return f"{where}{_show(inst)} is not one of {', '.join(map(str, error.validator_value))}"
    if error.validator == "type":
        got = "null" if inst is None else f"{describe_type(inst)} {_show(inst)}"
        hint = _number_hint(inst, error.validator_value)
        return f"{where}got {got}, expected {_type_name(error.validator_value)}{hint}"
    if error.validator in ("minItems", "minLength") and error.validator_value == 1:
        return f"{where}must not be empty"
    if error.validator in ("minItems", "maxItems"):
        if error.schema.get("minItems") == error.schema.get("maxItems"):  # a list of fixed length
            return f"{where}must be a list of exactly {error.validator_value} values, got {short_repr(inst)}"
        bound = "at least" if error.validator == "minItems" else "at most"
        return f"{where}must be a list of {bound} {error.validator_value} values, got {short_repr(inst)}"
    if error.validator == "maxProperties":
        return f"{where}at most {error.validator_value} entries, got {len(inst)}: {', '.join(map(str, inst))}"
    if error.validator == "minProperties":
        return f"{where}at least one entry is required"
    if error.validator == "uniqueItems":
        dups = sorted({short_repr(v) for i, v in enumerate(inst) if v in inst[:i]})
        return f"{where}duplicate value(s) {', '.join(dups)}"
    if error.validator == "required":
        missing = [key for key in error.validator_value if key not in inst]
        return f"{where}missing required key {', '.join(map(repr, missing))}"
    if error.validator in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        op = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}[error.validator]
        return f"{where}{short_repr(inst)} is out of range: must be {op} {error.validator_value}"
    return f"{where}{short_repr(error.message, 160)}"


# A setting like heads or epochs must be a real int (JSON Schema counts 2.0 as an integer).
_StrictValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, inst: isinstance(inst, int) and not isinstance(inst, bool)
    ),
)


def strict_validator(schema: dict | None = None):
    return _StrictValidator(settings.schema() if schema is None else schema)


def error_line_at(error: jsonschema.ValidationError, path: tuple, root=None) -> str:
    error.path.extendleft(reversed(path))
    return error_line(error, root)


def lengths_text(lengths) -> str:
    """'3, 5-8, 17': sorted lengths with each run of consecutive ones as a range."""
    out, run = [], []
    for n in sorted(lengths):
        if run and n != run[-1] + 1:
            out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
            run = []
        run.append(n)
    if run:
        out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return ", ".join(out)
