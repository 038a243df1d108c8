"""Volcano gang scheduling: a scheduling.volcano.sh PodGroup with per-role minimums, queue and priority; pods join
by annotation."""

from __future__ import annotations

from mxjob_gitops.compiler.render.gang.base import (
    GangBackend,
    GangPlan,
    GroupObject,
    Manifest,
    pod_group_spec,
    template_priority_class,
)

VOLCANO_QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"
VOLCANO_GROUP_ANNOTATION = "scheduling.k8s.io/group-name"
VOLCANO_TASK_ANNOTATION = "volcano.sh/task-spec"


def _group(plan: GangPlan) -> GroupObject:
    """PodGroup spec as volcano-sh/apis pkg/apis/scheduling/v1beta1/types.go (`PodGroupSpec`) defines it.

    minTaskMember is keyed by role: Volcano's scheduler reads a pod's role from its `volcano.sh/task-spec`
    annotation (volcano pkg/scheduler/api/job_info.go, `getTaskRole`), copies spec.minTaskMember into
    JobInfo.TaskMinAvailable (`ParseMinMemberInfo`) and admits the job only when every listed role has that
    many pods placed (`CheckTaskValid`). The minimums are the first minMember pods in PriorityClass order,
    the same pods minResources sums, so they add up to minMember (Scheduler 1, Server n, Worker m when every
    pod is needed).
    """
    job, policy = plan.job, plan.policy
    annotations = job.document["metadata"].get("annotations") or {}
    spec = pod_group_spec(plan)
    if plan.members:
        spec["minTaskMember"] = dict(plan.members)
    spec["queue"] = policy.get("queue") or str(annotations.get(VOLCANO_QUEUE_ANNOTATION) or "") or "default"
    priority_class = policy.get("priorityClass") or template_priority_class(job)
    if priority_class:
        spec["priorityClassName"] = priority_class
    return "scheduling.volcano.sh/v1beta1", "PodGroup", spec


def _join(pod: Manifest, plan: GangPlan, role: str) -> None:
    metadata = pod["metadata"]
    metadata["annotations"] = {
        **(metadata.get("annotations") or {}),
        VOLCANO_GROUP_ANNOTATION: plan.job.name,
        VOLCANO_TASK_ANNOTATION: role,
    }


BACKEND = GangBackend("volcano", None, "", lambda _argument: "volcano", _group, _join, min_resources=True)
