"""Security contexts: k8s.io/kubernetes pkg/apis/core/validation/validation.go `ValidateSecurityContext`,
`validatePodSecurityContext` (user and group ids via `ValidateNonnegativeField`-style ranges of
pkg/util/validation `IsValidUserID`, `IsValidGroupID`)."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.kubevalidate.report import Found, as_dict, as_list, invalid, is_int

S = Code.K8S_POD
_ID_RANGE = "must be between 0 and 2147483647, inclusive"


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


def check_pod_security(found: Found, context: Any, path: JsonPath) -> None:
    context = as_dict(context)
    _ids(found, context, path, ("runAsUser", "runAsGroup", "fsGroup"))
    for index, group in enumerate(as_list(context.get("supplementalGroups"))):
        if is_int(group) and not 0 <= group <= 2147483647:
            invalid(found, S, (*path, "supplementalGroups", index), group, _ID_RANGE)
