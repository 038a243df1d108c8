"""Pod fields of 1.30 to 1.33 that kubevalidate.recent does not cover, each checked from the release whose API
server validates it with its gate on by default (before that release the server drops the field), as
k8s.io/kubernetes pkg/apis/core/validation/validation.go does:

- pod-level `securityContext.appArmorProfile` (1.30): `ValidateAppArmorProfileField`, as for a container.
- a volume mount's `recursiveReadOnly` (1.31, RecursiveReadOnlyMounts beta): `validateMountRecursiveReadOnly`,
  Disabled, IfPossible or Enabled, the last two only with `readOnly: true` and no propagation but None.
- `securityContext.supplementalGroupsPolicy` (1.33, beta): `validateSupplementalGroupsPolicy`, Merge or Strict.
- `securityContext.seLinuxChangePolicy` (1.33, SELinuxChangePolicy beta): `validateSELinuxChangePolicy`,
  Recursive or MountOption.
- topology spread `matchLabelKeys` (1.27, MatchLabelKeysInPodTopologySpread beta):
  `validateMatchLabelKeysInTopologySpread`, label names, and only next to a `labelSelector`.

Called by kubevalidate.pod for every pod spec."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate.recent import _apparmor
from mxjob_gitops.compiler.rules.kubevalidate.report import (
    Found,
    as_dict,
    as_list,
    check_name,
    forbidden,
    since,
    unsupported,
)

P, C = Code.K8S_POD, Code.K8S_CONTAINER
RECURSIVE_READ_ONLY = ("Disabled", "Enabled", "IfPossible")
SUPPLEMENTAL_GROUPS = ("Merge", "Strict")
SELINUX_CHANGE = ("MountOption", "Recursive")
POLICIES = (("supplementalGroupsPolicy", SUPPLEMENTAL_GROUPS), ("seLinuxChangePolicy", SELINUX_CHANGE))
CONTAINER_KINDS = ("initContainers", "containers", "ephemeralContainers")


def check_later(found: Found, spec: dict[str, Any], path: JsonPath, version: str | None) -> None:
    context = as_dict(spec.get("securityContext"))
    at = (*path, "securityContext")
    if since(version, (1, 30)):
        _apparmor(found, context.get("appArmorProfile"), (*at, "appArmorProfile"))
    if since(version, (1, 31)):
        for kind in CONTAINER_KINDS:
            for index, container in enumerate(as_list(spec.get(kind))):
                mounts = as_list(as_dict(container).get("volumeMounts"))
                for position, mount in enumerate(mounts):
                    _recursive(found, as_dict(mount), (*path, kind, index, "volumeMounts", position))
    if since(version, (1, 33)):
        for key, allowed in (
            ("supplementalGroupsPolicy", SUPPLEMENTAL_GROUPS),
            ("seLinuxChangePolicy", SELINUX_CHANGE),
        ):
            if context.get(key) is not None and context[key] not in allowed:
                unsupported(found, P, (*at, key), context[key], allowed)
    if since(version, (1, 27)):
        for index, constraint in enumerate(as_list(spec.get("topologySpreadConstraints"))):
            constraint = as_dict(constraint)
            keys = as_list(constraint.get("matchLabelKeys"))
            where = (*path, "topologySpreadConstraints", index, "matchLabelKeys")
            if keys and constraint.get("labelSelector") is None:
                forbidden(found, P, where, "must not be specified when labelSelector is not set")
            for position, key in enumerate(keys):
                check_name(found, P, (*where, position), key, names.qualified_name)


def _recursive(found: Found, mount: dict[str, Any], at: JsonPath) -> None:
    value = mount.get("recursiveReadOnly")
    if value is None or value == "Disabled":
        return
    at = (*at, "recursiveReadOnly")
    if value not in RECURSIVE_READ_ONLY:
        unsupported(found, C, at, value, RECURSIVE_READ_ONLY)
        return
    if mount.get("readOnly") is not True:
        forbidden(found, C, at, "may only be specified when readOnly is true")
    if mount.get("mountPropagation") not in (None, "None"):
        forbidden(found, C, at, "may only be specified when mountPropagation is None or not specified")
