"""MXJob objects whose status comes from the reconciler's own decide(), one per state, for the health-check tests."""

from __future__ import annotations

import copy
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from mxjob_gitops.reconciler.decide import decide
from mxjob_gitops.reconciler.jobs import JobCache
from mxjob_gitops.reconciler.plan import Plan
from mxjob_gitops.reconciler.state import JobView, PodView
from mxjob_gitops.reconciler.vocabulary import PodPhase
from tests.helpers import job, replica

NOW = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)


def mxjob(**run_policy: Any) -> dict[str, Any]:
    """Scheduler, Server and two Workers, all with the ExitCode restart policy."""
    spec = job(
        "mnist",
        Scheduler=replica(1, restartPolicy="ExitCode"),
        Server=replica(1, restartPolicy="ExitCode"),
        Worker=replica(2, restartPolicy="ExitCode"),
    )
    spec["metadata"].update(namespace="ml", generation=1)  # as the API server creates it: the view reads it
    if run_policy:
        spec["spec"]["runPolicy"] = run_policy
    return spec


def _view(obj: dict[str, Any]) -> JobView:
    """The reconciler's own view of the job (compiled with the compiler's defaults)."""
    return JobCache().view(obj)


def _pod(view: JobView, replica_type: str, index: int, phase: str = "Running", **changes: Any) -> PodView:
    name = f"{view.name}-{replica_type.lower()}-{index}"
    return replace(PodView(name, f"{name}-uid", replica_type, index, PodPhase(phase)), **changes)


def _running(view: JobView) -> list[PodView]:
    return [_pod(view, t, i) for t, policy in sorted(view.replicas.items()) for i in range(policy.replicas)]


def _swap(pods: list[PodView], new: PodView) -> list[PodView]:
    return [new if p.name == new.name else p for p in pods]


def _with_status(obj: dict[str, Any], plan: Plan) -> dict[str, Any]:
    result = copy.deepcopy(obj)
    result["status"] = copy.deepcopy(plan.status)
    return result


def _started(obj: dict[str, Any]) -> tuple[JobView, Plan]:
    view = _view(obj)
    created = decide(view, [], NOW, {})
    return view, decide(view, _running(view), NOW, created.status)


def created() -> dict[str, Any]:
    obj = mxjob()
    return _with_status(obj, decide(_view(obj), [], NOW, {}))


def running() -> dict[str, Any]:
    obj = mxjob()
    return _with_status(obj, _started(obj)[1])


def no_conditions() -> dict[str, Any]:
    result = running()
    del result["status"]["conditions"]
    return result


def _one_pod_exits(replica_type: str, index: int, phase: str, exit_code: int) -> dict[str, Any]:
    """All pods ran; then one of them ended with `exit_code`."""
    obj = mxjob()
    view, started = _started(obj)
    ended = _pod(view, replica_type, index, phase, exit_code=exit_code, finished_at=NOW)
    return _with_status(obj, decide(view, _swap(_running(view), ended), NOW, started.status))


def restarting() -> dict[str, Any]:
    return _one_pod_exits("Worker", 1, "Failed", 137)


def suspended() -> dict[str, Any]:
    obj = mxjob()
    started = _started(obj)[1]
    obj["spec"]["runPolicy"] = {"suspend": True}
    return _with_status(obj, decide(_view(obj), _running(_view(obj)), NOW, started.status))


def succeeded() -> dict[str, Any]:
    return _one_pod_exits("Scheduler", 0, "Succeeded", 0)


def failed_permanent_exit_code() -> dict[str, Any]:
    return _one_pod_exits("Worker", 1, "Failed", 1)


def failed_backoff_limit() -> dict[str, Any]:
    """One restart allowed: the worker fails (137, retryable), is restarted, and its replacement fails again."""
    obj = mxjob(backoffLimit=1)
    view, started = _started(obj)
    first = _pod(view, "Worker", 1, "Failed", exit_code=137, finished_at=NOW)
    restarted = decide(view, _swap(_running(view), first), NOW, started.status)
    later = NOW + timedelta(minutes=5)
    again = _pod(view, "Worker", 1, "Failed", uid="replacement-uid", exit_code=137, finished_at=later)
    return _with_status(obj, decide(view, _swap(_running(view), again), later, restarted.status))


def failed_deadline() -> dict[str, Any]:
    obj = mxjob(activeDeadlineSeconds=600)
    view, started = _started(obj)
    return _with_status(obj, decide(view, _running(view), NOW + timedelta(seconds=601), started.status))
