"""One container as k8s.io/kubernetes pkg/apis/core/validation/validation.go checks it: `validateContainerCommon`
(name, ports, env, volume mounts, resources, probes, lifecycle, security context, enums)."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.kubevalidate import names
from mxjob_gitops.compiler.kubevalidate.report import (
    Found,
    as_dict,
    as_list,
    check_name,
    duplicate,
    invalid,
    is_int,
    not_found,
    required,
    unsupported,
)
from mxjob_gitops.compiler.kubevalidate.resources import check_requirements
from mxjob_gitops.compiler.kubevalidate.security import check_container_security

C = Code.K8S_CONTAINER
PROTOCOLS = ("SCTP", "TCP", "UDP")
PULL_POLICIES = ("Always", "IfNotPresent", "Never")
MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
VALUE_SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef")


def check_container(
    found: Found, container: Any, path: JsonPath, volumes: set[str], relaxed_env: bool, whole: bool
) -> None:
    """`whole` for a Pod as written (an MXJob's empty image is MXJ207 of compiler.rules)."""
    container = as_dict(container)
    if whole and not container.get("image"):
        required(found, C, (*path, "image"))
    name = container.get("name")
    if not name:
        required(found, C, (*path, "name"))
    else:
        check_name(found, C, (*path, "name"), name, names.dns1123_label)
    _ports(found, container.get("ports"), (*path, "ports"))
    _env(found, container.get("env"), (*path, "env"), relaxed_env)
    for index, source in enumerate(as_list(container.get("envFrom"))):
        prefix = as_dict(source).get("prefix")
        if prefix:
            check_name(
                found, C, (*path, "envFrom", index, "prefix"), prefix, lambda v: names.env_var_name(v, relaxed_env)
            )
    _mounts(found, container.get("volumeMounts"), (*path, "volumeMounts"), volumes)
    check_requirements(found, container.get("resources"), (*path, "resources"))
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        if probe in container:
            check_probe(found, container[probe], (*path, probe), probe != "readinessProbe")
    for hook, handler in as_dict(container.get("lifecycle")).items():
        if hook in ("postStart", "preStop"):
            _handler(found, handler, (*path, "lifecycle", hook), ("exec", "httpGet", "tcpSocket", "sleep"))
    check_container_security(found, container.get("securityContext"), (*path, "securityContext"))
    _enum(found, container, path, "imagePullPolicy", PULL_POLICIES)
    _enum(found, container, path, "terminationMessagePolicy", MESSAGE_POLICIES)


def _enum(found: Found, owner: dict[str, Any], path: JsonPath, key: str, allowed: tuple[str, ...]) -> None:
    value = owner.get(key)
    if value is not None and value not in allowed:
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
        protocol = port.get("protocol")
        if protocol is not None and protocol not in PROTOCOLS:
            unsupported(found, C, (*at, "protocol"), protocol, PROTOCOLS)


def _env(found: Found, env: Any, path: JsonPath, relaxed: bool) -> None:
    """ValidateEnv, validateEnvVarValueFrom."""
    for index, var in enumerate(as_list(env)):
        var, at = as_dict(var), (*path, index)
        name = var.get("name")
        if not name:
            required(found, C, (*at, "name"))
        elif isinstance(name, str) and names.env_var_name(name, relaxed):
            invalid(found, C, (*at, "name"), name, names.env_var_name(name, relaxed))
        source = var.get("valueFrom")
        if source is None:
            continue
        sources = [key for key in VALUE_SOURCES if as_dict(source).get(key) is not None]
        if len(sources) != 1:
            invalid(
                found,
                C,
                (*at, "valueFrom"),
                "",
                "may not have more than one field specified at a time"
                if sources
                else "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
            )
        if var.get("value"):
            invalid(found, C, (*at, "valueFrom"), "", "may not be specified when `value` is not empty")


def _mounts(found: Found, mounts: Any, path: JsonPath, volumes: set[str]) -> None:
    """ValidateVolumeMounts."""
    paths: set[str] = set()
    for index, mount in enumerate(as_list(mounts)):
        mount, at = as_dict(mount), (*path, index)
        name = mount.get("name")
        if not name:
            required(found, C, (*at, "name"))
        elif name not in volumes:
            not_found(found, C, (*at, "name"), name)
        mount_path = mount.get("mountPath")
        if not mount_path:
            required(found, C, (*at, "mountPath"))
        elif mount_path in paths:
            invalid(found, C, (*at, "mountPath"), mount_path, "must be unique")
        else:
            paths.add(mount_path)
        sub = mount.get("subPath")
        if isinstance(sub, str) and (sub.startswith("/") or ".." in sub.split("/")):
            invalid(found, C, (*at, "subPath"), sub, "must be a relative path without '..'")


def check_probe(found: Found, probe: Any, path: JsonPath, single_success: bool) -> None:
    """validateProbe: one handler, non-negative timings; liveness and startup need successThreshold 1."""
    probe = as_dict(probe)
    _handler(found, probe, path, HANDLERS)
    for key in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        value = probe.get(key)
        if is_int(value) and value < 0:
            invalid(found, C, (*path, key), value, "must be greater than or equal to 0")
    if single_success and probe.get("successThreshold") not in (None, 1):
        invalid(found, C, (*path, "successThreshold"), probe["successThreshold"], "must be 1")


def _handler(found: Found, handler: Any, path: JsonPath, kinds: tuple[str, ...]) -> None:
    present = [key for key in kinds if as_dict(handler).get(key) is not None]
    if not present:
        required(found, C, path, "must specify a handler type")
    elif len(present) > 1:
        invalid(found, C, (*path, present[1]), "", "may not specify more than 1 handler type")
    for key in present:
        port = as_dict(as_dict(handler)[key]).get("port")
        if is_int(port) and names.port_number(port):
            invalid(found, C, (*path, key, "port"), port, names.port_number(0))
        elif isinstance(port, str) and key != "grpc" and names.port_name(port):
            invalid(found, C, (*path, key, "port"), port, names.port_name(port))
