"""Write an MXJob the way the API server stores it (called by the pipeline after the schema check), so no drift.

The walk follows the job's JSON schema, so each rule applies exactly where the Kubernetes type sits, and enters only
the parts of the schema where one of these rules can apply (a plan per schema node, built once):
- every resource.Quantity becomes its canonical string (compiler/base/quantity.py); values of a ResourceList (a map of
  quantities: requests, limits, overhead) are also rounded up to a milli, as `SetDefaults_ResourceList` does;
- an env var with an empty `value` loses the key: EnvVar.Value is `omitempty` in k8s.io/api/core/v1/types.go, so
  the server never returns it;
- a container port names its protocol, TCP when unset: the server defaults it (`SetDefaults_ContainerPort` in
  pkg/apis/core/v1/defaults.go; the CRD's schema defaults it too), and v1.20's server-side apply rejects ports
  without it (kubernetes#94275's sibling, fixed in 1.21).
Pods, Services and the MXJob object are all rendered from the canonical document. The input is never
mutated: changed maps and lists are copies, the rest is shared (as compiler/spec/convert.py's `writable_v1`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mxjob_gitops.compiler.base.quantity import QuantityError, canonical_quantity

DEFS = "#/$defs/"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"


def drop_empty_value(env: dict[str, Any]) -> dict[str, Any]:
    """An env var as the server returns it: no `value` key when the value is empty."""
    if env.get("value") != "":
        return env
    return {key: item for key, item in env.items() if key != "value"}


def _container_port(port: dict[str, Any]) -> dict[str, Any]:
    return port if "protocol" in port else {**port, "protocol": "TCP"}


FIXES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "io.k8s.api.core.v1.EnvVar": drop_empty_value,
    "io.k8s.api.core.v1.ContainerPort": _container_port,
}


def canonicalise(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """`document` (valid against `schema`) in the form the API server returns; unchanged parts are shared."""
    plan = _plan(schema, schema["$defs"], owner="", resource_list=False)
    if plan is None:
        return document
    result: dict[str, Any] = _walk(document, plan)
    return result


def _resolve(node: dict[str, Any], defs: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(DEFS):
        name = ref[len(DEFS) :]
        return name, defs[name]
    return None, node


def _changed(before: Any, after: Any) -> bool:
    if isinstance(before, dict | list):
        return after is not before
    return type(after) is not type(before) or after != before


class _Plan:
    """What the walk does at one schema node, built once per node: the node is a Quantity (`milli`: in a core
    ResourceList), or a map whose `fix` applies (EnvVar, ContainerPort), and which of its properties,
    additionalProperties and items can change. A child that can change nothing is None: the walk never enters it
    (command, args, metadata, most of a pod spec), which is what makes the walk cheap."""

    __slots__ = ("extra", "fix", "items", "keys", "milli", "properties", "quantity")

    def __init__(self) -> None:
        self.quantity = False
        self.milli = False
        self.fix: Callable[[dict[str, Any]], dict[str, Any]] | None = None
        self.keys: frozenset[str] = frozenset()  # every property, those that cannot change included
        self.properties: dict[str, _Plan] = {}  # the properties that can change
        self.extra: _Plan | None = None
        self.items: _Plan | None = None

    def changes(self) -> bool:
        return bool(self.quantity or self.fix or self.properties or self.extra or self.items)


# By the id of the (unresolved) schema node, the owner and the ResourceList flag; kept alive with the node.
_PLANS: dict[tuple[int, str, bool], tuple[dict[str, Any], _Plan | None]] = {}


def _plan(node: Any, defs: dict[str, Any], owner: str, resource_list: bool) -> _Plan | None:
    """The plan of `node` reached inside the definition `owner`, or None where nothing below it ever changes."""
    if not isinstance(node, dict):
        return None
    key = (id(node), owner, resource_list)
    known = _PLANS.get(key)
    if known is not None and known[0] is node:
        return known[1]
    plan = _Plan()
    _PLANS[key] = (node, plan)  # before the children: a recursive definition finds this plan (taken as changing)
    name, resolved = _resolve(node, defs)
    owner = name or owner
    if name == QUANTITY:
        plan.quantity, plan.milli = True, resource_list
        return plan
    properties = resolved.get("properties") or {}
    plan.keys = frozenset(properties)
    for prop, child in properties.items():
        sub = _plan(child, defs, owner, False)
        if sub is not None:
            plan.properties[prop] = sub
    extra = resolved.get("additionalProperties")
    if isinstance(extra, dict):
        plan.extra = _plan(extra, defs, owner, _is_resource_list(owner, extra))
    items = resolved.get("items")
    if isinstance(items, dict):
        plan.items = _plan(items, defs, owner, False)
    plan.fix = FIXES.get(name) if name is not None else None
    if not plan.changes():
        _PLANS[key] = (node, None)
        return None
    return plan


def _walk(value: Any, plan: _Plan) -> Any:
    """The canonical value: a new map or list where something inside changed, the same object otherwise."""
    if plan.quantity:
        try:
            return canonical_quantity(value, milli=plan.milli)
        except QuantityError as exc:  # compiler.kubevalidate refuses every such value before this runs
            raise AssertionError(f"unchecked quantity {value!r}") from exc  # pragma: no cover
    if isinstance(value, dict):
        result = value
        properties, extra = plan.properties, plan.extra
        if extra is None:  # only the properties that can change are looked at (a copy keeps the value's order)
            walked = [(key, sub) for key, sub in properties.items() if key in value]
        else:
            keys = plan.keys
            walked = []
            for key in value:
                if key in keys:
                    sub = properties.get(key)
                    if sub is not None:
                        walked.append((key, sub))
                else:
                    walked.append((key, extra))
        for key, sub in walked:
            item = value[key]
            new = _walk(item, sub)
            if _changed(item, new):
                result = dict(result) if result is value else result
                result[key] = new
        return plan.fix(result) if plan.fix is not None else result
    if isinstance(value, list) and plan.items is not None:
        items = [_walk(item, plan.items) for item in value]
        return items if any(_changed(a, b) for a, b in zip(value, items, strict=True)) else value
    return value


def _is_resource_list(owner: str, values: dict[str, Any]) -> bool:
    """A core type's map of quantities (v1.ResourceList); our own minResources is a custom resource's, not rounded."""
    return values.get("$ref") == DEFS + QUANTITY and owner.startswith("io.k8s.api.core.")
