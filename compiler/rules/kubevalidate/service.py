"""A Service: k8s.io/kubernetes pkg/apis/core/validation/validation.go `ValidateService` (type, ports,
selector, cluster IP, external name, session affinity, external IPs via `ValidateNonSpecialIP`, traffic policy,
health-check node port, load-balancer source ranges and class; internalTrafficPolicy and ipFamilyPolicy enums)."""

from __future__ import annotations

import ipaddress
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate.meta import check_labels
from mxjob_gitops.compiler.rules.kubevalidate.report import (
    Found,
    as_dict,
    as_list,
    check_name,
    duplicate,
    forbidden,
    invalid,
    is_int,
    required,
    since,
    unsupported,
)

S = Code.K8S_SERVICE
TYPES = ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName")
PROTOCOLS = ("SCTP", "TCP", "UDP")
AFFINITIES = ("ClientIP", "None")
TRAFFIC_POLICIES = ("Cluster", "Local")
FAMILY_POLICIES = ("PreferDualStack", "RequireDualStack", "SingleStack")
_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"


# Service fields behind a feature gate that was off by default before a release: an older server drops them before
# validating (pkg/registry/core/service/strategy.go dropServiceDisabledFields). IPv6DualStack: beta and on in 1.21;
# ServiceInternalTrafficPolicy and ServiceLoadBalancerClass: beta and on in 1.22.
FIELD_SINCE = {"ipFamilyPolicy": (1, 21), "internalTrafficPolicy": (1, 22), "loadBalancerClass": (1, 22)}


def check_service(found: Found, spec: Any, path: JsonPath, version: str | None = None) -> None:
    spec = as_dict(spec)
    kind = spec.get("type") or "ClusterIP"  # the v1 defaults (SetDefaults_Service) fill "" too
    if kind not in TYPES:
        unsupported(found, S, (*path, "type"), kind, TYPES)
    _ports(found, spec, path, kind)
    check_labels(found, spec.get("selector"), (*path, "selector"))
    _addresses(found, spec, path, kind)
    affinity = spec.get("sessionAffinity") or "None"
    if affinity not in AFFINITIES:
        unsupported(found, S, (*path, "sessionAffinity"), affinity, AFFINITIES)
    timeout = as_dict(as_dict(spec.get("sessionAffinityConfig")).get("clientIP")).get("timeoutSeconds")
    if affinity == "ClientIP" and is_int(timeout) and not 0 < timeout <= 86400:
        at = (*path, "sessionAffinityConfig", "clientIP", "timeoutSeconds")
        invalid(found, S, at, timeout, "must be greater than 0 and less than 86400")
    external = kind in ("NodePort", "LoadBalancer")
    policy = spec.get("externalTrafficPolicy")
    if policy:
        if policy not in TRAFFIC_POLICIES:
            unsupported(found, S, (*path, "externalTrafficPolicy"), policy, TRAFFIC_POLICIES)
        elif not external:
            invalid(
                found, S, (*path, "externalTrafficPolicy"), policy, "may only be set for externally-accessible services"
            )
    health = spec.get("healthCheckNodePort")
    if is_int(health) and health != 0 and not (kind == "LoadBalancer" and policy == "Local"):
        detail = "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"
        invalid(found, S, (*path, "healthCheckNodePort"), health, detail)
    enabled = {key: since(version, release) for key, release in FIELD_SINCE.items()}
    for key, allowed in (("internalTrafficPolicy", TRAFFIC_POLICIES), ("ipFamilyPolicy", FAMILY_POLICIES)):
        if enabled[key] and spec.get(key) is not None and spec[key] not in allowed:
            unsupported(found, S, (*path, key), spec[key], allowed)
    if enabled["loadBalancerClass"] and spec.get("loadBalancerClass") is not None and kind != "LoadBalancer":
        forbidden(found, S, (*path, "loadBalancerClass"), "may only be used when `type` is 'LoadBalancer'")
    ranges = as_list(spec.get("loadBalancerSourceRanges"))
    if ranges and kind != "LoadBalancer":
        forbidden(found, S, (*path, "LoadBalancerSourceRanges"), "may only be used when `type` is 'LoadBalancer'")
    for index, cidr in enumerate(ranges):
        try:
            ipaddress.ip_network(str(cidr).strip(), strict=False)
        except ValueError:
            detail = "must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 "
            invalid(found, S, (*path, "loadBalancerSourceRanges", index), cidr, detail)


def _ports(found: Found, spec: dict[str, Any], path: JsonPath, kind: Any) -> None:
    ports = as_list(spec.get("ports"))
    if not ports and kind != "ExternalName" and spec.get("clusterIP") != "None":
        required(found, S, (*path, "ports"))
    seen: set[Any] = set()
    pairs: set[tuple[Any, Any]] = set()
    for index, port in enumerate(ports):
        port, at = as_dict(port), (*path, "ports", index)
        name = port.get("name")
        if len(ports) > 1 and not name:
            required(found, S, (*at, "name"))
        elif name:
            check_name(found, S, (*at, "name"), name, names.dns1123_label)
            if name in seen:
                duplicate(found, S, (*at, "name"), name)
            seen.add(name)
        if names.port_number(port.get("port")):
            invalid(found, S, (*at, "port"), port.get("port"), names.port_number(0))
        target = port.get("targetPort")
        if isinstance(target, int) and target != 0 and names.port_number(target):
            invalid(found, S, (*at, "targetPort"), target, names.port_number(0))
        elif isinstance(target, str) and names.port_name(target):
            invalid(found, S, (*at, "targetPort"), target, names.port_name(target))
        protocol = port.get("protocol") or "TCP"
        if protocol not in PROTOCOLS:
            unsupported(found, S, (*at, "protocol"), port.get("protocol"), PROTOCOLS)
        pair = (port.get("port"), protocol)
        if pair in pairs:
            duplicate(found, S, at, f"{pair[0]}/{pair[1]}")
        pairs.add(pair)
        node_port = port.get("nodePort")
        if is_int(node_port) and node_port != 0:
            if kind == "ClusterIP":
                forbidden(found, S, (*at, "nodePort"), "may not be used when `type` is 'ClusterIP'")
            elif names.port_number(node_port):
                invalid(found, S, (*at, "nodePort"), node_port, names.port_number(0))
        protocol_name = port.get("appProtocol")
        if isinstance(protocol_name, str):
            check_name(found, S, (*at, "appProtocol"), protocol_name, names.qualified_name)


def _addresses(found: Found, spec: dict[str, Any], path: JsonPath, kind: Any) -> None:
    cluster_ip = spec.get("clusterIP")
    if cluster_ip == "None" and kind in ("NodePort", "LoadBalancer"):
        invalid(found, S, (*path, "clusterIPs", 0), cluster_ip, f"may not be set to 'None' for {kind} services")
    elif isinstance(cluster_ip, str) and cluster_ip not in ("", "None") and _parse(cluster_ip) is None:
        invalid(found, S, (*path, "clusterIPs", 0), cluster_ip, _IP)
    if kind == "ExternalName":
        external_name = spec.get("externalName")
        if not external_name:
            required(found, S, (*path, "externalName"))
        elif isinstance(external_name, str):
            trimmed = external_name.removesuffix(".")
            check_name(found, S, (*path, "externalName"), trimmed, names.dns1123_subdomain)
    for index, address in enumerate(as_list(spec.get("externalIPs"))):
        at = (*path, "externalIPs", index)
        parsed = _parse(address) if isinstance(address, str) else None
        if parsed is None:
            invalid(found, S, at, address, _IP)
        elif _special(parsed):
            invalid(found, S, at, address, _special(parsed))


def _parse(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _special(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """ValidateNonSpecialIP."""
    if address.is_unspecified:
        return "may not be unspecified (0.0.0.0, ::)"
    if address.is_loopback:
        return "may not be in the loopback range (127.0.0.0/8, ::1/128)"
    if address.is_link_local:
        return "may not be in the link-local range (169.254.0.0/16, fe80::/10)"
    link_multicast = ipaddress.ip_network("224.0.0.0/24" if address.version == 4 else "ff02::/16")
    if address in link_multicast:
        return "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"
    return ""
