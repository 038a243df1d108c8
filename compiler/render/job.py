"""Render one compiled job: its manifests, through the decorations its options select.

compiler.compile.job compiles a job into a CompiledJob (and a JobRendering around it); this module turns that
into manifests: all of them, or one pod alone for the reconciler.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, Severity
from mxjob_gitops.compiler.render.cluster import ClusterSpec, cluster_spec, service_name
from mxjob_gitops.compiler.render.decorations import JobContext
from mxjob_gitops.compiler.render.decorations.registry import DECORATIONS
from mxjob_gitops.compiler.render.expand import PodFactory, expand
from mxjob_gitops.compiler.render.gang.plan import Gang
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.spec.convert import Conversion
from mxjob_gitops.compiler.spec.model import MXJob, Replica

Manifest = dict[str, Any]


@dataclass(frozen=True, slots=True)
class CompiledJob:
    """A valid MXJob: its v1 conversion and, when defaults were applied, the typed job."""

    conversion: Conversion
    job: MXJob | None
    gang: Gang | None = None
    # What every pod of the job shares (the pods engine), built once by the compile: its judge and the rendering
    # that follows both read it. None: built where needed.
    cluster: ClusterSpec | None = field(default=None, compare=False, repr=False)


def render_job(
    compiled: CompiledJob, options: RenderOptions, expect_prefix: Callable[[str], None] | None = None
) -> Iterator[Manifest]:
    """The manifests of one compiled job, through the decorations its options select (expect_prefix: see expand)."""
    job = _defaulted(compiled)
    record = render_record(compiled, options)
    manifests = expand(
        job, include_job=options.include_job, render=record, expect_prefix=expect_prefix, spec=compiled.cluster
    )
    return decorate(manifests, JobContext(job, options, compiled.gang))


def render_record(compiled: CompiledJob, options: RenderOptions) -> dict[str, str]:
    """What shaped the pods, for the reconciler to render a deleted pod again exactly as Git holds it."""
    gang = compiled.gang
    return RenderOptions(
        target=options.target,
        gang_scheduler=gang.scheduler if gang else None,
        kubernetes_version=options.kubernetes_version if gang and gang.scheduler.backend.versioned else None,
        max_pods=options.max_pods,
    ).to_record()


def decorate(manifests: Iterable[Manifest], context: JobContext) -> Iterator[Manifest]:
    """Pass one job's manifests through every decoration that applies to it, in registry order."""
    for select in DECORATIONS:
        chosen = select(context)
        if chosen is not None:
            manifests = chosen(manifests)
    return iter(manifests)


def _defaulted(compiled: CompiledJob) -> MXJob:
    if compiled.job is None:
        raise ValueError("the job was compiled without defaults; it can only be converted")
    return compiled.job


def _pod_address(job: MXJob, name: str) -> tuple[Replica, int] | None:
    """The replica type and index of the pod called `name` (see cluster.service_name), if the job has it."""
    head, _, index = name.rpartition("-")
    if not index.isdigit() or str(int(index)) != index:
        return None
    for replica in job.replicas:
        if service_name(job.name, replica.role, 0)[:-2] == head and int(index) < replica.replicas:
            return replica, int(index)
    return None


@dataclass(frozen=True, slots=True)
class JobRendering:
    """What compile_job returns: every diagnostic and, when the job is valid, its manifests on demand."""

    options: RenderOptions
    diagnostics: tuple[Diagnostic, ...]
    compiled: CompiledJob | None
    # Pod factories by replica type, built on the first pod(name) for that type.
    _factories: dict[str, PodFactory] = field(default_factory=dict, compare=False, repr=False)
    _spec: list[ClusterSpec] = field(default_factory=list, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        return self.compiled is not None

    @property
    def job(self) -> MXJob | None:
        """The typed job with the operator's defaults applied (None when the job is invalid)."""
        return self.compiled.job if self.compiled is not None else None

    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]

    def pod(self, name: str) -> Manifest | None:
        """The pod `name` exactly as manifests() renders it, built alone (None when the job has no such pod)."""
        job = _defaulted(self._valid())
        found = _pod_address(job, name)
        if found is None:
            return None
        replica, index = found
        factory = self._factories.get(replica.type)
        if factory is None:
            if not self._spec:
                self._spec.append(self._valid().cluster or cluster_spec(job))
            factory = self._factories[replica.type] = PodFactory(job, replica, self._spec[0])
        return next(decorate([factory.pod(index)], JobContext(job, self.options, self._valid().gang)))

    def _valid(self) -> CompiledJob:
        if self.compiled is None:
            raise ValueError("refusing to render a job with errors")
        return self.compiled

    def manifests(self, expect_prefix: Callable[[str], None] | None = None) -> Iterator[Manifest]:
        """ConfigMap, PodGroup, Services, Pods, then the MXJob (unless options.include_job is False).

        Pass an Emitter's `expect_prefix` when that emitter writes these manifests: it then quotes the
        O(replicas)-long MX_CONFIG values without scanning each one whole.
        """
        return render_job(self._valid(), self.options, expect_prefix)
