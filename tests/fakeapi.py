"""A stateful fake Kubernetes API server on 127.0.0.1 for tests, driven by the official client over real HTTP.

It serves discovery, and for every registered resource: create, get, list (label selectors, list
resourceVersion, limit/continue pages), watch (resume from a resourceVersion, timeoutSeconds, 410 Gone for
compacted history), replace with optimistic concurrency (409), merge/JSON patches, delete, and the status
subresource. Faults are injected per request: `server.state.fail(method, path_regex, status, times, body=regex,
retry_after=s)` (the path includes the query string; status RESET drops the connection with a TCP reset instead
of answering, HANG never answers while the fault stands); `server.state.stall_watches()` holds every watch
stream open and silent (no event, no bookmark, no end) until `unstall_watches()`; `hold(method, path_regex)`
parks the next matching request after it was applied and before its answer is sent, until released.
"""

from __future__ import annotations

import base64
import bisect
import contextlib
import copy
import itertools
import json
import re
import socket
import struct
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse


@dataclass(frozen=True)
class Resource:
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool = True
    status: bool = False

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


DEFAULT_RESOURCES = (
    Resource("", "v1", "Pod", "pods", status=True),
    Resource("", "v1", "Service", "services", status=True),
    Resource("", "v1", "ConfigMap", "configmaps"),
    Resource("", "v1", "Secret", "secrets"),
    Resource("", "v1", "Event", "events"),
    Resource("", "v1", "Namespace", "namespaces", namespaced=False),
    Resource("coordination.k8s.io", "v1", "Lease", "leases"),
    Resource("kubeflow.org", "v1", "MXJob", "mxjobs", status=True),
    Resource("scheduling.volcano.sh", "v1beta1", "PodGroup", "podgroups", status=True),
)


@dataclass
class Hold:
    """Park the `after`-th next write (POST/PUT/PATCH/DELETE): applied or not, its answer never arrives."""

    after: int
    apply_first: bool
    parked: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)


Event = tuple[int, str, str, str, str, dict[str, Any]]  # (resourceVersion, type, group version, plural, ns, obj)
RESET, HANG = 0, -1  # fault "statuses" that are no HTTP answer at all


@dataclass
class Fault:
    method: str
    path: re.Pattern[str]
    status: int
    times: int
    body: dict[str, Any] = field(default_factory=dict)
    request_body: re.Pattern[str] | None = None
    retry_after: float | None = None


def status_body(code: int, reason: str, message: str) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }


def _selector_matches(selector: str, labels: dict[str, str]) -> bool:
    for term in filter(None, (t.strip() for t in re.split(r",(?![^()]*\))", selector))):
        if match := re.fullmatch(r"([^\s!=]+)\s+(in|notin)\s+\((.*)\)", term):
            key, op, values = match.group(1), match.group(2), {v.strip() for v in match.group(3).split(",")}
            if (labels.get(key) in values) != (op == "in") or (op == "in" and key not in labels):
                return False
        elif "!=" in term:
            key, value = term.split("!=", 1)
            if labels.get(key.strip()) == value.strip():
                return False
        elif "=" in term:
            key, value = term.replace("==", "=").split("=", 1)
            if labels.get(key.strip()) != value.strip():
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


def merge_patch(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


class PatchTestFailed(ValueError):
    """A JSON patch `test` operation did not hold (the API server answers 422)."""


def json_patch(document: dict[str, Any], operations: list[dict[str, Any]]) -> dict[str, Any]:
    """RFC 6902 add, replace and remove (what clients send for status and annotations)."""
    for operation in operations:
        parts = [p.replace("~1", "/").replace("~0", "~") for p in operation["path"].split("/")[1:]]
        parent: Any = document
        for part in parts[:-1]:
            parent = parent[int(part)] if isinstance(parent, list) else parent.setdefault(part, {})
        last = parts[-1]
        if operation["op"] == "test":
            if (parent[int(last)] if isinstance(parent, list) else parent.get(last)) != operation["value"]:
                raise PatchTestFailed(f"test failed at {operation['path']}")
        elif operation["op"] == "remove":
            del parent[int(last) if isinstance(parent, list) else last]
        elif isinstance(parent, list):
            index = len(parent) if last == "-" else int(last)
            if operation["op"] == "add":
                parent.insert(index, operation["value"])
            else:
                parent[index] = operation["value"]
        else:
            parent[last] = operation["value"]
    return document


class FakeKubernetes:
    """The state; thread-safe; one instance per server."""

    def __init__(self, resources: tuple[Resource, ...] = DEFAULT_RESOURCES) -> None:
        self.resources = {(r.group_version, r.plural): r for r in resources}
        self.objects: dict[tuple[str, str, str, str], dict[str, Any]] = {}
        self.events: list[Event] = []
        # Indexes kept with `objects` and `events`, so a list or a watch wake-up touches only its own kind and
        # namespace, and a watch finds its resume point by bisection instead of scanning the whole history.
        self._by_kind: dict[tuple[str, str], dict[tuple[str, str, str, str], dict[str, Any]]] = {}
        self._ordered: dict[tuple[str, str], list[tuple[str, str, str, str]]] = {}  # each kind's keys, sorted
        self._history: dict[tuple[str, str, str | None], tuple[list[int], list[Event]]] = {}
        self.compacted_before = 0
        self.version = 0
        self.faults: list[Fault] = []
        self.requests: list[tuple[str, str]] = []
        self.request_times: list[tuple[float, str, str]] = []  # (monotonic time, method, path)
        self.stalled = threading.Event()
        self.held: Hold | None = None
        self.user_agents: list[tuple[float, str, str, str]] = []  # (monotonic time, method, path, User-Agent)
        self.lock = threading.Condition()
        self.closed = False  # the server is shutting down: every watch ends now
        # A mutating admission webhook: called with (group version, plural, object) before an object is stored.
        self.admit: Callable[[str, str, dict[str, Any]], None] | None = None

    def fail(
        self,
        method: str,
        path: str,
        status: int,
        times: int = 1,
        reason: str = "",
        body: str = "",
        retry_after: float | None = None,
    ) -> None:
        with self.lock:
            self.faults.append(
                Fault(
                    method,
                    re.compile(path),
                    status,
                    times,
                    status_body(status, reason or "Injected", f"injected {status}"),
                    re.compile(body) if body else None,
                    retry_after,
                )
            )

    def take_fault(self, method: str, path: str, body: bytes = b"") -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if (
                    fault.method in (method, "*")
                    and fault.path.search(path)
                    and fault.times > 0
                    and (fault.request_body is None or fault.request_body.search(body.decode(errors="replace")))
                ):
                    fault.times -= 1
                    return fault
        return None

    def hold(self, after: int, apply_first: bool) -> Hold:
        with self.lock:
            self.held = Hold(after, apply_first)
            return self.held

    def take_hold(self, method: str) -> Hold | None:
        with self.lock:
            if self.held is None or method not in ("POST", "PUT", "PATCH", "DELETE"):
                return None
            self.held.after -= 1
            if self.held.after > 0:
                return None
            hold, self.held = self.held, None
            return hold

    def stall_watches(self) -> None:
        self.stalled.set()

    def unstall_watches(self) -> None:
        self.stalled.clear()

    def compact(self) -> None:
        """Forget the watch history, as etcd compaction does: older resourceVersions get 410 Gone."""
        with self.lock:
            self.compacted_before = self.version + 1
            self.events.clear()
            self._history.clear()

    def _record(self, kind: str, gv: str, plural: str, ns: str, obj: dict[str, Any]) -> None:
        # No copy: a stored object is never changed in place (every write stores a new dict, and nested parts
        # it shares with older versions are never written to), so the history can hold the stored objects.
        event = (int(obj["metadata"]["resourceVersion"]), kind, gv, plural, ns, obj)
        self.events.append(event)
        for scope in ((gv, plural, None), (gv, plural, ns)):
            versions, events = self._history.setdefault(scope, ([], []))
            versions.append(event[0])
            events.append(event)
        self.lock.notify_all()

    def _store(self, key: tuple[str, str, str, str], obj: dict[str, Any] | None) -> None:
        """Put (or, with None, remove) an object, in `objects` and in its kind's index."""
        kind = self._by_kind.setdefault(key[:2], {})
        ordered = self._ordered.setdefault(key[:2], [])
        if obj is None:
            del self.objects[key], kind[key]
            del ordered[bisect.bisect_left(ordered, key)]
        else:
            if key not in kind:
                bisect.insort(ordered, key)
            self.objects[key] = kind[key] = obj

    def of_kind(self, gv: str, plural: str) -> list[dict[str, Any]]:
        """The stored objects of one kind (read them, never change them)."""
        with self.lock:
            return list(self._by_kind.get((gv, plural), {}).values())

    def _history_after(self, gv: str, plural: str, ns: str | None, position: int) -> list[Event]:
        versions, events = self._history.get((gv, plural, ns), ([], []))
        return events[bisect.bisect_right(versions, position) :]

    def _next_version(self) -> str:
        self.version += 1
        return str(self.version)

    def create(self, gv: str, plural: str, ns: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            body = copy.deepcopy(body)
            metadata = body.setdefault("metadata", {})
            if not metadata.get("name") and metadata.get("generateName"):
                metadata["name"] = metadata["generateName"] + uuid.uuid4().hex[:5]
            key = (gv, plural, ns, metadata.get("name", ""))
            if key in self.objects:
                return 409, status_body(409, "AlreadyExists", f'{plural} "{key[3]}" already exists')
            if ns:
                metadata["namespace"] = ns
            metadata.update(
                uid=str(uuid.uuid4()),
                resourceVersion=self._next_version(),
                creationTimestamp=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            )
            resource = self.resources[(gv, plural)]
            body.setdefault("apiVersion", gv)
            body.setdefault("kind", resource.kind)
            if self.admit is not None:
                self.admit(gv, plural, body)
            self._store(key, body)
            self._record("ADDED", gv, plural, ns, body)
            return 201, copy.deepcopy(body)

    def update(
        self,
        key: tuple[str, str, str, str],
        body: dict[str, Any],
        status_only: bool,
        check_version: bool,
        copy_answer: bool = True,
    ) -> tuple[int, dict[str, Any]]:
        """Replace an object or its status; the answer is a copy unless `copy_answer` is False (a caller that
        only reads it, such as a benchmark's simulated kubelet, saves copying the whole pod)."""
        with self.lock:
            current = self.objects.get(key)
            if current is None:
                return 404, status_body(404, "NotFound", f'{key[1]} "{key[3]}" not found')
            sent = (body.get("metadata") or {}).get("resourceVersion")
            if check_version and sent and sent != current["metadata"]["resourceVersion"]:
                return 409, status_body(
                    409,
                    "Conflict",
                    "the object has been modified; please apply your changes to the latest version and try again",
                )
            if status_only:
                status = copy.deepcopy(body.get("status", {}))
                updated = {**current, "metadata": dict(current["metadata"]), "status": status}
            else:
                updated = copy.deepcopy(body)
                updated.setdefault("status", current.get("status"))
                if updated["status"] is None:
                    updated.pop("status")
                updated["metadata"] = {**current["metadata"], **(body.get("metadata") or {})}
            updated["metadata"]["resourceVersion"] = self._next_version()
            if updated["metadata"].get("deletionTimestamp") and not updated["metadata"].get("finalizers"):
                self._store(key, None)  # the last finalizer of a deleted object is gone: so is the object
                self._record("DELETED", key[0], key[1], key[2], updated)
                return 200, copy.deepcopy(updated)
            self._store(key, updated)
            self._record("MODIFIED", key[0], key[1], key[2], updated)
            return 200, copy.deepcopy(updated) if copy_answer else updated

    def delete(self, key: tuple[str, str, str, str], uid: str | None = None) -> tuple[int, dict[str, Any]]:
        with self.lock:
            current = self.objects.get(key)
            if current is None:
                return 404, status_body(404, "NotFound", f'{key[1]} "{key[3]}" not found')
            if uid and current["metadata"].get("uid") != uid:
                return 409, status_body(409, "Conflict", "Precondition failed: UID in precondition does not match")
            if current["metadata"].get("finalizers"):  # held: marked deleted, removed with its last finalizer
                if not current["metadata"].get("deletionTimestamp"):
                    current = {**current, "metadata": dict(current["metadata"])}
                    current["metadata"]["deletionTimestamp"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
                    current["metadata"]["resourceVersion"] = self._next_version()
                    self._store(key, current)
                    self._record("MODIFIED", key[0], key[1], key[2], current)
                return 200, copy.deepcopy(current)
            self._store(key, None)
            current = {**current, "metadata": {**current["metadata"], "resourceVersion": self._next_version()}}
            self._record("DELETED", key[0], key[1], key[2], current)
            return 200, copy.deepcopy(current)

    def list(
        self, gv: str, plural: str, ns: str | None, selector: str, limit: int = 0, token: str = ""
    ) -> tuple[int, dict[str, Any]]:
        """A list, or one page of it (`limit`, `continue`). A continue token carries the first page's
        resourceVersion and the last key served; later pages come from the current state (not a snapshot, as
        etcd would serve): a watch from that resourceVersion replays whatever changed in between. A token older
        than the compacted history answers 410 Expired, as the real server does."""
        with self.lock:
            version, after = self.version, ("", "", "", "")
            if token:
                version, last = json.loads(base64.urlsafe_b64decode(token))
                after = tuple(last)
                if version + 1 < self.compacted_before:
                    return 410, status_body(410, "Expired", "the provided continue parameter is too old")
            stored, ordered = self._by_kind.get((gv, plural), {}), self._ordered.get((gv, plural), [])
            following = (ordered[i] for i in range(bisect.bisect_right(ordered, after), len(ordered)))
            matching = (
                (k, stored[k])  # stored objects are never changed in place; the caller serializes them
                for k in following
                if (ns is None or k[2] == ns)
                and _selector_matches(selector, (stored[k].get("metadata") or {}).get("labels") or {})
            )
            page = list(itertools.islice(matching, limit or None))
            metadata: dict[str, Any] = {"resourceVersion": str(version)}
            if limit and page and next(matching, None) is not None:
                metadata["continue"] = base64.urlsafe_b64encode(json.dumps([version, page[-1][0]]).encode()).decode()
            kind = self.resources[(gv, plural)].kind
            return 200, {"apiVersion": gv, "kind": f"{kind}List", "metadata": metadata, "items": [o for _, o in page]}

    def watch(
        self, gv: str, plural: str, ns: str | None, selector: str, since: int, timeout: float
    ) -> Iterator[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        position = since
        with self.lock:
            if since and since + 1 < self.compacted_before:
                yield {"type": "ERROR", "object": status_body(410, "Expired", f"too old resource version: {since}")}
                return
        while time.monotonic() < deadline and not self.closed:
            with self.lock:
                batch = self._history_after(gv, plural, ns, position)
                if not batch:
                    self.lock.wait(min(0.05, max(0.0, deadline - time.monotonic())))
                    continue
            for version, kind, _, _, _, obj in batch:
                position = version
                if _selector_matches(selector, (obj.get("metadata") or {}).get("labels") or {}):
                    yield {"type": kind, "object": obj}


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    raw_body: bytes = b""
    hold: Hold | None = None
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # without it every request waits ~40 ms for a delayed ACK

    def log_message(self, *args: Any) -> None:
        return

    def _park(self, hold: Hold) -> None:
        hold.parked.set()
        hold.release.wait(30)
        self.close_connection = True

    def _send(self, code: int, body: dict[str, Any], retry_after: float | None = None) -> None:
        if self.hold is not None:
            hold, self.hold = self.hold, None
            self._park(hold)  # applied; the answer is never sent
            return
        data = json.dumps(body).encode()
        self.send_response(code)
        if retry_after is not None:
            self.send_header("Retry-After", f"{retry_after:g}")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _fail(self, fault: Fault) -> None:
        if fault.status == HANG:  # until the fault is cleared (bounded: a test never leaves a thread behind)
            deadline = time.monotonic() + 60
            while fault in self.server.state.faults and time.monotonic() < deadline:
                time.sleep(0.05)
        if fault.status in (RESET, HANG):
            # SO_LINGER on, zero timeout: closing sends RST; the client's request ends with no answer.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            return
        self._send(fault.status, fault.body, fault.retry_after)

    def _body(self) -> Any:
        return json.loads(self.raw_body or b"null")

    def _handle(self, method: str) -> None:
        # Read every body (DELETE carries DeleteOptions) so the next request on this connection starts clean.
        self.raw_body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        state = self.server.state
        url = urlparse(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        with state.lock:
            state.requests.append((method, url.path))
            state.request_times.append((time.monotonic(), method, url.path))
            state.user_agents.append((time.monotonic(), method, url.path, self.headers.get("User-Agent", "")))
        hold = state.take_hold(method)
        if hold is not None:
            if not hold.apply_first:
                self._park(hold)
                return
            self.hold = hold
        fault = state.take_fault(method, self.path, self.raw_body)
        if fault is not None:
            self._fail(fault)
            return
        discovery = self.server.discovery(url.path)
        if discovery is not None:
            self._send(200, discovery)
            return
        route = self.server.route(url.path)
        if route is None:
            self._send(404, status_body(404, "NotFound", f"the server could not find {url.path}"))
            return
        gv, plural, ns, name, sub = route
        if method == "GET" and not name:
            if query.get("watch") in ("true", "1"):
                self._watch(gv, plural, ns, query)
            else:
                limit = int(query.get("limit") or 0)
                self._send(
                    *state.list(gv, plural, ns, query.get("labelSelector", ""), limit, query.get("continue", ""))
                )
            return
        key = (gv, plural, ns or "", name or "")
        if method == "POST":
            self._send(*state.create(gv, plural, ns or "", self._body()))
        elif method == "GET":
            obj = state.objects.get(key)
            if obj is None:
                self._send(404, status_body(404, "NotFound", f'{plural} "{name}" not found'))
            else:
                self._send(200, obj)  # stored objects are never changed in place: no copy needed
        elif method == "PUT":
            self._send(*state.update(key, self._body(), sub == "status", check_version=True))
        elif method == "PATCH":
            self._patch(key, sub)
        elif method == "DELETE":
            options = self._body() or {}
            self._send(*state.delete(key, (options.get("preconditions") or {}).get("uid")))

    def _patch(self, key: tuple[str, str, str, str], sub: str | None) -> None:
        state = self.server.state
        patch = self._body()
        with state.lock:
            current = state.objects.get(key)
            if current is None:
                self._send(404, status_body(404, "NotFound", f'{key[1]} "{key[3]}" not found'))
                return
            if isinstance(patch, list):
                try:
                    merged = json_patch(copy.deepcopy(current), patch)
                except PatchTestFailed as exc:
                    self._send(422, status_body(422, "Invalid", str(exc)))
                    return
            else:
                merged = merge_patch(current, patch)
            if sub == "status":
                merged = {**current, "status": merged.get("status", {})}
            merged["metadata"] = {
                **(merged.get("metadata") or {}),
                "resourceVersion": current["metadata"]["resourceVersion"],
            }
            self._send(*state.update(key, merged, status_only=False, check_version=False))

    def _watch(self, gv: str, plural: str, ns: str | None, query: dict[str, str]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        since = int(query.get("resourceVersion") or self.server.state.version)
        timeout = float(query.get("timeoutSeconds") or 30)
        while self.server.state.stalled.is_set() and not self.server.closing:
            time.sleep(0.05)  # open and silent: what a stuck proxy or apiserver looks like
        try:
            for event in self.server.state.watch(gv, plural, ns, query.get("labelSelector", ""), since, timeout):
                line = json.dumps(event).encode() + b"\n"
                self.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
                self.wfile.flush()
                if self.server.take_drop():
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return  # an abrupt end without the closing chunk: a dropped watch
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def do_DELETE(self) -> None:
        self._handle("DELETE")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, state: FakeKubernetes) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state
        self.drop_watch_after = 0
        self.closing = False
        self.open: set[socket.socket] = set()  # client connections, closed on shutdown (keep-alive readers end)
        self.handlers: list[threading.Thread] = []

    def process_request(self, request: Any, client_address: Any) -> None:
        """ThreadingMixIn's, with each connection and its thread remembered (end_connections)."""
        thread = threading.Thread(target=self.process_request_thread, args=(request, client_address), daemon=True)
        with self.state.lock:
            self.open.add(request)
            self.handlers = [*(t for t in self.handlers if t.is_alive()), thread]
        thread.start()

    def shutdown_request(self, request: Any) -> None:
        with self.state.lock:
            self.open.discard(request)
        super().shutdown_request(request)

    def end_connections(self) -> None:
        """Close every client connection and wait briefly for the threads serving them: a test that needs
        to be the process's only thread (compiler.fanout forks only then) must not meet ours."""
        with self.state.lock:
            self.state.closed = True
            self.state.lock.notify_all()
            connections, handlers = list(self.open), list(self.handlers)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        for handler in handlers:
            handler.join(timeout=5)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (its read timeout) and closed the connection is normal; anything else is not."""
        if not isinstance(sys.exception(), ConnectionError):
            super().handle_error(request, client_address)

    def take_drop(self) -> bool:
        """Count down the events until the next watch stream is cut; True when this one is it."""
        with self.state.lock:
            if not self.drop_watch_after:
                return False
            self.drop_watch_after -= 1
            return self.drop_watch_after == 0

    def discovery(self, path: str) -> dict[str, Any] | None:
        resources = self.state.resources.values()
        if path == "/version":
            return {"major": "1", "minor": "35", "gitVersion": "v1.35.0"}
        if path == "/api":
            return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}
        if path == "/apis":
            groups = sorted({(r.group, r.version) for r in resources if r.group})
            return {
                "kind": "APIGroupList",
                "apiVersion": "v1",
                "groups": [
                    {
                        "name": g,
                        "versions": [{"groupVersion": f"{g}/{v}", "version": v}],
                        "preferredVersion": {"groupVersion": f"{g}/{v}", "version": v},
                    }
                    for g, v in groups
                ],
            }
        match = re.fullmatch(r"/api/(v1)|/apis/([^/]+)/([^/]+)", path)
        if match is None:
            return None
        gv = match.group(1) or f"{match.group(2)}/{match.group(3)}"
        listed = []
        for r in resources:
            if r.group_version == gv:
                verbs = ["create", "delete", "get", "list", "patch", "update", "watch"]
                listed.append(
                    {
                        "name": r.plural,
                        "singularName": r.kind.lower(),
                        "namespaced": r.namespaced,
                        "kind": r.kind,
                        "verbs": verbs,
                    }
                )
                if r.status:
                    listed.append(
                        {
                            "name": f"{r.plural}/status",
                            "singularName": "",
                            "namespaced": r.namespaced,
                            "kind": r.kind,
                            "verbs": ["get", "patch", "update"],
                        }
                    )
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": listed}

    def route(self, path: str) -> tuple[str, str, str | None, str | None, str | None] | None:
        match = re.fullmatch(
            r"/(?:api/(v1)|apis/([^/]+)/([^/]+))(?:/namespaces/([^/]+))?/([^/]+)"
            r"(?:/([^/]+))?(?:/(status))?",
            path,
        )
        if match is None:
            return None
        gv = match.group(1) or f"{match.group(2)}/{match.group(3)}"
        if (gv, match.group(5)) not in self.state.resources:
            return None
        return gv, match.group(5), match.group(4), match.group(6), match.group(7)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class FakeServer:
    """Start with `with FakeServer() as server:`; `server.url`, `server.state`, `server.kubeconfig(path)`."""

    def __init__(self, resources: tuple[Resource, ...] = DEFAULT_RESOURCES) -> None:
        self.state = FakeKubernetes(resources)
        self._server = _Server(self.state)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def drop_next_watch_after(self, events: int) -> None:
        self._server.drop_watch_after = events

    def kubeconfig(self, path: Any, namespace: str = "default") -> Any:
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "current-context": "fake",
            "clusters": [{"name": "fake", "cluster": {"server": self.url}}],
            "users": [{"name": "fake", "user": {"token": "fake-token"}}],
            "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake", "namespace": namespace}}],
        }
        path.write_text(json.dumps(config), encoding="utf-8")
        return path

    def __enter__(self) -> FakeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.closing = True
        self.state.stalled.clear()
        self._server.shutdown()
        self._server.server_close()
        self._server.end_connections()
