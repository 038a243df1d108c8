"""Dynamic resource allocation in a pod: the pod's `spec.resourceClaims` and each container's `resources.claims`,
as the 1.36 API server checks them. Called by kubevalidate.pod for every pod spec.

Upstream (k8s.io/kubernetes at v1.36.0, pkg/apis/core/validation/validation.go):
- https://github.com/kubernetes/kubernetes/blob/v1.36.0/pkg/apis/core/validation/validation.go
  `validatePodResourceClaims` / `validatePodResourceClaim`: each entry names itself with a DNS-1123 label that no
  other entry has, and points at exactly one of a ResourceClaim or a ResourceClaimTemplate, both DNS-1123
  subdomains (`ValidateResourceClaimName`, `ValidateResourceClaimTemplateName`). The claim a template makes for
  the pod gets a generated name, so no rule here reads the pod's own name.
- the same file, `validateResourceClaimNames` (from `validateContainerCommon` via `ValidateResourceRequirements`):
  a container's claim is named, names an entry of `spec.resourceClaims`, and is used once; a `request` is a
  DNS-1123 label, and a claim used whole may not be used again, whole or by one of its requests.

Versions: the DynamicResourceAllocation gate is on by default from 1.34 (GA). From 1.26 to 1.33 it is off by
default and the server drops both fields before validating (pkg/api/pod/util.go `dropDisabledFields`); before
1.26 they do not exist."""

from __future__ import annotations

import json
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath, error
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate.report import (
    Found,
    as_dict,
    as_list,
    check_name,
    duplicate,
    required,
    since,
)

P, R = Code.K8S_POD, Code.K8S_RESOURCES
CONTAINER_KINDS = ("initContainers", "containers", "ephemeralContainers")
HINT = "see docs/validation.md"
ONE_OF = ("`resourceClaimName`", "`resourceClaimTemplateName`")


def check_resource_claims(found: Found, spec: dict[str, Any], path: JsonPath, version: str | None) -> None:
    """Both lists of one pod spec (nothing before 1.34: the server drops them)."""
    if not since(version, (1, 34)):
        return
    declared = _pod_claims(found, spec.get("resourceClaims"), (*path, "resourceClaims"))
    for kind in CONTAINER_KINDS:
        for index, container in enumerate(as_list(spec.get(kind))):
            claims = as_dict(as_dict(container).get("resources")).get("claims")
            _container_claims(found, claims, (*path, kind, index, "resources", "claims"), declared)


def _pod_claims(found: Found, claims: Any, path: JsonPath) -> set[str]:
    """The names the pod declares (every non-empty one, valid or not, as the server gathers them)."""
    seen: set[str] = set()
    for index, claim in enumerate(as_list(claims)):
        claim, at = as_dict(claim), (*path, index)
        name = claim.get("name")
        if not name:
            required(found, P, (*at, "name"))
        elif isinstance(name, str):
            if name in seen:
                duplicate(found, P, (*at, "name"), name)
            else:
                check_name(found, P, (*at, "name"), name, names.dns1123_label)
            seen.add(name)
        direct, template = claim.get("resourceClaimName"), claim.get("resourceClaimTemplateName")
        if direct is not None and template is not None:
            _whole(found, at, claim, f"at most one of {ONE_OF[0]} or {ONE_OF[1]} may be specified")
        elif direct is None and template is None:
            _whole(found, at, claim, f"must specify one of: {ONE_OF[0]}, {ONE_OF[1]}")
        check_name(found, P, (*at, "resourceClaimName"), direct, names.dns1123_subdomain)
        check_name(found, P, (*at, "resourceClaimTemplateName"), template, names.dns1123_subdomain)
    return seen


def _container_claims(found: Found, claims: Any, path: JsonPath, declared: set[str]) -> None:
    whole: set[str] = set()  # claims used whole
    requested: set[str] = set()  # claims of which a request is used
    keys: set[str] = set()  # claim/request pairs used
    for index, claim in enumerate(as_list(claims)):
        claim, at = as_dict(claim), (*path, index)
        name, request = claim.get("name"), claim.get("request")
        if not name:
            required(found, R, at)
            continue
        if not isinstance(name, str):
            continue
        if name in whole:  # the whole claim is already the container's: any further use repeats it
            duplicate(found, R, at, name)
        elif isinstance(request, str) and request:
            check_name(found, R, (*at, "request"), request, names.dns1123_label)
            key = f"{name}/{request}"
            if key in keys:
                duplicate(found, R, at, key)
            keys.add(key)
            requested.add(name)
        else:
            if name in requested:
                duplicate(found, R, at, name)
            whole.add(name)
        if name not in declared:
            listed = f": {', '.join(sorted(declared))}" if declared else " which is empty"
            detail = f"must be one of the names in pod.spec.resourceClaims{listed}"
            found.append(error(R, f"Not found: {json.dumps(name)}: {detail}", at, HINT))


def _whole(found: Found, at: JsonPath, claim: dict[str, Any], detail: str) -> None:
    """An error on the entry as a whole, its value shown as the server prints the Go struct."""
    shown = json.dumps(
        {
            "Name": claim.get("name") or "",
            "ResourceClaimName": claim.get("resourceClaimName"),
            "ResourceClaimTemplateName": claim.get("resourceClaimTemplateName"),
        },
        separators=(",", ":"),
    )
    found.append(error(P, f"Invalid value: {shown}: {detail}", at, HINT))
