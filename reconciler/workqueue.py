"""The controller's work queue: job keys, each handed to one worker at a time, some not before a due time."""

from __future__ import annotations

import heapq
import threading
import time

Key = tuple[str, str]  # (namespace, name) of a job


class WorkQueue:
    """Job keys to reconcile, each at most once and never by two workers at a time (a key added while it
    is being worked on waits until that is done), some not before a due time (deadlines, back-off)."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, Key]] = []
        self._due: dict[Key, float] = {}
        self._busy: set[Key] = set()
        self._again: dict[Key, float] = {}  # added while busy: queued again with this delay when done
        self._not_before: dict[Key, float] = {}  # a server's Retry-After: no event brings the key back sooner
        self._ready = threading.Condition()

    def add(self, key: Key, delay: float = 0.0) -> None:
        with self._ready:
            if key in self._busy:
                self._again[key] = min(delay, self._again.get(key, delay))
                return
            self._push(key, delay)

    def hold_off(self, key: Key, seconds: float) -> None:
        """Honour Retry-After: the key is not handed out for `seconds`, whatever is added meanwhile."""
        with self._ready:
            self._not_before[key] = time.monotonic() + seconds
            if key in self._busy:
                self._again[key] = seconds
            else:
                self._push(key, seconds)

    def _push(self, key: Key, delay: float) -> None:
        due = time.monotonic() + delay
        not_before = self._not_before.get(key)
        if not_before is not None:
            if not_before <= time.monotonic():
                del self._not_before[key]
            due = max(due, not_before)
        if key in self._due and self._due[key] <= due:
            return
        self._due[key] = due
        heapq.heappush(self._heap, (due, key))
        self._ready.notify()

    def get(self, stop: threading.Event, timeout: float = 0.5) -> Key | None:
        with self._ready:
            while not stop.is_set():
                now = time.monotonic()
                while self._heap and self._due.get(self._heap[0][1]) != self._heap[0][0]:
                    heapq.heappop(self._heap)  # superseded by an earlier due time
                if self._heap and self._heap[0][0] <= now:
                    _, key = heapq.heappop(self._heap)
                    del self._due[key]
                    self._busy.add(key)
                    return key
                wait = min(timeout, self._heap[0][0] - now) if self._heap else timeout
                self._ready.wait(wait)
        return None

    def due_in(self, key: Key) -> float | None:
        """Seconds until the key is due (None: not queued)."""
        with self._ready:
            due = self._due.get(key)
            return None if due is None else due - time.monotonic()

    def done(self, key: Key) -> None:
        with self._ready:
            self._busy.discard(key)
            if key in self._again:
                self._push(key, self._again.pop(key))
