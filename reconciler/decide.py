"""The pure decision: `decide(job, pods, now, status, rendering) -> Plan` — new status and actions, no I/O.

Training operator v1.8 semantics with its bugs fixed (docs/reconciler.md lists them): ExitCode with a
permanent code fails the job at once; OnFailure/Always pods that still fail are restarted without failing
the job; MXTune succeeds with its Tuner; restarts are counted exactly in the status (a failed pod's restart
is recorded before the pod is deleted, by uid, so a crash can neither lose nor double-count it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from mxjob_gitops.compiler.spec.exitcodes import ExitClass, ExitTable, table_for_job
from mxjob_gitops.reconciler import kueue
from mxjob_gitops.reconciler.plan import Action, CreatePod, DeletePod, Event, Nudge, Plan, PodSource
from mxjob_gitops.reconciler.standard import standard_conditions
from mxjob_gitops.reconciler.state import (
    Condition,
    JobView,
    PodView,
    has,
    is_finished,
    parse_time,
    set_condition,
    timestamp,
)
from mxjob_gitops.reconciler.vocabulary import (
    BACKOFF_COUNTED,
    CleanPodPolicy,
    ConditionType,
    DeleteReason,
    EventType,
    Outcome,
    PodPhase,
    Reason,
    RestartPolicy,
)

BACKOFF_BASE_SECONDS = 10
BACKOFF_CAP_SECONDS = 300
__all__ = ["Action", "CreatePod", "DeletePod", "Event", "Nudge", "Plan", "PodSource", "decide", "refuse"]


@dataclass(slots=True)
class _Work:
    job: JobView
    now: datetime
    conditions: list[Condition]
    status: dict[str, Any]
    recreate: bool = True  # who brings a deleted pod back: we (CreatePod), or the GitOps engine (Nudge)
    rendering: PodSource | None = None
    actions: list[Action] = field(default_factory=list)
    exits: list[tuple[str, int | None, str]] = field(default_factory=list)
    requeue: float | None = None

    def condition(self, kind: ConditionType, reason: Reason, message: str, status: str = "True") -> None:
        self.conditions = set_condition(self.conditions, kind, status, reason, message, timestamp(self.now))

    def event(self, kind: EventType, reason: Reason, message: str, about: str = "") -> None:
        self.actions.append(Event(kind, reason, message, about))

    def later(self, seconds: float) -> None:
        self.requeue = seconds if self.requeue is None else min(self.requeue, seconds)


def decide(
    job: JobView,
    pods: Sequence[PodView],
    now: datetime,
    previous: Mapping[str, Any],
    table: ExitTable | None = None,
    recreate: bool = True,
    rendering: PodSource | None = None,
) -> Plan:
    work = _Work(
        job,
        now,
        [Condition.from_dict(x) for x in previous.get("conditions") or []],
        {k: v for k, v in previous.items() if k != "conditions"},
        recreate,
        rendering,
    )
    work.status["replicaStatuses"] = _replica_statuses(job, pods)
    if is_finished(work.conditions):
        _clean_up(work, pods)
    elif job.suspend:
        _suspend(work, pods)
    else:
        _run(work, pods, table_for_job(job.annotations, table or ExitTable()))
    return Plan(
        _status(work.status, work.conditions, job.generation, now), tuple(work.actions), work.requeue, tuple(work.exits)
    )


def _status(
    status: Mapping[str, Any], conditions: list[Condition], generation: int | None, now: datetime
) -> dict[str, Any]:
    """The status to write: the Kubeflow conditions with the kstatus-standard ones (reconciler.standard), and the
    generation this decision saw, so that kstatus reads a spec we have not reconciled yet as InProgress."""
    written = {**status, "conditions": [x.to_dict() for x in standard_conditions(conditions, timestamp(now))]}
    if generation is not None:
        written["observedGeneration"] = generation
    return written


def pods_to_create(previous: Mapping[str, Any], pods: Sequence[PodView]) -> list[str]:
    """Pods whose restart is recorded as pending and that are gone: what a recreation needs rendered."""
    pending = {
        name
        for name, record in (previous.get("podRestarts") or {}).items()
        if isinstance(record, Mapping) and record.get("pending")
    }
    if not pending:
        return []
    return sorted(pending - {pod.name for pod in pods if pod.name in pending})


def refuse(
    name: str, previous: Mapping[str, Any], now: datetime, reason: Reason, message: str, generation: int | None = None
) -> Plan:
    """A job the reconciler will not act on (too large): a Refused condition (and Stalled) and an Event, nothing
    else."""
    conditions = [Condition.from_dict(x) for x in previous.get("conditions") or []]
    if not any(x.type == ConditionType.CREATED for x in conditions):
        conditions = set_condition(
            conditions, ConditionType.CREATED, "True", Reason.CREATED, f"MXJob {name} is created.", timestamp(now)
        )
    conditions = set_condition(conditions, ConditionType.REFUSED, "True", reason, message, timestamp(now))
    return Plan(_status(previous, conditions, generation, now), (Event(EventType.WARNING, reason, message),))


def _replica_statuses(job: JobView, pods: Sequence[PodView]) -> dict[str, dict[str, int]]:
    """Counted afresh from the pods that exist; zeros left out, as Go's omitempty did. One pass over the pods."""
    seen = Counter((p.replica_type, p.phase, p.deleting) for p in pods)
    counts = {replica_type: {"active": 0, "succeeded": 0, "failed": 0} for replica_type in job.replicas}
    for (replica_type, phase, deleting), number in seen.items():
        mine = counts.get(replica_type)
        if mine is None:
            continue
        if phase is PodPhase.RUNNING:
            mine["failed" if deleting else "active"] += number
        elif phase is PodPhase.SUCCEEDED:
            mine["succeeded"] += number
        elif phase is PodPhase.FAILED:
            mine["failed"] += number
    return {t: {k: v for k, v in c.items() if v} for t, c in counts.items()}


def _clean_up(work: _Work, pods: Sequence[PodView]) -> None:
    # Again on every later pass, in case the finishing pass stopped before its actions.
    work.actions.extend(kueue.end_group(pods))
    policy = work.job.clean_pod_policy
    for pod in pods:
        if pod.deleting:
            continue
        running = pod.phase in (PodPhase.RUNNING, PodPhase.PENDING)
        if policy is CleanPodPolicy.ALL or (policy is CleanPodPolicy.RUNNING and running):
            work.actions.append(DeletePod(pod.name, pod.uid, DeleteReason.CLEAN_POD_POLICY))
    if has(work.conditions, ConditionType.SUCCEEDED):
        for counts in work.status["replicaStatuses"].values():
            counts["succeeded"] = counts.get("succeeded", 0) + counts.pop("active", 0)


def _created(work: _Work) -> None:
    if not any(x.type == ConditionType.CREATED for x in work.conditions):
        work.condition(ConditionType.CREATED, Reason.CREATED, f"MXJob {work.job.name} is created.")


def _suspend(work: _Work, pods: Sequence[PodView]) -> None:
    name = work.job.name
    _created(work)  # a job created suspended shows Created, then Suspended (mxjob_controller_test.go)
    if not has(work.conditions, ConditionType.SUSPENDED):
        # Running turns False first, so that the newest condition (the State column) says Suspended.
        if has(work.conditions, ConditionType.RUNNING):
            work.condition(ConditionType.RUNNING, Reason.SUSPENDED, f"MXJob {name} is suspended.", status="False")
        work.condition(ConditionType.SUSPENDED, Reason.SUSPENDED, f"MXJob {name} is suspended.")
        work.event(EventType.NORMAL, Reason.SUSPENDED, f"MXJob {name} is suspended.")
    for pod in pods:
        if not pod.deleting:
            work.actions.append(DeletePod(pod.name, pod.uid, DeleteReason.SUSPENDED))
    for counts in work.status["replicaStatuses"].values():
        counts.pop("active", None)


def _run(work: _Work, pods: Sequence[PodView], table: ExitTable) -> None:
    name = work.job.name
    _created(work)
    if has(work.conditions, ConditionType.SUSPENDED):
        work.condition(ConditionType.SUSPENDED, Reason.RESUMED, f"MXJob {name} is resumed.", status="False")
        work.status["startTime"] = timestamp(work.now)
    if has(work.conditions, ConditionType.REFUSED):
        work.condition(ConditionType.REFUSED, Reason.TOO_LARGE, f"MXJob {name} is within bounds.", status="False")
    work.status.setdefault("startTime", timestamp(work.now))
    if _past_deadline(work, pods):
        return
    restarts: dict[str, Any] = dict(work.status.get("podRestarts") or {})
    _requeue_stopped(work, pods, restarts)
    if work.recreate:
        _recreate(work, pods, restarts)
    uids = {pod.name: pod.uid for pod in pods if pod.name in restarts} if restarts else {}
    for pod_name, record in list(restarts.items()):
        replacement = uids.get(pod_name)
        if record.get("pending") and replacement not in (None, record.get("uid")):
            restarts[pod_name] = {k: v for k, v in record.items() if k != "pending"}  # the new pod is there
    for release in kueue.releases(pods, restarts):
        work.actions.append(release)
        if not work.recreate:
            work.actions.append(Nudge(release.name))
    failed_types: dict[str, int] = {}
    backoff = False
    for pod in sorted(
        (p for p in pods if p.phase is PodPhase.FAILED and (not p.deleting or kueue.held_failed(p))),
        key=lambda p: (p.replica_type, p.index),
    ):
        outcome = _failed_pod(work, pod, pods, table, restarts)
        if outcome is Outcome.FAIL:
            failed_types[pod.replica_type] = failed_types.get(pod.replica_type, 0) + 1
        backoff = backoff or outcome is Outcome.BACKOFF
    work.status["podRestarts"] = restarts
    work.status["restartCounts"] = _restart_counts(restarts)
    if failed_types:
        replica_type, count = sorted(failed_types.items())[0]
        _fail(work, pods, f"mxjob {name} is failed because {count} {replica_type} replica(s) failed.", delete_all=False)
        return
    if backoff or _past_limit(work.job.backoff_limit, backoff_count(work.job, pods, restarts)):
        _fail(work, pods, f"Job {name} has failed because it has reached the specified backoff limit", delete_all=True)
        return
    _progress(work, pods)


def _requeue_stopped(work: _Work, pods: Sequence[PodView], restarts: dict[str, Any]) -> None:
    """Pods Kueue deleted to preempt or evict the group: created again (and so queued again) like a restart,
    but not counted: a preemption is no failure of the job, and never brings it nearer its backoffLimit."""
    for pod in kueue.stopped_pods(pods):
        record = restarts.get(pod.name) or {}
        if record.get("uid") == pod.uid:
            continue
        restarts[pod.name] = {
            "type": pod.replica_type,
            "count": int(record.get("count", 0)),
            "uid": pod.uid,
            "pending": True,
            "keep": dict(pod.ownership) or record.get("keep") or {},
        }
        work.event(
            EventType.WARNING,
            Reason.RESTARTING,
            f"Kueue stopped pod {pod.name} (the group was preempted or evicted): it is created again and "
            "queued; this is not counted against backoffLimit",
            pod.uid,
        )


def _recreate(work: _Work, pods: Sequence[PodView], restarts: dict[str, Any]) -> None:
    """A restarted pod that is gone: create it again from the rendering, with its ownership metadata."""
    for pod_name in pods_to_create({"podRestarts": restarts}, pods):
        rendered = work.rendering.pod(pod_name) if work.rendering is not None else None
        if rendered is None:
            restarts[pod_name] = {k: v for k, v in restarts[pod_name].items() if k != "pending"}
            work.event(
                EventType.WARNING,
                Reason.NOT_RECREATED,
                f"pod {pod_name} is not part of the job's rendering any more; not created again",
                pod_name,
            )
            continue
        work.actions.append(CreatePod(pod_name, _with_ownership(rendered, restarts[pod_name].get("keep") or {})))


def _with_ownership(rendered: Mapping[str, Any], keep: Mapping[str, Any]) -> dict[str, Any]:
    metadata = dict(rendered.get("metadata") or {})
    metadata["labels"] = {**(metadata.get("labels") or {}), **(keep.get("labels") or {})}
    if keep.get("annotations"):
        metadata["annotations"] = {**(metadata.get("annotations") or {}), **keep["annotations"]}
    return {**rendered, "metadata": metadata}


def _failed_pod(
    work: _Work, pod: PodView, pods: Sequence[PodView], table: ExitTable, restarts: dict[str, Any]
) -> Outcome:
    policy = work.job.replicas[pod.replica_type].restart_policy
    verdict = table.classify(pod.exit_code, pod.reason)
    record = restarts.get(pod.name) or {}
    if record.get("uid") == pod.uid:
        work.actions.append(DeletePod(pod.name, pod.uid, DeleteReason.RESTART_RECORDED, record.get("keep") or {}))
        return Outcome.DONE
    if policy is RestartPolicy.NEVER or (policy is RestartPolicy.EXIT_CODE and verdict is not ExitClass.RETRYABLE):
        work.exits.append((pod.replica_type, pod.exit_code, verdict.value))
        work.actions.append(_exit_event(work, pod, verdict))
        return Outcome.FAIL
    # This failure would be one more restart: the job fails instead once that reaches backoffLimit.
    if _past_limit(work.job.backoff_limit, backoff_count(work.job, pods, restarts) + 1):
        work.exits.append((pod.replica_type, pod.exit_code, verdict.value))
        work.actions.append(_exit_event(work, pod, verdict))
        return Outcome.BACKOFF
    previous = int(record.get("count", 0))
    delay = min(BACKOFF_BASE_SECONDS * 2 ** max(previous - 1, 0), BACKOFF_CAP_SECONDS) if previous else 0
    # A kubelet clock ahead of ours must not postpone a restart: never count from later than now.
    ready_at = min(pod.finished_at or work.now, work.now) + timedelta(seconds=delay)
    if ready_at > work.now:
        work.later((ready_at - work.now).total_seconds())
        return Outcome.WAIT
    work.exits.append((pod.replica_type, pod.exit_code, verdict.value))
    restarts[pod.name] = {
        "type": pod.replica_type,
        "count": previous + 1,
        "uid": pod.uid,
        "pending": True,
        "keep": dict(pod.ownership) or record.get("keep") or {},
    }
    work.actions.append(_exit_event(work, pod, verdict))
    work.actions.append(DeletePod(pod.name, pod.uid, DeleteReason.RESTART))
    if not work.recreate:
        work.actions.append(Nudge(pod.name))
    work.condition(
        ConditionType.RESTARTING,
        Reason.RESTARTING,
        f"job {work.job.name} is restarting because {pod.replica_type} replica(s) failed.",
    )
    work.event(EventType.WARNING, Reason.RESTARTING, f"restarting pod {pod.name}", pod.uid)
    return Outcome.RESTART


def _exit_event(work: _Work, pod: PodView, verdict: ExitClass) -> Event:
    what = f"exited with code {pod.exit_code}" if pod.exit_code is not None else f"failed ({pod.reason or 'no code'})"
    return Event(
        EventType.WARNING, Reason.EXITED, f"Pod: {work.job.namespace}.{pod.name} {what} ({verdict.value})", pod.uid
    )


def backoff_count(job: JobView, pods: Sequence[PodView], restarts: Mapping[str, Any]) -> int:
    """What backoffLimit is compared with: the training operator's PastBackoffLimit (pkg/core/job.go) sums
    the restartCount of the init and regular containers of *Running* pods whose replica type restarts
    (OnFailure, Always, ExitCode); to that we add every recreation we recorded (a pod deleted and created
    again starts at restartCount 0, so Go would forget it)."""
    counted = {t for t, spec in job.replicas.items() if spec.restart_policy in BACKOFF_COUNTED}
    in_place = sum(
        p.restart_count for p in pods if p.restart_count and p.phase is PodPhase.RUNNING and p.replica_type in counted
    )
    return in_place + sum(int(r.get("count", 0)) for r in restarts.values() if isinstance(r, Mapping))


def _past_limit(limit: int | None, count: int) -> bool:
    """PastBackoffLimit's comparison: with a limit of 0 any restart is too many, else count >= limit."""
    if limit is None:
        return False
    return count > 0 if limit == 0 else count >= limit


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
    _fail(
        work,
        pods,
        f"Job {work.job.name} has failed because it was active longer than specified deadline",
        delete_all=True,
    )
    return True


def _fail(work: _Work, pods: Sequence[PodView], message: str, delete_all: bool) -> None:
    work.actions.extend(kueue.end_group(pods))
    work.condition(ConditionType.FAILED, Reason.FAILED, message)
    work.status["completionTime"] = timestamp(work.now)
    work.event(EventType.WARNING, Reason.FAILED, message)
    if delete_all:
        work.actions.extend(DeletePod(p.name, p.uid, DeleteReason.LIMIT) for p in pods if not p.deleting)
    work.requeue = None


def _progress(work: _Work, pods: Sequence[PodView]) -> None:
    job, name = work.job, work.job.name
    for replica_type in job.deciding_types():
        expected = job.replicas[replica_type].replicas
        mine = [p for p in pods if p.replica_type == replica_type]
        succeeded = sum(p.phase is PodPhase.SUCCEEDED and not kueue.stopped(p) for p in mine)
        if expected and succeeded >= expected:
            message = f"MXJob {name} is successfully completed."
            work.condition(ConditionType.SUCCEEDED, Reason.SUCCEEDED, message)
            work.status["completionTime"] = timestamp(work.now)
            work.event(EventType.NORMAL, Reason.SUCCEEDED, message)
            work.actions.extend(kueue.end_group(pods))
            work.requeue = None
            return
        if any(p.phase is PodPhase.RUNNING and not p.deleting for p in mine) and not _restarting_now(work):
            work.condition(ConditionType.RUNNING, Reason.RUNNING, f"MXJob {name} is running.")


def _restarting_now(work: _Work) -> bool:
    return any(isinstance(a, DeletePod) and a.reason is DeleteReason.RESTART for a in work.actions)
