"""An ephemeral volume's claim template, as k8s.io/kubernetes pkg/apis/core/validation/validation.go checks it:
`validateEphemeralVolumeSource` (a volumeClaimTemplate), `ValidatePersistentVolumeClaimTemplate` (metadata with
labels and annotations only, `ValidateTemplateObjectMeta`) and the parts of `ValidatePersistentVolumeClaimSpec` a
template holds (access modes, a storage request); and, for a pod with a name, the claim the volume creates
(`ValidateVolumes`: `<pod>-<volume>` a valid PersistentVolumeClaim name, no other volume naming it as its claim).
Called by kubevalidate.volumes and kubevalidate.pod."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate.meta import check_annotations, check_labels
from mxjob_gitops.compiler.rules.kubevalidate.report import (
    Found,
    as_dict,
    as_list,
    forbidden,
    invalid,
    required,
    unsupported,
)

V = Code.K8S_VOLUME
ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")


def check_ephemeral(found: Found, source: dict[str, Any], at: JsonPath) -> None:
    template = source.get("volumeClaimTemplate")
    if not isinstance(template, dict):
        required(found, V, (*at, "volumeClaimTemplate"))
        return
    at = (*at, "volumeClaimTemplate")
    metadata = as_dict(template.get("metadata"))
    check_labels(found, metadata.get("labels"), (*at, "metadata", "labels"))
    check_annotations(found, metadata.get("annotations"), (*at, "metadata", "annotations"))
    for key in metadata:
        if key not in ("labels", "annotations"):
            forbidden(found, V, (*at, "metadata", key), "cannot be set")
    spec = as_dict(template.get("spec"))
    modes = as_list(spec.get("accessModes"))
    if not modes:
        required(found, V, (*at, "spec", "accessModes"))
    for mode in modes:
        if mode not in ACCESS_MODES:
            unsupported(found, V, (*at, "spec", "accessModes"), mode, ACCESS_MODES)
    if "ReadWriteOncePod" in modes and any(m in ACCESS_MODES and m != "ReadWriteOncePod" for m in modes):
        forbidden(found, V, (*at, "spec", "accessModes"), "may not use ReadWriteOncePod with other access modes")
    requests = as_dict(as_dict(spec.get("resources")).get("requests"))
    if "storage" not in requests:
        required(found, V, (*at, "spec", "resources", "requests", "storage"))


def check_claim_names(found: Found, pod_name: Any, volumes: Any, path: JsonPath) -> None:
    """The claims a named pod's ephemeral volumes create: valid names, none another volume's claimName."""
    if not isinstance(pod_name, str) or not pod_name:
        return
    created = set()
    for volume in as_list(volumes):
        volume = as_dict(volume)
        if volume.get("ephemeral") is not None and isinstance(volume.get("name"), str):
            created.add(f"{pod_name}-{volume['name']}")
    for index, volume in enumerate(as_list(volumes)):
        volume = as_dict(volume)
        name = volume.get("name")
        if volume.get("ephemeral") is not None and isinstance(name, str) and name:
            problem = names.dns1123_subdomain(f"{pod_name}-{name}")
            if problem:
                invalid(found, V, (*path, index, "name"), name, f'PVC name "{pod_name}-{name}": {problem}')
        claim = as_dict(volume.get("persistentVolumeClaim")).get("claimName")
        if claim in created:
            detail = "must not reference a PVC that gets created for an ephemeral volume"
            invalid(found, V, (*path, index, "persistentVolumeClaim", "claimName"), claim, detail)
