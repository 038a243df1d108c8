"""What the reconciler observes (jobs, pods) and the job status it writes, as plain frozen values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from mxjob_gitops.compiler.base.asciinum import whole
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.reconciler.kueue import KueuePod
from mxjob_gitops.reconciler.kueue import trimmed as kueue_parts
from mxjob_gitops.reconciler.vocabulary import CleanPodPolicy, ConditionType, PodPhase, RestartPolicy

ARGO_TRACKING = "argocd.argoproj.io/tracking-id"
FLUX_LABELS = ("kustomize.toolkit.fluxcd.io/name", "kustomize.toolkit.fluxcd.io/namespace")


def timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: Any) -> datetime | None:
    """A Kubernetes Time or MicroTime (`…T12:00:00Z`, `…T12:00:00.123456Z`) as an aware UTC datetime."""
    if not isinstance(text, str):
        return None
    for pattern in ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S.%fZ"):
        try:
            return datetime.strptime(text, pattern).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


@dataclass(frozen=True, slots=True)
class ReplicaPolicy:
    replicas: int
    restart_policy: RestartPolicy


@dataclass(frozen=True, slots=True)
class JobView:
    """The parts of an MXJob the decision needs (defaults applied by the compiler)."""

    namespace: str
    name: str
    job_mode: str
    replicas: Mapping[str, ReplicaPolicy]
    clean_pod_policy: CleanPodPolicy = CleanPodPolicy.NONE
    backoff_limit: int | None = None
    active_deadline_seconds: int | None = None
    suspend: bool = False
    annotations: Mapping[str, str] = field(default_factory=dict)
    generation: int | None = None  # metadata.generation, written back as status.observedGeneration

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def deciding_types(self) -> tuple[str, ...]:
        """Whose success is the job's: the Scheduler, a lone Worker, or (MXTune) the Tuner."""
        if self.job_mode == c.MX_TUNE:
            return (c.TUNER,)
        if set(self.replicas) == {c.WORKER}:
            return (c.WORKER,)
        return (c.SCHEDULER,)


@dataclass(frozen=True, slots=True)
class PodView:
    """One pod of a job as the kubelet reports it."""

    name: str
    uid: str
    replica_type: str
    index: int
    phase: PodPhase
    exit_code: int | None = None
    reason: str = ""
    finished_at: datetime | None = None
    restart_count: int = 0
    deleting: bool = False
    # What ties the pod to its GitOps owner (Argo CD tracking annotation, Flux labels): a recreated pod keeps it.
    ownership: Mapping[str, Any] = field(default_factory=dict)
    kueue: KueuePod | None = None  # what Kueue put on a pod of a Kueue pod group (reconciler.kueue)

    @classmethod
    def from_object(cls, pod: Mapping[str, Any], replica_types: Mapping[str, str]) -> PodView | None:
        """None for pods that are not one of a job's replicas (wrong labels)."""
        metadata = pod.get("metadata") or {}
        labels = metadata.get("labels") or {}
        replica_type = replica_types.get(str(labels.get(c.LABEL_REPLICA_TYPE, "")))
        index = whole(str(labels.get(c.LABEL_REPLICA_INDEX, "")))
        if replica_type is None or index is None:
            return None
        status = pod.get("status") or {}
        code: int | None = None
        reason = str(status.get("reason") or "")
        finished: datetime | None = None
        # Init and regular containers, as PastBackoffLimit sums them.
        restarts = sum(int(x.get("restartCount") or 0) for x in status.get("initContainerStatuses") or [])
        for container in status.get("containerStatuses") or []:
            restarts += int(container.get("restartCount") or 0)
            if container.get("name") != c.DEFAULT_CONTAINER:
                continue
            terminated = (
                (container.get("state") or {}).get("terminated")
                or (container.get("lastState") or {}).get("terminated")
                or {}
            )
            if "exitCode" in terminated:
                code = int(terminated["exitCode"])
                reason = str(terminated.get("reason") or reason)
                finished = parse_time(terminated.get("finishedAt"))
        return cls(
            str(metadata.get("name")),
            str(metadata.get("uid") or ""),
            replica_type,
            index,
            PodPhase.parse(status.get("phase")),
            code,
            reason,
            finished,
            restarts,
            bool(metadata.get("deletionTimestamp")),
            ownership_of(metadata),
            KueuePod.of(pod),
        )


def trim_pod(pod: Mapping[str, Any]) -> dict[str, Any]:
    """What the reconciler keeps of a pod: identity, labels, ownership and container states — no spec.

    A pod's spec repeats MX_CONFIG, whose size grows with the job; caching specs of a 10,000-worker job
    would hold gigabytes. The controller caches the result packed (reconciler.controller.packed)."""
    metadata = pod.get("metadata") or {}
    status = pod.get("status") or {}
    kept_metadata = {k: metadata[k] for k in ("name", "uid", "resourceVersion", "deletionTimestamp") if k in metadata}
    if "namespace" in metadata:
        kept_metadata["namespace"] = metadata["namespace"]
    if "labels" in metadata:
        kept_metadata["labels"] = metadata["labels"]
    controllers = [  # whose pod it is (reconciler.trust.owned_pods)
        {k: r[k] for k in ("kind", "uid", "controller") if k in r}
        for r in metadata.get("ownerReferences") or []
        if isinstance(r, dict) and r.get("controller") is True
    ]
    if controllers:
        kept_metadata["ownerReferences"] = controllers
    annotations = {k: v for k, v in (metadata.get("annotations") or {}).items() if k == ARGO_TRACKING}
    if annotations:
        kept_metadata["annotations"] = annotations
    kept_status = {k: status[k] for k in ("phase", "reason") if k in status}
    kueue_metadata, kueue_status = kueue_parts(pod)
    if kueue_metadata.get("annotations"):
        kueue_metadata["annotations"] = {**kept_metadata.get("annotations", {}), **kueue_metadata["annotations"]}
    kept_metadata.update(kueue_metadata)
    kept_status.update(kueue_status)
    for key in ("initContainerStatuses", "containerStatuses"):
        if status.get(key):
            kept_status[key] = [
                {k: c[k] for k in ("name", "restartCount", "state", "lastState") if k in c} for c in status[key]
            ]
    return {"apiVersion": pod.get("apiVersion", "v1"), "kind": "Pod", "metadata": kept_metadata, "status": kept_status}


def ownership_of(metadata: Mapping[str, Any]) -> dict[str, Any]:
    labels = {k: v for k, v in (metadata.get("labels") or {}).items() if k in FLUX_LABELS}
    annotations = {k: v for k, v in (metadata.get("annotations") or {}).items() if k == ARGO_TRACKING}
    return {key: value for key, value in (("labels", labels), ("annotations", annotations)) if value}


@dataclass(frozen=True, slots=True)
class Condition:
    type: str
    status: str
    reason: str
    message: str
    last_update: str
    last_transition: str

    def to_dict(self) -> dict[str, str]:
        return {
            "type": self.type,
            "status": self.status,
            "reason": self.reason,
            "message": self.message,
            "lastUpdateTime": self.last_update,
            "lastTransitionTime": self.last_transition,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Condition:
        return cls(
            str(data.get("type")),
            str(data.get("status")),
            str(data.get("reason") or ""),
            str(data.get("message") or ""),
            str(data.get("lastUpdateTime") or ""),
            str(data.get("lastTransitionTime") or ""),
        )


def set_condition(
    conditions: list[Condition], kind: ConditionType, status: str, reason: str, message: str, now: str
) -> list[Condition]:
    """The training operator's UpdateJobConditions: Failed is terminal, same status and reason is a no-op,
    the transition time survives a reason change, Running and Restarting replace each other, and a
    finished job's Running turns False. The newest condition is last (the CRD's State column reads it)."""
    if has(conditions, ConditionType.FAILED):
        return conditions
    current = next((x for x in conditions if x.type == kind), None)
    if current is not None and current.status == status and current.reason == reason:
        return conditions
    transition = current.last_transition if current is not None and current.status == status else now
    kept = [
        x
        for x in conditions
        if x.type != kind
        and not (kind == ConditionType.RUNNING and x.type == ConditionType.RESTARTING)
        and not (kind == ConditionType.RESTARTING and x.type == ConditionType.RUNNING)
    ]
    if kind in (ConditionType.SUCCEEDED, ConditionType.FAILED):
        kept = [
            Condition(x.type, "False", x.reason, x.message, now, now)
            if x.type == ConditionType.RUNNING and x.status == "True"
            else x
            for x in kept
        ]
    return [*kept, Condition(str(kind), status, str(reason), message, now, transition)]


def is_finished(conditions: list[Condition]) -> bool:
    return has(conditions, ConditionType.SUCCEEDED) or has(conditions, ConditionType.FAILED)


def has(conditions: list[Condition], kind: ConditionType) -> bool:
    return any(x.type == kind and x.status == "True" for x in conditions)
