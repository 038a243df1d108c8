"""Many documents in (the CLI, the KRM function): each object compiled by compiler.job, duplicates and
PriorityClass objects found across documents (compiler.checker), diagnostics located, and a lazy, deterministic
manifest stream out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, JsonPath, Severity, has_errors
from mxjob_gitops.compiler.compile.checker import Checker
from mxjob_gitops.compiler.compile.checker import Manifest as Manifest
from mxjob_gitops.compiler.read.source import SourceDocument, objects_of
from mxjob_gitops.compiler.render.job import CompiledJob, render_job
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.rules.objectcheck import Identity as Identity
from mxjob_gitops.compiler.rules.objectcheck import identity as identity  # re-exported: part of the public API
from mxjob_gitops.compiler.spec import constants as c

if TYPE_CHECKING:
    from mxjob_gitops.compiler.compile.jobcache import CompileCache


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
        from mxjob_gitops.compiler.render.jobset.render import render_compiled

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
