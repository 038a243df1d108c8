"""scheduler-plugins coscheduling: a scheduling.x-k8s.io PodGroup, pods join by label; the scheduler is named."""

from __future__ import annotations

from mxjob_gitops.compiler.render.gang.base import GangBackend, GangPlan, GroupObject, Manifest, pod_group_spec

PLUGINS_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
DEFAULT_PLUGINS_SCHEDULER = "scheduler-plugins-scheduler"


def _group(plan: GangPlan) -> GroupObject:
    spec = pod_group_spec(plan)
    if "scheduleTimeoutSeconds" in plan.policy:
        spec["scheduleTimeoutSeconds"] = plan.policy["scheduleTimeoutSeconds"]
    return "scheduling.x-k8s.io/v1alpha1", "PodGroup", spec


def _join(pod: Manifest, plan: GangPlan, _role: str) -> None:
    pod["metadata"]["labels"][PLUGINS_GROUP_LABEL] = plan.job.name


BACKEND = GangBackend(
    "scheduler-plugins", "NAME", DEFAULT_PLUGINS_SCHEDULER, lambda argument: argument, _group, _join, min_resources=True
)
