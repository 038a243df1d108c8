"""Kubernetes' rules for names, in the API server's own wording: object names, namespaces, kinds and apiVersions
(checked before a name is used anywhere), and the formats its validation uses for labels, qualified names, env
var names, ConfigMap keys and ports (compiler.rules.kubevalidate).

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
from functools import lru_cache
from typing import Any, Final

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, error

MAX_LABEL: Final = 63
MAX_SUBDOMAIN: Final = 253
# A kind is a Go type name (CamelCase identifier); apiVersion is `version` or `group/version`.
_KIND = re.compile(r"[A-Za-z][A-Za-z0-9]{0,62}")
_API_VERSION = re.compile(
    r"(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*/)?"
    r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
)


_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_DNS1035 = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_QUALIFIED = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ENV_STRICT = re.compile(r"[-._a-zA-Z][-._a-zA-Z0-9]*")
_ENV_RELAXED = re.compile(r"[ -<>-~]+")  # printable ASCII except '='
_SVC_NAME = re.compile(r"[-a-z0-9]+")
_SVC_LETTER = re.compile(r"[a-z]")
_CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]+")

LABEL_FMT = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"  # noqa: E501
SUBDOMAIN_FMT = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"  # noqa: E501
DNS1035_FMT = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"  # noqa: E501
QUALIFIED_FMT = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"  # noqa: E501
LABEL_VALUE_FMT = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"  # noqa: E501


def _bounded(limit: int, pattern: re.Pattern[str], wording: str, upstream: str) -> Callable[[str], str]:
    """The formats that are a length bound, then a pattern (`upstream` names the apimachinery function)."""

    @lru_cache(maxsize=8192)
    def check(value: str) -> str:
        if len(value) > limit:
            return f"must be no more than {limit} characters"
        return "" if pattern.fullmatch(value) else wording

    check.__doc__ = f"{upstream}."
    return check


dns1123_label = _bounded(MAX_LABEL, _LABEL, LABEL_FMT, "IsDNS1123Label")
dns1123_subdomain = _bounded(MAX_SUBDOMAIN, _SUBDOMAIN, SUBDOMAIN_FMT, "IsDNS1123Subdomain")
dns1035_label = _bounded(MAX_LABEL, _DNS1035, DNS1035_FMT, "IsDNS1035Label")
label_value = _bounded(MAX_LABEL, _LABEL_VALUE, LABEL_VALUE_FMT, "IsValidLabelValue")


@lru_cache(maxsize=8192)
def qualified_name(value: str) -> str:
    """IsQualifiedName: an optional DNS subdomain prefix and '/', then a name of at most 63 characters."""
    parts = value.split("/")
    if len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return "prefix part must be non-empty"
        problem = dns1123_subdomain(prefix)
        if problem:
            return f"prefix part {problem}"
    elif len(parts) == 1:
        name = parts[0]
    else:
        return f"{QUALIFIED_FMT} with an optional DNS subdomain prefix and '/'"
    if not name:
        return "name part must be non-empty"
    if len(name) > 63:
        return "name part must be no more than 63 characters"
    return "" if _QUALIFIED.fullmatch(name) else QUALIFIED_FMT


@lru_cache(maxsize=8192)
def c_identifier(value: str) -> str:
    """IsCIdentifier."""
    if _C_IDENTIFIER.fullmatch(value):
        return ""
    return "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'"  # noqa: E501


@lru_cache(maxsize=8192)
def env_var_name(value: str, relaxed: bool) -> str:
    """IsEnvVarName, or with RelaxedEnvironmentVariableValidation (on by default from 1.32) IsRelaxedEnvVarName."""
    if relaxed:
        if _ENV_RELAXED.fullmatch(value):
            return ""
        return "a valid environment variable name must consist only of printable ASCII characters other than '='"
    if _ENV_STRICT.fullmatch(value):
        return ""
    return "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit"  # noqa: E501


@lru_cache(maxsize=8192)
def config_key(value: str) -> str:
    """IsConfigMapKey."""
    if len(value) > 253:
        return "must be no more than 253 characters"
    if not _CONFIG_KEY.fullmatch(value):
        return "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"
    if value == ".":
        return "must not be '.'"
    if value == "..":
        return "must not be '..'"
    if value.startswith(".."):
        return "must not start with '..'"
    return ""


@lru_cache(maxsize=8192)
def port_name(value: str) -> str:
    """IsValidPortName (IANA_SVC_NAME)."""
    if len(value) > 15:
        return "must be no more than 15 characters"
    if not _SVC_NAME.fullmatch(value):
        return "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"
    if not _SVC_LETTER.search(value):
        return "must contain at least one letter (a-z)"
    if "--" in value:
        return "must not contain consecutive hyphens"
    if value.startswith("-") or value.endswith("-"):
        return "must not begin or end with a hyphen"
    return ""


def port_number(value: object) -> str:
    """IsValidPortNum."""
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 65535:
        return ""
    return "must be between 1 and 65535, inclusive"


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
    texts: dict[NameRule, str] = {
        dns1123_label: "is a DNS-1123 label",
        dns1035_label: "is a DNS-1035 label",
        path_segment: "is a path segment",
    }
    return texts.get(rule, "is a DNS-1123 subdomain, like my-app.v1")


def _shown(value: object) -> str:
    """A value for a message, shortened: names can be arbitrarily long or hold control characters."""
    text = ascii(value) if isinstance(value, str) else type(value).__name__
    return text if len(text) <= 80 else text[:60] + "...'" + f" ({len(str(value))} characters)"
