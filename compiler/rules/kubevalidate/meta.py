"""ObjectMeta as the API server checks it on create: k8s.io/apimachinery pkg/api/validation/objectmeta.go
`ValidateObjectMeta` (name, generateName, namespace, labels via pkg/apis/meta/v1/validation `ValidateLabels`,
`ValidateAnnotations`, finalizers, owner references)."""

from __future__ import annotations

from collections.abc import Callable
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
    too_long,
)

TOTAL_ANNOTATION_SIZE = 256 * 1024  # objectmeta.go TotalAnnotationSizeLimitB
M = Code.K8S_METADATA
STANDARD_FINALIZERS = ("kubernetes", "orphan", "foregroundDeletion")  # helper.IsStandardFinalizerName


def check_meta(found: Found, meta: Any, path: JsonPath, name_rule: Callable[[str], str] | None) -> None:
    """The object's metadata; `name_rule` None for a pod template (its name and namespace are not checked)."""
    meta = as_dict(meta)
    if name_rule is not None:
        name, generate = meta.get("name"), meta.get("generateName")
        if name:
            check_name(found, M, (*path, "name"), name, name_rule)
        elif generate:
            # ValidateObjectMeta checks generateName with the trailing characters the server appends.
            if isinstance(generate, str) and name_rule(generate.rstrip("-") or "a"):
                invalid(found, M, (*path, "generateName"), generate, name_rule(generate.rstrip("-") or "a"))
        else:
            required(found, M, (*path, "name"), "name or generateName is required")
        check_name(found, M, (*path, "namespace"), meta.get("namespace") or "default", names.dns1123_label)
    check_labels(found, meta.get("labels"), (*path, "labels"))
    check_annotations(found, meta.get("annotations"), (*path, "annotations"))
    for index, finalizer in enumerate(as_list(meta.get("finalizers"))):
        check_name(found, M, (*path, "finalizers", index), finalizer, names.qualified_name)
        # pkg/apis/core/validation validateKubeFinalizerName: a core object's unqualified finalizer is a standard one.
        unqualified = isinstance(finalizer, str) and "/" not in finalizer
        if name_rule is not None and unqualified and finalizer not in STANDARD_FINALIZERS:
            detail = "name is neither a standard finalizer name nor is it fully qualified"
            invalid(found, M, (*path, "finalizers", index), finalizer, detail)
    _owner_references(found, meta.get("ownerReferences"), (*path, "ownerReferences"))


def check_labels(found: Found, labels: Any, path: JsonPath) -> None:
    """ValidateLabels: qualified-name keys, label values."""
    qualified_name, label_value = names.qualified_name, names.label_value
    for key, value in as_dict(labels).items():  # report.check_name's test, with the path built only for a finding
        key_problem = qualified_name(key) if isinstance(key, str) else ""
        if key_problem:
            invalid(found, M, (*path, key), key, key_problem)
        value_problem = label_value(value) if isinstance(value, str) else ""
        if value_problem:
            invalid(found, M, (*path, key), value, value_problem)


def check_annotations(found: Found, annotations: Any, path: JsonPath) -> None:
    """ValidateAnnotations: qualified-name keys (lower-cased), and all keys and values within 256 KiB."""
    total = 0
    for key, value in as_dict(annotations).items():
        if isinstance(key, str):
            check_name(found, M, (*path, key), key.lower(), names.qualified_name)
            total += len(key.encode())
        if isinstance(value, str):
            total += len(value.encode())
    if total > TOTAL_ANNOTATION_SIZE:
        too_long(found, M, path, TOTAL_ANNOTATION_SIZE)


def _owner_references(found: Found, references: Any, path: JsonPath) -> None:
    """ValidateOwnerReferences / validateOwnerReference: a version in apiVersion (as schema.FromAPIVersionAndKind
    reads it: `group/version` or `version`), kind, name and uid set, not a banned owner kind (v1 Event); at most
    one controller."""
    controllers = 0
    for index, reference in enumerate(as_list(references)):
        reference = as_dict(reference)
        at = (*path, index)
        api, kind = reference.get("apiVersion"), reference.get("kind")
        version = _version_of(api) if isinstance(api, str) else ""
        if not version:
            invalid(found, M, (*at, "apiVersion"), api or "", "version must not be empty")
        for key in ("kind", "name", "uid"):
            if not reference.get(key):
                invalid(found, M, (*at, key), reference.get(key) or "", f"{key} must not be empty")
        if api == "v1" and kind == "Event":
            invalid(found, M, at, reference, "/v1, Kind=Event is disallowed from being an owner")
        controllers += reference.get("controller") is True
    if controllers > 1:
        invalid(found, M, path, "", "Only one reference can have Controller set to true")


def _version_of(api_version: str) -> str:
    """The version part of schema.ParseGroupVersion ("" when it does not parse: more than one '/')."""
    parts = api_version.split("/")
    if len(parts) > 2:
        return ""
    return parts[-1]
