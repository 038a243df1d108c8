"""The pure decision: `decide(job, pods, now, status) -> Plan` — new status and actions, no I/O, no clock.

Training operator v1.8 semantics with its bugs fixed (docs/reconciler.md lists them): ExitCode with a
permanent code fails the job at once; OnFailure/Always pods that still fail are restarted without failing
the job; MXTune succeeds with its Tuner; restarts are counted exactly in the status (a failed pod's restart
is recorded before the pod is deleted, by uid, so a crash can neither lose nor double-count it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from reconciler.exitcodes import ExitClass, ExitTable, table_for_job
from reconciler.state import Condition, JobView, PodView, has, is_finished, parse_time, set_condition, timestamp

BACKOFF_BASE_SECONDS = 10
BACKOFF_CAP_SECONDS = 300


@dataclass(frozen=True, slots=True)
class DeletePod:
    name: str
    uid: str
    reason: str
    keep: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CreatePod:
    name: str
    keep: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Event:
    type: str
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class Nudge:
    """Ask the GitOps engine to reconcile now: a pod it owns was deleted for a restart."""

    pod: str


Action = DeletePod | CreatePod | Event | Nudge


@dataclass(frozen=True, slots=True)
class Plan:
    status: dict[str, Any]
    actions: tuple[Action, ...] = ()
    requeue_after: float | None = None
    exits: tuple[tuple[str, int | None, str], ...] = ()  # (replica type, code, class) acted on: metrics


@dataclass(slots=True)
class _Work:
    job: JobView
    now: datetime
    conditions: list[Condition]
    status: dict[str, Any]
    recreate: bool = True  # who brings a deleted pod back: we (CreatePod), or the GitOps engine (Nudge)
    actions: list[Action] = field(default_factory=list)
    exits: list[tuple[str, int | None, str]] = field(default_factory=list)
    requeue: float | None = None

    def condition(self, kind: str, reason: str, message: str, status: str = "True") -> None:
        self.conditions = set_condition(self.conditions, kind, status, reason, message, timestamp(self.now))

    def later(self, seconds: float) -> None:
        self.requeue = seconds if self.requeue is None else min(self.requeue, seconds)


def decide(job: JobView, pods: Sequence[PodView], now: datetime, previous: Mapping[str, Any],
           table: ExitTable | None = None, recreate: bool = True) -> Plan:
    work = _Work(job, now, [Condition.from_dict(x) for x in previous.get("conditions") or []],
                 {k: v for k, v in previous.items() if k != "conditions"}, recreate)
    work.status["replicaStatuses"] = _replica_statuses(job, pods)
    if is_finished(work.conditions):
        _clean_up(work, pods)
    elif job.suspend:
        _suspend(work, pods)
    else:
        _run(work, pods, table_for_job(job.annotations, table or ExitTable()))
    status = {**work.status, "conditions": [x.to_dict() for x in work.conditions]}
    return Plan(status, tuple(work.actions), work.requeue, tuple(work.exits))


def _replica_statuses(job: JobView, pods: Sequence[PodView]) -> dict[str, dict[str, int]]:
    """Counted afresh from the pods that exist; zeros left out, as Go's omitempty did."""
    result: dict[str, dict[str, int]] = {}
    for replica_type in job.replicas:
        counts = {"active": 0, "succeeded": 0, "failed": 0}
        for pod in pods:
            if pod.replica_type != replica_type:
                continue
            if pod.phase == "Running":
                counts["failed" if pod.deleting else "active"] += 1
            elif pod.phase == "Succeeded":
                counts["succeeded"] += 1
            elif pod.phase == "Failed":
                counts["failed"] += 1
        result[replica_type] = {k: v for k, v in counts.items() if v}
    return result


def _clean_up(work: _Work, pods: Sequence[PodView]) -> None:
    policy = work.job.clean_pod_policy
    for pod in pods:
        if pod.deleting:
            continue
        if policy == "All" or (policy == "Running" and pod.phase in ("Running", "Pending")):
            work.actions.append(DeletePod(pod.name, pod.uid, f"cleanPodPolicy {policy}"))
    if has(work.conditions, "Succeeded"):
        for counts in work.status["replicaStatuses"].values():
            counts["succeeded"] = counts.get("succeeded", 0) + counts.pop("active", 0)


def _suspend(work: _Work, pods: Sequence[PodView]) -> None:
    name = work.job.name
    if not has(work.conditions, "Suspended"):
        # Running turns False first, so that the newest condition (the State column) says Suspended.
        if has(work.conditions, "Running"):
            work.condition("Running", "MXJobSuspended", f"MXJob {name} is suspended.", status="False")
        work.condition("Suspended", "MXJobSuspended", f"MXJob {name} is suspended.")
        work.actions.append(Event("Normal", "MXJobSuspended", f"MXJob {name} is suspended."))
    for pod in pods:
        if not pod.deleting:
            work.actions.append(DeletePod(pod.name, pod.uid, "the job is suspended"))
    for counts in work.status["replicaStatuses"].values():
        counts.pop("active", None)


def _run(work: _Work, pods: Sequence[PodView], table: ExitTable) -> None:
    name = work.job.name
    if not any(x.type == "Created" for x in work.conditions):
        work.condition("Created", "MXJobCreated", f"MXJob {name} is created.")
    if any(x.type == "Suspended" and x.status == "True" for x in work.conditions):
        work.condition("Suspended", "MXJobResumed", f"MXJob {name} is resumed.", status="False")
        work.status["startTime"] = timestamp(work.now)
    work.status.setdefault("startTime", timestamp(work.now))
    if _past_deadline(work, pods):
        return
    restarts: dict[str, Any] = dict(work.status.get("podRestarts") or {})
    observed = {pod.name for pod in pods}
    # A restarted pod that is gone: recreate it (recreate mode) from the rendering, with its ownership metadata.
    for pod_name, record in sorted(restarts.items()):
        if pod_name not in observed and record.get("pending") and work.recreate:
            work.actions.append(CreatePod(pod_name, record.get("keep") or {}))
    for pod_name, record in list(restarts.items()):
        replacement = _uid(pods, pod_name)
        if record.get("pending") and replacement not in (None, record.get("uid")):
            restarts[pod_name] = {k: v for k, v in record.items() if k != "pending"}  # the new pod is there
    failed_types: dict[str, int] = {}
    for pod in sorted(pods, key=lambda p: (p.replica_type, p.index)):
        if pod.phase != "Failed" or pod.deleting:
            continue
        outcome = _failed_pod(work, pod, pods, table, restarts)
        if outcome == "fail":
            failed_types[pod.replica_type] = failed_types.get(pod.replica_type, 0) + 1
    work.status["podRestarts"] = restarts
    work.status["restartCounts"] = _restart_counts(restarts)
    if failed_types:
        replica_type, count = sorted(failed_types.items())[0]
        _fail(work, pods, "MXJobFailed", f"mxjob {name} is failed because {count} {replica_type} replica(s) failed.",
              delete_all=False)
        return
    if _past_backoff(work, pods):
        return
    _progress(work, pods)


def _uid(pods: Sequence[PodView], name: str) -> str | None:
    return next((p.uid for p in pods if p.name == name), None)


def _failed_pod(work: _Work, pod: PodView, pods: Sequence[PodView], table: ExitTable,
                restarts: dict[str, Any]) -> str:
    """'restart', 'wait' (back-off), 'fail', or 'done' (already acted on)."""
    policy = work.job.replicas[pod.replica_type].restart_policy
    verdict = table.classify(pod.exit_code, pod.reason)
    record = restarts.get(pod.name) or {}
    if record.get("uid") == pod.uid:
        work.actions.append(DeletePod(pod.name, pod.uid, "restart (recorded earlier)", record.get("keep") or {}))
        return "done"
    if policy == "Never" or (policy == "ExitCode" and verdict is not ExitClass.RETRYABLE):
        work.exits.append((pod.replica_type, pod.exit_code, verdict.value))
        work.actions.append(_exit_event(work, pod, verdict))
        return "fail"
    limit = work.job.backoff_limit
    if limit is not None and _total_restarts(restarts, pods) >= limit:  # the same count _past_backoff uses
        work.exits.append((pod.replica_type, pod.exit_code, verdict.value))
        return "backoff"
    previous = int(record.get("count", 0))
    delay = min(BACKOFF_BASE_SECONDS * 2 ** max(previous - 1, 0), BACKOFF_CAP_SECONDS) if previous else 0
    # A kubelet clock ahead of ours must not postpone a restart: never count from later than now.
    ready_at = min(pod.finished_at or work.now, work.now) + timedelta(seconds=delay)
    if ready_at > work.now:
        work.later((ready_at - work.now).total_seconds())
        return "wait"
    work.exits.append((pod.replica_type, pod.exit_code, verdict.value))
    restarts[pod.name] = {"type": pod.replica_type, "count": previous + 1 + pod.restart_count, "uid": pod.uid,
                          "pending": True, "keep": dict(pod.ownership) or record.get("keep") or {}}
    work.actions.append(_exit_event(work, pod, verdict))
    work.actions.append(DeletePod(pod.name, pod.uid, "restart"))
    if not work.recreate:
        work.actions.append(Nudge(pod.name))
    work.condition("Restarting", "MXJobRestarting",
                   f"job {work.job.name} is restarting because {pod.replica_type} replica(s) failed.")
    work.actions.append(Event("Warning", "MXJobRestarting", f"restarting pod {pod.name}"))
    return "restart"


def _exit_event(work: _Work, pod: PodView, verdict: ExitClass) -> Event:
    what = f"exited with code {pod.exit_code}" if pod.exit_code is not None else f"failed ({pod.reason or 'no code'})"
    return Event("Warning", "ExitedWithCode", f"Pod: {work.job.namespace}.{pod.name} {what} ({verdict.value})")


def _total_restarts(restarts: Mapping[str, Any], pods: Sequence[PodView]) -> int:
    counted = {name for name, record in restarts.items() if any(p.name == name and p.uid == record.get("uid")
                                                                 for p in pods)}
    return (sum(int(r.get("count", 0)) for r in restarts.values())
            + sum(p.restart_count for p in pods if p.name not in counted))


def _restart_counts(restarts: Mapping[str, Any]) -> dict[str, int]:
    by_type: dict[str, int] = {}
    for record in restarts.values():
        replica_type = str(record.get("type", ""))
        by_type[replica_type] = by_type.get(replica_type, 0) + int(record.get("count", 0))
    return dict(sorted(by_type.items()))


def _past_deadline(work: _Work, pods: Sequence[PodView]) -> bool:
    seconds = work.job.active_deadline_seconds
    started = parse_time(work.status.get("startTime"))
    if seconds is None or started is None:
        return False
    remaining = (started + timedelta(seconds=seconds) - work.now).total_seconds()
    if remaining > 0:
        work.later(remaining)
        return False
    _fail(work, pods, "MXJobFailed",
          f"Job {work.job.name} has failed because it was active longer than specified deadline", delete_all=True)
    return True


def _past_backoff(work: _Work, pods: Sequence[PodView]) -> bool:
    limit = work.job.backoff_limit
    restarts = work.status.get("podRestarts") or {}
    blocked = any(p.phase == "Failed" and not p.deleting and (restarts.get(p.name) or {}).get("uid") != p.uid
                  for p in pods)
    if limit is None or not blocked or _total_restarts(restarts, pods) < limit:
        return False
    _fail(work, pods, "MXJobFailed",
          f"Job {work.job.name} has failed because it has reached the specified backoff limit", delete_all=True)
    return True


def _fail(work: _Work, pods: Sequence[PodView], reason: str, message: str, delete_all: bool) -> None:
    work.condition("Failed", reason, message)
    work.status["completionTime"] = timestamp(work.now)
    work.actions.append(Event("Warning", reason, message))
    if delete_all:
        work.actions.extend(DeletePod(p.name, p.uid, "the job failed on a limit") for p in pods if not p.deleting)
    work.requeue = None


def _progress(work: _Work, pods: Sequence[PodView]) -> None:
    job, name = work.job, work.job.name
    for replica_type in job.deciding_types():
        expected = job.replicas[replica_type].replicas
        mine = [p for p in pods if p.replica_type == replica_type]
        succeeded = sum(p.phase == "Succeeded" for p in mine)
        if expected and succeeded >= expected:
            work.condition("Succeeded", "MXJobSucceeded", f"MXJob {name} is successfully completed.")
            work.status["completionTime"] = timestamp(work.now)
            work.actions.append(Event("Normal", "MXJobSucceeded", f"MXJob {name} is successfully completed."))
            work.requeue = None
            return
        if any(p.phase == "Running" and not p.deleting for p in mine) and not _restarting_now(work):
            work.condition("Running", "MXJobRunning", f"MXJob {name} is running.")


def _restarting_now(work: _Work) -> bool:
    return any(isinstance(a, DeletePod) and a.reason == "restart" for a in work.actions)
