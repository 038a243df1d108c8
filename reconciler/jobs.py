"""From a live MXJob to what the reconciler works with: its JobView (bounded in size), and its rendering.

The compiler is called in one place, `compile_live` (the compiler's public compile_job); everything else
works with what it returns. Both the view and the rendering are cached per spec version in a `JobCache`
the Reconciler owns (no process-wide state), bounded in entries.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from mxjob_gitops.compiler import JobRendering, MXJob, RenderOptions, compile_job

# The largest job the reconciler acts on by default is the compiler's --max-pods default (one constant).
from mxjob_gitops.compiler.base.limits import DEFAULT_MAX_PODS as DEFAULT_MAX_PODS
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.exitcodes import OVERRIDE_ANNOTATION
from mxjob_gitops.reconciler.state import JobView, ReplicaPolicy
from mxjob_gitops.reconciler.vocabulary import CleanPodPolicy, RestartPolicy


class JobError(ValueError):
    """The live MXJob (or its ConfigMap) is not valid: the reconciler leaves it alone and says why."""


class TooLarge(JobError):
    """More pods than the configured bound: refused before anything of its size is built."""


@dataclass(frozen=True, slots=True)
class Bounds:
    max_pods: int = DEFAULT_MAX_PODS
    max_replicas: int = DEFAULT_MAX_PODS  # per replica type


def check_size(obj: Mapping[str, Any], bounds: Bounds) -> None:
    """Count replicas in the raw spec, before compiling: a 2,000,000-replica job costs nothing here."""
    spec = obj.get("spec")
    specs = (spec.get("mxReplicaSpecs") if isinstance(spec, Mapping) else None) or {}
    if not isinstance(specs, Mapping):
        return  # not ours to judge: the compiler reports it
    total = 0
    for replica_type, spec in specs.items():
        count = spec.get("replicas", 1) if isinstance(spec, Mapping) else 1
        count = (
            int(count)
            if isinstance(count, int | float) and not isinstance(count, bool) and count == count and abs(count) < 1e18
            else 1
        )
        if count > bounds.max_replicas:
            raise TooLarge(
                f"{replica_type} has {count:,} replicas; this reconciler acts on at most "
                f"{bounds.max_replicas:,} per replica type (--max-pods)"
            )
        total += max(count, 0)
    if total > bounds.max_pods:
        raise TooLarge(f"the job has {total:,} pods; this reconciler acts on at most {bounds.max_pods:,} (--max-pods)")


def compile_live(obj: Mapping[str, Any], options: RenderOptions) -> JobRendering:
    """The one call into the compiler: a live MXJob (status ignored) to its rendering; JobError when invalid."""
    metadata = obj.get("metadata") or {}
    rendering = compile_job(
        {k: v for k, v in obj.items() if k != "status"},
        options,
        origin=f"cluster:{metadata.get('namespace', '')}/{metadata.get('name', '')}",
    )
    if not rendering.ok:
        raise JobError("; ".join(d.render() for d in rendering.errors()) or "not an MXJob")
    return rendering


def job_view(obj: Mapping[str, Any], job: MXJob) -> JobView:
    policy = job.run_policy
    # Only the annotations decide() reads: a kubectl/Argo CD last-applied-configuration repeats the whole spec.
    annotations = {
        str(k): str(v)
        for k, v in ((obj.get("metadata") or {}).get("annotations") or {}).items()
        if k == OVERRIDE_ANNOTATION
    }
    return JobView(
        job.namespace or "",
        job.name,
        job.job_mode,
        {r.type: ReplicaPolicy(r.replicas, RestartPolicy(r.restart_policy)) for r in job.replicas},
        CleanPodPolicy(policy.clean_pod_policy),
        policy.backoff_limit,
        policy.active_deadline_seconds,
        policy.suspend,
        annotations,
        generation_of(obj),
    )


def generation_of(obj: Mapping[str, Any]) -> int | None:
    """metadata.generation (the server's, an integer from 1), or None where there is none."""
    generation = (obj.get("metadata") or {}).get("generation")
    return generation if isinstance(generation, int) and not isinstance(generation, bool) else None


def render_options(config_map: Mapping[str, Any] | None, namespace: str) -> RenderOptions:
    """The options recorded in the job's ConfigMap at render time (plain when there is none); a record we
    cannot read is an error, never a silent fallback (the pod would differ from Git)."""
    base = RenderOptions(namespace=namespace or None, include_job=False)
    try:
        options = RenderOptions.from_config_map(config_map, base) if config_map is not None else base
    except ValueError as exc:
        raise JobError(f"ConfigMap {c.CONFIG_JOB_KEY}: {exc}") from None
    # The job's own namespace, whatever the record says: a recreated pod never lands in another namespace.
    return dataclasses.replace(options, namespace=namespace or None)


def spec_version(obj: Mapping[str, Any]) -> str:
    """What the view depends on: uid, spec, annotations and generation (status writes change none of them; a spec
    changed and changed back is the same spec at a later generation, which the view must report)."""
    metadata = obj.get("metadata") or {}
    parts = [metadata.get("uid"), obj.get("spec"), metadata.get("annotations"), metadata.get("generation")]
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class JobCache:
    """Views per (namespace, name, spec version) and renderings per (…, ConfigMap version); least recently used
    out. A view is small (replica counts and policies), so there is room for one per job of a large cluster:
    with fewer, every reconcile of a cluster with more jobs than entries would compile its job again. A
    rendering holds every manifest of its job: it is built only to recreate a pod, and few are kept."""

    def __init__(self, bounds: Bounds = Bounds(), entries: int = 256, views: int = 65_536) -> None:
        self.bounds = bounds
        self.entries = entries
        self.view_entries = views
        self._views: OrderedDict[tuple[str, ...], JobView] = OrderedDict()
        self._renderings: OrderedDict[tuple[str, ...], JobRendering] = OrderedDict()

    def view(self, obj: Mapping[str, Any]) -> JobView:
        metadata = obj.get("metadata") or {}
        key = (str(metadata.get("namespace") or ""), str(metadata.get("name")), spec_version(obj))
        found = _lookup(self._views, key)
        if found is None:
            check_size(obj, self.bounds)
            compiled = compile_live(obj, RenderOptions(include_job=False, max_pods=self.bounds.max_pods))
            assert compiled.job is not None
            found = _store(self._views, key, job_view(obj, compiled.job), self.view_entries)
        return found

    def rendering(self, obj: Mapping[str, Any], config_map: Mapping[str, Any] | None) -> JobRendering:
        metadata = obj.get("metadata") or {}
        namespace = str(metadata.get("namespace") or "")
        version = str(((config_map or {}).get("metadata") or {}).get("resourceVersion") or "")
        key = (namespace, str(metadata.get("name")), spec_version(obj), version)
        found = _lookup(self._renderings, key)
        if found is None:
            # check_size applied this reconciler's bound; the compiler's own pod limit must not differ from it
            options = dataclasses.replace(render_options(config_map, namespace), max_pods=self.bounds.max_pods)
            check_size(obj, self.bounds)
            found = _store(self._renderings, key, compile_live(obj, options), self.entries)
        return found


def config_map_name(obj: Mapping[str, Any]) -> str:
    return f"{(obj.get('metadata') or {}).get('name')}{c.CONFIGMAP_SUFFIX}"


K = TypeVar("K")
V = TypeVar("V")


def _lookup(cache: OrderedDict[K, V], key: K) -> V | None:
    found = cache.get(key)
    if found is not None:
        cache.move_to_end(key)
    return found


def _store(cache: OrderedDict[K, V], key: K, value: V, entries: int) -> V:
    cache[key] = value
    while len(cache) > entries:
        cache.popitem(last=False)
    return value
