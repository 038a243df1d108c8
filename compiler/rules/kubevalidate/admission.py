"""What the default admission plugins of kube-apiserver refuse in a pod that names no class, before any
validation (so a Pod that passes core validation can still be refused on create):

- Priority (k8s.io/kubernetes plugin/pkg/admission/priority/admission.go, `admitPod`): the priority and the
  preemption policy come from the PriorityClass; a pod may not state others. Without `priorityClassName` (and
  without a global default class, which this offline check cannot see) that is priority 0 and
  PreemptLowerPriority; the two built-in system classes have fixed values.
- RuntimeClass (plugin/pkg/admission/runtimeclass/admission.go, `validateOverhead`): `overhead` comes from the
  RuntimeClass; a pod without `runtimeClassName` may not set it.
"""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.rules.kubevalidate.report import Found, forbidden, is_int

A = Code.K8S_ADMISSION
SYSTEM_CLASSES = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}
DEFAULT_PREEMPTION = "PreemptLowerPriority"


def check_admission(found: Found, spec: dict[str, Any], path: JsonPath) -> None:
    class_name = spec.get("priorityClassName")
    computed = 0 if not class_name else SYSTEM_CLASSES.get(class_name) if isinstance(class_name, str) else None
    priority = spec.get("priority")
    if computed is not None and is_int(priority) and priority != computed:
        detail = (
            f"the integer value of priority ({priority}) must not be provided in pod spec; "
            f"priority admission controller computed {computed} from the given PriorityClass name"
        )
        forbidden(found, A, (*path, "priority"), detail)
    policy = spec.get("preemptionPolicy")
    if computed is not None and policy is not None and policy != DEFAULT_PREEMPTION:
        detail = (
            f"the string value of PreemptionPolicy ({policy}) must not be provided in pod spec; "
            f"priority admission controller computed {DEFAULT_PREEMPTION} from the given PriorityClass name"
        )
        forbidden(found, A, (*path, "preemptionPolicy"), detail)
    if spec.get("overhead") and not spec.get("runtimeClassName"):
        forbidden(
            found,
            A,
            (*path, "overhead"),
            "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead",
        )
