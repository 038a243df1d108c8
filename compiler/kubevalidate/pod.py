"""The pod spec: k8s.io/kubernetes pkg/apis/core/validation/validation.go `ValidatePodSpec` (`validateVolumes`,
`validateContainers`, `validateInitContainers`, `validateRestartPolicy`, `validateDNSPolicy`, `validatePodDNSConfig`,
`ValidateTolerations`, `validateTopologySpreadConstraints`, `ValidateHostAliases`, `validateHostNetwork`...)."""

from __future__ import annotations

import ipaddress
from typing import Any

from mxjob_gitops.compiler.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.kubevalidate import names
from mxjob_gitops.compiler.kubevalidate.container import check_container
from mxjob_gitops.compiler.kubevalidate.podextras import check_pod_extras
from mxjob_gitops.compiler.kubevalidate.report import (
    Found,
    as_dict,
    as_list,
    check_name,
    duplicate,
    forbidden,
    invalid,
    is_int,
    required,
    unsupported,
)
from mxjob_gitops.compiler.kubevalidate.resources import quantity
from mxjob_gitops.compiler.kubevalidate.scheduling import check_affinity
from mxjob_gitops.compiler.kubevalidate.security import check_pod_security

P, V = Code.K8S_POD, Code.K8S_VOLUME
RESTART_POLICIES = ("Always", "OnFailure", "Never")
DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
OPERATORS = ("Exists", "Equal")
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
VOLUME_SOURCES = (
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi",
    "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc",
    "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected",
    "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image",
)  # fmt: skip


def relaxed_env(version: str | None) -> bool:
    """RelaxedEnvironmentVariableValidation: beta and on by default from 1.32 (GA in 1.34)."""
    return _at_least(version, (1, 32))


def relaxed_service_names(version: str | None) -> bool:
    """RelaxedServiceNameValidation (KEP 5311, beta and on by default from 1.36): DNS-1123 label Service names."""
    return _at_least(version, (1, 36))


def _at_least(version: str | None, release: tuple[int, int]) -> bool:
    if version is None:
        return True
    major, minor = (int(part) for part in version.split(".")[:2])
    return (major, minor) >= release


def check_pod_spec(found: Found, spec: Any, path: JsonPath, version: str | None, whole: bool = True) -> None:
    """`whole`: the spec is a pod's as written (a Pod object); False for an MXJob template, which the compiler
    completes (restartPolicy per replica, at least the mxnet container)."""
    spec = as_dict(spec)
    volumes = _volumes(found, spec.get("volumes"), (*path, "volumes"))
    relaxed = relaxed_env(version)
    seen: set[str] = set()
    if whole and not as_list(spec.get("containers")):
        required(found, Code.K8S_CONTAINER, (*path, "containers"))
    for key in ("initContainers", "containers"):
        for index, container in enumerate(as_list(spec.get(key))):
            check_container(found, container, (*path, key, index), volumes, relaxed, whole)
            name = as_dict(container).get("name")
            if isinstance(name, str) and name:
                if name in seen:
                    duplicate(found, Code.K8S_CONTAINER, (*path, key, index, "name"), name)
                seen.add(name)
    if whole and spec.get("restartPolicy") not in (None, *RESTART_POLICIES):
        unsupported(found, P, (*path, "restartPolicy"), spec["restartPolicy"], RESTART_POLICIES)
    _dns(found, spec, path)
    _tolerations(found, spec.get("tolerations"), (*path, "tolerations"))
    _spread(found, spec.get("topologySpreadConstraints"), (*path, "topologySpreadConstraints"))
    _host_aliases(found, spec.get("hostAliases"), (*path, "hostAliases"))
    check_affinity(found, spec.get("affinity"), (*path, "affinity"))
    check_pod_security(found, spec.get("securityContext"), (*path, "securityContext"))
    for key, value in as_dict(spec.get("nodeSelector")).items():
        check_name(found, P, (*path, "nodeSelector", key), key, names.qualified_name)
        check_name(found, P, (*path, "nodeSelector", key), value, names.label_value)
    for key in ("serviceAccountName", "priorityClassName"):
        if spec.get(key):
            check_name(found, P, (*path, key), spec[key], names.dns1123_subdomain)
    for key in ("hostname", "subdomain"):
        if spec.get(key):
            check_name(found, P, (*path, key), spec[key], names.dns1123_label)
    deadline = spec.get("activeDeadlineSeconds")
    if is_int(deadline) and deadline <= 0:
        invalid(found, P, (*path, "activeDeadlineSeconds"), deadline, "must be between 1 and 2147483647, inclusive")
    for name in as_dict(spec.get("overhead")):
        quantity(found, (*path, "overhead", name), spec["overhead"][name])
    check_pod_extras(found, spec, path, version)


def _volumes(found: Found, volumes: Any, path: JsonPath) -> set[str]:
    """validateVolumes: DNS-1123 label names, unique, exactly one source."""
    seen: set[str] = set()
    for index, volume in enumerate(as_list(volumes)):
        volume, at = as_dict(volume), (*path, index)
        name = volume.get("name")
        if not name:
            required(found, V, (*at, "name"))
        else:
            check_name(found, V, (*at, "name"), name, names.dns1123_label)
            if name in seen:
                duplicate(found, V, (*at, "name"), name)
            seen.add(name)
        sources = [key for key in VOLUME_SOURCES if volume.get(key) is not None]
        # No source at all is defaulted to emptyDir (pkg/apis/core/v1/defaults.go SetDefaults_Volume).
        if len(sources) > 1:
            invalid(found, V, (*at, sources[1]), "", "may not specify more than 1 volume type")
        size = as_dict(volume.get("emptyDir")).get("sizeLimit")
        amount = quantity(found, (*at, "emptyDir", "sizeLimit"), size)
        if amount is not None and amount < 0:
            forbidden(found, V, (*at, "emptyDir", "sizeLimit"), "SizeLimit field must be a valid resource quantity")
    return seen


def _dns(found: Found, spec: dict[str, Any], path: JsonPath) -> None:
    policy = spec.get("dnsPolicy")
    if policy is not None and policy not in DNS_POLICIES:
        unsupported(found, P, (*path, "dnsPolicy"), policy, DNS_POLICIES)
    config = as_dict(spec.get("dnsConfig"))
    servers = as_list(config.get("nameservers"))
    if policy == "None" and not servers:
        required(
            found,
            P,
            (*path, "dnsConfig", "nameservers"),
            "must provide at least one DNS nameserver when DNSPolicy is None",
        )
    if len(servers) > 3:
        invalid(found, P, (*path, "dnsConfig", "nameservers"), servers, "must not have more than 3 nameservers")
    for index, server in enumerate(servers):
        if isinstance(server, str) and not _ip(server):
            invalid(found, P, (*path, "dnsConfig", "nameservers", index), server, "must be a valid IP address")


def _ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


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


def _host_aliases(found: Found, aliases: Any, path: JsonPath) -> None:
    """ValidateHostAliases: an IP address and DNS-1123 subdomain host names."""
    for index, alias in enumerate(as_list(aliases)):
        alias, at = as_dict(alias), (*path, index)
        ip = alias.get("ip")
        if not isinstance(ip, str) or not _ip(ip):
            invalid(found, P, (*at, "ip"), ip, "must be a valid IP address")
        for position, host in enumerate(as_list(alias.get("hostnames"))):
            check_name(found, P, (*at, "hostnames", position), host, names.dns1123_subdomain)
