"""Many documents in (the CLI, the KRM function): each object compiled by compiler.job, duplicates and
PriorityClass objects found across documents, diagnostics located, and a lazy, deterministic manifest stream out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mxjob_gitops.compiler import constants as c
from mxjob_gitops.compiler.cluster import service_name
from mxjob_gitops.compiler.convert import is_mxjob
from mxjob_gitops.compiler.diagnostics import Code, Diagnostic, JsonPath, Severity, error, has_errors
from mxjob_gitops.compiler.gang import Gang
from mxjob_gitops.compiler.job import CompiledJob, compile_object, locate, render_job
from mxjob_gitops.compiler.kubevalidate.pod import relaxed_service_names
from mxjob_gitops.compiler.legacy import legacy_kind_problem
from mxjob_gitops.compiler.limits import estimated_output_bytes, output_problem
from mxjob_gitops.compiler.model import MXJob
from mxjob_gitops.compiler.names import identity_problems
from mxjob_gitops.compiler.objectcheck import Identity as Identity
from mxjob_gitops.compiler.objectcheck import identity as identity  # re-exported: part of the public API
from mxjob_gitops.compiler.objectcheck import not_an_object, passing_identity
from mxjob_gitops.compiler.options import RenderOptions
from mxjob_gitops.compiler.source import SourceDocument, objects_of

if TYPE_CHECKING:
    from mxjob_gitops.compiler.jobcache import CompileCache

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
class Plan:
    """Everything the input asks for, validated; manifests are generated only when iterated."""

    options: RenderOptions
    items: list[CompiledJob | Manifest] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # Where each item came from: its document and the path of the object inside it (for `kind: List`).
    origins: list[tuple[SourceDocument, JsonPath]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)

    def manifests(self, expect_prefix: Callable[[str], None] | None = None) -> Iterator[Manifest]:
        """Every item's manifests; pass the writing Emitter's `expect_prefix` (see JobRendering.manifests)."""
        if not self.ok:
            raise ValueError("refusing to render a plan with errors")
        for item in self.items:
            yield from self.item_manifests(item, expect_prefix)

    def item_manifests(
        self, item: CompiledJob | Manifest, expect_prefix: Callable[[str], None] | None = None
    ) -> Iterator[Manifest]:
        """The manifests of one valid item, even when other items of the plan are invalid (for validate)."""
        return item_manifests(item, self.options, expect_prefix)

    def converted(self) -> Iterator[Manifest]:
        """The input with every MXJob converted to v1 (defaulted only if compiled with defaults)."""
        for item in self.items:
            yield item.conversion.data if isinstance(item, CompiledJob) else item


def item_manifests(
    item: CompiledJob | Manifest, options: RenderOptions, expect_prefix: Callable[[str], None] | None = None
) -> Iterator[Manifest]:
    """The manifests of one compiled item: a job's rendering, or the object itself."""
    if isinstance(item, CompiledJob) and options.engine == "jobset":
        from mxjob_gitops.compiler.jobset.render import render_compiled

        yield from render_compiled(item, options)
    elif isinstance(item, CompiledJob):
        yield from render_job(item, options, expect_prefix)
    else:
        yield item


def compile_documents(
    documents: Sequence[SourceDocument],
    options: RenderOptions = RenderOptions(),
    *,
    defaults: bool = True,
    cache: CompileCache | None = None,
) -> Plan:
    """Compile every object of every document (compile_job's core per MXJob); other objects pass through.

    Without `defaults` jobs are only converted and checked (for `mxjob convert`). A `cache` shared by two
    calls compiles an MXJob found in both once (`mxjob diff`; see compiler.jobcache).
    """
    plan = Plan(options)
    objects = [(document, prefix, obj) for document in documents for prefix, obj in objects_of(document.data)]
    facts = InputFacts()
    for document, _prefix, obj in objects:
        facts.learn(document, obj)
    checker = facts.checker(options, defaults, cache)
    if cache is not None:  # the jobs the Checker will compile, first spread over compiler.fanout's workers
        jobs = [obj for _document, _prefix, obj in objects if checker.may_compile(obj)]
        cache.compile_ahead(jobs, options, defaults, checker.priorities, checker.sources)
    for document, prefix, obj in objects:
        item = checker.add(document, prefix, obj)
        if item is not None:
            plan.items.append(item)
            plan.origins.append((document, prefix))
    plan.diagnostics = checker.all_diagnostics()
    return plan


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
        check of `add` before, and `estimates` the output estimates of jobs compiled before, both shared by the
        Checkers of the two sides of a diff (compiler.jobcache)."""
        self.options, self.defaults, self.rendered = options, defaults, rendered
        self.compile = compile or compile_object
        self.passed, self.estimates = passed, estimates
        self.relaxed = relaxed_service_names(options.kubernetes_version)
        self.priorities, self.sources = priorities, sources
        self.diagnostics: list[Diagnostic] = []
        self.seen: dict[Identity, tuple[SourceDocument, JsonPath]] = {}
        self.estimate = 0
        self.too_big: Diagnostic | None = None

    def all_diagnostics(self) -> list[Diagnostic]:
        return [*self.diagnostics, *([self.too_big] if self.too_big is not None else [])]

    def add(self, document: SourceDocument, prefix: JsonPath, obj: Any) -> CompiledJob | Manifest | None:
        """The valid item for one object (None when it is invalid); its diagnostics go to self.diagnostics.

        `document` is remembered as where the object's identities were first seen: it need not hold data."""
        # examine()'s two shortcuts, taken here without its record: most objects of a rendering pass by them.
        known = self.passed.get(id(obj)) if self.passed is not None else None
        if known is not None and known[0] is obj and known[1] == self.relaxed:
            self._produced(known[2], document, prefix)
            plain: Manifest = known[0]
            return plain
        passing = passing_identity(obj, self.relaxed)
        if passing is not None:
            plain = obj
            if self.passed is not None:
                self.passed[id(plain)] = (plain, self.relaxed, passing)
            self._produced(passing, document, prefix)
            return plain
        return self.account(document, prefix, self.examine(document, prefix, obj))

    def examine(self, document: SourceDocument, prefix: JsonPath, obj: Any) -> Examined:
        """What checking and compiling one object finds on its own, before the checks across objects: it reads
        nothing of the objects added before (so compiler.stream may examine parts of an input in other
        processes) and changes nothing but the `compile` and `passed` memos."""
        known = self.passed.get(id(obj)) if self.passed is not None else None
        if known is not None and known[0] is obj and known[1] == self.relaxed:
            return Examined(obj, [], [known[2]])
        passing = passing_identity(obj, self.relaxed)
        if passing is not None:
            plain: Manifest = obj
            if self.passed is not None:
                self.passed[id(plain)] = (plain, self.relaxed, passing)
            return Examined(plain, [], [passing])
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
        if not job_spec or identity(obj)[2:] in self.rendered:
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

    def account(self, document: SourceDocument, prefix: JsonPath, examined: Examined) -> CompiledJob | Manifest | None:
        """Take in what examine() found of the next object of the input, with the checks across objects (a second
        producer of an object, the output-size limit); the item, or None when the object is invalid."""
        self.diagnostics.extend(examined.diagnostics)
        if examined.estimate is not None:
            self._estimate(examined.estimate, document, prefix)
        for ident in examined.identities:
            self._produced(ident, document, prefix)
        return examined.item

    def may_compile(self, obj: Any) -> bool:
        """Whether `add` may compile the object: an MXJob, unless the input holds its rendering (its ConfigMap)."""
        return isinstance(obj, dict) and is_mxjob(obj) and identity(obj)[2:] not in self.rendered

    def _produced(self, ident: Identity, document: SourceDocument, prefix: JsonPath) -> None:
        """Remember where an identity was first produced; a second producer is an error (MXJ210)."""
        first = self.seen.setdefault(ident, (document, prefix))
        if first[0] is not document or first[1] != prefix:
            self._duplicate(ident, first, document, prefix)

    def _duplicate(
        self, ident: Identity, first: tuple[SourceDocument, JsonPath], document: SourceDocument, prefix: JsonPath
    ) -> None:
        where = first[0].locate(first[1])  # located only now: positions cost a second parse
        namespace = ident[2] + "/" if ident[2] else ""
        message = f"{ident[1]} {namespace}{ident[3]} is also produced by {where}"
        problem = error(Code.DUPLICATE_OBJECT, message, (), "rename one of the jobs or objects")
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


@dataclass(slots=True)
class InputFacts:
    """What compiling an object learns from the other objects of the input: the PriorityClass values (with where
    each was found) and the jobs whose ConfigMap is present (the input is a rendering, not a spec, for those)."""

    priorities: dict[str, int] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    rendered: set[tuple[str, str]] = field(default_factory=set)

    def learn(self, document: SourceDocument, obj: Any) -> None:
        """Take in one object of the document (a later PriorityClass of the same name wins)."""
        kind = obj.get("kind") if isinstance(obj, dict) else None
        if kind != "PriorityClass" and kind != "ConfigMap":
            return
        metadata = obj.get("metadata")
        if not isinstance(metadata, dict):
            return
        if kind == "PriorityClass":
            name, value = metadata.get("name"), obj.get("value")
            if isinstance(name, str) and isinstance(value, int):
                self.priorities[name] = value
                self.sources[name] = f"PriorityClass object at {document.file}, document {document.index + 1}"
            return
        labels = metadata.get("labels")
        if isinstance(labels, dict) and c.LABEL_JOB_NAME in labels:
            self.rendered.add((identity(obj)[2], str(labels[c.LABEL_JOB_NAME])))

    def absorb(self, other: InputFacts) -> None:
        """Take in what another part of the input taught (read after this one)."""
        self.priorities.update(other.priorities)
        self.sources.update(other.sources)
        self.rendered |= other.rendered

    def checker(self, options: RenderOptions, defaults: bool = True, cache: CompileCache | None = None) -> Checker:
        """A Checker for the objects of this input (a `cache` shared with another input's: compiler.jobcache)."""
        priorities, sources = self.priority_classes(options)
        rendered = self.rendered if options.keep_rendered else set()
        if cache is None:
            return Checker(options, defaults, priorities, sources, rendered)
        return Checker(options, defaults, priorities, sources, rendered, cache.compile, cache.passed, cache.estimates)

    def priority_classes(self, options: RenderOptions) -> tuple[dict[str, int], dict[str, str]]:
        """The PriorityClass values known offline: the input's, overridden by --priority-class."""
        values, sources = dict(self.priorities), dict(self.sources)
        for name, value in options.priority_classes:
            values[name] = value
            sources[name] = "--priority-class"
        return values, sources


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


def sort_diagnostics(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    rank = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}

    def key(d: Diagnostic) -> tuple[str, int, int, int, str]:
        loc = d.location
        return (
            loc.file if loc else "",
            loc.line if loc else 0,
            loc.column if loc else 0,
            rank[d.severity],
            d.code.value,
        )

    return sorted(diagnostics, key=key)
