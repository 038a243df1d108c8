"""Check an MXJob against its JSON schema (schemas/kubeconform/kubeflow.org/mxjob_v1.json) with fix-it diagnostics."""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator, ValidationError

try:  # A Rust validator accepts valid documents ~60x faster; jsonschema explains the invalid ones.
    import jsonschema_rs
except ImportError:  # pragma: no cover - the pure-Python path is complete on its own
    jsonschema_rs = None  # type: ignore[assignment]

from compiler.diagnostics import Code, Diagnostic, error
from compiler.jsonutil import type_name

SCHEMA_FILE = "kubeconform/kubeflow.org/mxjob_v1.json"


def schema_dir() -> Path:
    """schemas/ of a source checkout, or the copy packaged inside an installed wheel."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_schemas", here.parent / "schemas"):
        if (candidate / SCHEMA_FILE).is_file():
            return candidate
    raise FileNotFoundError(f"{SCHEMA_FILE} is missing from the installation")


@functools.cache
def mxjob_schema() -> dict[str, Any]:
    with (schema_dir() / SCHEMA_FILE).open(encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
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
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool))
    extended: type[Draft202012Validator] = validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator, type_checker=checker)
    return extended


@functools.cache
def _validator() -> Draft202012Validator:
    return strict_integer_validator()(mxjob_schema())


def has_float(value: Any) -> bool:
    """Whether any number in the document is a float (the fast validator would take 2.0 as an integer)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


@functools.cache
def _fast_validator() -> Any:
    return jsonschema_rs.validator_for(mxjob_schema()) if jsonschema_rs is not None else None


def check_schema(document: dict[str, Any]) -> list[Diagnostic]:
    fast = _fast_validator()
    if fast is not None and fast.is_valid(document) and not has_float(document):
        return []
    found: list[Diagnostic] = []
    for err in _validator().iter_errors(document):
        found.extend(_translate(err))
    # A value of the wrong type also fails its enum or range: report the type alone.
    mistyped = {d.path for d in found if d.code is Code.WRONG_TYPE}
    return [d for d in found if d.code is Code.WRONG_TYPE or d.path not in mistyped]


def suggest(word: str, choices: Iterable[str]) -> str:
    """'did you mean …' for a misspelt field or value; empty when nothing is close."""
    options = list(choices)
    lowered = {option.lower(): option for option in options}
    if word.lower() in lowered:
        return f"did you mean {lowered[word.lower()]!r}?"
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else ""


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
    field = str(path[-1]) if path else "document"
    if "propertyNames" in err.absolute_schema_path:
        name = str(err.instance)
        hint = suggest(name, schema.get("enum", [])) or f"use one of {', '.join(schema.get('enum', []))}"
        yield error(Code.UNKNOWN_REPLICA_TYPE, f"unknown replica type {name!r}", (*path, name), hint)
    elif validator == "additionalProperties" and isinstance(err.instance, dict):
        known = list(schema.get("properties", {}))
        for key in err.instance:
            if key not in known:
                hint = suggest(key, known) or f"known fields: {', '.join(sorted(known)) or 'none'}"
                yield error(Code.UNKNOWN_FIELD, f"unknown field {key!r}", (*path, key), hint)
    elif validator == "required":
        missing = str(err.message).split("'")[1] if "'" in err.message else "?"
        yield error(Code.MISSING_FIELD, f"missing required field {missing!r}", path, f"add {missing}")
    elif validator == "type":
        expected = err.validator_value
        wanted = " or ".join(expected) if isinstance(expected, list) else str(expected)
        yield error(Code.WRONG_TYPE, f"{field} must be {_article(wanted)}, got "
                                     f"{_got(err.instance)}", path, _type_hint(wanted, err.instance))
    elif validator in ("enum", "const"):
        value: Any = err.validator_value
        allowed = value if validator == "enum" else [value]
        choices = [str(a) for a in allowed]
        hint = suggest(str(err.instance), choices) or f"use one of {', '.join(choices)}"
        yield error(Code.INVALID_VALUE, f"{field} is {_describe(err.instance)}, not one of {', '.join(choices)}",
                    path, hint)
    elif validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minProperties",
                       "minItems", "maxItems", "maxLength", "minLength"):
        yield error(Code.OUT_OF_RANGE, f"{field}: {err.message}", path)
    elif validator in ("oneOf", "anyOf"):
        yield error(Code.WRONG_TYPE, f"{field} has the wrong shape: {_describe(err.instance)}", path,
                    _choices(schema))
    else:
        yield error(Code.SCHEMA, f"{field}: {err.message}", path)


def _got(value: Any) -> str:
    if value is None or isinstance(value, dict | list):
        return type_name(value)
    return f"{type_name(value)} {_describe(value)}"


def _type_hint(wanted: str, value: Any) -> str:
    if wanted == "integer" and isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return f"write {value.strip()} without quotes"
    if wanted == "integer" and isinstance(value, float) and value.is_integer():
        return f"write {int(value)}: Kubernetes reads integer fields strictly and refuses {value!r}"
    if wanted == "string" and isinstance(value, bool | int | float):
        return f"quote it: \"{json.dumps(value)}\""
    return ""


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
