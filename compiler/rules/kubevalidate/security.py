"""Security contexts: k8s.io/kubernetes pkg/apis/core/validation/validation.go `ValidateSecurityContext`,
`validatePodSecurityContext` (user and group ids via `ValidateNonnegativeField`-style ranges of
pkg/util/validation `IsValidUserID`, `IsValidGroupID`), `validateSeccompProfileField`,
`validateWindowsSecurityContextOptions`, `validateSysctls` / `IsValidSysctlName`, `validateFSGroupChangePolicy`."""

from __future__ import annotations

import re
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate.mounts import descending
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

S = Code.K8S_POD
_ID_RANGE = "must be between 0 and 2147483647, inclusive"
SECCOMP_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")
FS_GROUP_POLICIES = ("Always", "OnRootMismatch")
# IsValidSysctlName; from 1.23 a '/' may separate the segments as well as a '.'.
_SYSCTL_SEGMENT = r"[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SYSCTL = re.compile(rf"({_SYSCTL_SEGMENT}\.)*{_SYSCTL_SEGMENT}")
_SYSCTL_SLASH = re.compile(rf"({_SYSCTL_SEGMENT}[\./])*{_SYSCTL_SEGMENT}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_NETBIOS = re.compile(r'[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}')
_USER_CHARS = re.compile(r'["/\\:;|=,+*?<>@\[\]]')
_DOTS_SPACES = re.compile(r"[. ]+")


def _ids(found: Found, context: dict[str, Any], path: JsonPath, keys: tuple[str, ...]) -> None:
    for key in keys:
        value = context.get(key)
        if is_int(value) and not 0 <= value <= 2147483647:
            invalid(found, S, (*path, key), value, _ID_RANGE)


def check_container_security(found: Found, context: Any, path: JsonPath) -> None:
    context = as_dict(context)
    _ids(found, context, path, ("runAsUser", "runAsGroup"))
    if context.get("privileged") is True and context.get("allowPrivilegeEscalation") is False:
        invalid(found, S, path, "", "cannot set `allowPrivilegeEscalation` to false and `privileged` to true")
    capabilities = as_dict(context.get("capabilities"))
    if context.get("allowPrivilegeEscalation") is False and "CAP_SYS_ADMIN" in as_list(capabilities.get("add")):
        invalid(
            found, S, path, "", "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"
        )
    _seccomp(found, context.get("seccompProfile"), (*path, "seccompProfile"))
    _windows(found, context.get("windowsOptions"), (*path, "windowsOptions"))


def check_pod_security(found: Found, context: Any, path: JsonPath, version: str | None) -> None:
    context = as_dict(context)
    _ids(found, context, path, ("runAsUser", "runAsGroup", "fsGroup"))
    for index, group in enumerate(as_list(context.get("supplementalGroups"))):
        if is_int(group) and not 0 <= group <= 2147483647:
            invalid(found, S, (*path, "supplementalGroups", index), group, _ID_RANGE)
    policy = context.get("fsGroupChangePolicy")
    if policy is not None and policy not in FS_GROUP_POLICIES:
        unsupported(found, S, (*path, "fsGroupChangePolicy"), policy, FS_GROUP_POLICIES)
    _seccomp(found, context.get("seccompProfile"), (*path, "seccompProfile"))
    _windows(found, context.get("windowsOptions"), (*path, "windowsOptions"))
    _sysctls(found, context.get("sysctls"), (*path, "sysctls"), version)


def _seccomp(found: Found, profile: Any, path: JsonPath) -> None:
    """validateSeccompProfileField: a known type; a relative local profile exactly when the type is Localhost."""
    if profile is None:
        return
    profile = as_dict(profile)
    kind, local = profile.get("type"), profile.get("localhostProfile")
    if kind == "Localhost":
        if not local:
            required(found, S, (*path, "localhostProfile"), "must be set when seccomp type is Localhost")
        elif isinstance(local, str) and descending(local):
            invalid(found, S, (*path, "localhostProfile"), local, descending(local))
    elif kind in SECCOMP_TYPES:
        if local is not None:
            invalid(found, S, (*path, "localhostProfile"), profile, "can only be set when seccomp type is Localhost")
    else:
        unsupported(found, S, (*path, "type"), kind, SECCOMP_TYPES)


def _windows(found: Found, options: Any, path: JsonPath) -> None:
    """validateWindowsSecurityContextOptions: a GMSA spec name of a resource, a plausible DOMAIN\\user."""
    options = as_dict(options)
    if options.get("gmsaCredentialSpecName") is not None:
        spec_name = options["gmsaCredentialSpecName"]
        check_name(found, S, (*path, "gmsaCredentialSpecName"), spec_name, names.dns1123_subdomain)
    user = options.get("runAsUserName")
    if isinstance(user, str):
        for problem in _user_problems(user):
            invalid(found, S, (*path, "runAsUserName"), user, problem)


def _user_problems(value: str) -> list[str]:
    if not value:
        return ["runAsUserName cannot be an empty string"]
    if _CONTROL.search(value):
        return ["runAsUserName cannot contain control characters"]
    parts = value.split("\\")
    if len(parts) > 2:
        return ["runAsUserName cannot contain more than one backslash"]
    domain, user = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
    problems = []
    if len(domain) >= 256:
        problems.append("runAsUserName's Domain length must be under 256 characters")
    if len(parts) == 2 and not (_NETBIOS.fullmatch(domain) or not names.dns1123_subdomain(domain)):
        problems.append("runAsUserName's Domain doesn't match the NetBios nor the DNS format")
    if not user:
        problems.append("runAsUserName's User cannot be empty")
    elif len(user) > 104:
        problems.append("runAsUserName's User length must not be longer than 104 characters")
    if _DOTS_SPACES.fullmatch(user):
        problems.append("runAsUserName's User cannot contain only periods or spaces")
    if _USER_CHARS.search(user):
        problems.append("runAsUserName's User cannot contain the following characters: \"/\\:;|=,+*?<>@[]")
    return problems


def _sysctls(found: Found, sysctls: Any, path: JsonPath, version: str | None) -> None:
    """validateSysctls: a valid, unique name."""
    pattern = _SYSCTL_SLASH if since(version, (1, 23)) else _SYSCTL
    seen: set[str] = set()
    for index, sysctl in enumerate(as_list(sysctls)):
        name, at = as_dict(sysctl).get("name"), (*path, index, "name")
        if not name:
            required(found, S, at)
        elif isinstance(name, str):
            if len(name) > 253 or not pattern.fullmatch(name):
                detail = f"must have at most 253 characters and match regex {pattern.pattern}"
                invalid(found, S, at, name, detail)
            if name in seen:
                duplicate(found, S, at, name)
            seen.add(name)
