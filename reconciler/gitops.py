"""Which GitOps object to nudge after a pod was deleted in `--restart-mode gitops`, from the cluster's own records.

A pod's Flux labels and Argo CD tracking annotation are written by whoever can write the pod (the tenant), so
they only say where to look. An owner is nudged only when its own record, written by its controller, lists this
very pod (called by reconciler.apply):

- Flux: the Kustomization named by `kustomize.toolkit.fluxcd.io/{name,namespace}` lists the pod in
  `status.inventory.entries[].id`. kustomize-controller writes that inventory
  (fluxcd/kustomize-controller internal/inventory/inventory.go AddChangeSet: `ObjMetadata.String()` of each
  applied object), in cli-utils' form `<namespace>_<name>_<group>_<kind>` (kubernetes-sigs/cli-utils
  pkg/object/objmetadata.go ObjMetadata.String; the core group is empty: `ml_mxnet-job-worker-0__Pod`).
- Argo CD: the tracking id `<app>:<group>/<kind>:<namespace>/<name>` (argoproj/argo-cd
  util/argo/resource_tracking.go ParseAppInstanceValue) must name this pod itself (a copied id names another
  object), `<app>` is `<namespace>_<name>` or a name in the Argo CD namespace, and that Application's
  `status.resources` (pkg/apis/application/v1alpha1/types.go ApplicationStatus.Resources, ResourceStatus
  group/kind/namespace/name), written by the application controller, lists the pod.

Every name is checked as a DNS-1123 name before it reaches a request path, and only the pod's own namespace and the
namespace configured for that kind are read; an unverified owner is skipped with a log line, never an error:
nothing a tenant writes makes the job fail or loop, or makes the reconciler read another tenant's objects.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mxjob_gitops.reconciler.state import ARGO_TRACKING
from mxjob_gitops.reconciler.trust import is_name, is_namespace

log = logging.getLogger("mxjob.reconcile")
FLUX_NAME, FLUX_NAMESPACE = "kustomize.toolkit.fluxcd.io/name", "kustomize.toolkit.fluxcd.io/namespace"
KUSTOMIZATION = ("kustomize.toolkit.fluxcd.io/v1", "Kustomization")
APPLICATION = ("argoproj.io/v1alpha1", "Application")
Get = Callable[[str, str, str, str], "dict[str, Any] | None"]


@dataclass(frozen=True, slots=True)
class Owner:
    """A GitOps object whose own record lists the pod."""

    api_version: str
    kind: str
    namespace: str
    name: str


def verified_owners(
    get: Get, pod: Mapping[str, Any], namespace: str, argocd_namespace: str, flux_namespace: str = "flux-system"
) -> list[Owner]:
    """The Kustomization and Application that really manage `pod` (in `namespace`), read through `get`.

    Only the job's own namespace and the namespace the operator configured for each kind (`--argocd-namespace`,
    `--flux-namespace`) are read: a name a tenant writes never steers a request, a GET included, into another
    tenant's namespace."""
    metadata = _mapping(pod.get("metadata"))
    name = metadata.get("name")
    if not (is_name(name) and is_namespace(namespace)):
        return []
    found = []
    for candidate, listed, configured in (
        (_flux_candidate(_mapping(metadata.get("labels"))), _in_inventory, flux_namespace),
        (
            _argo_candidate(_mapping(metadata.get("annotations")), namespace, str(name), argocd_namespace),
            _in_resources,
            argocd_namespace,
        ),
    ):
        if candidate is None:
            continue
        if candidate.namespace not in (namespace, configured):
            log.warning(
                f"not reading {candidate.kind} {candidate.namespace}/{candidate.name}: pod {namespace}/{name} names "
                f"it, but only {namespace} and {configured} are read for a {candidate.kind}",
                extra={"job": namespace},
            )
            continue
        record = get(candidate.api_version, candidate.kind, candidate.namespace, candidate.name)
        if record is not None and listed(_mapping(record.get("status")), namespace, str(name)):
            found.append(candidate)
        else:
            log.warning(
                f"not nudging {candidate.kind} {candidate.namespace}/{candidate.name}: its status does not list "
                f"pod {namespace}/{name}",
                extra={"job": namespace},
            )
    return found


def _flux_candidate(labels: Mapping[str, Any]) -> Owner | None:
    name, namespace = labels.get(FLUX_NAME), labels.get(FLUX_NAMESPACE)
    if not (is_name(name) and is_namespace(namespace)):
        return None
    return Owner(*KUSTOMIZATION, str(namespace), str(name))


def _in_inventory(status: Mapping[str, Any], namespace: str, name: str) -> bool:
    entries = _mapping(status.get("inventory")).get("entries")
    wanted = f"{namespace}_{name}__Pod"
    return isinstance(entries, list) and any(_mapping(e).get("id") == wanted for e in entries)


def _argo_candidate(annotations: Mapping[str, Any], namespace: str, name: str, default: str) -> Owner | None:
    tracking = annotations.get(ARGO_TRACKING)
    if not isinstance(tracking, str):
        return None
    parts = tracking.split(":", 2)
    if len(parts) != 3 or parts[1] != "/Pod" or parts[2] != f"{namespace}/{name}":
        return None  # malformed, or an id that names another object (copied onto this pod)
    app_namespace, _, app_name = parts[0].rpartition("_")
    app_namespace = app_namespace or default
    if not (is_name(app_name) and is_namespace(app_namespace)):
        return None
    return Owner(*APPLICATION, app_namespace, app_name)


def _in_resources(status: Mapping[str, Any], namespace: str, name: str) -> bool:
    resources = status.get("resources")
    return isinstance(resources, list) and any(
        (r := _mapping(x)).get("kind") == "Pod"
        and not r.get("group")
        and r.get("namespace") == namespace
        and r.get("name") == name
        for x in resources
    )


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
