"""Observe → decide → act for one job, and one full pass over every job (`mxjob reconcile --once`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from compiler import constants as c
from reconciler.apply import Applier, ApplySettings
from reconciler.decide import Plan, decide
from reconciler.exitcodes import ExitTable
from reconciler.jobs import JobError, live_job
from reconciler.kube import Cluster, Conflict
from reconciler.metrics import Metrics
from reconciler.state import PodView

log = logging.getLogger("mxjob.reconcile")
POD_SELECTOR = f"{c.LABEL_OPERATOR_NAME}={c.OPERATOR_NAME}"
CONFLICT_RETRIES = 5


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Settings:
    namespaces: tuple[str, ...] = ()
    table: ExitTable = field(default_factory=ExitTable)
    apply: ApplySettings = field(default_factory=ApplySettings)


class Reconciler:
    def __init__(self, cluster: Cluster, settings: Settings, clock: Callable[[], datetime] = utc_now,
                 metrics: Metrics | None = None) -> None:
        self.cluster = cluster
        self.settings = settings
        self.clock = clock
        self.metrics = metrics or Metrics()
        self.applier = Applier(cluster, settings.apply, clock)

    def pods_of(self, namespace: str, name: str) -> list[dict[str, Any]]:
        return self.cluster.list("v1", "Pod", namespace, f"{POD_SELECTOR},{c.LABEL_JOB_NAME}={name}")

    def reconcile(self, job_obj: dict[str, Any], pods: list[dict[str, Any]]) -> Plan | None:
        """Decide and act for one job; on a 409 the job is read again and the decision made again."""
        with self.metrics.reconcile_duration.time():
            return self._reconcile(job_obj, pods)

    def _reconcile(self, job_obj: dict[str, Any], pods: list[dict[str, Any]]) -> Plan | None:
        meta = job_obj.get("metadata") or {}
        where = {"job": f"{meta.get('namespace')}/{meta.get('name')}"}
        try:
            live = live_job(job_obj)
        except JobError as exc:
            log.warning(f"invalid MXJob, left alone: {exc}", extra=where)
            return None
        types = {t.lower(): t for t in live.view.replicas}
        views = [v for v in (PodView.from_object(p, types) for p in pods) if v is not None]
        for _ in range(CONFLICT_RETRIES):
            previous = job_obj.get("status") or {}
            plan = decide(live.view, views, self.clock(), previous, self.settings.table, self.settings.apply.recreate)
            try:
                self.applier.status(job_obj, plan)
                break
            except Conflict:
                fresh = self.cluster.get(c.API_VERSION, c.KIND, live.view.namespace, live.view.name)
                if fresh is None:
                    return None
                job_obj = fresh
                log.info("status conflict; read the job again and decided again", extra=where)
        else:
            log.warning("status kept conflicting; will try again on the next event", extra=where)
            return None
        self.applier.actions(job_obj, plan, {str((p.get("metadata") or {}).get("name")): p for p in pods})
        self.metrics.observe(live.view.namespace, previous, plan)
        return plan

    def run_once(self) -> list[Plan]:
        """One pass over every MXJob in the watched namespaces."""
        plans = []
        for namespace in self.settings.namespaces or (None,):
            for job in self.cluster.list(c.API_VERSION, c.KIND, namespace, ""):
                meta = job.get("metadata") or {}
                plan = self.reconcile(job, self.pods_of(str(meta.get("namespace") or ""), str(meta.get("name"))))
                if plan is not None:
                    plans.append(plan)
        return plans
