"""Check an MXJob against its JSON schema (schemas/kubeconform/kubeflow.org/mxjob_v1.json) with fix-it diagnostics."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator, ValidationError

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, error, suggest
from mxjob_gitops.compiler.base.jsonutil import type_name
from mxjob_gitops.compiler.base.quantity import QUANTITY_PATTERN, likely_fix, with_quantity_rule
from mxjob_gitops.compiler.spec.legacy import v1_form_hint

SCHEMA_FILE = "kubeconform/kubeflow.org/mxjob_v1.json"


def schema_dir() -> Path:
    """schemas/ of a source checkout, or the copy packaged inside an installed wheel."""
    compiler = Path(__file__).resolve().parent.parent
    for candidate in (compiler / "_schemas", compiler.parent / "schemas"):
        if (candidate / SCHEMA_FILE).is_file():
            return candidate
    raise FileNotFoundError(f"{SCHEMA_FILE} is missing from the installation")


@functools.cache
def mxjob_schema() -> dict[str, Any]:
    with (schema_dir() / SCHEMA_FILE).open(encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
    schema["$defs"] = with_quantity_rule(schema["$defs"])  # the server's quantity syntax (compiler.quantity)
    return schema


@functools.cache
def strict_integer_validator() -> type[Draft202012Validator]:
    """Draft 2020-12 with "integer" meaning an integer as written: 1.0 is a number, not an integer.

    JSON Schema counts 1.0 as an integer, but the API server decodes into Go int32/int64 fields, and Go's
    encoding/json (and sigs.k8s.io/json's strict decoding) refuse a number with a fraction part there.
    """
    # Imported here: valid documents never need it, and it costs a fifth of start-up.
    from jsonschema import Draft202012Validator, validators

    checker = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool)
    )
    extended: type[Draft202012Validator] = validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator, type_checker=checker
    )
    return extended


@functools.cache
def _validator() -> Draft202012Validator:
    return strict_integer_validator()(mxjob_schema())


def has_float(value: Any) -> bool:
    """Whether any number in the document is a float (the fast validator would take 2.0 as an integer)."""
    if isinstance(value, float):
        return True
    stack = [value] if isinstance(value, dict | list) else []
    while stack:  # only maps and lists are stacked; their scalars are looked at where they are met
        node = stack.pop()
        for item in node.values() if isinstance(node, dict) else node:
            if isinstance(item, float):
                return True
            if isinstance(item, dict | list):
                stack.append(item)
    return False


@functools.cache
def rust_validators() -> Any:
    """jsonschema_rs, imported when first needed (0.02 s; a diff of rendered streams never needs it), or None when
    it is not installed. Its validators accept valid documents ~60x faster; jsonschema explains invalid ones."""
    try:
        import jsonschema_rs
    except ImportError:  # pragma: no cover - the pure-Python path is complete on its own
        return None
    return jsonschema_rs


@functools.cache
def _fast_validator() -> Any:
    rust = rust_validators()
    return rust.validator_for(mxjob_schema()) if rust is not None else None


def check_schema(document: dict[str, Any]) -> list[Diagnostic]:
    fast = _fast_validator()
    if fast is not None and fast.is_valid(document) and not has_float(document):
        return []
    return explain(_validator().iter_errors(document))


def explain(errors: Iterable[ValidationError]) -> list[Diagnostic]:
    """jsonschema's errors as diagnostics with a code, a message without Python reprs and a fix hint; the same
    words for the MXJob input and for every object `mxjob validate` checks."""
    found = [d for err in errors for d in _translate(err)]
    # A value of the wrong type also fails its enum or range: report the type alone.
    mistyped = {d.path for d in found if d.code is Code.WRONG_TYPE}
    return [d for d in found if d.code is Code.WRONG_TYPE or d.path not in mistyped]


def _describe(value: Any) -> str:
    """A short rendering of a value for a message: the value for scalars, the type for the rest."""
    if value is None or isinstance(value, dict | list):
        return type_name(value)
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _translate(err: ValidationError) -> Iterator[Diagnostic]:
    path = tuple(err.absolute_path)
    validator = err.validator
    schema = err.schema if isinstance(err.schema, dict) else {}
    field = (f"{path[-2]}[{path[-1]}]" if len(path) > 1 else "item") if path and isinstance(path[-1], int) else None
    field = field or (str(path[-1]) if path else "document")
    if "propertyNames" in err.absolute_schema_path:
        name = str(err.instance)
        hint = suggest(name, schema.get("enum", [])) or f"use one of {', '.join(schema.get('enum', []))}"
        yield error(Code.UNKNOWN_REPLICA_TYPE, f"unknown replica type {name!r}", (*path, name), hint)
    elif validator == "additionalProperties" and isinstance(err.instance, dict):
        known = list(schema.get("properties", {}))
        for key in err.instance:
            if key not in known:
                hint = (
                    v1_form_hint(path, key)
                    or suggest(key, known)
                    or f"known fields: {', '.join(sorted(known)) or 'none'}"
                )
                yield error(Code.UNKNOWN_FIELD, f"unknown field {key!r}", (*path, key), hint)
    elif validator == "required":
        missing = str(err.message).split("'")[1] if "'" in err.message else "?"
        hint = f"add {missing}"
        if missing == "name" and path[:2] == ("spec", "mxReplicaSpecs") and path[-2:-1] == ("containers",):
            hint = "add name: mxnet to the training container, or another name to a sidecar"
        yield error(Code.MISSING_FIELD, f"missing required field {missing!r}", path, hint)
    elif validator == "type":
        expected = err.validator_value
        # In YAML's words, as type_name() describes what was found: a mapping, a list.
        wanted = " or ".join(
            _YAML_WORDS.get(str(t), str(t)) for t in (expected if isinstance(expected, list) else [expected])
        )
        yield error(
            Code.WRONG_TYPE,
            f"{field} must be {_article(wanted)}, got {_got(err.instance)}",
            path,
            _type_hint(expected, err.instance),
        )
    elif validator in ("enum", "const"):
        value: Any = err.validator_value
        allowed = value if validator == "enum" else [value]
        choices = [_describe(a) if not isinstance(a, str) else a for a in allowed]
        hint = suggest(str(err.instance), choices) or f"use one of {', '.join(choices)}"
        yield error(
            Code.INVALID_VALUE, f"{field} is {_describe(err.instance)}, which is not an allowed value", path, hint
        )
    elif validator in _LIMITS:
        message, hint = _limit(field, validator, err.validator_value, err.instance)
        yield error(Code.OUT_OF_RANGE, message, path, hint)
    elif validator in ("oneOf", "anyOf") and _is_quantity_rule(schema) and isinstance(err.instance, str):
        yield error(
            Code.K8S_QUANTITY,
            f"{field} is {_describe(err.instance)}, which is not a Kubernetes quantity",
            path,
            likely_fix(err.instance),
        )
    elif validator in ("oneOf", "anyOf"):
        yield error(
            Code.WRONG_TYPE,
            f"{field} has the wrong shape: {_describe(err.instance)}",
            path,
            _choices(schema) or "see `kubectl explain` for the field's form",
        )
    elif validator == "pattern":
        yield error(
            Code.INVALID_VALUE,
            f"{field} is {_describe(err.instance)}, which does not match {err.validator_value}",
            path,
            "write a value that matches the pattern",
        )
    else:
        rule = json.dumps(err.validator_value, ensure_ascii=False)
        yield error(
            Code.SCHEMA,
            f"{field} is {_describe(err.instance)}, which breaks the schema's {validator} rule "
            f"({rule if len(rule) <= 60 else rule[:57] + '...'})",
            path,
            "see `kubectl explain` for what the field accepts",
        )


def _is_quantity_rule(schema: dict[str, Any]) -> bool:
    return any(isinstance(b, dict) and b.get("pattern") == QUANTITY_PATTERN for b in schema.get("oneOf") or ())


# Range and size keywords: (what is counted, how the value compares, the fix); {limit} is the schema's bound.
_LIMITS = {
    "minimum": ("", "less than the minimum {limit}", "use {limit} or more"),
    "maximum": ("", "more than the maximum {limit}", "use {limit} or less"),
    "exclusiveMinimum": ("", "not more than {limit}", "use a number above {limit}"),
    "exclusiveMaximum": ("", "not less than {limit}", "use a number below {limit}"),
    "minLength": ("characters", "fewer than the minimum {limit}", "write at least {limit} characters"),
    "maxLength": ("characters", "more than the maximum {limit}", "shorten it to {limit} characters"),
    "minItems": ("items", "fewer than the minimum {limit}", "list at least {limit} items"),
    "maxItems": ("items", "more than the maximum {limit}", "list at most {limit} items"),
    "minProperties": ("entries", "fewer than the minimum {limit}", "give at least {limit} entries"),
    "maxProperties": ("entries", "more than the maximum {limit}", "give at most {limit} entries"),
}


def _limit(field: str, validator: str, limit: Any, value: Any) -> tuple[str, str]:
    """The message and fix for a value outside a range or size bound (never a Python repr)."""
    unit, relation, fix = _LIMITS[validator]
    bound = _describe(limit)
    measured = _describe(value) if not unit else f"{len(value) if isinstance(value, str | list | dict) else 0} {unit}"
    verb = "is" if not unit else "has"
    return f"{field} {verb} {measured}, {relation.format(limit=bound)}", fix.format(limit=bound)


def _got(value: Any) -> str:
    if value is None or isinstance(value, dict | list):
        return type_name(value)
    return f"{type_name(value)} {_describe(value)}"


def _type_hint(expected: Any, value: Any) -> str:
    """How to write VALUE as one of the EXPECTED JSON types (every MXJ102 has one)."""
    wanted = [str(t) for t in (expected if isinstance(expected, list) else [expected])]
    if "integer" in wanted and isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return f"write {value.strip()} without quotes"
    if "integer" in wanted and isinstance(value, float) and value.is_integer():
        return f"write {int(value)}: Kubernetes reads integer fields strictly and refuses {value!r}"
    if "boolean" in wanted and isinstance(value, str) and value.strip().lower() in _BOOLEAN_WORDS:
        return f"write {_BOOLEAN_WORDS[value.strip().lower()]} without quotes"
    if "string" in wanted and isinstance(value, bool | int | float):
        return f'quote it: "{json.dumps(value)}"'
    if "object" in wanted:
        return "write it as key: value lines below the field"
    if "array" in wanted:
        return 'write it as "- item" lines below the field, or [a, b]'
    return f"write {' or '.join(_article(_YAML_WORDS.get(w, w)) for w in wanted if w != 'null')}"


_YAML_WORDS = {"object": "mapping", "array": "list"}


_BOOLEAN_WORDS = {
    "true": "true",
    "false": "false",
    "yes": "true",
    "no": "false",
    "on": "true",
    "off": "false",
    "y": "true",
    "n": "false",
    "1": "true",
    "0": "false",
}


def _article(noun: str) -> str:
    return f"an {noun}" if noun[:1] in "aeiou" else f"a {noun}"


def _choices(schema: dict[str, Any]) -> str:
    """'expected a string or a number' for oneOf/anyOf schemas that differ only by type."""
    options = schema.get("oneOf") or schema.get("anyOf") or []
    types: list[str] = []
    for option in options:
        kind = option.get("type") if isinstance(option, dict) else None
        for name in kind if isinstance(kind, list) else [kind]:
            if isinstance(name, str) and name != "null" and name not in types:
                types.append(name)
    return f"expected {' or '.join(_article(t) for t in types)}" if types else ""
