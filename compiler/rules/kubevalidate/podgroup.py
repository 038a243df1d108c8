"""The PodGroups we emit, against what their CRDs make the API server refuse beyond our JSON schemas: the
openAPIV3Schema constraints of volcano-sh/apis config/crd/bases/scheduling.volcano.sh_podgroups.yaml (`queue`: a
DNS-1123 subdomain pattern, at most 253 characters; `priorityClassName`: at most 253) and of
kubernetes-sigs/scheduler-plugins manifests/crds/scheduling.x-k8s.io_podgroups.yaml (`minMember`: minimum 1),
vendored in tests/fixtures/crds. The wording is apiextensions-apiserver's (kube-openapi validate errors:
"in body should ..."). Called by compiler.job for a job's group; the paths point at the MXJob field the value
came from (schedulingPolicy, the queue annotation)."""

from __future__ import annotations

import json
import re
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, JsonPath, error

SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
POLICY = ("spec", "runPolicy", "schedulingPolicy")
VOLCANO_QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"
HINT = "Volcano's PodGroup CRD refuses it; see docs/validation.md#podgroups"


def check_pod_group(group: dict[str, Any], job: dict[str, Any]) -> list[Diagnostic]:
    """What the group's CRD refuses, located in the MXJob `job` (its v1 document)."""
    spec = group.get("spec") or {}
    api_version = group.get("apiVersion")
    found: list[Diagnostic] = []
    if api_version == "scheduling.x-k8s.io/v1alpha1":
        minimum = spec.get("minMember")
        if isinstance(minimum, int) and minimum < 1:
            rule = "spec.minMember in body should be greater than or equal to 1"
            message = f"PodGroup spec.minMember: Invalid value: {minimum}: {rule}"
            hint = "set minAvailable to at least 1: scheduler-plugins' PodGroup CRD refuses 0"
            found.append(error(Code.K8S_POD_GROUP, message, _source(job, "minMember"), hint))
    elif api_version == "scheduling.volcano.sh/v1beta1":
        queue = spec.get("queue")
        if isinstance(queue, str):
            found.extend(_string(job, "queue", queue, SUBDOMAIN))
        priority = spec.get("priorityClassName")
        if isinstance(priority, str):
            found.extend(_string(job, "priorityClassName", priority, None))
    return found


def _string(job: dict[str, Any], field: str, value: str, pattern: str | None) -> list[Diagnostic]:
    path = _source(job, field)
    found = []
    if len(value) > 253:
        message = f"PodGroup spec.{field}: Too long: may not be more than 253 bytes"
        found.append(error(Code.K8S_POD_GROUP, message, path, HINT))
    if pattern is not None and not re.match(pattern, value):
        message = (
            f"PodGroup spec.{field}: Invalid value: {_quote(value)}: spec.{field} in body should match '{pattern}'"
        )
        found.append(error(Code.K8S_POD_GROUP, message, path, HINT))
    return found


def _quote(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _source(job: dict[str, Any], field: str) -> JsonPath:
    """The MXJob field a PodGroup field came from."""
    policy = ((job.get("spec") or {}).get("runPolicy") or {}).get("schedulingPolicy") or {}
    if field == "minMember":
        return (*POLICY, "minAvailable") if "minAvailable" in policy else POLICY
    if field == "queue":
        if policy.get("queue"):
            return (*POLICY, "queue")
        return ("metadata", "annotations", VOLCANO_QUEUE_ANNOTATION)
    if policy.get("priorityClass"):
        return (*POLICY, "priorityClass")
    return POLICY
