"""The long-running reconciler: list+watch caches for MXJobs and their pods, a keyed work queue with delayed
requeues served by a small worker pool, leader election with fencing, /metrics, /healthz and /readyz, and a
graceful stop on SIGTERM."""

from __future__ import annotations

import logging
import marshal
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.reconciler.health import http_server
from mxjob_gitops.reconciler.kube import WATCH_READ_GRACE_SECONDS, ClusterError, Fenced, Gone
from mxjob_gitops.reconciler.leader import LeaderElector
from mxjob_gitops.reconciler.runner import POD_SELECTOR, RETRY_CAP_SECONDS, Reconciler, Result, retry_delay
from mxjob_gitops.reconciler.state import trim_pod
from mxjob_gitops.reconciler.vocabulary import PodPhase, WatchEventType
from mxjob_gitops.reconciler.workqueue import Key, WorkQueue

log = logging.getLogger("mxjob.reconcile")
WATCH_TIMEOUT_SECONDS = 60
BACKOFF_MIN, BACKOFF_MAX = 0.2, 30.0
WORKERS = 16


def packed(obj: dict[str, Any]) -> bytes:
    """A cached object as one bytes object (marshal: about 8 us for a trimmed pod), decoded again for each
    reconcile. As dicts and strings, a trimmed pod took about 1.7 KB and kept small objects of its decoded watch
    event alive, which pinned the allocator's pools: the reconciler's RSS grew by a third each time every pod
    changed once (bench/reconcile_bench.py at 5,000 jobs; docs/reconciler.md, "Speed")."""
    return marshal.dumps(obj)


def unpacked(data: bytes) -> dict[str, Any]:
    obj: dict[str, Any] = marshal.loads(data)
    return obj


def _key(obj: dict[str, Any]) -> Key:
    return str(_meta(obj).get("namespace") or ""), str(_meta(obj).get("name"))


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = obj.get("metadata") or {}
    return meta


def _news(pod: dict[str, Any]) -> bool:
    """A pod its job must react to: finished (its exit decides a restart, the job's end or its failure), or being
    deleted before it finished (lost: evicted, deleted by someone else). Its job is queued ahead of follow-ups
    when a pod first shows this (reconciler.workqueue)."""
    phase = (pod.get("status") or {}).get("phase")
    return phase in (PodPhase.FAILED, PodPhase.SUCCEEDED) or bool(_meta(pod).get("deletionTimestamp"))


class Informer:
    """One list+watch cache: resumes from the last resourceVersion, lists again on 410 Gone, backs off on
    errors, follows bookmarks. `on_change` gets every object that was added, changed or removed."""

    def __init__(
        self,
        reconciler: Reconciler,
        api_version: str,
        kind: str,
        namespace: str | None,
        selector: str,
        on_change: Callable[[dict[str, Any], bytes, bool], None],
        stop: threading.Event,
        keep: Callable[[dict[str, Any]], dict[str, Any]] = lambda obj: obj,
        watch_timeout: int = WATCH_TIMEOUT_SECONDS,
        watch_grace: float = WATCH_READ_GRACE_SECONDS,
    ) -> None:
        self.reconciler = reconciler
        self.watch_timeout = watch_timeout
        self.watch_grace = watch_grace
        self.last_seen = time.monotonic()  # the last list, event, bookmark or clean end of a watch
        self.keep = keep
        self.api_version, self.kind, self.namespace, self.selector = api_version, kind, namespace, selector
        self.on_change = on_change
        self.stop = stop
        self.cache: dict[Key, bytes] = {}  # each kept object packed (see `packed`)
        self.lock = threading.Lock()
        self.synced = threading.Event()

    def get(self, key: Key) -> dict[str, Any] | None:
        with self.lock:
            found = self.cache.get(key)
        return unpacked(found) if found is not None else None

    def _entry(self, obj: dict[str, Any]) -> tuple[Key, bytes]:
        kept = self.keep(obj)
        return _key(kept), packed(kept)

    def run(self) -> None:
        cluster, metrics = self.reconciler.cluster, self.reconciler.metrics
        delay = BACKOFF_MIN
        while not self.stop.is_set():
            try:
                entries, version = cluster.list_kept(
                    self.api_version, self.kind, self.namespace, self.selector, self._entry
                )
                fresh = dict(entries)
                with self.lock:
                    gone = [data for key, data in self.cache.items() if key not in fresh]
                    self.cache = fresh
                for _, data in entries:
                    self.on_change(unpacked(data), data, False)
                for data in gone:
                    self.on_change(unpacked(data), data, True)
                del entries, fresh, gone
                self.synced.set()
                self.last_seen = time.monotonic()
                delay = BACKOFF_MIN
                while not self.stop.is_set():
                    version = self._watch(version)
                    self.last_seen = time.monotonic()
                    metrics.watch_restarts.labels(self.kind, "timeout").inc()
            except Gone:
                metrics.watch_restarts.labels(self.kind, "gone").inc()
                log.info(f"{self.kind} watch: resource version expired, listing again")
            except ClusterError as exc:
                metrics.watch_restarts.labels(self.kind, "error").inc()
                log.warning(f"{self.kind} watch: {exc}; retrying in {delay:.1f} s")
                self.stop.wait(delay)
                delay = min(delay * 2, BACKOFF_MAX)

    def silent_for(self) -> float:
        return time.monotonic() - self.last_seen

    def _watch(self, version: str) -> str:
        for event in self.reconciler.cluster.watch(
            self.api_version, self.kind, self.namespace, self.selector, version, self.watch_timeout, self.watch_grace
        ):
            self.last_seen = time.monotonic()
            if self.stop.is_set():
                break
            obj = event["object"]
            version = str(_meta(obj).get("resourceVersion") or version)
            if event["type"] == WatchEventType.BOOKMARK:
                continue
            obj = self.keep(obj)
            data, key = packed(obj), _key(obj)
            deleted = event["type"] == WatchEventType.DELETED
            with self.lock:
                if deleted:
                    self.cache.pop(key, None)
                else:
                    self.cache[key] = data
            self.on_change(obj, data, deleted)
        return version


class Controller:
    def __init__(
        self,
        reconciler: Reconciler,
        stop: threading.Event | None = None,
        workers: int = WORKERS,
        watch_timeout: int = WATCH_TIMEOUT_SECONDS,
        retry_cap: float = RETRY_CAP_SECONDS,
        watch_grace: float = WATCH_READ_GRACE_SECONDS,
    ) -> None:
        self.reconciler = reconciler
        self.retry_cap = retry_cap
        self.stop = stop or threading.Event()
        self.queue = WorkQueue()
        self.leading = threading.Event()
        self.may_write: Callable[[], bool] = self.leading.is_set  # leader election narrows it (fencing)
        self.workers = workers
        # A watch silent for longer than this (no event, bookmark or end of stream) has stalled; /healthz fails.
        self.silence_window = 2 * (watch_timeout + watch_grace) + 10
        # Past this, a cache may be out of date (the client should have listed again by now): /readyz fails.
        self.stale_window = watch_timeout + watch_grace + 5
        self.threads: list[threading.Thread] = []
        self._failures: dict[Key, int] = {}
        # Pods by job (the pod informer's packed entries, shared): a reconcile must not scan every pod.
        self._by_job: dict[Key, dict[str, bytes]] = {}
        self._index_lock = threading.Lock()
        namespaces = reconciler.settings.namespaces or (None,)
        self.jobs = [
            Informer(
                reconciler,
                c.API_VERSION,
                c.KIND,
                ns,
                "",
                self._job_changed,
                self.stop,
                watch_timeout=watch_timeout,
                watch_grace=watch_grace,
            )
            for ns in namespaces
        ]
        self.pods = [
            Informer(
                reconciler,
                "v1",
                "Pod",
                ns,
                POD_SELECTOR,
                self._pod_changed,
                self.stop,
                trim_pod,
                watch_timeout,
                watch_grace,
            )
            for ns in namespaces
        ]

    def _job_changed(self, obj: dict[str, Any], _data: bytes, deleted: bool) -> None:
        self.queue.add((str(_meta(obj).get("namespace") or ""), str(_meta(obj).get("name"))))

    def _pod_changed(self, obj: dict[str, Any], data: bytes, deleted: bool) -> None:
        job = (_meta(obj).get("labels") or {}).get(c.LABEL_JOB_NAME)
        if not job:
            return
        key = (str(_meta(obj).get("namespace") or ""), str(job))
        name = str(_meta(obj).get("name"))
        with self._index_lock:
            pods = self._by_job.setdefault(key, {})
            before = pods.pop(name, None) if deleted else pods.get(name)
            if not deleted:
                pods[name] = data
        self.queue.add(key, urgent=not deleted and _news(obj) and (before is None or not _news(unpacked(before))))

    def ready(self) -> bool:
        return all(i.synced.is_set() for i in (*self.jobs, *self.pods))

    def readiness(self) -> str:
        """Empty when ready; else why not: a cache never listed, or one that heard nothing for too long."""
        if not self.ready():
            return "caches not synced"
        stale = [
            f"{i.kind} ({i.silent_for():.0f} s)" for i in (*self.jobs, *self.pods) if i.silent_for() > self.stale_window
        ]
        return f"cache not refreshed for longer than {self.stale_window} s: {', '.join(stale)}" if stale else ""

    def health(self) -> str:
        """Empty when healthy; else what is wrong: a dead thread, or a watch silent beyond the window."""
        dead = [t.name for t in self.threads if not t.is_alive()]
        if dead and not self.stop.is_set():
            return f"threads not running: {', '.join(dead)}"
        stalled = [
            f"{i.kind} ({i.silent_for():.0f} s)"
            for i in (*self.jobs, *self.pods)
            if i.silent_for() > self.silence_window
        ]
        return f"watch silent longer than {self.silence_window} s: {', '.join(stalled)}" if stalled else ""

    def _job(self, key: Key) -> dict[str, Any] | None:
        for informer in self.jobs:
            found = informer.get(key)
            if found is not None:
                return found
        return None

    def _pods(self, key: Key) -> list[dict[str, Any]]:
        with self._index_lock:
            found = list((self._by_job.get(key) or {}).values())
        return [unpacked(pod) for pod in found]

    def work(self) -> None:
        """One worker: never leaves its loop on an error (every failure is the job's, and requeued)."""
        while not self.stop.is_set():
            key = self.queue.get(self.stop)
            if key is None:
                continue
            try:
                self._work_on(key)
            except Exception as exc:  # a bug outside any one reconcile: logged, the key retried later
                log.exception(f"worker: {exc!r}")
                self.queue.add(key, retry_delay(self._failures.get(key, 0) + 1, None, self.retry_cap))
            finally:
                self.queue.done(key)

    def _work_on(self, key: Key) -> None:
        if not self.may_write() or not self.ready():
            if self.ready():
                self.reconciler.metrics.reconcile_skipped.labels("not_leader").inc()
            self.queue.add(key, 0.5)
            return
        job = self._job(key)
        if job is None:
            self._failures.pop(key, None)
            return
        try:
            result = self.reconciler.reconcile(job, self._pods(key))
        except Fenced as exc:
            self.reconciler.metrics.reconcile_skipped.labels("fenced").inc()
            log.warning(f"{key[0]}/{key[1]}: {exc}")
            self.queue.add(key, 0.5)
            return
        self._requeue(key, result)

    def _requeue(self, key: Key, result: Result) -> None:
        if result.error:
            self._failures[key] = self._failures.get(key, 0) + 1
            delay = retry_delay(self._failures[key], result.retry_after, self.retry_cap)
            if result.retry_after is not None:
                self.queue.hold_off(key, delay)
            elif result.retry:
                self.queue.add(key, delay)
            return
        self._failures.pop(key, None)
        if result.follow_up:
            self.queue.add(key, 1.0)  # the pod watch normally brings it back sooner
        if result.again_in is not None:
            self.queue.add(key, result.again_in + 0.05)

    def start(self) -> list[threading.Thread]:
        threads = [
            threading.Thread(target=i.run, name=f"informer-{i.kind}", daemon=True) for i in (*self.jobs, *self.pods)
        ]
        threads += [threading.Thread(target=self.work, name=f"worker-{n}", daemon=True) for n in range(self.workers)]
        for thread in threads:
            thread.start()
        self.threads.extend(threads)
        return threads


def serve(
    reconciler: Reconciler,
    metrics_address: str,
    health_address: str,
    elector: LeaderElector | None,
    stop: threading.Event | None = None,
    workers: int = WORKERS,
    watch_timeout: int = WATCH_TIMEOUT_SECONDS,
) -> None:
    """Run until SIGTERM/SIGINT (or `stop`); the lease is released on the way out."""
    controller = Controller(reconciler, stop, workers, watch_timeout)
    registry = controller.reconciler.metrics.registry
    servers = [
        http_server(address, registry, controller.health, controller.readiness)
        for address in dict.fromkeys((metrics_address, health_address))
    ]
    electing = None
    if elector is not None:
        elector.on_change = lambda leader: _leading(controller, leader)
        controller.may_write = elector.may_act
        reconciler.fence_with(elector.may_act)
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


def identity() -> str:
    return os.environ.get("POD_NAME") or f"{socket.gethostname()}-{os.getpid()}"


def _leading(controller: Controller, leader: bool) -> None:
    controller.reconciler.metrics.is_leader.set(1 if leader else 0)
    if leader:
        controller.leading.set()
    else:
        controller.leading.clear()
