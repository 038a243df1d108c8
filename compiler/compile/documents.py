"""Many documents in (the CLI, the KRM function): each object compiled by compiler.job, duplicates and
PriorityClass objects found across documents (compiler.checker), diagnostics located, and a lazy, deterministic
manifest stream out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, JsonPath, Severity, has_errors
from mxjob_gitops.compiler.base.run import Run
from mxjob_gitops.compiler.compile.checker import Manifest as Manifest
from mxjob_gitops.compiler.compile.engine import Engine, Settings
from mxjob_gitops.compiler.compile.engine import InputFacts as InputFacts
from mxjob_gitops.compiler.read.source import SourceDocument, objects_of
from mxjob_gitops.compiler.render.job import CompiledJob, render_job
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.rules.objectcheck import Identity as Identity
from mxjob_gitops.compiler.rules.objectcheck import identity as identity  # re-exported: part of the public API

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
    run: Run | None = None,
) -> Plan:
    """Compile every object of every document (compile_job's core per MXJob); other objects pass through.

    Without `defaults` jobs are only converted and checked (for `mxjob convert`). A `cache` shared by two
    calls compiles an MXJob found in both once (`mxjob diff`; see compiler.jobcache). The documents are run
    through compiler.engine in this process, every valid item kept, even of an invalid input. `run`: whose
    workers compile the jobs ahead for the `cache` (None: the installed run, base.run).
    """
    facts = InputFacts()
    objects = [(document, obj) for document in documents for _prefix, obj in objects_of(document.data)]
    for document, obj in objects:
        facts.learn(document, obj)
    settings = Settings(facts, options, defaults, cache)
    if cache is not None:  # the jobs the engine will compile, first spread over compiler.fanout's workers
        checker = settings.checker()
        jobs = [obj for _document, obj in objects if checker.may_compile(obj)]
        cache.compile_ahead(jobs, options, defaults, checker.priorities, checker.sources, run)
    del objects
    engine: Engine[CompiledJob | Manifest] = Engine(
        [(document, None) for document in documents], [0] * len(documents), settings, run
    )
    plan = Plan(options)
    items, origins = plan.items, plan.origins
    for document, prefix, item, _output in engine.run(None, keep_going=True):
        if item is not None:  # always: the one part is run here
            items.append(item)
            origins.append((document, prefix))
    plan.diagnostics = engine.checker.all_diagnostics() if engine.checker is not None else []
    return plan


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
