"""JobSet's update rules as `mxjob diff` needs them: which spec changes the JobSet webhook and CRD refuse, which they
accept only while the JobSet is suspended, and how the GitOps annotations `--target` writes turn a change into a
replacement (every replica restarts). Pure; called by diff.restarts and diff.jobset_refusals.

Read from kubernetes-sigs/jobset (not copied):
- pkg/webhooks/jobset_webhook.go `ValidateUpdate`
  (https://github.com/kubernetes-sigs/jobset/blob/main/pkg/webhooks/jobset_webhook.go): `spec.replicatedJobs` and
  `spec.managedBy` are immutable (compared whole, with apimachinery's semantic equality, so the order of every list
  counts and an empty list or map equals an absent one). When the old or the new JobSet is suspended, the pod
  template's labels, annotations, nodeSelector, tolerations and schedulingGates of each replicatedJob that keeps its
  name may change (what Kueue changes on admission). The alpha ElasticJobSet gate (off by default) would also let
  parallelism and completions change; it is not assumed.
- api/jobset/v1alpha2/jobset_types.go: `self == oldSelf` transition rules on network, successPolicy, failurePolicy,
  startupPolicy, volumeClaimPolicies and each replicatedJob's dependsOn; a transition rule runs only when both the
  old and the new object have the field.
Everything else (metadata, suspend, coordinator, ttlSecondsAfterFinished) may change in place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mxjob_gitops.compiler.diff.diffview import KeyedList

API_GROUP = "jobset.x-k8s.io"
KIND = "JobSet"
CEL_IMMUTABLE = ("network", "successPolicy", "failurePolicy", "startupPolicy", "volumeClaimPolicies")
# Fields of replicatedJobs[].template.spec.template that may change while the JobSet is suspended.
SUSPENDED_MUTABLE = (
    ("metadata", "labels"),
    ("metadata", "annotations"),
    ("spec", "nodeSelector"),
    ("spec", "tolerations"),
    ("spec", "schedulingGates"),
)
ARGOCD_SYNC_OPTIONS = "argocd.argoproj.io/sync-options"
FLUX_FORCE = "kustomize.toolkit.fluxcd.io/force"


@dataclass(frozen=True, slots=True)
class JobSetUpdate:
    """What the server makes of an update from one JobSet to another."""

    refused: tuple[str, ...] = ()  # the immutable fields that changed (readable paths): the server refuses it
    while_suspended: tuple[str, ...] = ()  # pod template fields accepted only because the JobSet is suspended
    suspends: bool = False  # spec.suspend turns true: the controller suspends the Jobs, their pods stop
    jobs: tuple[str, ...] = ()  # the replicatedJobs (by name) that differ, when spec.replicatedJobs is refused

    @property
    def accepted(self) -> bool:
        return not self.refused


def is_jobset(obj: dict[str, Any] | None) -> bool:
    return obj is not None and obj.get("kind") == KIND and str(obj.get("apiVersion", "")).startswith(f"{API_GROUP}/")


def plain(value: Any) -> Any:
    """The value as the Go types compare it: keyed lists back to lists in their order, empty maps, lists and nulls
    left out (apimachinery's semantic equality takes an empty slice or map for an absent one)."""
    if isinstance(value, KeyedList):
        value = list(value.values())
    if isinstance(value, dict):
        kept = {k: plain(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in (None, {}, [])}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def _by_name(jobs: Any) -> dict[str, Any]:
    items = jobs.values() if isinstance(jobs, KeyedList) else jobs if isinstance(jobs, list) else []
    return {str(job.get("name")): job for job in items if isinstance(job, dict)}


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else {}


def _suspended(spec: dict[str, Any]) -> bool:
    return spec.get("suspend") is True


def _pod_template(job: Any) -> dict[str, Any]:
    found = ((job.get("template") or {}).get("spec") or {}).get("template") if isinstance(job, dict) else None
    return found if isinstance(found, dict) else {}


def _masked(job: Any, old_job: Any) -> tuple[Any, list[str]]:
    """`job` with the fields that may change while suspended taken from `old_job`, and those that differed."""
    job, old_job = plain(job), plain(old_job)
    template, old_template = _pod_template(job), _pod_template(old_job)
    changed: list[str] = []
    for section, field in SUSPENDED_MUTABLE:
        new_value = (template.get(section) or {}).get(field)
        old_value = (old_template.get(section) or {}).get(field)
        if new_value != old_value:
            changed.append(f"spec.replicatedJobs[{job.get('name')}].template.spec.template.{section}.{field}")
        part = template.setdefault(section, {})
        if old_value is None:
            part.pop(field, None)
        else:
            part[field] = old_value
    return plain(job), changed


def check_update(old: dict[str, Any], new: dict[str, Any]) -> JobSetUpdate:
    """The webhook's and the CRD's verdict on updating JobSet `old` (as stored) to `new`."""
    old_spec, new_spec = _spec(old), _spec(new)
    refused: list[str] = []
    for field in CEL_IMMUTABLE:
        if field in old_spec and field in new_spec and plain(old_spec[field]) != plain(new_spec[field]):
            refused.append(f"spec.{field}")
    old_jobs, new_jobs = _by_name(old_spec.get("replicatedJobs")), _by_name(new_spec.get("replicatedJobs"))
    for name, job in new_jobs.items():
        before = old_jobs.get(name)
        if before is None or "dependsOn" not in job or "dependsOn" not in before:
            continue
        if plain(job["dependsOn"]) != plain(before["dependsOn"]):
            refused.append(f"spec.replicatedJobs[{name}].dependsOn")
    if plain(new_spec.get("managedBy")) != plain(old_spec.get("managedBy")):
        refused.append("spec.managedBy")
    suspended = _suspended(old_spec) or _suspended(new_spec)
    allowed: list[str] = []
    masked: list[Any] = []
    for name, job in new_jobs.items():
        if suspended and name in old_jobs:
            job, changed = _masked(job, old_jobs[name])
            allowed.extend(changed)
        masked.append(plain(job))
    differing: list[str] = []
    if masked != [plain(job) for job in old_jobs.values()]:
        refused.append("spec.replicatedJobs")
        allowed = []
        before = {str(job.get("name")): job for job in (plain(j) for j in old_jobs.values())}
        differing = [str(job.get("name")) for job in masked if before.get(str(job.get("name"))) != job]
        differing += [name for name in old_jobs if name not in new_jobs]
    suspends = _suspended(new_spec) and not _suspended(old_spec)
    return JobSetUpdate(tuple(refused), tuple(allowed), suspends, tuple(differing))


def replaced_by(obj: dict[str, Any]) -> str:
    """Which GitOps engine deletes and creates this object rather than update it, per its own annotations:
    `argocd` on any change (sync-options Force=true with Replace=true: `kubectl delete/create`, Argo CD's
    docs/user-guide/sync-options.md), `flux` when the update is refused (`force: Enabled` recreates an object whose
    apply fails on an immutable field, Flux's docs/spec/v1/kustomizations.md "Force"); "" for neither."""
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    options = {part.strip() for part in str(annotations.get(ARGOCD_SYNC_OPTIONS, "")).split(",")}
    if {"Force=true", "Replace=true"} <= options:
        return "argocd"
    if str(annotations.get(FLUX_FORCE, "")).lower() == "enabled":
        return "flux"
    return ""


def replica_pods(obj: dict[str, Any] | None) -> int:
    """How many pods a JobSet runs: each replicatedJob's replicas times its Job's parallelism."""
    total = 0
    for job in _by_name(_spec(obj or {}).get("replicatedJobs")).values():
        spec = (job.get("template") or {}).get("spec") or {}
        replicas, parallelism = job.get("replicas", 1), spec.get("parallelism", 1)
        if isinstance(replicas, int) and isinstance(parallelism, int):
            total += replicas * parallelism
    return total
