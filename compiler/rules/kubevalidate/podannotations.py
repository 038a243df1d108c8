"""A Pod's own annotations, as k8s.io/kubernetes pkg/apis/core/validation/validation.go checks them on create:
`ValidateSeccompPodAnnotations` (`ValidateSeccompProfile`: runtime/default, docker/default, unconfined or
localhost/<a relative path without '..'>), `ValidateAppArmorPodAnnotations` (the container exists,
`ValidateAppArmorProfileFormat`), and where a profile is set by field too, that the two agree
(`validateSeccompAnnotationsAndFields`; `validateAppArmorAnnotationsAndFieldsMatchOnCreate`, from 1.30 when the
appArmorProfile field came, not for Windows pods). A template's annotations reach its pods unchanged, so
compiler.judge finds these on the rendered pods. Called by kubevalidate.check_object for a Pod."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.rules.kubevalidate.mounts import descending
from mxjob_gitops.compiler.rules.kubevalidate.report import Found, as_dict, as_list, forbidden, invalid, since

M, P = Code.K8S_METADATA, Code.K8S_POD
SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_CONTAINER = "container.apparmor.security.beta.kubernetes.io/"
CONTAINER_KEYS = ("initContainers", "containers", "ephemeralContainers")


def check_pod_annotations(found: Found, metadata: Any, spec: Any, version: str | None) -> None:
    annotations = {k: v for k, v in as_dict(as_dict(metadata).get("annotations")).items() if isinstance(v, str)}
    if not annotations:
        return
    spec = as_dict(spec)
    at = ("metadata", "annotations")
    containers = {
        as_dict(c).get("name"): (key, index, as_dict(c))
        for key in CONTAINER_KEYS
        for index, c in enumerate(as_list(spec.get(key)))
    }
    for key, value in annotations.items():
        if key == SECCOMP_POD or key.startswith(SECCOMP_CONTAINER):
            problem = _seccomp_problem(value)
            if problem:
                invalid(found, M, (*at, key), value, problem)
        elif key.startswith(APPARMOR_CONTAINER):
            name = key[len(APPARMOR_CONTAINER) :]
            if name not in containers:
                invalid(found, M, (*at, key), name, "container not found")
            if value not in ("", "runtime/default", "unconfined") and not value.startswith("localhost/"):
                invalid(found, M, (*at, key), value, f'invalid AppArmor profile name: "{value}"')
    _seccomp_match(found, annotations, spec, containers)
    windows = as_dict(spec.get("os")).get("name") == "windows"
    if since(version, (1, 30)) and not windows:
        _apparmor_match(found, annotations, spec, containers)


def _seccomp_problem(value: str) -> str:
    if value in ("runtime/default", "docker/default", "unconfined"):
        return ""
    if value.startswith("localhost/"):
        return descending(value[len("localhost/") :])
    return "must be a valid seccomp profile"


def _seccomp_match(found: Found, annotations: dict[str, str], spec: dict[str, Any], containers: Any) -> None:
    profile = as_dict(spec.get("securityContext")).get("seccompProfile")
    if isinstance(profile, dict) and SECCOMP_POD in annotations:
        _agree(found, "seccomp", annotations[SECCOMP_POD], profile, ("spec", "securityContext", "seccompProfile"))
    for name, (key, index, container) in containers.items():
        own = as_dict(container.get("securityContext")).get("seccompProfile")
        annotation = annotations.get(f"{SECCOMP_CONTAINER}{name}")
        if isinstance(own, dict) and annotation is not None:
            _agree(found, "seccomp", annotation, own, ("spec", key, index, "securityContext", "seccompProfile"))


def _apparmor_match(found: Found, annotations: dict[str, str], spec: dict[str, Any], containers: Any) -> None:
    pod_profile = as_dict(spec.get("securityContext")).get("appArmorProfile")
    for name, (key, index, container) in containers.items():
        profile = as_dict(container.get("securityContext")).get("appArmorProfile") or pod_profile
        annotation = annotations.get(f"{APPARMOR_CONTAINER}{name}")
        if isinstance(profile, dict) and annotation is not None:
            _agree(found, "apparmor", annotation, profile, ("spec", key, index, "securityContext", "appArmorProfile"))


def _agree(found: Found, what: str, annotation: str, profile: dict[str, Any], at: JsonPath) -> None:
    kind = profile.get("type")
    defaults = ("runtime/default", "docker/default") if what == "seccomp" else ("runtime/default",)
    if (kind == "Unconfined" and annotation != "unconfined") or (
        kind == "RuntimeDefault" and annotation not in defaults
    ):
        forbidden(found, P, (*at, "type"), f"{what} type in annotation and field must match")
    elif kind == "Localhost":
        if not annotation.startswith("localhost/"):
            forbidden(found, P, (*at, "type"), f"{what} type in annotation and field must match")
        elif annotation[len("localhost/") :] != profile.get("localhostProfile"):
            forbidden(found, P, (*at, "localhostProfile"), f"{what} profile in annotation and field must match")
