"""The controller's work queue: job keys, each handed to one worker at a time, some not before a due time, and
those with news the job must react to (a pod that just exited or was lost) ahead of the others."""

from __future__ import annotations

import heapq
import threading
import time

Key = tuple[str, str]  # (namespace, name) of a job


class WorkQueue:
    """Job keys to reconcile, each at most once and never by two workers at a time (a key added while it
    is being worked on waits until that is done), some not before a due time (deadlines, back-off).

    Two lanes: a key added `urgent` (a pod of the job just finished or was lost: the job's status must say so)
    is handed out before any due key of the other lane, which holds the follow-ups (a restart's deleted pod gone,
    its new pod created, scheduled, running). In a burst of exits, the follow-ups of the first jobs then never
    delay the first reaction of the last ones; each lane is served in due order."""

    def __init__(self) -> None:
        self._heaps: tuple[list[tuple[float, Key]], list[tuple[float, Key]]] = ([], [])  # normal, urgent
        self._due: dict[Key, tuple[float, bool]] = {}
        self._busy: set[Key] = set()
        self._again: dict[Key, tuple[float, bool]] = {}  # added while busy: queued again so when done
        self._not_before: dict[Key, float] = {}  # a server's Retry-After: no event brings the key back sooner
        self._ready = threading.Condition()

    def add(self, key: Key, delay: float = 0.0, urgent: bool = False) -> None:
        with self._ready:
            if key in self._busy:
                before = self._again.get(key)
                self._again[key] = (min(delay, before[0]), urgent or before[1]) if before else (delay, urgent)
                return
            self._push(key, delay, urgent)

    def hold_off(self, key: Key, seconds: float) -> None:
        """Honour Retry-After: the key is not handed out for `seconds`, whatever is added meanwhile."""
        with self._ready:
            self._not_before[key] = time.monotonic() + seconds
            if key in self._busy:
                self._again[key] = (seconds, False)
            else:
                self._push(key, seconds, False)

    def _push(self, key: Key, delay: float, urgent: bool) -> None:
        due = time.monotonic() + delay
        not_before = self._not_before.get(key)
        if not_before is not None:
            if not_before <= time.monotonic():
                del self._not_before[key]
            due = max(due, not_before)
        queued = self._due.get(key)
        if queued is not None:
            if queued[0] <= due and (queued[1] or not urgent):
                return  # queued as soon, in a lane as fast
            due, urgent = min(due, queued[0]), urgent or queued[1]
        self._due[key] = (due, urgent)
        heapq.heappush(self._heaps[urgent], (due, key))
        self._ready.notify()

    def _head(self, urgent: bool) -> tuple[float, Key] | None:
        heap = self._heaps[urgent]
        while heap and self._due.get(heap[0][1]) != (heap[0][0], urgent):
            heapq.heappop(heap)  # superseded by an earlier due time, or moved to the other lane
        return heap[0] if heap else None

    def get(self, stop: threading.Event, timeout: float = 0.5) -> Key | None:
        with self._ready:
            while not stop.is_set():
                now = time.monotonic()
                heads = [(head, urgent) for urgent in (True, False) if (head := self._head(urgent)) is not None]
                for (due, key), urgent in heads:
                    if due <= now:
                        heapq.heappop(self._heaps[urgent])
                        del self._due[key]
                        self._busy.add(key)
                        return key
                wait = min([timeout, *(due - now for (due, _), _ in heads)])
                self._ready.wait(wait)
        return None

    def due_in(self, key: Key) -> float | None:
        """Seconds until the key is due (None: not queued)."""
        with self._ready:
            due = self._due.get(key)
            return None if due is None else due[0] - time.monotonic()

    def done(self, key: Key) -> None:
        with self._ready:
            self._busy.discard(key)
            if key in self._again:
                self._push(key, *self._again.pop(key))
