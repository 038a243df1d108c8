"""Write an MXJob the way the API server stores it (called by the pipeline after the schema check), so no drift.

The walk follows the job's JSON schema, so each rule applies exactly where the Kubernetes type sits:
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
    result: dict[str, Any] = _walk(document, schema, schema["$defs"], owner="", resource_list=False)
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


def _walk(value: Any, node: dict[str, Any], defs: dict[str, Any], owner: str, resource_list: bool) -> Any:
    """The canonical value: a new map or list where something inside changed, the same object otherwise.

    `owner` is the definition the value sits in, `resource_list` whether it is a value of a core ResourceList.
    """
    name, node = _resolve(node, defs)
    owner = name or owner
    if name == QUANTITY:
        try:
            return canonical_quantity(value, milli=resource_list)
        except QuantityError as exc:  # compiler.kubevalidate refuses every such value before this runs
            raise AssertionError(f"unchecked quantity {value!r}") from exc  # pragma: no cover
    if isinstance(value, dict):
        properties = node.get("properties") or {}
        extra = node.get("additionalProperties")
        result = value
        for key, item in value.items():
            if key in properties:
                new = _walk(item, properties[key], defs, owner, False)
            elif isinstance(extra, dict):
                new = _walk(item, extra, defs, owner, _is_resource_list(owner, extra))
            else:
                continue
            if _changed(item, new):
                result = dict(result) if result is value else result
                result[key] = new
        return FIXES[name](result) if name in FIXES else result
    if isinstance(value, list) and isinstance(node.get("items"), dict):
        items = [_walk(item, node["items"], defs, owner, False) for item in value]
        return items if any(_changed(a, b) for a, b in zip(value, items, strict=True)) else value
    return value


def _is_resource_list(owner: str, values: dict[str, Any]) -> bool:
    """A core type's map of quantities (v1.ResourceList); our own minResources is a custom resource's, not rounded."""
    return values.get("$ref") == DEFS + QUANTITY and owner.startswith("io.k8s.api.core.")
