"""A Kueue Workload (the one Kueue creates for our pods or JobSet, compiler.gang.workload) against what its CRD
makes the API server refuse: kubernetes-sigs/kueue config/components/crd/bases/kueue.x-k8s.io_workloads.yaml
(v1beta2: `spec.queueName` and `spec.priorityClassRef.name`: DNS-1123 subdomain patterns of at most 253 characters;
`spec.podSets`: 1 to 18 items keyed by `name`, a DNS-1123 label pattern of at most 63 characters, `count` at
least 0; each pod set's template keyed as a pod template's lists are). The wording is apiextensions-apiserver's
(kube-openapi validate errors: "in body should ..."). Called by compiler.judge."""

from __future__ import annotations

import re
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath, error
from mxjob_gitops.compiler.rules.kubevalidate.keyedlists import check_template_lists
from mxjob_gitops.compiler.rules.kubevalidate.report import Found, as_dict, as_list, duplicate, is_int

K = Code.K8S_POD_GROUP
SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
MAX_POD_SETS = 18
HINT = "Kueue cannot create the Workload for the pods, which then stay gated; see docs/validation.md"


def check_workload(found: Found, workload: dict[str, Any]) -> None:
    spec = as_dict(workload.get("spec"))
    if isinstance(spec.get("queueName"), str):
        _string(found, ("spec", "queueName"), spec["queueName"], 253, SUBDOMAIN)
    priority = as_dict(spec.get("priorityClassRef")).get("name")
    if isinstance(priority, str):
        _string(found, ("spec", "priorityClassRef", "name"), priority, 253, SUBDOMAIN)
    pod_sets = as_list(spec.get("podSets"))
    if not 1 <= len(pod_sets) <= MAX_POD_SETS:
        message = f"Invalid value: {len(pod_sets)}: spec.podSets in body must have between 1 and {MAX_POD_SETS} items"
        found.append(error(K, message, ("spec", "podSets"), HINT))
    names: set[Any] = set()
    for index, pod_set in enumerate(pod_sets):
        pod_set, at = as_dict(pod_set), ("spec", "podSets", index)
        name = pod_set.get("name")
        if isinstance(name, str):
            _string(found, (*at, "name"), name, 63, LABEL)
            if name in names:
                duplicate(found, K, at, {"name": name})
            names.add(name)
        count = pod_set.get("count")
        if is_int(count) and count < 0:
            message = f"Invalid value: {count}: spec.podSets[{index}].count in body should be at least 0"
            found.append(error(K, message, (*at, "count"), HINT))
        check_template_lists(found, as_dict(pod_set.get("template")), (*at, "template"))


def _string(found: Found, path: JsonPath, value: str, limit: int, pattern: str) -> None:
    where = ".".join(str(p) for p in path)
    if len(value) > limit:
        found.append(error(K, f"Too long: may not be more than {limit} bytes", path, HINT))
    if not re.match(pattern, value):
        message = f"Invalid value: {value!r}: {where} in body should match '{pattern}'"
        found.append(error(K, message, path, HINT))
