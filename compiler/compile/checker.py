"""The checks of one object after another: each object checked and compiled on its own (Checker.examine: is
it an object, are its names valid, does a job compile), then what holds across the objects of an input
(Checker.account: no object produced twice, the output within its size limit). compiler.engine examines the
objects of an input where the run's runner puts them and accounts for them here, in input order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, JsonPath, Severity, error
from mxjob_gitops.compiler.base.exact import exact
from mxjob_gitops.compiler.base.limits import estimated_output_bytes, output_problem
from mxjob_gitops.compiler.compile.job import compile_object, locate
from mxjob_gitops.compiler.read.source import SourceDocument
from mxjob_gitops.compiler.render.cluster import service_name
from mxjob_gitops.compiler.render.gang.plan import Gang
from mxjob_gitops.compiler.render.job import CompiledJob
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.rules.kubevalidate.pod import relaxed_service_names
from mxjob_gitops.compiler.rules.names import identity_problems
from mxjob_gitops.compiler.rules.objectcheck import Identity, identity, not_an_object, passing_identity
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.convert import is_mxjob
from mxjob_gitops.compiler.spec.legacy import legacy_kind_problem
from mxjob_gitops.compiler.spec.model import MXJob

Manifest = dict[str, Any]
CompileObject = Callable[
    [Manifest, RenderOptions, bool, Mapping[str, int], Mapping[str, str]], tuple[CompiledJob | None, list[Diagnostic]]
]
# id(object) -> (the object, kept alive so that its id stays its own; the relaxed Service name rule it passed
# under; its identity): see Checker.
PassedObjects = dict[int, tuple[Manifest, bool, Identity]]
# id(job) -> (the typed job, kept alive; job_output_estimate of it): see Checker.
JobEstimates = dict[int, tuple[MXJob, int]]


@dataclass(slots=True)
class Examined:
    """What Checker.examine found of one object: the valid item (None when invalid), its own diagnostics, the
    identities of the objects it renders into, and a job's output-size estimate (None for other objects)."""

    item: CompiledJob | Manifest | None
    diagnostics: list[Diagnostic]
    identities: list[Identity] = field(default_factory=list)
    estimate: int | None = None


class Checker:
    """Compiles objects one by one and keeps what checks across them need: the identity of every object
    produced (for "also produced by") and the running output estimate (for the output-size limit)."""

    def __init__(
        self,
        options: RenderOptions,
        defaults: bool,
        priorities: dict[str, int],
        sources: dict[str, str],
        rendered: set[tuple[str, str]],
        compile: CompileObject | None = None,
        passed: PassedObjects | None = None,
        estimates: JobEstimates | None = None,
    ) -> None:
        """`compile`: compile_object, or a memo of it; `passed`: the objects other than MXJobs that passed every
        check of `examine` before, and `estimates` the output estimates of jobs compiled before, both shared by the
        Checkers of the two sides of a diff (compiler.jobcache)."""
        self.options, self.defaults, self.rendered = options, defaults, rendered
        self.compile = compile or compile_object
        self.passed, self.estimates = passed, estimates
        self.relaxed = relaxed_service_names(options.kubernetes_version)
        self.shortcut = not exact("identity")
        self.priorities, self.sources = priorities, sources
        self.diagnostics: list[Diagnostic] = []
        self.seen: dict[Identity, tuple[SourceDocument, JsonPath]] = {}
        self.estimate = 0
        self.too_big: Diagnostic | None = None

    def all_diagnostics(self) -> list[Diagnostic]:
        return [*self.diagnostics, *([self.too_big] if self.too_big is not None else [])]

    def passed_before(self, obj: Any) -> Identity | None:
        """The identity of an object other than an MXJob known to pass every check of examine() (the `passed` memo,
        or objectcheck.passing_identity, remembered in the memo), else None: examine_in_full() then checks it."""
        known = self.passed.get(id(obj)) if self.passed is not None else None
        if known is not None and known[0] is obj and known[1] == self.relaxed:
            return known[2]
        passing = passing_identity(obj, self.relaxed) if self.shortcut else None
        if passing is not None and self.passed is not None:
            self.passed[id(obj)] = (obj, self.relaxed, passing)
        return passing

    def examine(self, document: SourceDocument, prefix: JsonPath, obj: Any) -> Examined:
        """What checking and compiling one object finds on its own, before the checks across objects: it reads
        nothing of the objects accounted for before (so compiler.engine may examine parts of an input in other
        processes) and changes nothing but the `compile` and `passed` memos."""
        passed = self.passed_before(obj)
        if passed is not None:
            return Examined(obj, [], [passed])
        return self.examine_in_full(document, prefix, obj)

    def examine_in_full(self, document: SourceDocument, prefix: JsonPath, obj: Any) -> Examined:
        """examine() of an object passed_before() does not know."""
        found: list[Diagnostic] = []
        job_spec = isinstance(obj, dict) and is_mxjob(obj)
        problem, at = ("", ()) if job_spec else not_an_object(obj)
        look_alike = None if problem or job_spec else legacy_kind_problem(obj)  # None for an MXJob anyway
        if look_alike is not None:
            found.append(locate(look_alike, document, prefix, None))
            if look_alike.severity is Severity.ERROR:
                return Examined(None, found)
        if problem:
            hint = "every document, and every item of a List, needs apiVersion, kind and metadata.name"
            found.append(locate(error(Code.NOT_AN_OBJECT, problem, at, hint), document, prefix, None))
            return Examined(None, found)
        bad_identity = [locate(d, document, prefix, None) for d in identity_problems(obj, self.relaxed)]
        if bad_identity:
            return Examined(None, [*found, *bad_identity])
        if not self.may_compile(obj):
            ident = identity(obj)
            if self.passed is not None and look_alike is None and not job_spec:
                self.passed[id(obj)] = (obj, self.relaxed, ident)
            return Examined(obj, found, [ident])
        compiled, problems = self.compile(obj, self.options, self.defaults, self.priorities, self.sources)
        conversion = compiled.conversion if compiled else None
        found.extend(locate(d, document, prefix, conversion) for d in problems)
        if compiled is None:
            return Examined(None, found)
        job = compiled.job
        if job is None:
            return Examined(compiled, found, [identity(compiled.conversion.data)])
        identities = list(job_identities(job, self.options, compiled.gang))
        return Examined(compiled, found, identities, self._job_estimate(job))

    def account(
        self,
        document: SourceDocument,
        prefix: JsonPath,
        diagnostics: Sequence[Diagnostic],
        identities: Sequence[Identity],
        estimate: int | None,
    ) -> None:
        """Take in what examine() found of the next object of the input (its diagnostics, identities and estimate),
        with the checks across objects: a second producer of an object, the output-size limit."""
        if diagnostics:
            self.diagnostics.extend(diagnostics)
        if estimate is not None:
            self._estimate(estimate, document, prefix)
        self._produced(identities, document, prefix)

    def may_compile(self, obj: Any) -> bool:
        """Whether `examine` may compile the object: an MXJob, unless the input holds its rendering (its ConfigMap)."""
        return isinstance(obj, dict) and is_mxjob(obj) and identity(obj)[2:] not in self.rendered

    def _produced(self, identities: Iterable[Identity], document: SourceDocument, prefix: JsonPath) -> None:
        """Remember where each identity was first produced; what an object produces that another object produced
        before is one error (MXJ210) per earlier producer, at the object's metadata.name: the same job in two files
        is one line naming both, not one per Pod and Service."""
        here = (document, prefix)
        clashes: dict[tuple[int, JsonPath], list[Identity]] = {}
        earlier: dict[tuple[int, JsonPath], tuple[SourceDocument, JsonPath]] = {}
        for ident in identities:
            first = self.seen.setdefault(ident, here)
            if first is not here and (first[0] is not document or first[1] != prefix):
                key = (id(first[0]), first[1])
                clashes.setdefault(key, []).append(ident)
                earlier[key] = first
        for key, idents in clashes.items():
            self._duplicate(idents, earlier[key], document, prefix)

    def _duplicate(
        self,
        idents: list[Identity],
        first: tuple[SourceDocument, JsonPath],
        document: SourceDocument,
        prefix: JsonPath,
    ) -> None:
        where = first[0].locate((*first[1], "metadata", "name"))  # located only now: positions cost a second parse
        jobs = [ident for ident in idents if ident[1] == c.KIND]
        if len(idents) == 1:
            message = f"{_label(idents[0])} is also produced by {where}"
        elif jobs:
            message = (
                f"{_label(jobs[0])} is also defined at {where}: the same job twice would render each of its "
                f"{len(idents)} objects twice"
            )
        else:
            shown = ", ".join(_label(ident) for ident in idents[:2])
            message = f"the {len(idents)} objects it renders ({shown}, ...) are also produced by {where}"
        problem = error(Code.DUPLICATE_OBJECT, message, ("metadata", "name"), "rename one of them, or remove the copy")
        self.diagnostics.append(locate(problem, document, prefix, None))

    def _job_estimate(self, job: MXJob) -> int:
        """job_output_estimate(job), remembered in `estimates` when the Checker has them."""
        known = self.estimates.get(id(job)) if self.estimates is not None else None
        if known is not None and known[0] is job:
            return known[1]
        size = job_output_estimate(job)
        if self.estimates is not None:
            self.estimates[id(job)] = (job, size)
        return size

    def _estimate(self, size: int, document: SourceDocument, prefix: JsonPath) -> None:
        """The output-size limit (compiler.limits), located at the job whose rendering would cross it."""
        self.estimate += size
        problem = output_problem(self.estimate, self.options.max_pods)
        if problem is not None and self.too_big is None:
            self.too_big = locate(problem, document, prefix, None)


def _label(ident: Identity) -> str:
    """`Kind namespace/name` (or `Kind name`) of an identity, as kubectl names objects."""
    namespace = ident[2] + "/" if ident[2] else ""
    return f"{ident[1]} {namespace}{ident[3]}"


def job_output_estimate(job: MXJob) -> int:
    """What rendering one job adds to the output-size estimate (compiler.limits)."""
    return estimated_output_bytes(
        [(job.name, sum(r.replicas for r in job.replicas), [r.template for r in job.replicas])]
    )


def job_identities(job: MXJob, options: RenderOptions, gang: Gang | None) -> Iterator[Identity]:
    ns = job.namespace or ""
    if options.engine == "jobset":
        yield ("jobset.x-k8s.io/v1alpha2", "JobSet", ns, job.name)
        return
    yield ("v1", "ConfigMap", ns, f"{job.name}{c.CONFIGMAP_SUFFIX}")
    if gang is not None and gang.pod_group is not None and not job.run_policy.suspend:
        yield identity(gang.pod_group)
    if not job.run_policy.suspend:
        for replica in job.replicas:
            for index in range(replica.replicas):
                name = service_name(job.name, replica.role, index)
                yield ("v1", "Service", ns, name)
                yield ("v1", "Pod", ns, name)
    if options.include_job:
        yield (c.API_VERSION, c.KIND, ns, job.name)
