"""scheduler-plugins coscheduling: a scheduling.x-k8s.io PodGroup, pods join by label; the scheduler is named."""

from __future__ import annotations

from mxjob_gitops.compiler.render.gang.base import GangBackend, GangPlan, GroupObject, Manifest, pod_group_spec
from mxjob_gitops.compiler.rules.names import dns1123_subdomain

PLUGINS_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
DEFAULT_PLUGINS_SCHEDULER = "scheduler-plugins-scheduler"


def _group(plan: GangPlan) -> GroupObject:
    spec = pod_group_spec(plan)
    if "scheduleTimeoutSeconds" in plan.policy:
        spec["scheduleTimeoutSeconds"] = plan.policy["scheduleTimeoutSeconds"]
    return "scheduling.x-k8s.io/v1alpha1", "PodGroup", spec


def _join(pod: Manifest, plan: GangPlan, _role: str) -> None:
    pod["metadata"]["labels"][PLUGINS_GROUP_LABEL] = plan.job.name


def _name_problem(name: str) -> str:
    """The name becomes the pods' spec.schedulerName, a DNS-1123 subdomain (ValidatePodSpec)."""
    problem = dns1123_subdomain(name)
    return f"is not a scheduler name (it becomes the pods' spec.schedulerName): {problem}" if problem else ""


BACKEND = GangBackend(
    "scheduler-plugins",
    "NAME",
    DEFAULT_PLUGINS_SCHEDULER,
    lambda argument: argument,
    _group,
    _join,
    min_resources=True,
    argument_problem=_name_problem,
)
