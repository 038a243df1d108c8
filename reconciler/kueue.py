"""The reconciler's side of Kueue's plain-pod groups: release a replaced pod, requeue a preempted group, end a group.

Kueue's pod integration (kubernetes-sigs/kueue, pkg/controller/jobs/pod/pod_controller.go; KEP-976) holds every
pod of a group with the finalizer kueue.x-k8s.io/managed, and removes it from a Failed pod only when a
replacement pod of the same role exists (`FindMatchingWorkloads`: `finalizePods` on the surplus inactive pods).
A restart here keeps the pod's name (its Service, MX_CONFIG and Git all name it), so the replacement cannot be
created while the old pod is held: the reconciler, as the restart owner, removes Kueue's finalizer from the old
pod itself once that pod is terminated and deleted, which is what Kueue would do as soon as the replacement
existed. docs/gang-scheduling.md ("Restarts, preemption and failure under Kueue") has the design and its
failure cases.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from mxjob_gitops.reconciler.vocabulary import PodPhase


class PodView(Protocol):
    """What Kueue's decisions read of an observed pod (reconciler.state.PodView has it)."""

    @property
    def name(self) -> str: ...
    @property
    def uid(self) -> str: ...
    @property
    def phase(self) -> PodPhase: ...
    @property
    def deleting(self) -> bool: ...
    @property
    def kueue(self) -> KueuePod | None: ...
    @property
    def replica_type(self) -> str: ...
    @property
    def index(self) -> int: ...


Pod = TypeVar("Pod", bound=PodView)


# pkg/controller/jobs/pod/constants/constants.go and pod_controller.go (ConditionTypeTerminationTarget).
FINALIZER = "kueue.x-k8s.io/managed"
GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
RETRIABLE_ANNOTATION = "kueue.x-k8s.io/retriable-in-group"
STOPPED_CONDITION = "TerminationTarget"


@dataclass(frozen=True, slots=True)
class KueuePod:
    """What Kueue has put on one pod of a group."""

    finalizers: tuple[str, ...] = ()  # every finalizer of the pod, as a strict patch must name them
    stopped: bool = False  # Kueue deleted it: the group was preempted, evicted or deactivated (Stop)
    unretriable: bool = False  # kueue.x-k8s.io/retriable-in-group: "false"

    @property
    def held(self) -> bool:
        return FINALIZER in self.finalizers

    @classmethod
    def of(cls, pod: Mapping[str, Any]) -> KueuePod | None:
        """None for a pod that is not in a Kueue pod group."""
        metadata = pod.get("metadata") or {}
        if not _in_group(metadata):
            return None
        conditions = (pod.get("status") or {}).get("conditions") or []
        stopped = any(x.get("type") == STOPPED_CONDITION and x.get("status") == "True" for x in conditions)
        unretriable = (metadata.get("annotations") or {}).get(RETRIABLE_ANNOTATION) == "false"
        return cls(tuple(str(f) for f in metadata.get("finalizers") or ()), stopped, unretriable)


def _in_group(metadata: Mapping[str, Any]) -> bool:
    """The group name as a label, or (Kueue's WorkloadIdentifierAnnotations) as an annotation."""
    return GROUP_LABEL in (metadata.get("labels") or {}) or GROUP_LABEL in (metadata.get("annotations") or {})


def trimmed(pod: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The metadata and status parts of a pod in a Kueue group that KueuePod.of reads (empty for other pods)."""
    metadata = pod.get("metadata") or {}
    if not _in_group(metadata):
        return {}, {}
    annotations = metadata.get("annotations") or {}
    kept = {k: annotations[k] for k in (GROUP_LABEL, RETRIABLE_ANNOTATION) if k in annotations}
    meta: dict[str, Any] = {"finalizers": list(metadata["finalizers"])} if metadata.get("finalizers") else {}
    if kept:
        meta["annotations"] = kept
    stopped = [x for x in (pod.get("status") or {}).get("conditions") or [] if x.get("type") == STOPPED_CONDITION]
    return meta, ({"conditions": stopped} if stopped else {})


@dataclass(frozen=True, slots=True)
class ReleasePod:
    """Remove Kueue's finalizer from a terminated pod we replace, so its name is free for the new pod."""

    name: str
    uid: str
    finalizers: tuple[str, ...]  # as observed: the patch fails if they changed since

    def patch(self) -> list[dict[str, Any]]:
        """A JSON patch that applies only to this pod (uid) with exactly the observed finalizers."""
        return [
            {"op": "test", "path": "/metadata/uid", "value": self.uid},
            {"op": "test", "path": "/metadata/finalizers", "value": list(self.finalizers)},
            {"op": "replace", "path": "/metadata/finalizers", "value": [f for f in self.finalizers if f != FINALIZER]},
        ]


@dataclass(frozen=True, slots=True)
class MarkUnretriable:
    """Tell Kueue the group will not be retried: it finishes once all its pods have terminated."""

    name: str
    uid: str

    def patch(self) -> list[dict[str, Any]]:
        """A JSON patch for this pod (uid) only; the annotations map exists on every pod of a Kueue group (Kueue
        refuses one without kueue.x-k8s.io/pod-group-total-count), else the API server answers 422."""
        return [
            {"op": "test", "path": "/metadata/uid", "value": self.uid},
            {"op": "add", "path": "/metadata/annotations/" + RETRIABLE_ANNOTATION.replace("/", "~1"), "value": "false"},
        ]


def stopped(pod: PodView) -> bool:
    """Kueue deleted the pod when it stopped the group (preemption, eviction): neither a failure nor a success,
    whatever its exit code (`Pod.Stop` sets the condition before it deletes the pod)."""
    return pod.kueue is not None and pod.kueue.stopped


def stopped_pods(pods: Sequence[Pod]) -> list[Pod]:
    """Pods Kueue deleted when it stopped the group: each is created again, and queued again."""
    return [p for p in pods if stopped(p)]


def held_failed(pod: PodView) -> bool:
    """A deleted Failed pod that Kueue holds until a replacement exists: still a failure to act on (restart it,
    or fail the job), whoever deleted it; otherwise nobody would ever replace it."""
    return pod.kueue is not None and pod.kueue.held and not pod.kueue.stopped and pod.phase is PodPhase.FAILED


def releases(pods: Sequence[PodView], restarts: Mapping[str, Any]) -> list[ReleasePod]:
    """Pods we replace (a pending restart of that very pod, or stopped by Kueue) that Kueue still holds.

    Only once they are deleted and no longer running: the same moment Kueue finalizes a surplus inactive pod
    (`isPodRunnableOrSucceeded` is false for a Failed pod, and for a deleted one never placed on a node).
    """
    found = []
    for pod in pods:
        kueue = pod.kueue
        if kueue is None or not kueue.held or not pod.deleting or pod.phase is PodPhase.RUNNING:
            continue
        record = restarts.get(pod.name)
        ours = isinstance(record, Mapping) and record.get("pending") and record.get("uid") == pod.uid
        if ours or kueue.stopped:
            found.append(ReleasePod(pod.name, pod.uid, kueue.finalizers))
    return found


def end_group(pods: Sequence[PodView]) -> list[MarkUnretriable]:
    """Once the job has finished (failed, or succeeded): mark one pod of the group (a failed one first) unless one
    already is, so that Kueue finishes the Workload and frees its quota as soon as no pod runs (`Pod.Finished`).
    Without it a succeeded job whose servers were stopped (cleanPodPolicy Running) would hold the quota forever:
    Kueue finishes an unmarked group only when every pod succeeded."""
    grouped = [p for p in pods if p.kueue is not None]
    if not grouped or any(p.kueue is not None and p.kueue.unretriable for p in grouped):
        return []
    ranked = sorted(grouped, key=lambda p: (p.phase is not PodPhase.FAILED, p.deleting, p.replica_type, p.index))
    return [MarkUnretriable(ranked[0].name, ranked[0].uid)]
