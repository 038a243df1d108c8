"""Kubernetes' own gang scheduling (scheduling.k8s.io, KEP-4671): a PodGroup (or, in 1.35, a Workload) and pods
that name it; the API version follows --kubernetes-version."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, error
from mxjob_gitops.compiler.render.gang.base import (
    GANG_ANNOTATION,
    GangBackend,
    GangPlan,
    GroupObject,
    Manifest,
    template_priority_class,
)

# Shapes as the strict OpenAPI definitions of each release spell them (kubernetes-validate's
# v1.3x.0-local-strict/_definitions.json; Kubernetes staging/src/k8s.io/api/scheduling/*/types.go):
# 1.35: scheduling.k8s.io/v1alpha1 Workload, spec.podGroups[].policy.gang.minCount; pods join through
#       spec.workloadRef {name, podGroup}.
# 1.36: scheduling.k8s.io/v1alpha2 PodGroup, spec.schedulingPolicy.gang.minCount and priorityClassName; pods
#       join through spec.schedulingGroup.podGroupName. The scheduling policy is immutable.
# 1.37: scheduling.k8s.io/v1beta1 PodGroup, the same shape; gang.minCount may change after creation.
NEWEST = (1, 37)
_WORKLOAD_GROUP = "gang"  # the one pod group inside a 1.35 Workload


def _minor(plan: GangPlan) -> tuple[int, int]:
    if not plan.kubernetes_version:
        return NEWEST
    major, _, minor = plan.kubernetes_version.partition(".")
    return int(major), int(minor)


def _gang(plan: GangPlan) -> dict[str, Any]:
    """minCount must be positive (GangSchedulingPolicy): a job of 0 pods still names 1."""
    return {"gang": {"minCount": max(plan.min_member, 1)}}


def _group(plan: GangPlan) -> GroupObject:
    minor = _minor(plan)
    if minor < (1, 36):
        return (
            "scheduling.k8s.io/v1alpha1",
            "Workload",
            {"podGroups": [{"name": _WORKLOAD_GROUP, "policy": _gang(plan)}]},
        )
    spec: dict[str, Any] = {"schedulingPolicy": _gang(plan)}
    priority_class = plan.policy.get("priorityClass") or template_priority_class(plan.job)
    if priority_class:
        spec["priorityClassName"] = priority_class
    return ("scheduling.k8s.io/v1beta1" if minor >= (1, 37) else "scheduling.k8s.io/v1alpha2"), "PodGroup", spec


def _findings(plan: GangPlan) -> Iterator[Diagnostic]:
    if _minor(plan) < (1, 35):
        yield error(
            Code.INVALID_VALUE,
            f"Kubernetes {plan.kubernetes_version} has no gang scheduling API: "
            "scheduling.k8s.io Workload arrived in 1.35",
            ("metadata", "annotations", GANG_ANNOTATION),
            "pass --kubernetes-version 1.35 or later, or pick another gang scheduler",
        )


def _join(pod: Manifest, plan: GangPlan, _role: str) -> None:
    """Pod spec.schedulingGroup (1.36+) or spec.workloadRef (1.35): immutable, so set at creation."""
    if _minor(plan) < (1, 36):
        pod["spec"]["workloadRef"] = {"name": plan.job.name, "podGroup": _WORKLOAD_GROUP}
    else:
        pod["spec"]["schedulingGroup"] = {"podGroupName": plan.job.name}


BACKEND = GangBackend("kubernetes", None, "", lambda _argument: None, _group, _join, findings=_findings, versioned=True)
