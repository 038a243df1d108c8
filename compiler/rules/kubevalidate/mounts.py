"""Volume mounts and devices of a container: k8s.io/kubernetes pkg/apis/core/validation/validation.go
`ValidateVolumeMounts`, `ValidateVolumeDevices`, `validateMountPropagation`, and the path rules
`validateLocalDescendingPath` / `validatePathNoBacksteps` that volumes share (compiler.kubevalidate.volumes)."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.rules.kubevalidate.report import (
    Found,
    as_dict,
    as_list,
    forbidden,
    invalid,
    not_found,
    required,
    unsupported,
)

C = Code.K8S_CONTAINER
PROPAGATIONS = ("Bidirectional", "HostToContainer", "None")
BLOCK_SOURCES = ("persistentVolumeClaim", "ephemeral")


def backsteps(value: str) -> str:
    """validatePathNoBacksteps."""
    return "must not contain '..'" if ".." in value.replace("\\", "/").split("/") else ""


def descending(value: str) -> str:
    """validateLocalDescendingPath: relative, without '..'."""
    if value.startswith("/") or value.startswith("\\"):
        return "must be a relative path"
    return backsteps(value)


def non_reserved(value: str) -> str:
    """validateLocalNonReservedPath: also not starting with '..' (the atomic writer's own names)."""
    return descending(value) or ("must not start with '..'" if value.startswith("..") else "")


def check_mounts(
    found: Found, container: dict[str, Any], path: JsonPath, volumes: dict[str, dict[str, Any]], privileged: bool
) -> None:
    devices = _devices(found, container.get("volumeDevices"), (*path, "volumeDevices"), volumes)
    device_paths = {as_dict(d).get("devicePath") for d in as_list(container.get("volumeDevices"))}
    paths: set[str] = set()
    for index, mount in enumerate(as_list(container.get("volumeMounts"))):
        mount, at = as_dict(mount), (*path, "volumeMounts", index)
        name = mount.get("name")
        if not name:
            required(found, C, (*at, "name"))
        elif name not in volumes:
            not_found(found, C, (*at, "name"), name)
        if name and name in devices:
            invalid(found, C, (*at, "name"), name, "must not already exist in volumeDevices")
        mount_path = mount.get("mountPath")
        if not mount_path:
            required(found, C, (*at, "mountPath"))
        elif mount_path in paths:
            invalid(found, C, (*at, "mountPath"), mount_path, "must be unique")
        else:
            paths.add(mount_path)
        if mount_path and mount_path in device_paths:
            invalid(found, C, (*at, "mountPath"), mount_path, "must not already exist as a path in volumeDevices")
        sub, expr = mount.get("subPath"), mount.get("subPathExpr")
        if isinstance(sub, str) and sub and descending(sub):
            invalid(found, C, (*at, "subPath"), sub, descending(sub))
        if isinstance(expr, str) and expr:
            if sub:
                invalid(found, C, (*at, "subPathExpr"), expr, "subPathExpr and subPath are mutually exclusive")
            if descending(expr):
                invalid(found, C, (*at, "subPathExpr"), expr, descending(expr))
        _propagation(found, mount.get("mountPropagation"), (*at, "mountPropagation"), privileged)


def _propagation(found: Found, mode: Any, path: JsonPath, privileged: bool) -> None:
    """validateMountPropagation: one of three modes; Bidirectional only in a privileged container."""
    if mode is None:
        return
    if mode not in PROPAGATIONS:
        unsupported(found, C, path, mode, PROPAGATIONS)
    elif mode == "Bidirectional" and not privileged:
        forbidden(found, C, path, "Bidirectional mount propagation is available only to privileged containers")


def _devices(found: Found, devices: Any, path: JsonPath, volumes: dict[str, dict[str, Any]]) -> set[str]:
    """ValidateVolumeDevices: a unique name of a block-capable volume, a unique device path without '..'."""
    names: set[str] = set()
    paths: set[str] = set()
    for index, device in enumerate(as_list(devices)):
        device, at = as_dict(device), (*path, index)
        name, device_path = device.get("name"), device.get("devicePath")
        if not name:
            required(found, C, (*at, "name"))
        elif name in names:
            invalid(found, C, (*at, "name"), name, "must be unique")
        elif name not in volumes:
            not_found(found, C, (*at, "name"), name)
        elif not any(volumes[name].get(key) is not None for key in BLOCK_SOURCES):
            detail = "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"
            invalid(found, C, (*at, "name"), name, detail)
        if isinstance(name, str):
            names.add(name)
        if not device_path:
            required(found, C, (*at, "devicePath"))
        elif device_path in paths:
            invalid(found, C, (*at, "devicePath"), device_path, "must be unique")
        elif isinstance(device_path, str) and backsteps(device_path):
            invalid(found, C, (*at, "devicePath"), device_path, backsteps(device_path))
        if isinstance(device_path, str):
            paths.add(device_path)
    return names
