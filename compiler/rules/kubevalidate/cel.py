"""A CRD's CEL rules (`x-kubernetes-validations`), offline: walk a structural schema alongside an object (and the
old object, on an update) and evaluate every rule with the `celpy` CEL interpreter, as the API server does in
k8s.io/apiextensions-apiserver pkg/apiserver/schema/cel/validation.go (`Validator.validate`,
`validateExpressions`, `validateMap`, `validateArray`). Called by compiler.kubevalidate.crdrules.

What the server does and this module mirrors:
- a rule that reads `oldSelf` (a transition rule) runs only when the old value exists and is correlatable (the
  same property, the same key of a map, the item of a `x-kubernetes-list-type: map` list with the same keys;
  never on create, never inside atomic or set lists); `optionalOldSelf: true` runs it with `oldSelf` optional;
- a failed rule is `field.Invalid(path, value, message)`, the message the rule's `message`, else
  `failed rule: <rule>`; `reason` picks Forbidden, Required or Duplicate; `fieldPath` extends the path;
  `messageExpression` words the message when it evaluates to a one-line string;
- ratcheting (CRDValidationRatcheting, GA in 1.33): on an update, a non-transition rule failing on a value
  equal to its old value (or inside an unchanged correlatable parent) is a warning on the server, not an error;
- null values are not validated, and the resource root's `self` holds apiVersion, kind, metadata.name and
  metadata.generateName.
Not mirrored: the cost budget (a CRD whose rules could exceed it is refused when it is installed), and
Kubernetes' CEL libraries beyond standard CEL (a rule that calls one is reported as not checkable offline).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import JsonPath
from mxjob_gitops.compiler.rules.kubevalidate.celinterp import EvalError, Unsupported, run
from mxjob_gitops.compiler.rules.kubevalidate.celinterp import evaluate as evaluate_rule

Schema = dict[str, Any]
_ABSENT = object()
_STRINGS = re.compile(r"""[rR]?("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""")


@dataclass(frozen=True, slots=True)
class RuleResult:
    """One rule that did not pass: the server's field error, or a rule this evaluator could not run."""

    path: JsonPath  # where the server reports it (the node's path, plus the rule's fieldPath)
    message: str  # the field error's text after "<path>: ", as the server words it
    rule: str
    transition: bool  # the rule reads oldSelf (an update the server refuses)
    ratcheted: bool = False  # the server only warns (an unchanged value on an update)
    unsupported: bool = False  # celpy could not compile or run it (a Kubernetes CEL library function)


@dataclass(frozen=True, slots=True)
class _Walk:
    old: Any  # the correlated old value, or _ABSENT
    unchanged: bool  # ratcheting: this node (or its nearest correlatable ancestor) equals its old value
    update: bool


def evaluate(schema: Schema, obj: Any, old: Any = _ABSENT, *, root: bool = True) -> list[RuleResult]:
    """Every rule of `schema` that `obj` breaks; `old` is the stored object of an update (omit it on create)."""
    update = old is not _ABSENT
    walk = _Walk(old, update and obj == old, update)
    return list(_validate(schema, obj, walk, (), root))


def has_rules(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    if schema.get("x-kubernetes-validations"):
        return True
    children = [*(schema.get("properties") or {}).values(), schema.get("items"), schema.get("additionalProperties")]
    return any(has_rules(child) for child in children) or any(has_rules(s) for s in schema.get("allOf") or ())


def _validate(schema: Schema, obj: Any, walk: _Walk, path: JsonPath, root: bool) -> Iterator[RuleResult]:
    if obj is None:
        return
    yield from _expressions(schema, obj, walk, path, root)
    for part in schema.get("allOf") or ():  # allOf errors are never ratcheted (validate's AllOfValidators)
        yield from _validate(part, obj, _Walk(walk.old, False, walk.update), path, False)
    if isinstance(obj, dict):
        yield from _map(schema, obj, walk, path)
    elif isinstance(obj, list):
        yield from _array(schema, obj, walk, path)


def _child(walk: _Walk, old: Any, new: Any) -> _Walk:
    if old is _ABSENT:  # not correlatable: errors ratchet with the nearest correlatable ancestor
        return _Walk(_ABSENT, walk.unchanged, walk.update)
    return _Walk(old, walk.update and new == old, walk.update)


def _map(schema: Schema, obj: dict[str, Any], walk: _Walk, path: JsonPath) -> Iterator[RuleResult]:
    properties = schema.get("properties") or {}
    extra = schema.get("additionalProperties")
    old = walk.old if isinstance(walk.old, dict) else {}
    correlatable = schema.get("x-kubernetes-map-type", "granular") in ("granular", "atomic")
    for key, value in obj.items():
        sub = properties.get(key) if key in properties else extra if isinstance(extra, dict) else None
        if sub is None or not has_rules(sub):
            continue
        before = old.get(key, _ABSENT) if correlatable else _ABSENT
        yield from _validate(sub, value, _child(walk, before, value), (*path, key), False)


def _array(schema: Schema, obj: list[Any], walk: _Walk, path: JsonPath) -> Iterator[RuleResult]:
    items = schema.get("items")
    if not isinstance(items, dict) or not has_rules(items):
        return
    keys = schema.get("x-kubernetes-list-map-keys") or ()
    by_key: dict[tuple[Any, ...], Any] = {}
    if schema.get("x-kubernetes-list-type") == "map" and isinstance(walk.old, list):
        for item in walk.old:  # makeMapList: only map lists correlate their items
            if isinstance(item, dict):
                by_key.setdefault(tuple(item.get(k) for k in keys), item)
    for index, item in enumerate(obj):
        before = by_key.get(tuple(item.get(k) for k in keys), _ABSENT) if isinstance(item, dict) else _ABSENT
        yield from _validate(items, item, _child(walk, before, item), (*path, index), False)


def _expressions(schema: Schema, obj: Any, walk: _Walk, path: JsonPath, root: bool) -> Iterator[RuleResult]:
    rules = schema.get("x-kubernetes-validations") or ()
    if not rules:
        return
    old = None if walk.old is _ABSENT or walk.old is None else walk.old
    self_value = _root_view(obj) if root else obj
    old_value = _root_view(old) if root and old is not None else old
    for rule in rules:
        text = str(rule.get("rule", "")).strip()
        if not text:
            continue
        transition = _uses_old_self(text)
        optional = bool(rule.get("optionalOldSelf"))
        if transition and old is None and not optional:
            continue
        where = _rule_path(path, rule.get("fieldPath"))
        try:
            passed = run(text, schema, self_value, old_value, transition, optional)
        except Unsupported as exc:
            yield RuleResult(where, str(exc), text, transition, unsupported=True)
            continue
        except EvalError as exc:
            # an evaluation error shows the schema type as the value (validateExpressions)
            detail = f"{exc} evaluating rule: {_rule_name(rule)}"
            yield RuleResult(path, f'Invalid value: "{schema.get("type", "")}": {detail}', text, transition)
            continue
        if passed:
            continue
        detail = _message_expression(rule, schema, self_value, old_value) or _message(rule)
        ratcheted = not transition and walk.unchanged
        yield RuleResult(where, _reason(rule, detail, obj), text, transition, ratcheted)


def _root_view(obj: Any) -> Any:
    """model.WithTypeAndObjectMeta: at the resource root, metadata shows only name and generateName."""
    if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
        return obj
    metadata: dict[str, Any] = obj["metadata"]
    return {**obj, "metadata": {k: metadata[k] for k in ("name", "generateName") if k in metadata}}


def _uses_old_self(text: str) -> bool:
    """Whether the rule reads `oldSelf` (compilation's UsesOldSelf), outside string literals."""
    return re.search(r"\boldSelf\b", _STRINGS.sub('""', text)) is not None


def _rule_path(path: JsonPath, field_path: Any) -> JsonPath:
    """The rule's fieldPath (`.a.b`, `['key']`) appended to the node's path (ValidFieldPath)."""
    if not isinstance(field_path, str) or not field_path:
        return path
    parts: list[str] = []
    text = field_path
    while text:
        if text.startswith("."):
            name = text[1:].split(".")[0].split("[")[0]
            parts.append(name)
            text = text[1 + len(name) :]
        elif text.startswith("['"):
            end = text.index("']")
            parts.append(text[2:end].replace("\\'", "'"))
            text = text[end + 2 :]
        else:
            break
    return (*path, *parts)


def _message(rule: dict[str, Any]) -> str:
    """ruleMessageOrDefault."""
    message = str(rule.get("message") or "").strip()
    return message or f"failed rule: {_rule_name(rule)}"


def _rule_name(rule: dict[str, Any]) -> str:
    """ruleErrorString: the message if any, else the rule."""
    return str(rule.get("message") or "").strip() or str(rule.get("rule", "")).strip()


def _invalid(value: Any, detail: str) -> str:
    """field.Invalid's text: the value of a scalar, none of an object or a list (apimachinery field/errors.go)."""
    shown = _show(value)
    return f"Invalid value: {shown}: {detail}" if shown else f"Invalid value: {detail}"


def _show(value: Any) -> str:
    if isinstance(value, dict | list):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return "null" if value is None else str(value)


def _reason(rule: dict[str, Any], detail: str, obj: Any) -> str:
    """fieldErrorForReason."""
    reason = rule.get("reason")
    if reason == "FieldValueForbidden":
        return f"Forbidden: {detail}"
    if reason == "FieldValueRequired":
        return f"Required value: {detail}"
    if reason == "FieldValueDuplicate":
        shown = _show(obj)
        return f"Duplicate value: {shown}" if shown else "Duplicate value"
    return _invalid(obj, detail)


def _message_expression(rule: dict[str, Any], schema: Schema, self_value: Any, old_value: Any) -> str:
    """evalMessageExpression: a one-line non-empty string (at most 5000 bytes), else the static message."""
    text = rule.get("messageExpression")
    if not isinstance(text, str) or not text.strip():
        return ""
    try:
        result = evaluate_rule(text, schema, self_value, old_value, old_value is not None, False)
    except (Unsupported, EvalError):
        return ""
    if not isinstance(result, str):
        return ""
    message = result.strip()
    return message if message and "\n" not in message and len(message.encode()) <= 5000 else ""
