"""Pod specs already found valid, so that the pods rendered from one template are checked once.

A rendered stream holds one Pod per replica, and the pods of a replica type differ only in their names and
in the values of their environment variables (MX_CONFIG, DMLC_ROLE and the like), which no rule of
compiler.kubevalidate reads: the only use of an env var's `value` is whether it is empty, next to a
`valueFrom` (kubevalidate.env, ValidateEnv's `validateEnvVarValueFrom`). So a spec is known valid when a spec
equal to it in everything else, and in the emptiness of each env value, was found valid before under the same
Kubernetes version and the same `whole` flag (kubevalidate.pod.check_pod_spec).

The key is the spec's JSON text with each env value replaced by its truth value: JSON keeps key order and
tells 1, 1.0 and true apart, so two specs share a key only when the rules see the same input. orjson writes
it (a quarter of json.dumps' time; importing it after the libraries a render loads costs under a millisecond),
except where its text holds `null`: orjson writes NaN and ±Infinity as null too, so json.dumps, which tells them
apart, writes that key (it holds `null` as well, which no text of orjson's key then does). Only
specs without any finding are remembered (a finding carries its path, which depends on where the spec is),
with keys of at most MAX_BYTES in all (a diverse input, or specs with long inline scripts, costs that much
memory, then the memo starts over; a key over a sixteenth of it is not kept).
"""

from __future__ import annotations

import json
from typing import Any

MAX_BYTES = 16 * 1024 * 1024


def _without_env_values(container: Any) -> Any:
    if not isinstance(container, dict):
        return container
    env = container.get("env")
    if not isinstance(env, list):
        return container
    blanked = [{**var, "value": bool(var["value"])} if isinstance(var, dict) and "value" in var else var for var in env]
    return {**container, "env": blanked}


def spec_key(spec: Any, version: str | None, whole: bool) -> bytes | None:
    """The text two pod specs share exactly when check_pod_spec sees the same input in them (None: no key, as
    for a value JSON cannot write)."""
    if not isinstance(spec, dict):
        return None
    seen = dict(spec)
    for field in ("initContainers", "containers"):
        items = spec.get(field)
        if isinstance(items, list):
            seen[field] = [_without_env_values(container) for container in items]
    import orjson

    try:
        text = orjson.dumps(seen)
        if b"null" in text:
            text = json.dumps(seen).encode()
    except (TypeError, ValueError, RecursionError):  # orjson.JSONEncodeError is a TypeError: not JSON data (a key
        return None  # that is no string, an integer beyond 64 bits, a lone surrogate), a cycle, deep nesting
    return f"{version}\0{whole}\0".encode() + text


class ValidSpecs:
    """The keys of the pod specs found valid, MAX_BYTES of them at most."""

    def __init__(self) -> None:
        self._keys: set[bytes] = set()
        self._bytes = 0

    def __contains__(self, key: bytes) -> bool:
        return key in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def add(self, key: bytes) -> None:
        if len(key) > MAX_BYTES // 16 or key in self._keys:
            return
        if self._bytes + len(key) > MAX_BYTES:
            self.clear()
        self._keys.add(key)
        self._bytes += len(key)

    def clear(self) -> None:
        self._keys.clear()
        self._bytes = 0
