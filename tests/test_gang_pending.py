"""Pods that wait for their gang or their queue are Pending to the reconciler: never failed, never running."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.reconciler.decide import decide
from mxjob_gitops.reconciler.state import JobView, PodView, ReplicaPolicy, trim_pod
from mxjob_gitops.reconciler.vocabulary import RestartPolicy

NOW = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)
JOB = JobView(
    "ml",
    "g",
    "MXTrain",
    {
        "Scheduler": ReplicaPolicy(1, RestartPolicy("Never")),
        "Server": ReplicaPolicy(1, RestartPolicy("ExitCode")),
        "Worker": ReplicaPolicy(1, RestartPolicy("ExitCode")),
    },
)
UNSCHEDULABLE = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}


def _pod(
    replica_type: str, metadata: dict[str, Any], spec: dict[str, Any], conditions: list[dict[str, str]]
) -> dict[str, Any]:
    labels = {c.LABEL_REPLICA_TYPE: replica_type.lower(), c.LABEL_REPLICA_INDEX: "0", **metadata.get("labels", {})}
    return {
        "metadata": {**metadata, "name": f"g-{replica_type.lower()}-0", "uid": replica_type, "labels": labels},
        "spec": spec,
        "status": {"phase": "Pending", "conditions": conditions},
    }


# scheduler: what a pod waiting for admission or for the rest of its gang looks like.
WAITING: dict[str, tuple[dict[str, Any], dict[str, Any], list[dict[str, str]]]] = {
    # Kueue's webhook gated it and holds it with its finalizer until the Workload is admitted.
    "kueue": (
        {
            "labels": {"kueue.x-k8s.io/queue-name": "q", "kueue.x-k8s.io/pod-group-name": "g"},
            "annotations": {"kueue.x-k8s.io/pod-group-total-count": "3"},
            "finalizers": ["kueue.x-k8s.io/managed"],
        },
        {"schedulingGates": [{"name": "kueue.x-k8s.io/admission"}]},
        [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}],
    ),
    # Volcano leaves the pods of a PodGroup below minMember unscheduled.
    "volcano": ({"annotations": {"scheduling.k8s.io/group-name": "g"}}, {"schedulerName": "volcano"}, [UNSCHEDULABLE]),
    "scheduler-plugins": (
        {"labels": {"scheduling.x-k8s.io/pod-group": "g"}},
        {"schedulerName": "scheduler-plugins-scheduler"},
        [UNSCHEDULABLE],
    ),
    # kube-scheduler holds a PodGroup's pods until minCount of them can be placed.
    "kubernetes": ({}, {"schedulingGroup": {"podGroupName": "g"}}, [UNSCHEDULABLE]),
}


@pytest.mark.parametrize("scheduler", sorted(WAITING))
def test_waiting_pods_are_pending(scheduler: str) -> None:
    metadata, spec, conditions = WAITING[scheduler]
    types = {t.lower(): t for t in JOB.replicas}
    pods = [PodView.from_object(trim_pod(_pod(t, metadata, spec, conditions)), types) for t in JOB.replicas]
    plan = decide(JOB, [p for p in pods if p is not None], NOW, {})
    assert len(pods) == 3 and None not in pods
    assert [x["type"] for x in plan.status["conditions"]] == ["Created"]
    assert plan.status["replicaStatuses"] == {t: {} for t in JOB.replicas}  # neither active nor failed
    assert plan.actions == ()
    assert plan.status.get("restartCounts", {}) == {}
