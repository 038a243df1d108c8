"""Kubernetes' semantic validation, offline: what the API server refuses on create beyond any schema, as
diagnostics (docs/validation.md lists every rule and its upstream source). Called by compiler.job for an MXJob's
templates and by compiler.validation for the Pods, Services and ConfigMaps given as they are."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Diagnostic
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate.meta import check_meta
from mxjob_gitops.compiler.rules.kubevalidate.objects import check_configmap
from mxjob_gitops.compiler.rules.kubevalidate.pod import check_pod_spec, relaxed_service_names
from mxjob_gitops.compiler.rules.kubevalidate.quantities import check_quantities
from mxjob_gitops.compiler.rules.kubevalidate.report import Found, as_dict
from mxjob_gitops.compiler.rules.kubevalidate.service import check_service
from mxjob_gitops.compiler.rules.schema import mxjob_schema

__all__ = ["check_job", "check_object"]

_NAME_RULE = {"Pod": names.dns1123_subdomain, "ConfigMap": names.dns1123_subdomain, "Service": names.dns1035_label}


def check_job(data: dict[str, Any], version: str | None) -> list[Diagnostic]:
    """An MXJob's metadata and each replica's pod template (what every pod and service it renders carries)."""
    found: Found = []
    check_meta(found, data.get("metadata"), ("metadata",), None)
    spec = as_dict(data.get("spec"))
    for replica_type, replica in as_dict(spec.get("mxReplicaSpecs")).items():
        template = as_dict(as_dict(replica).get("template"))
        at = ("spec", "mxReplicaSpecs", replica_type, "template")
        check_meta(found, template.get("metadata"), (*at, "metadata"), None)
        check_pod_spec(found, template.get("spec"), (*at, "spec"), version, whole=False)
    schema = mxjob_schema()
    check_quantities(found, data, schema, schema["$defs"], ())
    unique = {(d.path, d.message): d for d in found}  # a quantity the pod rules also parsed is reported once
    return list(unique.values())


def check_object(obj: dict[str, Any], version: str | None) -> list[Diagnostic]:
    """A core object as written: Pod, Service or ConfigMap of apiVersion v1 (other kinds: nothing)."""
    kind = obj.get("kind")
    if obj.get("apiVersion") != "v1" or kind not in _NAME_RULE:
        return []
    found: Found = []
    rule = _NAME_RULE[kind]
    if kind == "Service" and relaxed_service_names(version):
        rule = names.dns1123_label
    check_meta(found, obj.get("metadata"), ("metadata",), rule)
    if kind == "Pod":
        check_pod_spec(found, obj.get("spec"), ("spec",), version)
    elif kind == "Service":
        check_service(found, obj.get("spec"), ("spec",), version)
    else:
        check_configmap(found, obj)
    return found
