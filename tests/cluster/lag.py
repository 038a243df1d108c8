"""Lag as an observer outside the reconciler sees it: watches of one namespace's pods and MXJobs, opened by the test
process, stamp each change with the time it arrived. A pod's exit is the first version of it that kwok reported
finished (phase Failed or Succeeded); the reconciler's reaction is the first version of its job whose status
satisfies a test (the restart recorded, the job Failed). Both arrive over the same kind of watch from the same
API server, so the lag between them is the reconciler's (its watch, queue, decision and writes), not the polling
interval or the cost of listing every pod. Used by bench/cluster_bench.py and tests/cluster/test_burst.py."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tests.cluster.control_plane import ControlPlane

Status = dict[str, Any]
WATCH_SECONDS = 1800


@dataclass(frozen=True)
class Exit:
    """A pod kwok reported finished: when the observer saw it, its uid, and its `mxnet` exit code and reason."""

    seen: float
    uid: str
    code: int | None
    reason: str


def _exit_of(pod: dict[str, Any], seen: float) -> Exit:
    code, reason = None, ""
    for container in (pod.get("status") or {}).get("containerStatuses") or []:
        terminated = (container.get("state") or {}).get("terminated") or {}
        if container.get("name") == "mxnet" and "exitCode" in terminated:
            code, reason = int(terminated["exitCode"]), str(terminated.get("reason") or "")
    return Exit(seen, str(pod["metadata"].get("uid")), code, reason)


@dataclass
class Observer:
    """`with Observer(plane, namespace) as seen:` watches until the block ends; then ask `exits`, `reaction`."""

    plane: ControlPlane
    namespace: str
    exits: dict[tuple[str, str], Exit] = field(default_factory=dict)  # (pod name, uid) -> its first finished version
    statuses: dict[str, list[tuple[float, Status]]] = field(default_factory=dict)  # job -> each status, when seen
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)
    _connections: list[http.client.HTTPSConnection] = field(default_factory=list)
    _threads: list[threading.Thread] = field(default_factory=list)

    def __enter__(self) -> Observer:
        for path, handle in (
            (f"/api/v1/namespaces/{self.namespace}/pods", self._pod),
            (f"/apis/kubeflow.org/v1/namespaces/{self.namespace}/mxjobs", self._job),
        ):
            listing = self.plane.get(path) or {}
            now = time.monotonic()
            for item in listing.get("items") or []:
                handle(item, now)
            version = str((listing.get("metadata") or {}).get("resourceVersion") or "")
            thread = threading.Thread(target=self._follow, args=(path, version, handle), daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        for connection in list(self._connections):
            with contextlib.suppress(OSError, AttributeError):  # its reader ends on the end of the stream
                connection.sock.shutdown(socket.SHUT_RDWR)
        for thread in self._threads:
            thread.join(timeout=5)

    def _pod(self, pod: dict[str, Any], seen: float) -> None:
        if (pod.get("status") or {}).get("phase") not in ("Failed", "Succeeded"):
            return
        key = (str(pod["metadata"]["name"]), str(pod["metadata"].get("uid")))
        with self._lock:
            self.exits.setdefault(key, _exit_of(pod, seen))

    def _job(self, job: dict[str, Any], seen: float) -> None:
        with self._lock:
            self.statuses.setdefault(str(job["metadata"]["name"]), []).append((seen, job.get("status") or {}))

    def _follow(self, path: str, version: str, handle: Callable[[dict[str, Any], float], None]) -> None:
        while not self._stop.is_set():
            try:
                for event in self._events(path, version):
                    version = str(event["object"].get("metadata", {}).get("resourceVersion") or version)
                    if event["type"] in ("ADDED", "MODIFIED"):
                        handle(event["object"], time.monotonic())
            except (OSError, http.client.HTTPException, ValueError):
                if not self._stop.is_set():
                    time.sleep(0.1)

    def _events(self, path: str, version: str) -> Iterator[dict[str, Any]]:
        context = ssl.create_default_context(cafile=str(self.plane.ca_file))
        connection = http.client.HTTPSConnection("127.0.0.1", self.plane.port, context=context, timeout=60)
        self._connections.append(connection)
        try:
            query = f"watch=1&resourceVersion={version}&timeoutSeconds={WATCH_SECONDS}"
            connection.request("GET", f"{path}?{query}", headers={"Authorization": f"Bearer {self.plane.token}"})
            response = connection.getresponse()
            if response.status != 200:
                raise ValueError(f"watch {path}: HTTP {response.status}")
            for line in response:
                if line.strip():
                    event: dict[str, Any] = json.loads(line)
                    if event.get("type") == "ERROR":
                        raise ValueError(f"watch {path}: {event.get('object')}")
                    yield event
        finally:
            connection.close()
            self._connections.remove(connection)

    def exit_of(self, pod: str) -> Exit | None:
        """The first exit kwok reported for `pod` (any uid), else None."""
        with self._lock:
            found = [x for (name, _), x in self.exits.items() if name == pod]
        return min(found, key=lambda x: x.seen) if found else None

    def reaction(self, job: str, after: float, test: Callable[[Status], bool]) -> float | None:
        """When the observer first saw `job`'s status pass `test`, at or after `after`."""
        with self._lock:
            history = list(self.statuses.get(job) or [])
        return next((seen for seen, status in history if seen >= after and test(status)), None)

    def latest(self, job: str) -> Status:
        with self._lock:
            history = self.statuses.get(job) or []
            return history[-1][1] if history else {}


def restart_recorded(pod: str, uid: str) -> Callable[[Status], bool]:
    """The status records the restart of this pod (its uid in the restart ledger): the restart was asked for."""

    def test(status: Status) -> bool:
        record = (status.get("podRestarts") or {}).get(pod)
        return isinstance(record, dict) and record.get("uid") == uid

    return test


def condition(kind: str) -> Callable[[Status], bool]:
    def test(status: Status) -> bool:
        return any(c.get("type") == kind and c.get("status") == "True" for c in status.get("conditions") or [])

    return test


def exit_pods(
    plane: ControlPlane, namespace: str, codes: dict[str, int], reasons: Mapping[str, str] = {}
) -> dict[str, float]:
    """Ask kwok (tests/cluster/stages/pod-exit.yaml) to end each pod's `mxnet` container with its code (and reason),
    all at once: the patches go out 8 at a time, not one after another. Returns when each ask was answered."""

    def ask(pod: str) -> tuple[str, float]:
        annotations = {"mxjob.test/exit-code": str(codes[pod])}
        if reasons and pod in reasons:
            annotations["mxjob.test/exit-reason"] = reasons[pod]
        path = f"/api/v1/namespaces/{namespace}/pods/{pod}"
        patch = {"metadata": {"annotations": annotations}}
        code, body = plane.request("PATCH", path, patch, "application/merge-patch+json")
        assert code == 200, body
        return pod, time.monotonic()

    with ThreadPoolExecutor(8) as pool:
        return dict(pool.map(ask, codes))


def wait_for(what: str, predicate: Callable[[], bool], timeout: float, check: Callable[[], None]) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        check()
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]
