"""One container as k8s.io/kubernetes pkg/apis/core/validation/validation.go checks it: `validateContainerCommon`
(name, ports, env, volume mounts, resources, probes, lifecycle, security context, enums)."""

from __future__ import annotations

import re
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate.env import check_env, check_env_from
from mxjob_gitops.compiler.rules.kubevalidate.mounts import check_mounts
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
from mxjob_gitops.compiler.rules.kubevalidate.resources import check_requirements
from mxjob_gitops.compiler.rules.kubevalidate.security import check_container_security

C = Code.K8S_CONTAINER
PROTOCOLS = ("SCTP", "TCP", "UDP")
PULL_POLICIES = ("Always", "IfNotPresent", "Never")
MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
# Handlers behind a feature gate that was off by default before a release: an older server drops the field before
# validating (pkg/api/pod/util.go dropDisabledFields), so there it is no handler at all. GRPCContainerProbe: beta
# and on in 1.24; PodLifecycleSleepAction: beta and on in 1.30.
HANDLER_SINCE = {"grpc": (1, 24), "sleep": (1, 30)}


def _enabled(kinds: tuple[str, ...], version: str | None) -> tuple[str, ...]:
    return tuple(kind for kind in kinds if since(version, HANDLER_SINCE.get(kind, (1, 0))))


PROPAGATIONS = ("Bidirectional", "HostToContainer", "None")
SCHEMES = ("HTTP", "HTTPS")
INIT_FORBIDDEN = ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")
_HEADER = re.compile(r"[-A-Za-z0-9]+")


def check_container(
    found: Found,
    container: Any,
    path: JsonPath,
    volumes: dict[str, dict[str, Any]],
    relaxed_env: bool,
    whole: bool,
    version: str | None = None,
    init: bool = False,
) -> None:
    """`whole` for a Pod as written (an MXJob's empty image of `containers` is MXJ207 of compiler.rules)."""
    container = as_dict(container)
    image = container.get("image")
    if (whole or init) and not image:
        required(found, C, (*path, "image"))
    elif isinstance(image, str) and image != image.strip():
        invalid(found, C, (*path, "image"), image, "must not have leading or trailing whitespace")
    name = container.get("name")
    if not name:
        required(found, C, (*path, "name"))
    else:
        check_name(found, C, (*path, "name"), name, names.dns1123_label)
    if init:
        _init_only(found, container, path, version)
    _ports(found, container.get("ports"), (*path, "ports"))
    check_env(found, container.get("env"), (*path, "env"), relaxed_env, version)
    check_env_from(found, container.get("envFrom"), (*path, "envFrom"), relaxed_env)
    privileged = as_dict(container.get("securityContext")).get("privileged") is True
    check_mounts(found, container, path, volumes, privileged)
    check_requirements(found, container.get("resources"), (*path, "resources"), version)
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        if probe in container:
            check_probe(found, container[probe], (*path, probe), probe != "readinessProbe", version)
    for hook, handler in as_dict(container.get("lifecycle")).items():
        if hook in ("postStart", "preStop"):
            kinds = _enabled(("exec", "httpGet", "tcpSocket", "sleep"), version)
            _handler(found, handler, (*path, "lifecycle", hook), kinds)
    check_container_security(found, container.get("securityContext"), (*path, "securityContext"))
    _enum(found, container, path, "imagePullPolicy", PULL_POLICIES)
    _enum(found, container, path, "terminationMessagePolicy", MESSAGE_POLICIES)


def _enum(found: Found, owner: dict[str, Any], path: JsonPath, key: str, allowed: tuple[str, ...]) -> None:
    """An enum the v1 defaulters fill when unset or empty (SetDefaults_Container), so "" is valid."""
    value = owner.get(key)
    if value not in (None, "") and value not in allowed:
        unsupported(found, C, (*path, key), value, allowed)


def _ports(found: Found, ports: Any, path: JsonPath) -> None:
    """validateContainerPorts."""
    seen: set[str] = set()
    for index, port in enumerate(as_list(ports)):
        port, at = as_dict(port), (*path, index)
        name = port.get("name")
        if isinstance(name, str) and name:
            check_name(found, C, (*at, "name"), name, names.port_name)
            if name in seen:
                duplicate(found, C, (*at, "name"), name)
            seen.add(name)
        if "containerPort" not in port:
            required(found, C, (*at, "containerPort"))
        else:
            if names.port_number(port["containerPort"]):
                invalid(found, C, (*at, "containerPort"), port["containerPort"], names.port_number(0))
        host = port.get("hostPort")
        if host not in (None, 0) and names.port_number(host):
            invalid(found, C, (*at, "hostPort"), host, names.port_number(0))
        protocol = port.get("protocol")  # "" is TCP (SetDefaults_ContainerPort)
        if protocol not in (None, "") and protocol not in PROTOCOLS:
            unsupported(found, C, (*at, "protocol"), protocol, PROTOCOLS)


def _init_only(found: Found, container: dict[str, Any], path: JsonPath, version: str | None) -> None:
    """validateInitContainers: no lifecycle or probes, unless (from 1.29, SidecarContainers) restartPolicy Always."""
    sidecar = container.get("restartPolicy") == "Always" and since(version, (1, 29))
    for key in INIT_FORBIDDEN:
        if key not in container or sidecar:
            continue
        if since(version, (1, 29)):
            forbidden(found, C, (*path, key), "may not be set for init containers without restartPolicy=Always")
        else:
            invalid(found, C, (*path, key), container[key], "must not be set for init containers")


def check_probe(found: Found, probe: Any, path: JsonPath, single_success: bool, version: str | None = None) -> None:
    """validateProbe: one handler, non-negative timings; liveness and startup need successThreshold 1."""
    probe = as_dict(probe)
    _handler(found, probe, path, _enabled(HANDLERS, version))
    for key in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        value = probe.get(key)
        if is_int(value) and value < 0:
            invalid(found, C, (*path, key), value, "must be greater than or equal to 0")
    # pkg/apis/core/v1/defaults.go SetDefaults_Probe turns an unset or zero successThreshold into 1 first.
    if single_success and probe.get("successThreshold") not in (None, 0, 1):
        invalid(found, C, (*path, "successThreshold"), probe["successThreshold"], "must be 1")


def _handler(found: Found, handler: Any, path: JsonPath, kinds: tuple[str, ...]) -> None:
    present = [key for key in kinds if as_dict(handler).get(key) is not None]
    if not present:
        required(found, C, path, "must specify a handler type")
    elif len(present) > 1:
        invalid(found, C, (*path, present[1]), "", "may not specify more than 1 handler type")
    for key in present:
        action = as_dict(as_dict(handler)[key])
        if key == "exec" and not as_list(action.get("command")):
            required(found, C, (*path, "exec", "command"))
        if key == "httpGet":
            _http_get(found, action, (*path, key))
        port = action.get("port")
        if is_int(port) and names.port_number(port):
            invalid(found, C, (*path, key, "port"), port, names.port_number(0))
        elif isinstance(port, str) and key != "grpc" and names.port_name(port):
            invalid(found, C, (*path, key, "port"), port, names.port_name(port))


def _http_get(found: Found, action: dict[str, Any], path: JsonPath) -> None:
    """validateHTTPGetAction: scheme HTTP or HTTPS, header names of IsHTTPHeaderName."""
    scheme = action.get("scheme")  # "" is HTTP (SetDefaults_HTTPGetAction)
    if scheme not in (None, "") and scheme not in SCHEMES:
        unsupported(found, C, (*path, "scheme"), scheme, SCHEMES)
    for header in as_list(action.get("httpHeaders")):
        name = as_dict(header).get("name")
        if isinstance(name, str) and not _HEADER.fullmatch(name):
            detail = "a valid HTTP header must consist of alphanumeric characters or '-'"
            invalid(found, C, (*path, "httpHeaders"), name, detail)
