"""Template fields the API server of `--kubernetes-version` silently removes from a pod before validating it, so
that the pods run without them: warnings MXJ309 where the user wrote them. Called by kubevalidate.check_job for
each replica's template (not for every rendered pod: one warning per field written).

- Image volumes: the ImageVolume gate is off by default before 1.35 (pkg/api/pod/util.go `dropImageVolumes` takes
  the volume and every mount naming it); before 1.31 the field is unknown, which decoding drops.
- Resource claims (`spec.resourceClaims`, a container's `resources.claims`): DynamicResourceAllocation is off by
  default before 1.34 (`dropDisabledDynamicResourceAllocationFields`); before 1.26 the fields are unknown.
- Pod (anti-)affinity `matchLabelKeys` / `mismatchLabelKeys`: MatchLabelKeysInPodAffinity is off by default
  before 1.31 (`dropDisabledMatchLabelKeysFieldInPodAffinity`).

Upstream: https://github.com/kubernetes/kubernetes/blob/v1.36.0/pkg/api/pod/util.go (`dropDisabledFields`) and
the gates' versions in pkg/features/kube_features.go at each release."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, JsonPath, warning
from mxjob_gitops.compiler.rules.kubevalidate.report import as_dict, as_list, since

IMAGE_VOLUMES, RESOURCE_CLAIMS, AFFINITY_KEYS = (1, 35), (1, 34), (1, 31)


def dropped_fields(spec: Any, path: JsonPath, version: str | None) -> Iterator[Diagnostic]:
    spec = as_dict(spec)
    if not since(version, IMAGE_VOLUMES):
        for index, volume in enumerate(as_list(spec.get("volumes"))):
            if as_dict(volume).get("image") is not None:
                what = "this image volume and the mounts naming it"
                if not since(version, (1, 31)):  # unknown: decoding drops the field, the volume defaults to emptyDir
                    what = "the image source of this volume (an empty emptyDir is mounted instead)"
                yield _dropped((*path, "volumes", index, "image"), what, version, "ImageVolume", IMAGE_VOLUMES)
    if not since(version, RESOURCE_CLAIMS):
        if as_list(spec.get("resourceClaims")):
            what = "the pod's resource claims"
            yield _dropped((*path, "resourceClaims"), what, version, "DynamicResourceAllocation", RESOURCE_CLAIMS)
        for kind in ("initContainers", "containers"):
            for index, container in enumerate(as_list(spec.get(kind))):
                if as_list(as_dict(as_dict(container).get("resources")).get("claims")):
                    at = (*path, kind, index, "resources", "claims")
                    what = "the container's resource claims"
                    yield _dropped(at, what, version, "DynamicResourceAllocation", RESOURCE_CLAIMS)
    if not since(version, AFFINITY_KEYS):
        yield from _affinity_keys(as_dict(spec.get("affinity")), (*path, "affinity"), version)


def _affinity_keys(affinity: dict[str, Any], path: JsonPath, version: str | None) -> Iterator[Diagnostic]:
    for kind in ("podAffinity", "podAntiAffinity"):
        rules = as_dict(affinity.get(kind))
        terms = [
            (("requiredDuringSchedulingIgnoredDuringExecution", index), as_dict(term))
            for index, term in enumerate(as_list(rules.get("requiredDuringSchedulingIgnoredDuringExecution")))
        ] + [
            (("preferredDuringSchedulingIgnoredDuringExecution", index, "podAffinityTerm"), as_dict(term))
            for index, item in enumerate(as_list(rules.get("preferredDuringSchedulingIgnoredDuringExecution")))
            for term in [as_dict(item).get("podAffinityTerm")]
        ]
        for where, term in terms:
            for field in ("matchLabelKeys", "mismatchLabelKeys"):
                if as_list(term.get(field)):
                    at = (*path, kind, *where, field)
                    yield _dropped(at, field, version, "MatchLabelKeysInPodAffinity", AFFINITY_KEYS)


def _dropped(path: JsonPath, what: str, version: str | None, gate: str, release: tuple[int, int]) -> Diagnostic:
    since_text = f"{release[0]}.{release[1]}"
    return warning(
        Code.FIELD_DROPPED,
        f"a Kubernetes {version} API server removes {what} from the pods before storing them "
        f"({gate} is on by default from {since_text}): the pods run without it",
        path,
        f"render for the cluster's version; on {version}, enable the {gate} feature gate or remove the field",
    )
