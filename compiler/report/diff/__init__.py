"""Diff reporters: one module per `mxjob diff --format`, one interface, registered by name; shared views."""

from __future__ import annotations

import difflib
import importlib
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO

from mxjob_gitops.compiler.base.diagnostics import Diagnostic
from mxjob_gitops.compiler.diff.changes import ObjectChange, ObjectStatus
from mxjob_gitops.compiler.diff.diffview import denormalise
from mxjob_gitops.compiler.diff.restarts import JobRestart
from mxjob_gitops.compiler.render.emit import to_yaml


@dataclass(frozen=True, slots=True)
class DiffReport:
    changes: list[ObjectChange]
    base: str
    head: str
    context: int = 3
    # Updates the API server would refuse (compiler.updates): also printed on stderr, and they fail the command.
    refused: tuple[Diagnostic, ...] = ()
    # What the change restarts, job by job (diff.restarts), with the running pods when a cluster was asked.
    restarts: tuple[JobRestart, ...] = ()
    # The errors of an invalid side, and the files (on either side) whose objects were therefore not compared:
    # the report covers the rest, and the command exits 2.
    invalid: tuple[Diagnostic, ...] = ()
    uncompared: tuple[str, ...] = ()

    @property
    def differences(self) -> list[ObjectChange]:
        return [c for c in self.changes if c.counts]


class Reporter(Protocol):
    def write(self, report: DiffReport, out: TextIO) -> None: ...


@dataclass(frozen=True, slots=True)
class Presentation:
    """How the chosen reporter should present (each reporter reads the settings it has a use for)."""

    colour: bool = False
    max_length: int = 65_536
    # Writes the parts of a split markdown comment and says where (io.splitparts, bound to --split DIR).
    split: Callable[[list[str]], str] | None = None
    summary_only: bool = False


def _module(name: str) -> Any:
    return importlib.import_module(f"{__name__}.{name}")


# --format name -> how to build its reporter (module in this package, imported only when chosen).
_FACTORIES: dict[str, Callable[[Presentation], Reporter]] = {
    "text": lambda how: _module("text").TextReporter(how.colour),
    "markdown": lambda how: _module("markdown").MarkdownReporter(how.max_length, how.split, how.summary_only),
    "json": lambda how: _module("json_report").JsonReporter(),
    "brief": lambda how: _module("brief").BriefReporter(),
}
FORMATS = tuple(_FACTORIES)


def reporter(name: str, presentation: Presentation | None = None) -> Reporter:
    return _FACTORIES[name](presentation or Presentation())


def unified(change: ObjectChange, context: int) -> list[str]:
    """A unified diff of the object's YAML; keyed lists aligned, so a move shows no line change."""
    old = to_yaml(denormalise(change.old, order_like=change.new)) if change.old is not None else ""
    new = to_yaml(denormalise(change.new, compare=change.old)) if change.new is not None else ""
    return list(
        difflib.unified_diff(
            old.splitlines(), new.splitlines(), f"a/{change.title}", f"b/{change.title}", n=context, lineterm=""
        )
    )


def notes(change: ObjectChange) -> list[str]:
    lines = []
    if change.replace:
        lines.append("will be replaced (delete + create): a pod's spec cannot be updated in place")
    for item in change.fields:
        if item.kind.value == "order":
            meaning = "changes what $(VAR) references see" if item.significant else "not a difference"
            lines.append(f"order of {item.path} changed ({meaning}): {', '.join(item.old)} -> {', '.join(item.new)}")
    return lines


@dataclass(slots=True)
class JobSummary:
    counts: dict[ObjectStatus, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    replaced: int = 0


def summarise(changes: list[ObjectChange]) -> dict[str, JobSummary]:
    """Per job (\"\" for objects of no job): counts of objects by status and kind."""
    jobs: dict[str, JobSummary] = {}
    for change in changes:
        if not change.counts:
            continue
        summary = jobs.setdefault(change.job, JobSummary())
        summary.counts[change.status][change.kind] += 1
        summary.replaced += change.replace
    return jobs


def describe(counter: Counter[str]) -> str:
    """'1 Pod, 1 Service' in a stable order."""
    return ", ".join(f"{n} {kind}{'' if n == 1 else 's'}" for kind, n in sorted(counter.items()))
