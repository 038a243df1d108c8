"""Pod fields added after 1.20, by the release whose API server validates them with their gate on by default
(k8s.io/kubernetes pkg/apis/core/validation/validation.go; before that release the server drops or ignores them):

- `os` (1.24): `validateOS`, and `validateLinux` / `validateWindows`: what a pod of the other OS may not set.
- probe `terminationGracePeriodSeconds` (1.22): `validateProbe`, greater than zero.
- topology spread `minDomains` (1.27), `nodeAffinityPolicy` / `nodeTaintsPolicy` (1.26):
  `validateMinDomains`, `validateNodeInclusionPolicy`.
- `schedulingGates` (1.27): `validateSchedulingGates`, unique qualified names.
- Windows `hostProcess` (1.23): `validateWindowsHostProcessPod`, all containers or none, with host network.
- topology spread `labelSelector` (1.27): `validateTopologySpreadConstraints` with `ValidateLabelSelector`.
- `hostUsers: false` (1.33): `validateHostUsers`, no host network, PID or IPC namespace.
- `procMount: Unmasked` (1.31): `ValidateSecurityContext`, only with `hostUsers: false`.
- `appArmorProfile` (1.30): `ValidateAppArmorProfileField`, like seccomp.
- `lifecycle.*.sleep` (1.30): `validateSleepAction`, within the grace period (zero allowed from 1.33).
"""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate.report import (
    Found,
    as_dict,
    as_list,
    duplicate,
    forbidden,
    invalid,
    is_int,
    required,
    since,
    unsupported,
)
from mxjob_gitops.compiler.rules.kubevalidate.scheduling import check_label_selector

P = Code.K8S_POD
OS_NAMES = ("linux", "windows")
INCLUSION = ("Honor", "Ignore")
APPARMOR_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")
PROC_MOUNTS = ("Default", "Unmasked")
# validateWindows: what a windows pod may not set, in its pod and in its containers' security contexts.
WINDOWS_POD = (
    "appArmorProfile", "seccompProfile", "fsGroup", "fsGroupChangePolicy", "sysctls", "seLinuxOptions", "runAsUser",
    "runAsGroup", "supplementalGroups",
)  # fmt: skip
WINDOWS_CONTAINER = (
    "appArmorProfile", "seccompProfile", "seLinuxOptions", "runAsUser", "runAsGroup", "allowPrivilegeEscalation",
    "procMount", "readOnlyRootFilesystem", "capabilities", "privileged",
)  # fmt: skip
CONTAINER_KINDS = ("initContainers", "containers")


def check_recent(found: Found, spec: dict[str, Any], path: JsonPath, version: str | None) -> None:
    if since(version, (1, 23)):
        _host_process(found, spec, path)
    if since(version, (1, 24)):
        _os(found, spec, path)
    if since(version, (1, 26)):
        _spread(found, spec.get("topologySpreadConstraints"), (*path, "topologySpreadConstraints"), version)
    if since(version, (1, 27)):
        _gates(found, spec.get("schedulingGates"), (*path, "schedulingGates"))
    if since(version, (1, 33)) and spec.get("hostUsers") is False:
        for key in ("hostNetwork", "hostPID", "hostIPC"):
            if spec.get(key) is True:
                forbidden(found, P, (*path, key), "when `hostUsers` is false")
    grace = spec.get("terminationGracePeriodSeconds")
    grace = grace if is_int(grace) else 30
    for kind in CONTAINER_KINDS:
        for index, container in enumerate(as_list(spec.get(kind))):
            _container(found, as_dict(container), (*path, kind, index), spec, grace, version)


def _container(
    found: Found, container: dict[str, Any], path: JsonPath, spec: dict[str, Any], grace: int, version: str | None
) -> None:
    context = as_dict(container.get("securityContext"))
    if since(version, (1, 22)):
        for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
            seconds = as_dict(container.get(probe)).get("terminationGracePeriodSeconds")
            if is_int(seconds) and seconds <= 0:
                invalid(found, P, (*path, probe, "terminationGracePeriodSeconds"), seconds, "must be greater than 0")
    if since(version, (1, 30)):
        _apparmor(found, context.get("appArmorProfile"), (*path, "securityContext", "appArmorProfile"))
        for hook, handler in as_dict(container.get("lifecycle")).items():
            _sleep(found, as_dict(handler).get("sleep"), (*path, "lifecycle", hook, "sleep"), grace, version)
    mount = context.get("procMount")
    if since(version, (1, 31)) and mount is not None:
        if mount not in PROC_MOUNTS:
            unsupported(found, P, (*path, "securityContext", "procMount"), mount, PROC_MOUNTS)
        elif mount == "Unmasked" and spec.get("hostUsers") is not False:
            detail = "`hostUsers` must be false to use `Unmasked`"
            invalid(found, P, (*path, "securityContext", "procMount"), mount, detail)


def _os(found: Found, spec: dict[str, Any], path: JsonPath) -> None:
    """validateOS, then validateLinux / validateWindows for the named OS."""
    if "os" not in spec:
        return
    name = as_dict(spec.get("os")).get("name")
    if not name:
        required(found, P, (*path, "os", "name"), "cannot be empty")
        return
    if name not in OS_NAMES:
        unsupported(found, P, (*path, "os"), name, OS_NAMES)
        return
    context = as_dict(spec.get("securityContext"))
    contexts: list[tuple[JsonPath, dict[str, Any], tuple[str, ...]]] = [
        ((*path, "securityContext"), context, WINDOWS_POD)
    ]
    for kind in CONTAINER_KINDS:
        for index, container in enumerate(as_list(spec.get(kind))):
            at = (*path, kind, index, "securityContext")
            contexts.append((at, as_dict(as_dict(container).get("securityContext")), WINDOWS_CONTAINER))
    for at, fields, banned in contexts:
        if name == "linux" and fields.get("windowsOptions") is not None:
            forbidden(found, P, (*at, "windowsOptions"), "windows options cannot be set for a linux pod")
        if name == "windows":
            for key in banned:
                if fields.get(key) not in (None, []):
                    forbidden(found, P, (*at, key), "cannot be set for a windows pod")


def _spread(found: Found, constraints: Any, path: JsonPath, version: str | None) -> None:
    for index, constraint in enumerate(as_list(constraints)):
        constraint, at = as_dict(constraint), (*path, index)
        for key in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            if constraint.get(key) is not None and constraint[key] not in INCLUSION:
                unsupported(found, P, (*at, key), constraint[key], INCLUSION)
        if not since(version, (1, 27)):
            continue
        check_label_selector(found, constraint.get("labelSelector"), (*at, "labelSelector"))
        domains = constraint.get("minDomains")
        if not is_int(domains):
            continue
        if domains <= 0:
            invalid(found, P, (*at, "minDomains"), domains, "must be greater than zero")
        action = constraint.get("whenUnsatisfiable")
        if action != "DoNotSchedule":
            detail = f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"
            invalid(found, P, (*at, "minDomains"), domains, detail)


def _host_process(found: Found, spec: dict[str, Any], path: JsonPath) -> None:
    pod_value = as_dict(as_dict(spec.get("securityContext")).get("windowsOptions")).get("hostProcess")
    total = hosts = 0
    for kind in CONTAINER_KINDS:
        for index, container in enumerate(as_list(spec.get(kind))):
            context = as_dict(as_dict(container).get("securityContext"))
            value = as_dict(context.get("windowsOptions")).get("hostProcess")
            at = (*path, kind, index, "securityContext", "windowsOptions", "hostProcess")
            if isinstance(pod_value, bool) and isinstance(value, bool) and value != pod_value:
                detail = f"pod hostProcess value must be identical if both are specified, was {str(pod_value).lower()}"
                invalid(found, P, at, value, detail)
            total += 1
            hosts += value is True or (value is None and pod_value is True)
    if hosts and hosts != total:
        detail = "If pod contains any hostProcess containers then all containers must be HostProcess containers"
        invalid(found, P, path, "", detail)
    if hosts and spec.get("hostNetwork") is not True:
        detail = "hostNetwork must be true if pod contains any hostProcess containers"
        invalid(found, P, (*path, "hostNetwork"), False, detail)


def _gates(found: Found, gates: Any, path: JsonPath) -> None:
    seen: set[str] = set()
    for index, gate in enumerate(as_list(gates)):
        name = as_dict(gate).get("name")
        if not isinstance(name, str):
            continue
        problem = names.qualified_name(name)
        if problem:
            invalid(found, P, (*path, index), name, problem)
        if name in seen:
            duplicate(found, P, (*path, index), name)
        seen.add(name)


def _apparmor(found: Found, profile: Any, path: JsonPath) -> None:
    if profile is None:
        return
    profile = as_dict(profile)
    kind, local = profile.get("type"), profile.get("localhostProfile")
    if kind not in APPARMOR_TYPES:
        unsupported(found, P, (*path, "type"), kind, APPARMOR_TYPES)
    elif kind == "Localhost" and not (isinstance(local, str) and local.strip()):
        required(found, P, (*path, "localhostProfile"), "must be set when AppArmor type is Localhost")
    elif kind != "Localhost" and local is not None:
        invalid(found, P, (*path, "localhostProfile"), local, "can only be set when AppArmor type is Localhost")


def _sleep(found: Found, sleep: Any, path: JsonPath, grace: int, version: str | None) -> None:
    seconds = as_dict(sleep).get("seconds")
    if not is_int(seconds):
        return
    zero = since(version, (1, 33))
    low_ok = seconds >= 0 if zero else seconds > 0
    if not (low_ok and seconds <= grace):
        first = "must be non-negative" if zero else "must be greater than 0"
        invalid(found, P, path, seconds, f"{first} and less than terminationGracePeriodSeconds ({grace})")
