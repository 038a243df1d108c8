"""A pod's network settings: k8s.io/kubernetes pkg/apis/core/validation/validation.go `validateDNSPolicy`,
`validatePodDNSConfig`, `ValidateHostAliases`, `validateHostNetwork` and `checkHostPortConflicts`
(`AccumulateUniqueHostPorts`)."""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate.report import (
    Found,
    as_dict,
    as_list,
    check_name,
    duplicate,
    invalid,
    required,
    since,
    unsupported,
)

P = Code.K8S_POD
DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
# RelaxedDNSSearchValidation (beta, on by default from 1.33): '_' allowed, and a lone '.'.
_RELAXED_SEARCH = re.compile(r"[a-z0-9_]([-a-z0-9_]*[a-z0-9_])?(\.[a-z0-9_]([-a-z0-9_]*[a-z0-9_])?)*")


def ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def check_dns(found: Found, spec: dict[str, Any], path: JsonPath, version: str | None) -> None:
    policy = spec.get("dnsPolicy")  # "" is ClusterFirst (SetDefaults_PodSpec)
    if policy not in (None, "") and policy not in DNS_POLICIES:
        unsupported(found, P, (*path, "dnsPolicy"), policy, DNS_POLICIES)
    config = as_dict(spec.get("dnsConfig"))
    at = (*path, "dnsConfig")
    servers = as_list(config.get("nameservers"))
    if policy == "None" and not servers:
        required(found, P, (*at, "nameservers"), "must provide at least one DNS nameserver when DNSPolicy is None")
    if len(servers) > 3:
        invalid(found, P, (*at, "nameservers"), servers, "must not have more than 3 nameservers")
    for index, server in enumerate(servers):
        if isinstance(server, str) and not ip(server):
            invalid(found, P, (*at, "nameservers", index), server, "must be a valid IP address")
    _searches(found, as_list(config.get("searches")), (*at, "searches"), version)
    for index, option in enumerate(as_list(config.get("options"))):
        if not as_dict(option).get("name"):
            required(found, P, (*at, "options", index), "must not be empty")


def _searches(found: Found, searches: list[Any], path: JsonPath, version: str | None) -> None:
    """At most 6 paths of 256 characters in all (32 and 2048 from 1.26, ExpandedDNSConfig), each a DNS subdomain
    allowing a trailing dot."""
    expanded = since(version, (1, 26))
    most, chars = (32, 2048) if expanded else (6, 256)
    if len(searches) > most:
        invalid(found, P, path, searches, f"must not have more than {most} search paths")
    if len(" ".join(str(s) for s in searches)) > chars:
        invalid(
            found,
            P,
            path,
            searches,
            f"must not have more than {chars} characters (including spaces) in the search list",
        )
    relaxed = since(version, (1, 33))
    for index, search in enumerate(searches):
        if not isinstance(search, str) or (relaxed and search == "."):
            continue
        trimmed = search[:-1] if search.endswith(".") else search
        if relaxed:
            if len(trimmed) > 253 or not _RELAXED_SEARCH.fullmatch(trimmed):
                detail = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character"  # noqa: E501
                invalid(found, P, (*path, index), search, detail)
        else:
            check_name(found, P, (*path, index), trimmed, names.dns1123_subdomain)


def check_host_aliases(found: Found, aliases: Any, path: JsonPath) -> None:
    """ValidateHostAliases: an IP address and DNS-1123 subdomain host names."""
    for index, alias in enumerate(as_list(aliases)):
        alias, at = as_dict(alias), (*path, index)
        address = alias.get("ip")
        if not isinstance(address, str) or not ip(address):
            invalid(found, P, (*at, "ip"), address, "must be a valid IP address")
        for position, host in enumerate(as_list(alias.get("hostnames"))):
            check_name(found, P, (*at, "hostnames", position), host, names.dns1123_subdomain)


def check_host_ports(found: Found, spec: dict[str, Any], path: JsonPath, whole: bool = True) -> None:
    """validateHostNetwork (a set hostPort equals containerPort when hostNetwork is true) and
    checkHostPortConflicts (protocol, hostIP and hostPort unique among the regular containers). A Pod on host
    networking has each unset hostPort defaulted to its containerPort first (pkg/apis/core/v1/defaults.go
    `SetDefaults_Pod`, `defaultHostNetworkPorts`; a pod template's are not since 1.28, the
    DefaultHostNetworkHostPortsInPodTemplates gate), so two containers' equal containerPorts conflict there."""
    host_network = spec.get("hostNetwork") is True
    taken: set[str] = set()
    for key in ("initContainers", "containers"):
        for index, container in enumerate(as_list(spec.get(key))):
            for position, port in enumerate(as_list(as_dict(container).get("ports"))):
                port, at = as_dict(port), (*path, key, index, "ports", position)
                host, inner = port.get("hostPort"), port.get("containerPort")
                if whole and host_network and host in (None, 0):
                    host = inner
                if host_network and host not in (None, 0) and host != inner:
                    invalid(found, P, (*at, "containerPort"), inner, "must match `hostPort` when `hostNetwork` is true")
                if key == "containers" and isinstance(host, int) and host != 0:
                    slot = f"{port.get('protocol') or 'TCP'}/{port.get('hostIP') or ''}/{host}"
                    if slot in taken:
                        duplicate(found, P, (*at, "hostPort"), slot)
                    taken.add(slot)
