"""The CEL interpreter behind compiler.kubevalidate.cel: one rule evaluated with `celpy` (cel-python, imported on
the first rule that must run), values typed as apiextensions-apiserver's `UnstructuredToVal` types them
(pkg/apiserver/schema/cel/values.go), and celpy's errors worded as cel-go's."""

from __future__ import annotations

import functools
import re
from typing import Any

Schema = dict[str, Any]


class Unsupported(Exception):
    """celpy cannot compile or run the rule (e.g. it calls a Kubernetes CEL library function)."""


class EvalError(Exception):
    """The rule failed to evaluate on this value (no such key, division by zero, ...), worded as cel-go does."""


def run(text: str, schema: Schema, self_value: Any, old: Any, transition: bool, optional: bool) -> bool:
    result = evaluate(text, schema, self_value, old, transition, optional)
    return result is True


def evaluate(text: str, schema: Schema, self_value: Any, old: Any, transition: bool, optional: bool) -> Any:
    from celpy.evaluation import CELEvalError

    program = _program(text)
    if program is None:
        raise Unsupported(f"the rule {text!r} uses CEL this offline check cannot evaluate")
    if optional:
        raise Unsupported(f"the rule {text!r} uses optionalOldSelf, which this offline check cannot evaluate")
    activation: dict[str, Any] = {"self": _to_cel(self_value, schema)}
    if transition and old is not None:
        activation["oldSelf"] = _to_cel(old, schema)
    try:
        result = program.evaluate(activation)
    except CELEvalError as exc:
        raise _eval_error(exc, text) from None
    if isinstance(result, CELEvalError):
        raise _eval_error(result, text)
    return _from_cel(result)


def _eval_error(exc: Exception, text: str) -> Exception:
    """celpy's error as cel-go words it (`no such key: size`, `division by zero`), or a rule it cannot run."""
    args = exc.args
    summary = str(args[0]) if args else ""
    cause = args[1] if len(args) > 1 else None
    if cause is KeyError:
        if "undeclared reference" in summary:
            name = args[2][0] if len(args) > 2 and args[2] else ""
            return Unsupported(f"the rule {text!r} calls {name!r}, which this offline check cannot evaluate")
        member = re.search(r"no such member in mapping: '(.*)'", summary)
        key = member.group(1) if member else str(args[2][0]) if len(args) > 2 and args[2] else ""
        return EvalError(f"no such key: {key}")
    if cause is ZeroDivisionError:
        return EvalError("division by zero" if "divide" in summary else "modulus by zero")
    if summary.startswith("no such overload"):
        return EvalError("no such overload")
    return EvalError(summary or "evaluation error")


@functools.cache
def _environment() -> Any:
    """One interpreter environment per process (celpy raises the recursion limit to 2500 when it makes one)."""
    import celpy

    return celpy.Environment()


@functools.cache
def _program(text: str) -> Any:
    environment = _environment()
    try:
        return environment.program(environment.compile(text))
    except Exception:  # celpy's parse errors: a rule the server compiled uses syntax celpy lacks
        return None


def _to_cel(value: Any, schema: Schema) -> Any:
    """UnstructuredToVal: JSON into CEL values, numbers typed by the schema (`number` is a double)."""
    from celpy import celtypes

    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        return celtypes.MapType(
            {
                celtypes.StringType(k): _to_cel(v, properties.get(k) or (extra if isinstance(extra, dict) else {}))
                for k, v in value.items()
            }
        )
    if isinstance(value, list):
        items: Schema = schema["items"] if isinstance(schema.get("items"), dict) else {}
        return celtypes.ListType([_to_cel(v, items) for v in value])
    if isinstance(value, bool):
        return celtypes.BoolType(value)
    if isinstance(value, int) and schema.get("type") != "number":
        return celtypes.IntType(value)
    if isinstance(value, int | float):
        return celtypes.DoubleType(value)
    if isinstance(value, str):
        return celtypes.StringType(value)
    return None


def _from_cel(value: Any) -> Any:
    from celpy import celtypes

    if isinstance(value, celtypes.BoolType):
        return bool(value)
    if isinstance(value, celtypes.StringType):
        return str(value)
    return value
