"""Which running training a change restarts, job by job: the pods it replaces (deleted and created, or their containers
restarted by a new image), the pods it deletes, and for the JobSet engine whether the JobSet is replaced (every
replica restarts) or the update refused. Pure; `mxjob diff` calls `plan_restarts` on its changes and, given a
cluster, `observe` with the pods found there (io.running looks them up).

A Pod restarts when its change needs delete + create (ObjectChange.replace), when Argo CD is told to delete and
create it on any change (`Force=true,Replace=true`, what `--target argocd` writes), or when a container's or init
container's image changes: applied in place, the kubelet sees the container's spec changed and kills and starts it
again whatever the restart policy (kubernetes/kubernetes pkg/kubelet/kuberuntime/kuberuntime_manager.go,
`computePodActions`); a new init container image restarts the whole pod. Metadata, tolerations added,
activeDeadlineSeconds, the MXJob object, Services and ConfigMaps restart nothing.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from mxjob_gitops.compiler.diff.age import format_age, is_running, started_at
from mxjob_gitops.compiler.diff.changes import ChangeKind, ObjectChange, ObjectStatus
from mxjob_gitops.compiler.diff.jobset_rules import check_update, is_jobset, replaced_by, replica_pods
from mxjob_gitops.compiler.spec import constants as c


class How(enum.StrEnum):
    REPLACED = "replaced"  # deleted and created
    IN_PLACE = "in-place"  # a new image: the kubelet restarts the containers
    DELETED = "deleted"  # removed from Git: pruned


class JobSetVerdict(enum.StrEnum):
    NONE = ""
    REPLACED = "replaced"  # Argo CD or Flux delete and create it: every replica restarts
    REFUSED = "refused"  # the server refuses the update and nothing replaces it: the sync fails
    SUSPENDS = "suspends"  # spec.suspend turns true: the controller stops every pod
    DELETED = "deleted"  # the JobSet is removed


@dataclass(frozen=True, slots=True)
class RunningPod:
    name: str
    start: float  # epoch seconds
    age: str


@dataclass(frozen=True, slots=True)
class JobRestart:
    """One job's pods that the change restarts; `running` is None when no cluster was asked."""

    job: str  # namespace/name, or name, as ObjectChange.job
    namespace: str
    name: str
    pods: tuple[tuple[str, How], ...] = ()  # pods engine: each pod the change restarts or deletes, and how
    jobset: JobSetVerdict = JobSetVerdict.NONE
    reason: str = ""  # JobSet: why (the fields, the engine that replaces it)
    replica_pods: int = 0  # JobSet: the pods it runs
    running: tuple[RunningPod, ...] | None = None
    now: float = 0.0

    @property
    def whole(self) -> bool:
        """Every pod of the job is concerned (a JobSet replaced, suspended or deleted), found by its job label."""
        return self.jobset in (JobSetVerdict.REPLACED, JobSetVerdict.SUSPENDS, JobSetVerdict.DELETED)

    def count(self, *hows: How) -> int:
        return sum(how in hows for _, how in self.pods)

    def how_of(self, pod: str) -> How | None:
        if self.whole:
            return How.DELETED if self.jobset is not JobSetVerdict.REPLACED else How.REPLACED
        return next((how for name, how in self.pods if name == pod), None)

    def running_for(self) -> str:
        """The age of the longest-running pod concerned (the run's age)."""
        return format_age(self.now - min(p.start for p in self.running)) if self.running else ""


def _image_changed(change: ObjectChange) -> bool:
    return any(
        f.significant
        and f.kind is ChangeKind.CHANGED
        and f.pointer.startswith(("/spec/containers/", "/spec/initContainers/"))
        and f.pointer.endswith("/image")
        for f in change.fields
    )


def _pod_effect(change: ObjectChange) -> How | None:
    if change.status is ObjectStatus.REMOVED:
        return How.DELETED
    if change.status is not ObjectStatus.MODIFIED:
        return None
    if change.replace or (change.new is not None and replaced_by(change.new) == "argocd"):
        return How.REPLACED
    return How.IN_PLACE if _image_changed(change) else None


def _split(job: str) -> tuple[str, str]:
    namespace, _, name = job.rpartition("/")
    return namespace, name


def _jobset_restart(change: ObjectChange) -> JobRestart | None:
    namespace, name = change.namespace, change.name
    job = f"{namespace}/{name}" if namespace else name
    if change.status is ObjectStatus.REMOVED:
        return JobRestart(job, namespace, name, jobset=JobSetVerdict.DELETED, replica_pods=replica_pods(change.old))
    if change.status is not ObjectStatus.MODIFIED or change.old is None or change.new is None:
        return None
    update = check_update(change.old, change.new)
    engine = replaced_by(change.new)
    pods = replica_pods(change.new)
    if engine == "argocd":
        reason = "Argo CD deletes and creates it on any change: Force=true,Replace=true"
        return JobRestart(job, namespace, name, jobset=JobSetVerdict.REPLACED, reason=reason, replica_pods=pods)
    if update.refused:
        fields = ", ".join(update.refused)
        verdict = JobSetVerdict.REPLACED if engine == "flux" else JobSetVerdict.REFUSED
        reason = f"{fields} cannot change" + (", so Flux deletes and creates it: force: Enabled" if engine else "")
        return JobRestart(job, namespace, name, jobset=verdict, reason=reason, replica_pods=pods)
    if update.suspends:
        return JobRestart(job, namespace, name, jobset=JobSetVerdict.SUSPENDS, reason="spec.suspend", replica_pods=pods)
    return None


def plan_restarts(changes: Iterable[ObjectChange]) -> list[JobRestart]:
    """Per job, in job order, what the changes restart; jobs the change restarts nothing of are left out."""
    pods: dict[str, list[tuple[str, How]]] = {}
    found: list[JobRestart] = []
    for change in changes:
        if change.kind == "Pod" and change.api_version == "v1":
            how = _pod_effect(change)
            if how is not None and change.job:
                pods.setdefault(change.job, []).append((change.name, how))
        elif is_jobset(change.new if change.new is not None else change.old):
            restart = _jobset_restart(change)
            if restart is not None:
                found.append(restart)
    for job, effects in pods.items():
        namespace, name = _split(job)
        found.append(JobRestart(job, namespace, name, tuple(effects)))
    found.sort(key=lambda r: r.job)
    return found


def selectors(restarts: Sequence[JobRestart], default_namespace: str) -> dict[str, list[str]]:
    """Namespace -> the names of the jobs whose pods to look up (by the job-name label the renderers put on pods)."""
    wanted: dict[str, set[str]] = {}
    for restart in restarts:
        if restart.jobset is JobSetVerdict.REFUSED:
            continue
        wanted.setdefault(restart.namespace or default_namespace, set()).add(restart.name)
    return {namespace: sorted(names) for namespace, names in sorted(wanted.items())}


def observe(
    restarts: Sequence[JobRestart], pods: Iterable[dict[str, Any]], default_namespace: str, now: float
) -> list[JobRestart]:
    """The restarts with the running pods they concern, among `pods` (listed by job label in each namespace)."""
    by_job: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for pod in pods:
        metadata = pod.get("metadata") or {}
        job = (metadata.get("labels") or {}).get(c.LABEL_JOB_NAME)
        if job:
            by_job.setdefault((str(metadata.get("namespace") or default_namespace), str(job)), []).append(pod)
    observed: list[JobRestart] = []
    for restart in restarts:
        running: list[RunningPod] = []
        for pod in by_job.get((restart.namespace or default_namespace, restart.name), []):
            name = str((pod.get("metadata") or {}).get("name") or "")
            start = started_at(pod)
            if is_running(pod) and start is not None and restart.how_of(name) is not None:
                running.append(RunningPod(name, start, format_age(now - start)))
        running.sort(key=lambda p: p.name)
        observed.append(replace(restart, running=tuple(running), now=now))
    return observed


def _pods(n: int) -> str:
    return f"{n} pod{'' if n == 1 else 's'}"


def restarts_any(restart: JobRestart) -> bool:
    """Whether the change starts some of the job's pods over (rather than only stopping them)."""
    return restart.jobset is JobSetVerdict.REPLACED or bool(restart.count(How.REPLACED, How.IN_PLACE))


def describe(restart: JobRestart) -> str:
    """One line: "replaces 3 running pods of vision/resnet, running for 2h", or without a cluster "restarts
    vision/resnet if it is running: 3 pods replaced"."""
    job, what = restart.job, _what(restart)
    if restart.jobset is JobSetVerdict.REFUSED:
        return f"the API server refuses the update of JobSet {job} ({restart.reason}): nothing restarts, the sync fails"
    if restart.running is None:
        return f"{'restarts' if restarts_any(restart) else 'stops'} {job} if it is running: {what}"
    restarted = [p for p in restart.running if restart.how_of(p.name) in (How.REPLACED, How.IN_PLACE)]
    stopped = [p for p in restart.running if restart.how_of(p.name) is How.DELETED]
    in_place = sum(restart.how_of(p.name) is How.IN_PLACE for p in restarted)
    note = f"; {in_place} in place: a new image restarts their containers" if in_place else ""
    if restarted:
        line = f"replaces {_running(restarted, job, restart.now)}"
        if stopped:
            line += f"; stops {len(stopped)} more (deleted)"
    elif stopped:
        line = f"stops {_running(stopped, job, restart.now)}"
    else:
        return (
            f"{'replaces' if restarts_any(restart) else 'stops'} no running pods of {job} ({what}; none is running now)"
        )
    return f"{line} ({what}{note})"


def _running(pods: list[RunningPod], job: str, now: float) -> str:
    """ "3 running pods of vision/resnet, running for 2h": the age of the one that has run longest."""
    age = format_age(now - min(p.start for p in pods))
    return f"{len(pods)} running pod{'' if len(pods) == 1 else 's'} of {job}, running for {age}"


def _what(restart: JobRestart) -> str:
    verdict, pods = restart.jobset, _pods(restart.replica_pods)
    if verdict is JobSetVerdict.REPLACED:
        return f"the JobSet is replaced ({restart.reason}): every replica restarts, {pods}"
    if verdict is JobSetVerdict.SUSPENDS:
        return f"the JobSet is suspended: every replica stops, {pods}"
    if verdict is JobSetVerdict.DELETED:
        return f"the JobSet is deleted: every replica stops, {pods}"
    replaced, in_place, deleted = restart.count(How.REPLACED), restart.count(How.IN_PLACE), restart.count(How.DELETED)
    parts = [f"{_pods(replaced + in_place)} replaced"] if replaced + in_place else []
    if deleted:
        parts.append(f"{_pods(deleted)} deleted")
    return ", ".join(parts)
