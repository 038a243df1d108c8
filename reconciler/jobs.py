"""From a live MXJob to what the reconciler works with: its JobView, and its pods rendered as Git holds them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from compiler.gang import GangScheduler
from compiler.pipeline import CompiledJob, RenderOptions, compile_documents
from compiler.source import SourceDocument
from compiler.targets import Target
from reconciler.state import JobView, ReplicaPolicy


class JobError(ValueError):
    """The live MXJob is not valid: the reconciler leaves it alone and says why (an Event)."""


@dataclass(frozen=True, slots=True)
class LiveJob:
    obj: dict[str, Any]
    view: JobView


def _compile(obj: dict[str, Any], options: RenderOptions) -> Any:
    metadata = obj.get("metadata") or {}
    label = f"cluster:{metadata.get('namespace', '')}/{metadata.get('name', '')}"
    clean = {k: v for k, v in obj.items() if k != "status"}
    plan = compile_documents([SourceDocument(clean, label, 0)], options)
    if not plan.ok or not plan.items or not isinstance(plan.items[0], CompiledJob):
        problems = "; ".join(d.render() for d in plan.diagnostics if d.severity.value == "error")
        raise JobError(problems or "not an MXJob")
    return plan


_views: dict[tuple[str, str, str], LiveJob] = {}


def live_job(obj: dict[str, Any]) -> LiveJob:
    """Compiled once per spec: status writes change the object, not what the decision needs from it."""
    metadata = obj.get("metadata") or {}
    key = (str(metadata.get("namespace") or ""), str(metadata.get("name")),
           json.dumps([obj.get("spec"), metadata.get("annotations")], sort_keys=True, default=str))
    cached = _views.get(key)
    if cached is None:
        if len(_views) > 10_000:
            _views.clear()
        cached = _views[key] = _live_job(obj)
    return LiveJob(obj, cached.view)


def _live_job(obj: dict[str, Any]) -> LiveJob:
    plan = _compile(obj, RenderOptions(include_job=False))
    job = plan.items[0].job
    assert job is not None
    policy = job.run_policy
    annotations = {str(k): str(v) for k, v in ((obj.get("metadata") or {}).get("annotations") or {}).items()}
    view = JobView(job.namespace or "", job.name, job.job_mode,
                   {r.type: ReplicaPolicy(r.replicas, r.restart_policy) for r in job.replicas},
                   policy.clean_pod_policy, policy.backoff_limit, policy.active_deadline_seconds, policy.suspend,
                   annotations)
    return LiveJob(obj, view)


def render_options(config_map: dict[str, Any] | None, namespace: str) -> RenderOptions:
    """The options recorded in the job's ConfigMap at render time (plain when there is none)."""
    render: dict[str, Any] = {}
    if config_map is not None:
        try:
            render = json.loads((config_map.get("data") or {}).get("job.json", "{}")).get("render") or {}
        except (ValueError, AttributeError):
            render = {}
    gang = render.get("gangScheduler")
    return RenderOptions(namespace=namespace or None, include_job=False,
                         target=Target(render.get("target", "plain")) if render.get("target") in
                         {t.value for t in Target} else Target.PLAIN,
                         gang_scheduler=GangScheduler.parse(gang) if gang else None)


def rendered_pod(obj: dict[str, Any], name: str, options: RenderOptions) -> dict[str, Any] | None:
    """The pod `name` exactly as rendering the live MXJob with the recorded options produces it."""
    plan = _compile(obj, options)
    for manifest in plan.manifests():
        if manifest["kind"] == "Pod" and manifest["metadata"]["name"] == name:
            return dict(manifest)
    return None

