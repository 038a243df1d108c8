"""Updates the API server would refuse: each MXJob of a compiled plan against the stored (old) MXJob of the same
namespace and name, through the CRD's transition rules (compiler.kubevalidate.crdrules), located in the new
side's source (nothing before Kubernetes 1.25, whose servers drop the rules). Called by `mxjob diff` (Git
revisions, two paths, --live)."""

from __future__ import annotations

from collections.abc import Iterable

from mxjob_gitops.compiler.base.diagnostics import Diagnostic
from mxjob_gitops.compiler.compile.documents import Manifest, Plan
from mxjob_gitops.compiler.compile.job import locate
from mxjob_gitops.compiler.render.job import CompiledJob
from mxjob_gitops.compiler.rules.kubevalidate.crdrules import check_update
from mxjob_gitops.compiler.spec import constants as c

JobKey = tuple[str, str]  # (namespace, name)


def job_key(obj: Manifest, default_namespace: str | None) -> JobKey | None:
    """Where an MXJob lives; None for any other object."""
    if obj.get("kind") != c.KIND or not str(obj.get("apiVersion", "")).startswith(f"{c.GROUP}/"):
        return None
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    assert isinstance(metadata, dict)
    return str(metadata.get("namespace") or default_namespace or ""), str(metadata.get("name") or "")


def stored_jobs(objects: Iterable[Manifest], default_namespace: str | None = None) -> dict[JobKey, Manifest]:
    """The MXJobs among `objects` (a cluster's, or an old revision's), by namespace and name."""
    found: dict[JobKey, Manifest] = {}
    for obj in objects:
        key = job_key(obj, default_namespace)
        if key is not None:
            found.setdefault(key, obj)
    return found


def old_side_jobs(plan: Plan) -> dict[JobKey, Manifest]:
    """The MXJobs an old plan (a Git revision, a file) holds: specs converted to v1 as the server stores them, and
    MXJob objects of a committed rendering as they are."""
    jobs = (item.conversion.data if isinstance(item, CompiledJob) else item for item in plan.items)
    return stored_jobs(jobs, plan.options.namespace)


def refused_updates(old: dict[JobKey, Manifest], new: Plan) -> list[Diagnostic]:
    """Every CRD rule an update from `old` to the new plan's MXJobs breaks, located in the new side's source."""
    found: list[Diagnostic] = []
    if not old:
        return found
    for item, (document, prefix) in zip(new.items, new.origins, strict=True):
        data, conversion = (item.conversion.data, item.conversion) if isinstance(item, CompiledJob) else (item, None)
        key = job_key(data, new.options.namespace)
        stored = old.get(key) if key is not None else None
        if stored is None:
            continue
        for problem in check_update(data, stored, new.options.kubernetes_version):
            found.append(locate(problem, document, prefix, conversion))
    return found
