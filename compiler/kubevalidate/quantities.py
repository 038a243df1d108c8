"""Every resource quantity of an MXJob, wherever its schema puts one (requests, limits, overhead, sizeLimit, storage
of ephemeral volumes, minResources...), parsed as k8s.io/apimachinery pkg/api/resource `ParseQuantity` parses it on
decoding; an unparsable one is MXJ401 and never reaches compiler.canonical."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.canonical import QUANTITY, _resolve
from mxjob_gitops.compiler.diagnostics import JsonPath
from mxjob_gitops.compiler.kubevalidate.report import Found
from mxjob_gitops.compiler.kubevalidate.resources import quantity

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


def check_quantities(found: Found, value: Any, node: dict[str, Any], defs: dict[str, Any], path: JsonPath) -> None:
    name, node = _resolve(node, defs)
    if name == QUANTITY:
        quantity(found, path, value)
    elif isinstance(value, dict):
        properties = node.get("properties") or {}
        extra = node.get("additionalProperties")
        for key, item in value.items():
            child = properties.get(key, extra)
            if isinstance(child, dict) and isinstance(item, dict | list | str | int | float) and _holds(child, defs):
                check_quantities(found, item, child, defs, (*path, key))
    elif isinstance(value, list) and isinstance(node.get("items"), dict) and _holds(node["items"], defs):
        for index, item in enumerate(value):
            check_quantities(found, item, node["items"], defs, (*path, index))
