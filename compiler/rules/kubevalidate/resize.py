"""A container's resizePolicy, as k8s.io/kubernetes pkg/apis/core/validation/validation.go `validateResizePolicy`
checks it (InPlacePodVerticalScaling: alpha and off before 1.33, so an older server drops the field first, pkg/api/
pod/util.go `dropDisabledFields`): each resource once, cpu or memory, NotRequired or RestartContainer, and
NotRequired only when the pod's restartPolicy is Never (the pods engine renders Never for a replica's Never and
ExitCode: compiler.judge finds it there). Called by kubevalidate.pod for every container."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.rules.kubevalidate.report import (
    Found,
    as_dict,
    as_list,
    duplicate,
    invalid,
    required,
    since,
    unsupported,
)

C = Code.K8S_CONTAINER
RESOURCES = ("cpu", "memory")
POLICIES = ("NotRequired", "RestartContainer")


def check_resize(found: Found, container: Any, path: JsonPath, restart_policy: Any, version: str | None) -> None:
    """`restart_policy`: the pod's (None for a template whose pods get it from the replica)."""
    if not since(version, (1, 33)):
        return
    at = (*path, "resizePolicy")
    seen: set[Any] = set()
    for index, policy in enumerate(as_list(as_dict(container).get("resizePolicy"))):
        policy = as_dict(policy)
        name, restart = policy.get("resourceName"), policy.get("restartPolicy")
        if isinstance(name, str) and name in seen:
            duplicate(found, C, (*at, index), name)
        seen.add(name if isinstance(name, str) else repr(name))
        if not name:
            required(found, C, at)
        elif name not in RESOURCES:
            unsupported(found, C, at, name, RESOURCES)
        if not restart:
            required(found, C, at)
        elif restart not in POLICIES:
            unsupported(found, C, at, restart, POLICIES)
        if restart_policy == "Never" and restart != "NotRequired":
            invalid(
                found,
                C,
                (*at, index, "restartPolicy"),
                restart,
                "must be 'NotRequired' when `restartPolicy` is 'Never'",
            )
