"""The long-running reconciler: list+watch caches for MXJobs and their pods, a work queue with delayed
requeues, leader election, /metrics, /healthz and /readyz, and a graceful stop on SIGTERM."""

from __future__ import annotations

import heapq
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from compiler import constants as c
from reconciler.kube import ClusterError, Gone
from reconciler.leader import LeaderElector
from reconciler.runner import POD_SELECTOR, Reconciler
from reconciler.state import trim_pod

log = logging.getLogger("mxjob.reconcile")
WATCH_TIMEOUT_SECONDS = 60
BACKOFF_MIN, BACKOFF_MAX = 0.2, 30.0
Key = tuple[str, str]


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = obj.get("metadata") or {}
    return meta


class Informer:
    """One list+watch cache: resumes from the last resourceVersion, lists again on 410 Gone, backs off on
    errors, follows bookmarks. `on_change` gets every object that was added, changed or removed."""

    def __init__(self, reconciler: Reconciler, api_version: str, kind: str, namespace: str | None, selector: str,
                 on_change: Callable[[dict[str, Any], bool], None], stop: threading.Event,
                 keep: Callable[[dict[str, Any]], dict[str, Any]] = lambda obj: obj) -> None:
        self.reconciler = reconciler
        self.keep = keep
        self.api_version, self.kind, self.namespace, self.selector = api_version, kind, namespace, selector
        self.on_change = on_change
        self.stop = stop
        self.cache: dict[Key, dict[str, Any]] = {}
        self.lock = threading.Lock()
        self.synced = threading.Event()

    def items(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.cache.values())

    def get(self, key: Key) -> dict[str, Any] | None:
        with self.lock:
            return self.cache.get(key)

    def run(self) -> None:
        cluster, metrics = self.reconciler.cluster, self.reconciler.metrics
        delay = BACKOFF_MIN
        while not self.stop.is_set():
            try:
                listed, version = cluster.list_with_version(self.api_version, self.kind, self.namespace,
                                                            self.selector)
                items = [self.keep(o) for o in listed]
                fresh = {(str(_meta(o).get("namespace") or ""), str(_meta(o).get("name"))): o for o in items}
                with self.lock:
                    gone = [o for k, o in self.cache.items() if k not in fresh]
                    self.cache = fresh
                for obj in items:
                    self.on_change(obj, False)
                for obj in gone:
                    self.on_change(obj, True)
                self.synced.set()
                delay = BACKOFF_MIN
                while not self.stop.is_set():
                    version = self._watch(version)
                    metrics.watch_restarts.labels(self.kind, "timeout").inc()
            except Gone:
                metrics.watch_restarts.labels(self.kind, "gone").inc()
                log.info(f"{self.kind} watch: resource version expired, listing again")
            except ClusterError as exc:
                metrics.watch_restarts.labels(self.kind, "error").inc()
                log.warning(f"{self.kind} watch: {exc}; retrying in {delay:.1f} s")
                self.stop.wait(delay)
                delay = min(delay * 2, BACKOFF_MAX)

    def _watch(self, version: str) -> str:
        for event in self.reconciler.cluster.watch(self.api_version, self.kind, self.namespace, self.selector,
                                                   version, WATCH_TIMEOUT_SECONDS):
            if self.stop.is_set():
                break
            obj = event["object"]
            version = str(_meta(obj).get("resourceVersion") or version)
            if event["type"] != "BOOKMARK":
                obj = self.keep(obj)
            if event["type"] == "BOOKMARK":
                continue
            key = (str(_meta(obj).get("namespace") or ""), str(_meta(obj).get("name")))
            deleted = event["type"] == "DELETED"
            with self.lock:
                if deleted:
                    self.cache.pop(key, None)
                else:
                    self.cache[key] = obj
            self.on_change(obj, deleted)
        return version


class WorkQueue:
    """Job keys to reconcile, each at most once, some not before a due time (deadlines, back-off)."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, Key]] = []
        self._due: dict[Key, float] = {}
        self._ready = threading.Condition()

    def add(self, key: Key, delay: float = 0.0) -> None:
        due = time.monotonic() + delay
        with self._ready:
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
                    return key
                wait = min(timeout, self._heap[0][0] - now) if self._heap else timeout
                self._ready.wait(wait)
        return None


class Controller:
    def __init__(self, reconciler: Reconciler, stop: threading.Event | None = None) -> None:
        self.reconciler = reconciler
        self.stop = stop or threading.Event()
        self.queue = WorkQueue()
        self.leading = threading.Event()
        # Pods by job, kept with the pod cache: a reconcile must not scan every pod of the cluster.
        self._by_job: dict[Key, dict[str, dict[str, Any]]] = {}
        self._index_lock = threading.Lock()
        namespaces = reconciler.settings.namespaces or (None,)
        self.jobs = [Informer(reconciler, c.API_VERSION, c.KIND, ns, "", self._job_changed, self.stop)
                     for ns in namespaces]
        self.pods = [Informer(reconciler, "v1", "Pod", ns, POD_SELECTOR, self._pod_changed, self.stop, trim_pod)
                     for ns in namespaces]

    def _job_changed(self, obj: dict[str, Any], deleted: bool) -> None:
        self.queue.add((str(_meta(obj).get("namespace") or ""), str(_meta(obj).get("name"))))

    def _pod_changed(self, obj: dict[str, Any], deleted: bool) -> None:
        job = (_meta(obj).get("labels") or {}).get(c.LABEL_JOB_NAME)
        if not job:
            return
        key = (str(_meta(obj).get("namespace") or ""), str(job))
        name = str(_meta(obj).get("name"))
        with self._index_lock:
            pods = self._by_job.setdefault(key, {})
            if deleted:
                pods.pop(name, None)
            else:
                pods[name] = obj
        self.queue.add(key)

    def ready(self) -> bool:
        return all(i.synced.is_set() for i in (*self.jobs, *self.pods))

    def _job(self, key: Key) -> dict[str, Any] | None:
        for informer in self.jobs:
            found = informer.get(key)
            if found is not None:
                return found
        return None

    def _pods(self, key: Key) -> list[dict[str, Any]]:
        with self._index_lock:
            return list((self._by_job.get(key) or {}).values())

    def work(self) -> None:
        while not self.stop.is_set():
            key = self.queue.get(self.stop)
            if key is None:
                continue
            if not self.leading.is_set() or not self.ready():
                self.queue.add(key, 0.5)
                continue
            job = self._job(key)
            if job is None:
                continue
            try:
                plan = self.reconciler.reconcile(job, self._pods(key))
            except ClusterError as exc:
                log.warning(f"reconcile {key[0]}/{key[1]}: {exc}; trying again")
                self.queue.add(key, 1.0)
                continue
            if plan is not None and plan.requeue_after is not None:
                self.queue.add(key, plan.requeue_after + 0.05)

    def start(self) -> list[threading.Thread]:
        threads = [threading.Thread(target=i.run, name=f"informer-{i.kind}", daemon=True)
                   for i in (*self.jobs, *self.pods)]
        threads.append(threading.Thread(target=self.work, name="worker", daemon=True))
        for thread in threads:
            thread.start()
        return threads


def _http_server(address: str, controller: Controller) -> ThreadingHTTPServer:
    host, _, port = address.rpartition(":")
    registry = controller.reconciler.metrics.registry

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            if self.path == "/metrics":
                body, status, kind = generate_latest(registry), 200, CONTENT_TYPE_LATEST
            elif self.path == "/healthz":
                body, status, kind = b"ok\n", 200, "text/plain"
            elif self.path == "/readyz":
                ok = controller.ready()
                body, status, kind = (b"ok\n" if ok else b"caches not synced\n"), (200 if ok else 503), "text/plain"
            else:
                body, status, kind = b"not found\n", 404, "text/plain"
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer((host or "0.0.0.0", int(port)), Handler)
    threading.Thread(target=server.serve_forever, name=f"http-{address}", daemon=True).start()
    return server


def serve(reconciler: Reconciler, metrics_address: str, health_address: str, lease_namespace: str | None,
          stop: threading.Event | None = None) -> None:
    """Run until SIGTERM/SIGINT (or `stop`); the lease is released on the way out."""
    controller = Controller(reconciler, stop)
    servers = [_http_server(address, controller) for address in dict.fromkeys((metrics_address, health_address))]
    elector = None
    electing = None
    if lease_namespace:
        identity = os.environ.get("POD_NAME") or f"{socket.gethostname()}-{os.getpid()}"
        elector = LeaderElector(reconciler.cluster, lease_namespace, identity, reconciler.clock,
                                on_change=lambda leader: _leading(controller, leader))
        electing = threading.Thread(target=elector.run, args=(controller.stop,), name="leader", daemon=True)
        electing.start()
    else:
        _leading(controller, True)
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: controller.stop.set())
    controller.start()
    log.info("reconciler started")
    controller.stop.wait()
    if elector is not None and electing is not None:
        electing.join(timeout=10)  # no renewal may race the release
        elector.release()
    for server in servers:
        server.shutdown()
        server.server_close()
    log.info("reconciler stopped")


def _leading(controller: Controller, leader: bool) -> None:
    controller.reconciler.metrics.is_leader.set(1 if leader else 0)
    if leader:
        controller.leading.set()
    else:
        controller.leading.clear()
