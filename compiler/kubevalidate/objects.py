"""Service and ConfigMap: k8s.io/kubernetes pkg/apis/core/validation/validation.go `ValidateService` (ports,
selector, type, sessionAffinity) and `ValidateConfigMap` (keys, 1 MiB of data)."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.kubevalidate import names
from mxjob_gitops.compiler.kubevalidate.meta import check_labels
from mxjob_gitops.compiler.kubevalidate.report import (
    Found,
    as_dict,
    as_list,
    check_name,
    duplicate,
    invalid,
    required,
    too_long,
    unsupported,
)

S, K = Code.K8S_SERVICE, Code.K8S_CONFIGMAP
MAX_CONFIGMAP = 1024 * 1024  # core.MaxSecretSize, used for ConfigMaps too
TYPES = ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName")
PROTOCOLS = ("SCTP", "TCP", "UDP")


def check_service(found: Found, spec: Any, path: JsonPath) -> None:
    spec = as_dict(spec)
    kind = spec.get("type", "ClusterIP")
    if kind not in TYPES:
        unsupported(found, S, (*path, "type"), kind, TYPES)
    ports = as_list(spec.get("ports"))
    if not ports and kind != "ExternalName" and spec.get("clusterIP") != "None":
        required(found, S, (*path, "ports"))
    seen: set[Any] = set()
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
        if port.get("protocol", "TCP") not in PROTOCOLS:
            unsupported(found, S, (*at, "protocol"), port.get("protocol"), PROTOCOLS)
    check_labels(found, spec.get("selector"), (*path, "selector"))


def check_configmap(found: Found, obj: dict[str, Any]) -> None:
    total = 0
    keys: set[str] = set()
    for field in ("data", "binaryData"):
        for key, value in as_dict(obj.get(field)).items():
            check_name(found, K, (field, key), key, names.config_key)
            if key in keys:
                invalid(found, K, (field, key), key, "duplicate of key present in data")
            keys.add(key)
            if isinstance(value, str):
                total += len(value) if field == "data" else len(value) * 3 // 4
    if total > MAX_CONFIGMAP:
        too_long(found, K, (), MAX_CONFIGMAP)
