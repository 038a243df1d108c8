"""What the reconciler takes from objects a tenant writes, and on what it lets itself act (called by the runner).

A tenant controls its MXJobs (spec, annotations, and with `mxjobs/status` rights the status too) and the labels
and annotations of its pods. Nothing of that may steer a write out of the job's namespace, or crash a decision:
- `owned_pods`: the pods the reconciler acts on are in the job's namespace and are not controlled by another
  object (a pod whose controller owner reference names anything but this MXJob, by uid, is left alone);
- `clean_status`: the job's previous status, as the decision reads it, with every field of the wrong type or out
  of bounds dropped (a count is an int32, a record a mapping, ownership only the GitOps keys, as strings);
- `is_name` / `is_namespace`: DNS-1123 names (k8s.io/apimachinery pkg/util/validation IsDNS1123Subdomain and
  IsDNS1123Label) — a name taken from a label or annotation reaches a request path only after this check.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.reconciler.state import ARGO_TRACKING, FLUX_LABELS

INT32_MAX = 2**31 - 1
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
OWNERSHIP_KEYS = frozenset((*FLUX_LABELS, ARGO_TRACKING))
# An ownership value is a label value (63) or the tracking id (application, group/kind, namespace/name).
MAX_OWNERSHIP_VALUE = 1024


def is_name(value: object) -> bool:
    """A DNS-1123 subdomain: what an object name (pod, Application, Kustomization) must be."""
    return isinstance(value, str) and len(value) <= 253 and _SUBDOMAIN.fullmatch(value) is not None


def is_namespace(value: object) -> bool:
    """A DNS-1123 label: what a namespace name must be."""
    return isinstance(value, str) and len(value) <= 63 and _LABEL.fullmatch(value) is not None


def owned_pods(job: Mapping[str, Any], pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pods of `pods` the reconciler may act on for `job` (see the module docstring)."""
    metadata = _mapping(job.get("metadata"))
    namespace, name, uid = metadata.get("namespace"), metadata.get("name"), metadata.get("uid")
    return [pod for pod in pods if _is_jobs(_mapping(pod.get("metadata")), namespace, name, uid)]


def _is_jobs(metadata: Mapping[str, Any], namespace: Any, name: Any, uid: Any) -> bool:
    if metadata.get("namespace", namespace) != namespace or not is_name(metadata.get("name")):
        return False
    if _mapping(metadata.get("labels")).get(c.LABEL_JOB_NAME) != name:
        return False
    references = metadata.get("ownerReferences") or []
    if not isinstance(references, list):
        return False
    for reference in references:
        reference = _mapping(reference)
        if reference.get("controller") is True and not (
            reference.get("kind") == c.KIND and reference.get("uid") == uid
        ):
            return False  # another controller's pod (a ReplicaSet's, a Job's), labelled like ours
    return True


def clean_status(status: object) -> dict[str, Any]:
    """The previous status with only well-formed parts kept (see the module docstring)."""
    status = _mapping(status)
    kept: dict[str, Any] = {k: v for k, v in status.items() if k in ("startTime", "completionTime") and _text(v)}
    conditions = status.get("conditions")
    if isinstance(conditions, list):
        kept["conditions"] = [
            {k: v for k, v in x.items() if isinstance(v, str)} for x in conditions if isinstance(x, Mapping)
        ]
    restarts = {str(k): _restart_record(v) for k, v in _mapping(status.get("podRestarts")).items() if is_name(k)}
    if restarts:
        kept["podRestarts"] = {k: v for k, v in restarts.items() if v is not None}
    return kept


def _restart_record(record: object) -> dict[str, Any] | None:
    if not isinstance(record, Mapping):
        return None
    count = record.get("count", 0)
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= INT32_MAX:
        return None
    kept: dict[str, Any] = {"type": str(record.get("type", ""))[:63], "count": count}
    if _text(record.get("uid")):
        kept["uid"] = record["uid"]
    if record.get("pending") is True:
        kept["pending"] = True
    keep = ownership(record.get("keep"))
    if keep:
        kept["keep"] = keep
    return kept


def ownership(keep: object) -> dict[str, Any]:
    """Only the GitOps ownership keys, with string values of bounded size: what a recreated pod carries over."""
    parts: dict[str, Any] = {}
    for part in ("labels", "annotations"):
        values = {
            k: v
            for k, v in _mapping(_mapping(keep).get(part)).items()
            if k in OWNERSHIP_KEYS and isinstance(v, str) and len(v) <= MAX_OWNERSHIP_VALUE
        }
        if values:
            parts[part] = values
    return parts


def _text(value: object) -> bool:
    return isinstance(value, str) and len(value) <= 253


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
