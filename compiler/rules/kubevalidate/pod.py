"""The pod spec: k8s.io/kubernetes pkg/apis/core/validation/validation.go `ValidatePodSpec` (`validateVolumes`,
`validateContainers`, `validateInitContainers`, `validateRestartPolicy`, `validateDNSPolicy`, `validatePodDNSConfig`,
`ValidateTolerations`, `validateTopologySpreadConstraints`, `ValidateHostAliases`, `validateHostNetwork`...)."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.base.exact import exact
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate.admission import check_admission
from mxjob_gitops.compiler.rules.kubevalidate.container import check_container
from mxjob_gitops.compiler.rules.kubevalidate.dra import check_resource_claims
from mxjob_gitops.compiler.rules.kubevalidate.later import check_later
from mxjob_gitops.compiler.rules.kubevalidate.memo import ValidSpecs, spec_key
from mxjob_gitops.compiler.rules.kubevalidate.network import check_dns, check_host_aliases, check_host_ports
from mxjob_gitops.compiler.rules.kubevalidate.podextras import check_pod_extras
from mxjob_gitops.compiler.rules.kubevalidate.recent import check_recent
from mxjob_gitops.compiler.rules.kubevalidate.report import (
    Found,
    as_dict,
    as_list,
    check_name,
    duplicate,
    invalid,
    is_int,
    required,
    since,
    unsupported,
)
from mxjob_gitops.compiler.rules.kubevalidate.resize import check_resize
from mxjob_gitops.compiler.rules.kubevalidate.resources import quantity
from mxjob_gitops.compiler.rules.kubevalidate.scheduling import check_affinity
from mxjob_gitops.compiler.rules.kubevalidate.security import check_pod_security
from mxjob_gitops.compiler.rules.kubevalidate.volumes import check_volumes, without_dropped_image_volumes

P, V = Code.K8S_POD, Code.K8S_VOLUME
RESTART_POLICIES = ("Always", "OnFailure", "Never")
PREEMPTION = ("PreemptLowerPriority", "Never")
OPERATORS = ("Exists", "Equal")
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")


def relaxed_env(version: str | None) -> bool:
    """RelaxedEnvironmentVariableValidation: beta and on by default from 1.32 (GA in 1.34)."""
    return since(version, (1, 32))


def relaxed_service_names(version: str | None) -> bool:
    """RelaxedServiceNameValidation (KEP 5311, beta and on by default from 1.36): DNS-1123 label Service names."""
    return since(version, (1, 36))


_VALID_SPECS = ValidSpecs()


def check_pod_spec(found: Found, spec: Any, path: JsonPath, version: str | None, whole: bool = True) -> None:
    """`whole`: the spec is a pod's as written (a Pod object); False for an MXJob template, which the compiler
    completes (restartPolicy per replica, at least the mxnet container). A spec equal to one found valid
    before, but for its env values, is not checked again (kubevalidate.memo)."""
    key = None if exact("memo") else spec_key(spec, version, whole)
    if key is not None and key in _VALID_SPECS:
        return
    before = len(found)
    check_pod_spec_afresh(found, spec, path, version, whole)
    if key is not None and len(found) == before:
        _VALID_SPECS.add(key)


def check_pod_spec_afresh(found: Found, spec: Any, path: JsonPath, version: str | None, whole: bool = True) -> None:
    """check_pod_spec without the memo: every rule, every time."""
    spec = without_dropped_image_volumes(as_dict(spec), version)
    volumes = check_volumes(found, spec.get("volumes"), (*path, "volumes"), version)
    relaxed = relaxed_env(version)
    seen: set[str] = set()
    if whole and not as_list(spec.get("containers")):
        required(found, Code.K8S_CONTAINER, (*path, "containers"))
    for key in ("initContainers", "containers"):
        for index, container in enumerate(as_list(spec.get(key))):
            check_container(
                found, container, (*path, key, index), volumes, relaxed, whole, version, key == "initContainers"
            )
            restart = (spec.get("restartPolicy") or "Always") if whole else None
            check_resize(found, container, (*path, key, index), restart, version)
            name = as_dict(container).get("name")
            if isinstance(name, str) and name:
                if name in seen:
                    duplicate(found, Code.K8S_CONTAINER, (*path, key, index, "name"), name)
                seen.add(name)
    if whole and spec.get("restartPolicy") not in (None, "", *RESTART_POLICIES):  # "": Always (SetDefaults_PodSpec)
        unsupported(found, P, (*path, "restartPolicy"), spec["restartPolicy"], RESTART_POLICIES)
    check_dns(found, spec, path, version)
    check_host_ports(found, spec, path, whole)
    check_admission(found, spec, path)
    check_recent(found, spec, path, version)
    _tolerations(found, spec.get("tolerations"), (*path, "tolerations"))
    _spread(found, spec.get("topologySpreadConstraints"), (*path, "topologySpreadConstraints"))
    check_host_aliases(found, spec.get("hostAliases"), (*path, "hostAliases"))
    check_affinity(found, spec.get("affinity"), (*path, "affinity"), version)
    check_pod_security(found, spec.get("securityContext"), (*path, "securityContext"), version)
    if spec.get("shareProcessNamespace") is True and spec.get("hostPID") is True:
        at = (*path, "securityContext", "shareProcessNamespace")
        invalid(found, P, at, True, "ShareProcessNamespace and HostPID cannot both be enabled")
    if spec.get("preemptionPolicy") is not None and spec["preemptionPolicy"] not in PREEMPTION:
        unsupported(found, P, (*path, "preemptionPolicy"), spec["preemptionPolicy"], PREEMPTION)
    for index, gate in enumerate(as_list(spec.get("readinessGates"))):
        at = (*path, "readinessGates", index, "conditionType")
        check_name(found, P, at, as_dict(gate).get("conditionType") or "", names.qualified_name)
    for key, value in as_dict(spec.get("nodeSelector")).items():
        check_name(found, P, (*path, "nodeSelector", key), key, names.qualified_name)
        check_name(found, P, (*path, "nodeSelector", key), value, names.label_value)
    for key in ("serviceAccountName", "priorityClassName", "nodeName"):
        if spec.get(key):
            check_name(found, P, (*path, key), spec[key], names.dns1123_subdomain)
    if spec.get("runtimeClassName") is not None:  # a pointer: "" is a name, and not a valid one
        check_name(found, P, (*path, "runtimeClassName"), spec["runtimeClassName"], names.dns1123_subdomain)
    for key in ("hostname", "subdomain"):
        if spec.get(key):
            check_name(found, P, (*path, key), spec[key], names.dns1123_label)
    deadline = spec.get("activeDeadlineSeconds")
    if is_int(deadline) and not 1 <= deadline <= 2147483647:
        invalid(found, P, (*path, "activeDeadlineSeconds"), deadline, "must be between 1 and 2147483647, inclusive")
    for name in as_dict(spec.get("overhead")):
        quantity(found, (*path, "overhead", name), spec["overhead"][name])
    check_pod_extras(found, spec, path, version)
    check_resource_claims(found, spec, path, version)
    check_later(found, spec, path, version)


def _tolerations(found: Found, tolerations: Any, path: JsonPath) -> None:
    """ValidateTolerations."""
    for index, toleration in enumerate(as_list(tolerations)):
        toleration, at = as_dict(toleration), (*path, index)
        key, operator = toleration.get("key"), toleration.get("operator") or "Equal"
        if key:
            check_name(found, P, (*at, "key"), key, names.qualified_name)
        elif operator != "Exists":
            invalid(
                found,
                P,
                (*at, "operator"),
                operator,
                'operator must be Exists when `key` is empty, which means "match all values and all keys"',
            )
        if operator not in OPERATORS:
            unsupported(found, P, (*at, "operator"), operator, OPERATORS)
        elif operator == "Exists" and toleration.get("value"):
            invalid(found, P, (*at, "operator"), toleration["value"], "value must be empty when `operator` is 'Exists'")
        elif operator == "Equal" and isinstance(toleration.get("value"), str):
            check_name(found, P, (*at, "value"), toleration["value"], names.label_value)
        effect = toleration.get("effect")
        if effect and effect not in EFFECTS:
            unsupported(found, P, (*at, "effect"), effect, EFFECTS)
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            invalid(
                found, P, (*at, "effect"), effect or "", "effect must be 'NoExecute' when `tolerationSeconds` is set"
            )


def _spread(found: Found, constraints: Any, path: JsonPath) -> None:
    """validateTopologySpreadConstraints."""
    seen: set[tuple[Any, Any]] = set()
    for index, constraint in enumerate(as_list(constraints)):
        constraint, at = as_dict(constraint), (*path, index)
        skew = constraint.get("maxSkew")
        if is_int(skew) and skew <= 0:
            invalid(found, P, (*at, "maxSkew"), skew, "must be greater than zero")
        if not constraint.get("topologyKey"):
            required(found, P, (*at, "topologyKey"), "can not be empty")
        else:
            check_name(found, P, (*at, "topologyKey"), constraint["topologyKey"], names.qualified_name)
        action = constraint.get("whenUnsatisfiable")
        if action not in UNSATISFIABLE:
            unsupported(found, P, (*at, "whenUnsatisfiable"), action, UNSATISFIABLE)
        pair = (constraint.get("topologyKey"), action)
        if pair in seen:
            duplicate(found, P, (*at, "{topologyKey, whenUnsatisfiable}"), f"{pair[0]}, {pair[1]}")
        seen.add(pair)
