"""The name and value formats of k8s.io/apimachinery pkg/util/validation/validation.go, as predicates that return
the server's wording of what is wrong ('' when fine); precompiled and memoised (the same names and values recur in
every object of a rendering), called by every rule module of this package."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

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


dns1123_label = _bounded(63, _LABEL, LABEL_FMT, "IsDNS1123Label")
dns1123_subdomain = _bounded(253, _SUBDOMAIN, SUBDOMAIN_FMT, "IsDNS1123Subdomain")
dns1035_label = _bounded(63, _DNS1035, DNS1035_FMT, "IsDNS1035Label")
label_value = _bounded(63, _LABEL_VALUE, LABEL_VALUE_FMT, "IsValidLabelValue")


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
