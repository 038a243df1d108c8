"""Kubernetes' rules for object names, namespaces, kinds and apiVersions; checked before a name is used anywhere.

The formats follow k8s.io/apimachinery pkg/util/validation/validation.go (IsDNS1123Label,
IsDNS1123Subdomain, IsDNS1035Label) and the per-kind choice of rule in kubernetes
pkg/apis/core/validation/validation.go (ValidateNamespaceName is a DNS-1123 label, ValidateServiceName a
DNS-1035 label, most other names NameIsDNSSubdomain) and pkg/apis/rbac/validation (ValidateRBACName:
path.IsValidPathSegmentName, so `system:controller:x` is a valid ClusterRole name). Custom resources get
NameIsDNSSubdomain (apiextensions-apiserver's customresource validation). MXJob names are DNS-1035 labels,
as the training operator required (training-operator pkg/apis/kubeflow.org/v1 validation: the job name
becomes the prefix of Service names).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any, Final

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, error

MAX_LABEL: Final = 63
MAX_SUBDOMAIN: Final = 253
_LABEL = re.compile(r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?")
_SUBDOMAIN = re.compile(r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*")
_DNS1035 = re.compile(r"[a-z](?:[-a-z0-9]*[a-z0-9])?")
# A kind is a Go type name (CamelCase identifier); apiVersion is `version` or `group/version`.
_KIND = re.compile(r"[A-Za-z][A-Za-z0-9]{0,62}")
_API_VERSION = re.compile(
    r"(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*/)?"
    r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
)


def dns1123_label(value: str) -> str:
    """'' when value is a DNS-1123 label (namespaces), else why not."""
    if len(value) > MAX_LABEL:
        return f"must be no more than {MAX_LABEL} characters"
    if not _LABEL.fullmatch(value):
        return "must consist of lower-case letters, digits and '-', and start and end with a letter or digit"
    return ""


def dns1123_subdomain(value: str) -> str:
    """'' when value is a DNS-1123 subdomain (most object names), else why not."""
    if len(value) > MAX_SUBDOMAIN:
        return f"must be no more than {MAX_SUBDOMAIN} characters"
    if not _SUBDOMAIN.fullmatch(value):
        return "must consist of lower-case letters, digits, '-' and '.', and start and end with a letter or digit"
    return ""


def dns1035_label(value: str) -> str:
    """'' when value is a DNS-1035 label (Services, MXJobs), else why not."""
    if len(value) > MAX_LABEL:
        return f"must be no more than {MAX_LABEL} characters"
    if not _DNS1035.fullmatch(value):
        return "must consist of lower-case letters, digits and '-', start with a letter and end with a letter or digit"
    return ""


def path_segment(value: str) -> str:
    """'' when value is usable as one URL path segment (RBAC names), else why not."""
    if value in (".", ".."):
        return f"may not be {value!r}"
    if "/" in value or "%" in value:
        return "may not contain '/' or '%'"
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value):
        return "may not contain control characters"
    if len(value) > MAX_SUBDOMAIN:
        return f"must be no more than {MAX_SUBDOMAIN} characters"
    return ""


NameRule = Callable[[str], str]
# Kinds whose names follow another rule than a DNS-1123 subdomain; every other kind uses the subdomain rule.
NAME_RULES: Final[dict[str, NameRule]] = {
    "Namespace": dns1123_label,
    "Service": dns1035_label,
    "MXJob": dns1035_label,
    "Role": path_segment,
    "ClusterRole": path_segment,
    "RoleBinding": path_segment,
    "ClusterRoleBinding": path_segment,
}


def name_problem(kind: str, name: str, *, prefix: bool = False, relaxed_service: bool = False) -> str:
    """'' when name is valid for kind; for a generateName prefix, a trailing '-' is allowed (as the API does).

    `relaxed_service`: Service names are DNS-1123 labels (RelaxedServiceNameValidation, on by default from 1.36).
    """
    rule = NAME_RULES.get(kind, dns1123_subdomain)
    if relaxed_service and kind == "Service":
        rule = dns1123_label
    if prefix and name.endswith("-") and rule is not path_segment:
        name = name[:-1] + "a"
    return rule(name)


@functools.lru_cache(maxsize=1024)  # a stream has few kinds and apiVersions, each checked once per object
def kind_problem(kind: str) -> str:
    return "" if _KIND.fullmatch(kind) else "must be a CamelCase identifier of at most 63 letters and digits"


@functools.lru_cache(maxsize=1024)
def namespace_problem(namespace: str) -> str:
    """dns1123_label(namespace), remembered: a stream has few namespaces, each checked once per object."""
    return dns1123_label(namespace)


@functools.lru_cache(maxsize=1024)
def api_version_problem(api_version: str) -> str:
    if len(api_version) <= MAX_SUBDOMAIN + MAX_LABEL + 1 and _API_VERSION.fullmatch(api_version):
        return ""
    return "must be VERSION or GROUP/VERSION (a DNS subdomain and a DNS label)"


def identity_problems(obj: dict[str, Any], relaxed_service: bool = False) -> Iterator[Diagnostic]:
    """Errors in an object's apiVersion, kind, metadata.name/generateName and metadata.namespace.

    These strings become file names and Kubernetes URLs, so an object with any of them invalid is not used.
    An MXJob's own name is checked by the semantic rules (with the generated names' length).
    """
    kind = obj.get("kind")
    if isinstance(kind, str) and (why := kind_problem(kind)):
        yield error(Code.INVALID_NAME, f"kind {_shown(kind)} {why}", ("kind",))
    api_version = obj.get("apiVersion")
    if isinstance(api_version, str) and (why := api_version_problem(api_version)):
        yield error(Code.INVALID_NAME, f"apiVersion {_shown(api_version)} {why}", ("apiVersion",))
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        return
    kind_text = kind if isinstance(kind, str) else ""
    for key, prefix in (("name", False), ("generateName", True)):
        value = metadata.get(key)
        if value is None or (key == "name" and kind_text == "MXJob"):
            continue
        why = (
            name_problem(kind_text, value, prefix=prefix, relaxed_service=relaxed_service)
            if isinstance(value, str)
            else "must be a string"
        )
        if why:
            yield error(
                Code.INVALID_NAME,
                f"metadata.{key} {_shown(value)} {why}",
                ("metadata", key),
                f"a {kind_text or 'object'} name {_rule_text(kind_text)}",
            )
    namespace = metadata.get("namespace")
    if namespace is not None:
        why = namespace_problem(namespace) if isinstance(namespace, str) else "must be a string"
        if why:
            yield error(
                Code.INVALID_NAME,
                f"metadata.namespace {_shown(namespace)} {why}",
                ("metadata", "namespace"),
                "a namespace is a DNS-1123 label, like team-a",
            )


def _rule_text(kind: str) -> str:
    rule = NAME_RULES.get(kind, dns1123_subdomain)
    return {
        "dns1123_label": "is a DNS-1123 label",
        "dns1035_label": "is a DNS-1035 label",
        "path_segment": "is a path segment",
    }.get(rule.__name__, "is a DNS-1123 subdomain, like my-app.v1")


def _shown(value: object) -> str:
    """A value for a message, shortened: names can be arbitrarily long or hold control characters."""
    text = ascii(value) if isinstance(value, str) else type(value).__name__
    return text if len(text) <= 80 else text[:60] + "...'" + f" ({len(str(value))} characters)"
