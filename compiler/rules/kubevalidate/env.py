"""Environment of a container: k8s.io/kubernetes pkg/apis/core/validation/validation.go `ValidateEnv`,
`validateEnvVarValueFrom`, `validateObjectFieldSelector`, `validateContainerResourceFieldSelector`,
`validateContainerResourceDivisor`, `validateConfigMapKeySelector`, `validateSecretKeySelector` and
`validateEnvFrom`; the field paths a fieldRef may name come from pkg/apis/core/pods `ConvertDownwardAPIFieldLabel`."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate.report import (
    Found,
    as_dict,
    as_list,
    check_name,
    invalid,
    required,
    since,
    unsupported,
)
from mxjob_gitops.compiler.rules.kubevalidate.resources import quantity

C = Code.K8S_CONTAINER
VALUE_SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef")
# ConvertDownwardAPIFieldLabel: every pod field a downward API selector may name (status.hostIPs from 1.28).
CONVERTIBLE = (
    "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
    "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName", "status.phase",
    "status.hostIP", "status.podIP", "status.podIPs",
)  # fmt: skip
ENV_FIELDS = (
    "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
    "status.hostIP", "status.podIP", "status.podIPs",
)  # fmt: skip
VOLUME_FIELDS = ("metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid")
RESOURCES = (
    "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage",
    "requests.memory",
)  # fmt: skip
CPU_DIVISORS = ("1m", "1")
MEMORY_DIVISORS = ("1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei")


def check_env(found: Found, env: Any, path: JsonPath, relaxed: bool, version: str | None) -> None:
    """ValidateEnv: names, then each valueFrom."""
    for index, var in enumerate(as_list(env)):
        var, at = as_dict(var), (*path, index)
        name = var.get("name")
        if not name:
            required(found, C, (*at, "name"))
        elif isinstance(name, str) and names.env_var_name(name, relaxed):
            invalid(found, C, (*at, "name"), name, names.env_var_name(name, relaxed))
        source = var.get("valueFrom")
        if source is not None:
            _value_from(found, as_dict(source), (*at, "valueFrom"), bool(var.get("value")), version)


def _value_from(found: Found, source: dict[str, Any], path: JsonPath, has_value: bool, version: str | None) -> None:
    present = [key for key in VALUE_SOURCES if source.get(key) is not None]
    if not present:
        detail = "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"
        invalid(found, C, path, "", detail)
    elif len(present) > 1:
        invalid(found, C, path, "", "may not have more than one field specified at a time")
    if present and has_value:
        invalid(found, C, path, "", "may not be specified when `value` is not empty")
    if "fieldRef" in present:
        fields = (*ENV_FIELDS, "status.hostIPs") if since(version, (1, 28)) else ENV_FIELDS
        check_field_selector(found, source["fieldRef"], (*path, "fieldRef"), fields, version)
    if "resourceFieldRef" in present:
        check_resource_selector(found, source["resourceFieldRef"], (*path, "resourceFieldRef"), volume=False)
    for key in ("configMapKeyRef", "secretKeyRef"):
        if key in present:
            selector, at = as_dict(source[key]), (*path, key)
            check_name(found, C, (*at, "name"), selector.get("name") or "", names.dns1123_subdomain)
            if not selector.get("key"):
                required(found, C, (*at, "key"))
            else:
                check_name(found, C, (*at, "key"), selector["key"], names.config_key)


def check_field_selector(
    found: Found, selector: Any, path: JsonPath, allowed: tuple[str, ...], version: str | None
) -> None:
    """validateObjectFieldSelector: a convertible v1 field path; labels and annotations only with a valid
    subscript (`metadata.labels['key']`) in env, or whole in a downward API volume."""
    selector = as_dict(selector)
    field_path, api = selector.get("fieldPath"), selector.get("apiVersion") or "v1"
    if not field_path:
        required(found, C, (*path, "fieldPath"))
        return
    if not isinstance(field_path, str):
        return
    if api != "v1":
        detail = f"error converting fieldPath: unsupported pod version: {api}"
        invalid(found, C, (*path, "fieldPath"), field_path, detail)
        return
    base, subscript = field_path, None
    for prefix in ("metadata.labels", "metadata.annotations"):
        if field_path.startswith(prefix + "['") and field_path.endswith("']"):
            base, subscript = prefix, field_path[len(prefix) + 2 : -2]
    convertible = (*CONVERTIBLE, "status.hostIPs") if since(version, (1, 28)) else CONVERTIBLE
    if base not in convertible:
        detail = f"error converting fieldPath: field label not supported: {base}"
        invalid(found, C, (*path, "fieldPath"), field_path, detail)
    elif subscript is not None:
        key = subscript.lower() if base == "metadata.annotations" else subscript
        check_name(found, C, path, key, names.qualified_name)
    elif base not in allowed:
        unsupported(found, C, (*path, "fieldPath"), field_path, allowed)


def check_resource_selector(found: Found, selector: Any, path: JsonPath, volume: bool) -> None:
    """validateContainerResourceFieldSelector and validateContainerResourceDivisor."""
    selector = as_dict(selector)
    resource = selector.get("resource")
    if volume and not selector.get("containerName"):
        required(found, C, (*path, "containerName"))
    elif not resource:
        required(found, C, (*path, "resource"))
    elif resource not in RESOURCES:
        unsupported(found, C, (*path, "resource"), resource, RESOURCES)
    divisor = selector.get("divisor")
    if divisor is None or resource not in RESOURCES:
        return
    amount = quantity(found, (*path, "divisor"), divisor)
    if amount is None or amount == 0:
        return
    cpu = resource.endswith(".cpu")
    allowed = CPU_DIVISORS if cpu else MEMORY_DIVISORS
    if all(quantity([], (), choice) != amount for choice in allowed):
        what = "cpu" if cpu else "memory" if resource.endswith(".memory") else "local ephemeral storage"
        invalid(
            found,
            C,
            (*path, "divisor"),
            resource,
            f"only divisor's values {', '.join(allowed)} are supported with the {what} resource",
        )


def check_env_from(found: Found, sources: Any, path: JsonPath, relaxed: bool) -> None:
    """validateEnvFrom: a valid prefix and exactly one of configMapRef or secretRef, naming an object."""
    for index, source in enumerate(as_list(sources)):
        source, at = as_dict(source), (*path, index)
        prefix = source.get("prefix")
        if prefix:
            check_name(found, C, (*at, "prefix"), prefix, lambda v: names.env_var_name(v, relaxed))
        present = [key for key in ("configMapRef", "secretRef") if source.get(key) is not None]
        if not present:
            invalid(found, C, path, "", "must specify one of: `configMapRef` or `secretRef`")
        elif len(present) > 1:
            invalid(found, C, path, "", "may not have more than one field specified at a time")
        for key in present:
            name = as_dict(source[key]).get("name")
            if not name:
                required(found, C, (*at, key, "name"))
            else:
                check_name(found, C, (*at, key, "name"), name, names.dns1123_subdomain)
