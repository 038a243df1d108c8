"""Every resource quantity of an MXJob, wherever its schema puts one (requests, limits, overhead, sizeLimit, storage
of ephemeral volumes, minResources...), parsed as k8s.io/apimachinery pkg/api/resource `ParseQuantity` parses it on
decoding; an unparsable one is MXJ401 and never reaches compiler.canonical."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.base.diagnostics import JsonPath
from mxjob_gitops.compiler.rules.kubevalidate.report import Found
from mxjob_gitops.compiler.rules.kubevalidate.resources import quantity
from mxjob_gitops.compiler.spec.canonical import QUANTITY, _resolve

# Whether a schema node can hold a quantity anywhere below it, by the node's id: the walk skips the rest (most of
# a pod spec), which keeps the check to a fraction of a millisecond per job.
_HOLDS: dict[int, bool] = {}


def _holds(node: dict[str, Any], defs: dict[str, Any], seen: frozenset[int] = frozenset()) -> bool:
    name, node = _resolve(node, defs)
    if name == QUANTITY:
        return True
    key = id(node)
    if key in _HOLDS:
        return _HOLDS[key]
    if key in seen:
        return False  # a recursive definition: answered where it started
    seen = seen | {key}
    children = [*(node.get("properties") or {}).values(), node.get("additionalProperties"), node.get("items")]
    found = any(_holds(child, defs, seen) for child in children if isinstance(child, dict))
    _HOLDS[key] = found
    return found


class _Plan:
    """Where quantities are below one schema node: the properties, additionalProperties and items that can hold one
    (each with its own plan), or the quantity itself. Built once per schema node, so the walk of a job looks up
    each key in one dict instead of resolving and asking _holds of every child again."""

    __slots__ = ("extra", "items", "properties", "quantity")

    def __init__(self) -> None:
        self.quantity = False
        self.properties: dict[str, _Plan | None] = {}
        self.extra: _Plan | None = None
        self.items: _Plan | None = None


_PLANS: dict[int, tuple[dict[str, Any], _Plan]] = {}  # by the id of the (unresolved) node, kept alive with it


def _plan(node: dict[str, Any], defs: dict[str, Any]) -> _Plan:
    known = _PLANS.get(id(node))
    if known is not None and known[0] is node:
        return known[1]
    plan = _Plan()
    _PLANS[id(node)] = (node, plan)  # before the children: a recursive definition finds this very plan
    name, resolved = _resolve(node, defs)
    if name == QUANTITY:
        plan.quantity = True
        return plan
    for key, child in (resolved.get("properties") or {}).items():
        # A property that cannot hold a quantity stays in, as None: it must not fall back to additionalProperties.
        plan.properties[key] = _plan(child, defs) if isinstance(child, dict) and _holds(child, defs) else None
    for key in ("additionalProperties", "items"):
        child = resolved.get(key)
        if isinstance(child, dict) and _holds(child, defs):
            setattr(plan, "extra" if key == "additionalProperties" else "items", _plan(child, defs))
    return plan


def check_quantities(found: Found, value: Any, node: dict[str, Any], defs: dict[str, Any], path: JsonPath) -> None:
    """Every quantity in `value`, read with the schema `node` (the MXJob's, from the job's root)."""
    _check(found, value, _plan(node, defs), path)


def _check(found: Found, value: Any, plan: _Plan, path: JsonPath) -> None:
    if plan.quantity:
        quantity(found, path, value)
    elif isinstance(value, dict):
        properties, extra = plan.properties, plan.extra
        for key, item in value.items():
            child = properties.get(key, extra)
            if child is not None and item is not None:
                _check(found, item, child, (*path, key))
    elif isinstance(value, list) and plan.items is not None:
        for index, item in enumerate(value):
            if item is not None:
                _check(found, item, plan.items, (*path, index))
