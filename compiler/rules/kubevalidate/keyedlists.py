"""The MXJob CRD's keyed lists (`x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys`, schemas/crd): two
items with the same key values are refused on create, as k8s.io/apiextensions-apiserver
pkg/apiserver/schema/listtype/validation.go `ValidateListSetsAndMaps` does (`Duplicate value: map[...]`), after the
schema's defaults (a port's protocol: TCP). Pod validation lets some of these through (duplicate env names, two
imagePullSecrets of one name), so only the CRD catches them. Called by compiler.judge on the rendered MXJob."""

from __future__ import annotations

from typing import Any, Final, TypeGuard

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.rules.kubevalidate.report import Found, as_dict, as_list, duplicate

# Keyed lists of a pod template (paths from the template's spec), with their keys and the keys' defaults.
KeyedList = tuple[tuple[str, ...], dict[str, str]]
_CONTAINER_LISTS: Final[dict[str, KeyedList]] = {
    "env": (("name",), {}),
    "ports": (("containerPort", "protocol"), {"protocol": "TCP"}),
    "volumeDevices": (("devicePath",), {}),
    "volumeMounts": (("mountPath",), {}),
}
_SPEC_LISTS: Final[dict[str, KeyedList]] = {
    "containers": (("name",), {}),
    "initContainers": (("name",), {}),
    "ephemeralContainers": (("name",), {}),
    "hostAliases": (("ip",), {}),
    "imagePullSecrets": (("name",), {}),
    "resourceClaims": (("name",), {}),
    "schedulingGates": (("name",), {}),
    "topologySpreadConstraints": (("topologyKey", "whenUnsatisfiable"), {}),
    "volumes": (("name",), {}),
}


def check_keyed_lists(found: Found, obj: dict[str, Any]) -> None:
    """Every keyed list of every pod template of an MXJob (v1) or a JobSet (whose CRD keys the same lists)."""
    spec = as_dict(obj.get("spec"))
    if obj.get("kind") == "JobSet":
        for index, replicated in enumerate(as_list(spec.get("replicatedJobs"))):
            template = as_dict(as_dict(as_dict(as_dict(replicated).get("template")).get("spec")).get("template"))
            check_template_lists(found, template, ("spec", "replicatedJobs", index, "template", "spec", "template"))
        return
    for replica_type, replica in as_dict(spec.get("mxReplicaSpecs")).items():
        at = ("spec", "mxReplicaSpecs", replica_type, "template")
        check_template_lists(found, as_dict(as_dict(replica).get("template")), at)


def check_template_lists(found: Found, template: dict[str, Any], at: JsonPath) -> None:
    """The keyed lists of one pod template at `at`."""
    owners = as_dict(template.get("metadata")).get("ownerReferences")
    if _several(owners):
        _unique(found, owners, (*at, "metadata", "ownerReferences"), ("uid",), {})
    spec = as_dict(template.get("spec"))
    for field, (keys, defaults) in _SPEC_LISTS.items():
        if _several(spec.get(field)):
            _unique(found, spec[field], (*at, "spec", field), keys, defaults)
    for field in ("containers", "initContainers", "ephemeralContainers"):
        for index, container in enumerate(as_list(spec.get(field))):
            container = as_dict(container)
            for key, (keys, defaults) in _CONTAINER_LISTS.items():
                if _several(container.get(key)):
                    _unique(found, container[key], (*at, "spec", field, index, key), keys, defaults)
            claims = as_dict(container.get("resources")).get("claims")
            if _several(claims):
                _unique(found, claims, (*at, "spec", field, index, "resources", "claims"), ("name",), {})


def _several(items: Any) -> TypeGuard[list[Any]]:
    """A list of two items or more: only such a list can hold a duplicate (its path is built only then)."""
    return type(items) is list and len(items) > 1


def _unique(found: Found, items: list[Any], path: JsonPath, keys: tuple[str, ...], defaults: dict[str, str]) -> None:
    seen: set[tuple[Any, ...]] = set()
    for index, item in enumerate(as_list(items)):
        item = as_dict(item)
        value = tuple(_hashable(item.get(key, defaults.get(key))) for key in keys)
        if value in seen:
            shown = {key: item.get(key, defaults.get(key)) for key in keys}
            duplicate(found, Code.K8S_CEL, (*path, index), shown)
        seen.add(value)


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool)) or value is None else repr(value)
