"""How diff sees an object: ignored paths removed, Secret values masked, keyed lists turned into maps.

A list of maps that carry a unique key (`name`; `mountPath` for volumeMounts; port and protocol for
unnamed ports) is matched by that key, so moving an item is an order change, never a removal plus an
addition. Ignore patterns are JSON-pointer style and address keyed-list items by their key:
`/spec/containers/*/image`, `/metadata/annotations/argocd.argoproj.io~1tracking-id`, `/status/**`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

SENSITIVE_PREFIX = "\x00sensitive:"
MASK = "***"
DEFAULT_IGNORES = (
    "/status",
    "/metadata/managedFields",
    "/metadata/resourceVersion",
    "/metadata/uid",
    "/metadata/generation",
    "/metadata/creationTimestamp",
    "/metadata/selfLink",
    "/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration",
    "/metadata/annotations/argocd.argoproj.io~1tracking-id",
    "/metadata/labels/kustomize.toolkit.fluxcd.io~1name",
    "/metadata/labels/kustomize.toolkit.fluxcd.io~1namespace",
)


class KeyedList(dict[str, Any]):
    """A list of maps matched by key; iteration order is the list order."""


def list_key(field: str, items: list[Any]) -> str | None:
    """The field that identifies items of this list, or None when it is matched by position."""
    if not items or not all(isinstance(item, dict) for item in items):
        return None
    if field == "volumeMounts" and all("mountPath" in item for item in items):
        candidate = "mountPath"
    elif all("name" in item for item in items):
        candidate = "name"
    elif field == "ports" and all("containerPort" in item or "port" in item for item in items):
        candidate = "port"
    else:
        return None
    keys = [item_key(candidate, item) for item in items]
    return candidate if len(set(keys)) == len(keys) else None


def item_key(candidate: str, item: dict[str, Any]) -> str:
    if candidate == "port":
        return f"{item.get('containerPort', item.get('port'))}/{item.get('protocol', 'TCP')}"
    return str(item[candidate])


@dataclass(frozen=True, slots=True)
class Pattern:
    parts: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> Pattern:
        if not text.startswith("/"):
            raise ValueError(f"{text!r}: ignore paths are JSON pointers and start with '/'")
        return cls(tuple(part.replace("~1", "/").replace("~0", "~") for part in text[1:].split("/")))

    def matches(self, path: Sequence[str]) -> bool:
        return _match(self.parts, tuple(path))


def _match(pattern: tuple[str, ...], path: tuple[str, ...]) -> bool:
    if not pattern:
        return not path
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_match(rest, path[i:]) for i in range(len(path) + 1))
    if not path:
        return False
    return (head == "*" or head == path[0]) and _match(rest, path[1:])


@dataclass(frozen=True, slots=True)
class ViewOptions:
    ignores: tuple[Pattern, ...] = ()
    # Patterns without wildcards, looked up directly: most ignores, and every default one.
    exact: frozenset[tuple[str, ...]] = frozenset()

    @classmethod
    def build(cls, extra: Sequence[str] = (), defaults: bool = True) -> ViewOptions:
        patterns = [Pattern.parse(t) for t in (*(DEFAULT_IGNORES if defaults else ()), *extra)]
        wild = tuple(p for p in patterns if "*" in p.parts or "**" in p.parts)
        return cls(wild, frozenset(p.parts for p in patterns if p not in wild))


def _mask(value: Any) -> str:
    digest = hashlib.sha256(repr(value).encode("utf-8", "surrogatepass")).hexdigest()
    return SENSITIVE_PREFIX + digest


def _ignored(path: tuple[str, ...], options: ViewOptions) -> bool:
    return bool(options.exact or options.ignores) and (
        path in options.exact or any(p.matches(path) for p in options.ignores)
    )


def normalise(obj: dict[str, Any], options: ViewOptions) -> dict[str, Any]:
    """The comparable form: keyed lists become KeyedLists, ignored paths vanish, Secret values are digests."""
    secret = obj.get("kind") == "Secret" and str(obj.get("apiVersion", "")) == "v1"
    result: dict[str, Any] = _walk(obj, (), options, secret)
    return result


def _walk(value: Any, path: tuple[str, ...], options: ViewOptions, secret: bool) -> Any:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            child = (*path, str(key))
            if _ignored(child, options):
                continue
            if secret and len(child) == 2 and child[0] in ("data", "stringData"):
                out[key] = _mask(item)
            else:
                out[key] = _walk(item, child, options, secret)
        return out
    if isinstance(value, list):
        field = path[-1] if path else ""
        candidate = list_key(field, value)
        if candidate is None:
            return [_walk(item, (*path, str(i)), options, secret) for i, item in enumerate(value)]
        keyed = KeyedList()
        for item in value:
            key = item_key(candidate, item)
            child = (*path, key)
            if not _ignored(child, options):
                keyed[key] = _walk(item, child, options, secret)
        return keyed
    return value


LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def live_view(live: dict[str, Any], desired: dict[str, Any]) -> Any:
    """The live object as far as Git is concerned: the fields Git sets now or set at the last `kubectl apply`.

    This is the three-way rule of `kubectl apply` and Argo CD (gitops-engine pkg/diff/diff.go `ThreeWayDiff`
    with the last-applied configuration as the original; for types without a Go scheme `threeWayMergePatch`
    subtracts live fields the last-applied configuration lacks, and `TwoWayDiff` uses the desired object as the
    original when there is none): a field the server added (a default, an injected volume) is neither desired
    nor last applied and is no difference; a field Git set before and dropped since still shows, as removed.
    """
    shape = desired
    annotations = (live.get("metadata") or {}).get("annotations") or {}
    try:
        applied = json.loads(annotations.get(LAST_APPLIED) or "null")
    except ValueError:
        applied = None
    if isinstance(applied, dict):
        # kubectl writes `annotations: {}` into the annotation when the object has no other annotation;
        # gitops-engine drops an empty map there too (`removeNamespaceAnnotation`).
        metadata = applied.get("metadata")
        if isinstance(metadata, dict) and metadata.get("annotations") == {}:
            applied = {**applied, "metadata": {k: v for k, v in metadata.items() if k != "annotations"}}
        shape = _union(desired, applied)
    return project(live, shape)


def _union(first: Any, second: Any, field: str = "") -> Any:
    """A shape with the fields of both objects (`first` wins where both have a scalar)."""
    if isinstance(first, dict) and isinstance(second, dict):
        merged = dict(second)
        merged.update({k: _union(v, second[k], str(k)) if k in second else v for k, v in first.items()})
        return merged
    if isinstance(first, list) and isinstance(second, list):
        candidate = list_key(field, first)
        if candidate and list_key(field, second) == candidate:
            by_key = {item_key(candidate, item): item for item in second}
            items = [_union(item, by_key.pop(item_key(candidate, item), item), field) for item in first]
            return items + list(by_key.values())
    return first


def project(live: Any, desired: Any, field: str = "") -> Any:
    """The live object cut to the shape of the desired one: fields the server adds are not differences.

    Maps keep only keys the desired object has; keyed lists keep only items it has (matched by key);
    everything else is taken as it is, so a missing or different value still shows.
    """
    if isinstance(live, dict) and isinstance(desired, dict):
        return {k: project(live[k], desired[k], str(k)) for k in desired if k in live}
    if isinstance(live, list) and isinstance(desired, list):
        candidate = list_key(field, desired)
        if candidate and list_key(field, live) == candidate:
            wanted = {item_key(candidate, item): item for item in desired}
            return [
                project(item, wanted[item_key(candidate, item)], field)
                for item in live
                if item_key(candidate, item) in wanted
            ]
        if len(live) == len(desired):
            return [project(a, b, field) for a, b in zip(live, desired, strict=True)]
    return live


def _child(container: Any, key: Any) -> Any:
    if isinstance(container, dict):
        return container.get(key)
    if isinstance(container, list) and isinstance(key, int) and key < len(container):
        return container[key]
    return None


def denormalise(value: Any, order_like: Any = None, compare: Any = None) -> Any:
    """Back to plain lists for display.

    Keyed items follow `order_like`'s order where both sides have them (so a move shows no text change);
    masked values read `***`, or `*** (changed)` when `compare` (the other side) holds a different one.
    """
    if isinstance(value, KeyedList):
        keys = list(value)
        if isinstance(order_like, KeyedList):
            keys = [k for k in order_like if k in value] + [k for k in keys if k not in order_like]
        return [denormalise(value[k], _child(order_like, k), _child(compare, k)) for k in keys]
    if isinstance(value, dict):
        return {k: denormalise(v, _child(order_like, k), _child(compare, k)) for k, v in value.items()}
    if isinstance(value, list):
        return [denormalise(v, _child(order_like, i), _child(compare, i)) for i, v in enumerate(value)]
    if isinstance(value, str) and value.startswith(SENSITIVE_PREFIX):
        return MASK if compare is None or compare == value else f"{MASK} (changed)"
    return value


def display_segment(container: Any, key: str) -> str:
    """`[key]` for list items (keyed or by position), `.key` for map fields."""
    if isinstance(container, KeyedList | list):
        return f"[{key}]"
    return f".{key}" if re.fullmatch(r"[A-Za-z0-9_-]+", key) else f'["{key}"]'
