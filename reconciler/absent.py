"""Pods a running job lost without the kubelet reporting an exit (decide() asks; no I/O).

Two cases, each handled as a class rather than by the cause that showed it:
- `lost`: a pod being deleted before it finished, that the reconciler did not delete itself — evicted by the
  node lifecycle controller from a node that stopped answering, deleted by hand, preempted. The kubelet will
  never report its exit (the node may be gone), so it is a failure with no exit code, handled by its replica's
  restart policy: `Never` fails the job, `ExitCode`/`OnFailure` restart the replica. The training operator
  counts such a pod as failed (kubeflow/training-operator v1.8, pkg/core/status.go `UpdateJobReplicaStatuses`:
  a Running pod with a deletionTimestamp is `Failed`, "to account for orphan Pods that never have a chance to
  reach the Failed phase"), and its MXJob status update then fails or restarts the job on that count
  (pkg/controller.v1/mxnet/mxjob_controller.go `UpdateJobStatus`).
- `missing`: a pod of a running job that is not there at all and whose restart is not under way — removed by pod
  GC after its node was deleted, force-deleted. The training operator creates any missing replica again on its
  next sync (pkg/controller.v1/common/pod.go `ReconcilePods`: an empty slot of `GetPodSlices` is
  `createNewPod`); here it is a counted restart (so `backoffLimit` bounds a pod that keeps disappearing) with
  an event, created again in recreate mode and left to the GitOps engine in gitops mode.

Pods the reconciler deletes itself are not lost: a restart is recorded by the pod's uid before the delete;
a suspended job's pods were deleted before the job resumed (told by when the deletion was asked for); Kueue's
stopped pods are requeued (reconciler.kueue).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from mxjob_gitops.reconciler import kueue
from mxjob_gitops.reconciler.state import Condition, JobView, PodView, has, parse_time
from mxjob_gitops.reconciler.vocabulary import ConditionType, PodPhase


def is_running(conditions: Sequence[Condition]) -> bool:
    """The job has been seen running (Running or Restarting true): only then can it lose a pod."""
    return has(list(conditions), ConditionType.RUNNING) or has(list(conditions), ConditionType.RESTARTING)


def resumed_at(conditions: Iterable[Condition]) -> datetime | None:
    """When the job was last resumed (Suspended turned False), else None."""
    found = next((x for x in conditions if x.type == ConditionType.SUSPENDED and x.status == "False"), None)
    return parse_time(found.last_transition) if found is not None else None


def lost(job: JobView, pod: PodView, restarts: Mapping[str, Any], resumed: datetime | None) -> bool:
    """Being deleted before it succeeded, by someone else than the reconciler (see the module docstring). Not while
    the job itself is being deleted (its pods go with it), nor a pod the job no longer has (fewer replicas)."""
    if job.deleting or not pod.deleting or pod.phase is PodPhase.SUCCEEDED or kueue.stopped(pod):
        return False
    spec = job.replicas.get(pod.replica_type)
    if spec is None or pod.index >= spec.replicas:
        return False
    record = restarts.get(pod.name)
    if isinstance(record, Mapping) and record.get("uid") == pod.uid:
        return False  # our own restart's delete
    return resumed is None or pod.deleted_at is None or pod.deleted_at >= resumed


def pod_names(job: JobView) -> list[tuple[str, str]]:
    """(pod name, replica type) of every replica, named as the operator names them: `<job>-<type>-<index>`."""
    return [
        (f"{job.name}-{replica_type.lower()}-{index}", replica_type)
        for replica_type, spec in sorted(job.replicas.items())
        for index in range(spec.replicas)
    ]


def missing(
    job: JobView, conditions: Sequence[Condition], pods: Sequence[PodView], restarts: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """(pod name, replica type) of the running job's replicas that have no pod and no restart under way."""
    if job.deleting or not is_running(conditions):
        return []
    present = {pod.name for pod in pods}
    return [
        (name, replica_type)
        for name, replica_type in pod_names(job)
        if name not in present and not _pending(restarts.get(name))
    ]


def _pending(record: object) -> bool:
    return isinstance(record, Mapping) and record.get("pending") is True
