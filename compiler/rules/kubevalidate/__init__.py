"""Kubernetes' semantic validation, offline: what the API server refuses on create beyond any schema, as
diagnostics (docs/validation.md lists every rule and its upstream source). Called by compiler.job for an MXJob's
templates and by compiler.validation for the Pods, Services and ConfigMaps given as they are."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Diagnostic
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate.claims import check_claim_names
from mxjob_gitops.compiler.rules.kubevalidate.dropped import dropped_fields
from mxjob_gitops.compiler.rules.kubevalidate.meta import check_meta
from mxjob_gitops.compiler.rules.kubevalidate.objects import check_configmap
from mxjob_gitops.compiler.rules.kubevalidate.pod import check_pod_spec, relaxed_service_names
from mxjob_gitops.compiler.rules.kubevalidate.podannotations import check_pod_annotations
from mxjob_gitops.compiler.rules.kubevalidate.quantities import check_quantities
from mxjob_gitops.compiler.rules.kubevalidate.report import Found, as_dict, since
from mxjob_gitops.compiler.rules.kubevalidate.service import check_service
from mxjob_gitops.compiler.rules.schema import mxjob_schema
from mxjob_gitops.compiler.spec import constants as c

__all__ = ["check_job", "check_object"]

# Labels the renderer sets on pods (compiler.expand.operator_labels, the gang schedulers' joins).
RENDERED_LABELS = frozenset(
    {
        c.LABEL_OPERATOR_NAME,
        c.LABEL_JOB_NAME,
        c.LABEL_REPLICA_TYPE,
        c.LABEL_REPLICA_INDEX,
        c.LABEL_JOB_ROLE,
        "kueue.x-k8s.io/queue-name",
        "kueue.x-k8s.io/pod-group-name",
        "scheduling.x-k8s.io/pod-group",
    }
)
_NAME_RULE = {"Pod": names.dns1123_subdomain, "ConfigMap": names.dns1123_subdomain, "Service": names.dns1035_label}


def check_job(data: dict[str, Any], version: str | None) -> list[Diagnostic]:
    """An MXJob's metadata and each replica's pod template (what every pod and service it renders carries)."""
    found: Found = []
    check_meta(found, data.get("metadata"), ("metadata",), None)
    spec = as_dict(data.get("spec"))
    for replica_type, replica in as_dict(spec.get("mxReplicaSpecs")).items():
        template = as_dict(as_dict(replica).get("template"))
        at = ("spec", "mxReplicaSpecs", replica_type, "template")
        check_meta(found, _without_rendered_labels(template.get("metadata")), (*at, "metadata"), None)
        check_pod_spec(found, template.get("spec"), (*at, "spec"), version, whole=False)
        found.extend(dropped_fields(template.get("spec"), (*at, "spec"), version))
    schema = mxjob_schema()
    check_quantities(found, data, schema, schema["$defs"], ())
    unique = {(d.path, d.message): d for d in found}  # a quantity the pod rules also parsed is reported once
    return list(unique.values())


def _without_rendered_labels(metadata: Any) -> Any:
    """A template's metadata without the labels the rendering may set (compiler.judge judges the pods' labels as
    rendered, and notes a template label the rendering replaces)."""
    labels = as_dict(as_dict(metadata).get("labels"))
    if not any(key in RENDERED_LABELS for key in labels):
        return metadata
    return {**metadata, "labels": {k: v for k, v in labels.items() if k not in RENDERED_LABELS}}


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
        check_pod_annotations(found, obj.get("metadata"), obj.get("spec"), version)
        if since(version, (1, 21)):  # a named pod's ephemeral volumes (GenericEphemeralVolume on from 1.21)
            volumes = as_dict(obj.get("spec")).get("volumes")
            check_claim_names(found, as_dict(obj.get("metadata")).get("name"), volumes, ("spec", "volumes"))
    elif kind == "Service":
        check_service(found, obj.get("spec"), ("spec",), version)
    else:
        check_configmap(found, obj)
    return found
