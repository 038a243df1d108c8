"""Observe → decide → act for one job, with every failure kept inside that job (`Result`), and one complete
pass over every job (`mxjob reconcile --once`)."""

from __future__ import annotations

import heapq
import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.exitcodes import ExitTable
from mxjob_gitops.reconciler import absent
from mxjob_gitops.reconciler.apply import Applier, ApplySettings
from mxjob_gitops.reconciler.decide import Plan, decide, needs_rendering, refuse
from mxjob_gitops.reconciler.jobs import (
    Bounds,
    InvalidRecord,
    JobCache,
    JobError,
    TooLarge,
    config_map_name,
    generation_of,
)
from mxjob_gitops.reconciler.kube import Cluster, ClusterError, Conflict, Fenced, Transient, Writer
from mxjob_gitops.reconciler.kueue import ReleasePod
from mxjob_gitops.reconciler.metrics import Metrics
from mxjob_gitops.reconciler.plan import CreatePod, DeletePod
from mxjob_gitops.reconciler.state import Condition, JobView, PodView
from mxjob_gitops.reconciler.trust import clean_status, owned_pods
from mxjob_gitops.reconciler.vocabulary import Reason
from mxjob_gitops.reconciler.workqueue import Key
from mxjob_gitops.reconciler.written import Written

log = logging.getLogger("mxjob.reconcile")
POD_SELECTOR = f"{c.LABEL_OPERATOR_NAME}={c.OPERATOR_NAME}"
CONFLICT_RETRIES = 5
RETRY_BASE_SECONDS, RETRY_CAP_SECONDS = 0.5, 300.0


def utc_now() -> datetime:
    return datetime.now(UTC)


def retry_delay(failures: int, retry_after: float | None, cap: float = RETRY_CAP_SECONDS) -> float:
    """Exponential back-off with jitter (half to all of base·2ⁿ, capped); a server's Retry-After is a floor."""
    delay: float = min(cap, RETRY_BASE_SECONDS * 2.0 ** max(failures - 1, 0)) * random.uniform(0.5, 1.0)
    return max(delay, min(retry_after, cap)) if retry_after is not None else delay


@dataclass(frozen=True, slots=True)
class Settings:
    namespaces: tuple[str, ...] = ()
    table: ExitTable = field(default_factory=ExitTable)
    apply: ApplySettings = field(default_factory=ApplySettings)
    bounds: Bounds = field(default_factory=Bounds)


@dataclass(frozen=True, slots=True)
class Result:
    """How reconciling one job went. `error` set: it could not be reconciled (logged and counted)."""

    plan: Plan | None = None
    error: str = ""
    retry: bool = True  # try the job again with back-off (False: only a change of the job can help)
    # Refused and reported (a condition and an event): the watch loop retries a record with back-off, since a
    # fixed ConfigMap brings no event for the job; a --once pass leaves it to the next pass instead of waiting
    # out its time for a fix that comes from outside.
    refused: bool = False
    retry_after: float | None = None  # the server's Retry-After
    follow_up: bool = False  # a restart is under way: look again soon (the old pod gone → create the new)

    @property
    def again_in(self) -> float | None:
        return self.plan.requeue_after if self.plan is not None else None


class Reconciler:
    def __init__(
        self,
        cluster: Cluster,
        settings: Settings,
        clock: Callable[[], datetime] = utc_now,
        metrics: Metrics | None = None,
        fence: Callable[[], bool] = lambda: True,
    ) -> None:
        self.cluster = cluster
        self.settings = settings
        self.clock = clock
        self.metrics = metrics or Metrics()
        self.jobs = JobCache(settings.bounds)
        self.applier = Applier(Writer(cluster, fence), settings.apply, clock)
        self.written = Written()

    def fence_with(self, fence: Callable[[], bool]) -> None:
        """Writes go out only while `fence()` holds (leader election's may_act)."""
        if self.applier.writer is not None:
            self.applier.writer.fence = fence

    def pods_of(self, namespace: str, name: str) -> list[dict[str, Any]]:
        return self.cluster.list("v1", "Pod", namespace, f"{POD_SELECTOR},{c.LABEL_JOB_NAME}={name}")

    def reconcile(self, job_obj: dict[str, Any], pods: list[dict[str, Any]]) -> Result:
        """Decide and act for one job. Nothing escapes but Fenced (this replica must stop writing)."""
        meta = job_obj.get("metadata") or {}
        namespace, where = str(meta.get("namespace") or ""), {"job": f"{meta.get('namespace')}/{meta.get('name')}"}
        with self.metrics.reconcile_duration.time():
            try:
                return self._reconcile(job_obj, pods)
            except Fenced:
                raise
            except TooLarge as exc:
                return self._refuse(job_obj, str(exc))
            except InvalidRecord as exc:
                return self._refuse(job_obj, str(exc), Reason.INVALID)
            except JobError as exc:
                kind, result = "invalid", Result(error=f"invalid MXJob, left alone: {exc}")
            except Transient as exc:
                kind, result = "transient", Result(error=str(exc), retry_after=exc.retry_after)
            except ClusterError as exc:
                kind, result = "api", Result(error=str(exc))
            except Exception as exc:  # a bug: this job is reported and retried, the worker goes on
                log.exception(f"internal error: {exc!r}", extra=where)
                kind, result = "internal", Result(error=f"internal error: {exc!r}")
        self.metrics.reconcile_errors.labels(namespace, kind).inc()
        log.warning(result.error, extra=where)
        return result

    def _refuse(self, job_obj: dict[str, Any], message: str, reason: Reason = Reason.TOO_LARGE) -> Result:
        meta = job_obj.get("metadata") or {}
        namespace = str(meta.get("namespace") or "")
        self.metrics.reconcile_errors.labels(namespace, "too_large" if reason is Reason.TOO_LARGE else "invalid").inc()
        log.warning(f"refused: {message}", extra={"job": f"{namespace}/{meta.get('name')}"})
        plan = refuse(
            str(meta.get("name")),
            clean_status(job_obj.get("status")),
            self.clock(),
            reason,
            message,
            generation_of(job_obj),
        )
        try:
            self.applier.events(job_obj, plan)
            self.applier.status(job_obj, plan)
        except ClusterError as exc:
            return Result(error=f"refused ({message}); reporting it failed: {exc}")
        # A record (the job's ConfigMap) is fixed without the job changing: no event brings the job back, so it is
        # retried with back-off; a job too large waits for its own spec to change.
        return Result(plan, error=f"refused: {message}", retry=reason is not Reason.TOO_LARGE, refused=True)

    def _reconcile(self, job_obj: dict[str, Any], pods: list[dict[str, Any]]) -> Result:
        listed = pods
        job_obj = self.written.latest(job_obj)
        view, pods, views = self._observe(job_obj, listed)
        if self._sees_missing(view, job_obj, views):
            # A pod looks gone: confirm on the server, not on caches that may lag our own writes and creations, so
            # that a pod is neither counted twice nor created beside the GitOps engine's.
            fresh = self.cluster.get(c.API_VERSION, c.KIND, view.namespace, view.name)
            if fresh is None:
                return Result()
            job_obj, listed = fresh, self.pods_of(view.namespace, view.name)
            view, pods, views = self._observe(job_obj, listed)
        for _ in range(CONFLICT_RETRIES):
            previous = clean_status(job_obj.get("status"))
            rendering = None
            if self.settings.apply.recreate and needs_rendering(view, previous, views):
                config_map = self.cluster.get("v1", "ConfigMap", view.namespace, config_map_name(job_obj))
                rendering = self.jobs.rendering(job_obj, config_map)
            plan = decide(
                view, views, self.clock(), previous, self.settings.table, self.settings.apply.recreate, rendering
            )
            self.applier.events(job_obj, plan)
            try:
                answer = self.applier.status(job_obj, plan)
                if answer is not None:
                    self.written.remember(job_obj, answer)
                    job_obj = answer
                break
            except Conflict:
                self.metrics.status_conflicts.inc()
                fresh = self.cluster.get(c.API_VERSION, c.KIND, view.namespace, view.name)
                if fresh is None:
                    return Result()
                job_obj = fresh
                # Decided again on the job as it is now: a new spec (and generation, written as observedGeneration)
                # may be why the write conflicted.
                view, pods, views = self._observe(job_obj, listed)
                log.info("status conflict; read the job again and decided again", extra={"job": view.key})
        else:
            raise Transient("the status write kept conflicting")
        self.applier.actions(job_obj, plan, {str((p.get("metadata") or {}).get("name")): p for p in pods})
        self.metrics.observe(view.namespace, previous, plan)
        restarting = any(
            isinstance(a, CreatePod | ReleasePod) or (isinstance(a, DeletePod) and a.reason.is_restart)
            for a in plan.actions
        )
        return Result(plan, follow_up=restarting and self.settings.apply.recreate and not self.settings.apply.dry_run)

    def _sees_missing(self, view: JobView, job_obj: dict[str, Any], views: list[PodView]) -> bool:
        previous = clean_status(job_obj.get("status"))
        conditions = [Condition.from_dict(x) for x in previous.get("conditions") or []]
        return bool(absent.missing(view, conditions, views, previous.get("podRestarts") or {}))

    def _observe(
        self, job_obj: dict[str, Any], pods: list[dict[str, Any]]
    ) -> tuple[JobView, list[dict[str, Any]], list[PodView]]:
        """The job's view, its own pods, and their views."""
        view = self.jobs.view(job_obj)
        if (job_obj.get("metadata") or {}).get("deletionTimestamp"):
            view = replace(view, deleting=True)
        owned = owned_pods(job_obj, pods)
        types = {t.lower(): t for t in view.replicas}
        return view, owned, [v for v in (PodView.from_object(p, types) for p in owned) if v is not None]

    def run_once(self, timeout: float = 60.0, sleep: Callable[[float], None] = time.sleep) -> dict[Key, str]:
        """One complete pass: every job isolated, failures retried with back-off, a restart finished (the old
        pod gone, the new one created). Each job gets `timeout` seconds of its own: the time of its own
        requests plus its own waits (retries, polling for a deleted pod), never the time other jobs take,
        so a job whose requests hang cannot use up another's budget. Returns the jobs left, with why."""
        listed: dict[Key, dict[str, Any]] = {}
        for namespace in self.settings.namespaces or (None,):
            for job in self.cluster.list(c.API_VERSION, c.KIND, namespace, ""):
                listed[job_key(job)] = job
        queue: list[tuple[float, Key]] = [(0.0, key) for key in sorted(listed)]
        spent: dict[Key, float] = {}
        failures: dict[Key, int] = {}
        polls: dict[Key, int] = {}
        problems: dict[Key, str] = {}
        while queue:
            due, key = heapq.heappop(queue)
            if spent.get(key, 0.0) > timeout:
                problems.setdefault(key, "not finished within the pass (--pass-timeout)")
                continue
            if due > time.monotonic():
                sleep(due - time.monotonic())
            began = time.monotonic()
            result = self._once(key, listed.pop(key, None))
            problems.pop(key, None)
            delay = None
            if result.error:
                problems[key] = result.error
                failures[key] = failures.get(key, 0) + 1
                retry = result.retry and not result.refused
                delay = retry_delay(failures[key], result.retry_after, 5.0) if retry else None
            elif result.follow_up:  # poll for the old pod to be gone: 10 ms, doubling, at most 1 s apart
                polls[key] = polls.get(key, 0) + 1
                delay = min(0.01 * 2 ** polls[key], 1.0)
            if delay is not None:
                spent[key] = spent.get(key, 0.0) + time.monotonic() - began + delay
                heapq.heappush(queue, (time.monotonic() + delay, key))
        return problems

    def _once(self, key: Key, listed: dict[str, Any] | None) -> Result:
        try:
            job = listed if listed is not None else self.cluster.get(c.API_VERSION, c.KIND, *key)
            if job is None:
                return Result()
            return self.reconcile(job, self.pods_of(*key))
        except Transient as exc:
            return Result(error=str(exc), retry_after=exc.retry_after)
        except ClusterError as exc:
            return Result(error=str(exc))


def job_key(obj: Mapping[str, Any]) -> Key:
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name"))
