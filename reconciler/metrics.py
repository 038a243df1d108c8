"""Prometheus metrics of the reconciler, in a registry of its own (tests and two controllers never collide)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from mxjob_gitops.reconciler.plan import Plan
from mxjob_gitops.reconciler.vocabulary import ConditionType


def _true(conditions: Any, kind: ConditionType) -> bool:
    return any(x.get("type") == kind and x.get("status") == "True" for x in conditions or [])


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        labels = ["job_namespace"]
        self.jobs_created = Counter(
            "mxjob_jobs_created_total", "Jobs seen for the first time (Created).", labels, registry=self.registry
        )
        self.jobs_succeeded = Counter(
            "mxjob_jobs_succeeded_total", "Jobs that succeeded.", labels, registry=self.registry
        )
        self.jobs_failed = Counter("mxjob_jobs_failed_total", "Jobs that failed.", labels, registry=self.registry)
        self.jobs_restarted = Counter(
            "mxjob_jobs_restarted_total", "Pods restarted by the reconciler.", labels, registry=self.registry
        )
        self.pod_exits = Counter(
            "mxjob_pod_exits_total",
            "Failed mxnet containers acted on, by code and class.",
            ["replica_type", "code", "exit_class"],
            registry=self.registry,
        )
        self.reconcile_duration = Histogram(
            "mxjob_reconcile_duration_seconds", "One job's observe-decide-act.", registry=self.registry
        )
        self.watch_restarts = Counter(
            "mxjob_watch_restarts_total",
            "Watches started again (end, error, 410).",
            ["kind", "reason"],
            registry=self.registry,
        )
        self.reconcile_errors = Counter(
            "mxjob_reconcile_errors_total",
            "Reconciles of a job that failed, by kind (invalid, too_large, api, "
            "transient, internal); the job is retried with back-off.",
            ["job_namespace", "kind"],
            registry=self.registry,
        )
        self.reconcile_skipped = Counter(
            "mxjob_reconcile_skipped_total",
            "Reconciles put off because this replica may not write now "
            "(not_leader: it does not know it holds the lease; fenced: it lost that knowledge mid-way).",
            ["reason"],
            registry=self.registry,
        )
        self.status_conflicts = Counter(
            "mxjob_status_conflicts_total",
            "Status writes answered 409 (the job changed since it was read); each is read again and decided again.",
            registry=self.registry,
        )
        self.api_requests = Counter(
            "mxjob_api_requests_total",
            "Requests sent to the API server, by verb (WATCH: a watch opened).",
            ["verb"],
            registry=self.registry,
        )
        self.is_leader = Gauge("mxjob_is_leader", "1 while this replica holds the lease.", registry=self.registry)

    def observe(self, namespace: str, previous: Mapping[str, Any], plan: Plan) -> None:
        before, after = previous.get("conditions"), plan.status.get("conditions")
        if not any(x.get("type") == ConditionType.CREATED for x in before or []) and after:
            self.jobs_created.labels(namespace).inc()
        if _true(after, ConditionType.SUCCEEDED) and not _true(before, ConditionType.SUCCEEDED):
            self.jobs_succeeded.labels(namespace).inc()
        if _true(after, ConditionType.FAILED) and not _true(before, ConditionType.FAILED):
            self.jobs_failed.labels(namespace).inc()
        for replica_type, code, exit_class in plan.exits:
            self.pod_exits.labels(replica_type, str(code), exit_class).inc()
        if plan.restarts:
            self.jobs_restarted.labels(namespace).inc(plan.restarts)
