"""Read your own writes: the job as this reconciler last wrote it, until the watch cache has caught up (the runner
asks before each reconcile).

A watch cache lags the writes made through it. Deciding on the cached job right after writing its status would
send the next status write with the old resourceVersion — a 409 conflict, then a GET and a second decision. In a
burst of exits (a pod's deletion, its recreation and the status write each bring the job back) these were most
of the reconciler's conflicts. The answer of a status write is the newest version of the job, so it is used
instead of a cached copy that is still at the version the write replaced; once the cache shows any other version
(ours, or one written after it) the cache is trusted again. Writes are optimistic (the resourceVersion is sent),
so a version written by someone else in between is still a 409, never overwritten.
"""

from __future__ import annotations

import marshal
import threading
from typing import Any

Key = tuple[str, str]


def _version(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("resourceVersion") or "")


def _key(obj: dict[str, Any]) -> Key:
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name"))


class Written:
    """Per job: the resourceVersion a status write replaced, and the job it returned (packed)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[Key, tuple[str, bytes]] = {}

    def remember(self, replaced: dict[str, Any], answer: dict[str, Any]) -> None:
        with self._lock:
            self._jobs[_key(answer)] = (_version(replaced), marshal.dumps(answer))

    def latest(self, cached: dict[str, Any]) -> dict[str, Any]:
        """`cached`, or our own later write of it while the cache still shows the version that write replaced."""
        key = _key(cached)
        with self._lock:
            found = self._jobs.get(key)
            if found is None:
                return cached
            if found[0] != _version(cached):
                del self._jobs[key]  # the cache has caught up (or moved past us)
                return cached
        newer: dict[str, Any] = marshal.loads(found[1])
        return newer

    def __len__(self) -> int:
        return len(self._jobs)
