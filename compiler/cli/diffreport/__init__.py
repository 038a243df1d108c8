"""Diff reporters: one module per `mxjob diff --format`, one interface, registered by name; shared views."""

from __future__ import annotations

import difflib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Protocol, TextIO

from compiler.changes import ObjectChange, ObjectStatus
from compiler.diffview import denormalise
from compiler.emit import to_yaml

FORMATS = ("text", "markdown", "json", "brief")


@dataclass(frozen=True, slots=True)
class DiffReport:
    changes: list[ObjectChange]
    base: str
    head: str
    context: int = 3

    @property
    def differences(self) -> list[ObjectChange]:
        return [c for c in self.changes if c.counts]


class Reporter(Protocol):
    def write(self, report: DiffReport, out: TextIO) -> None: ...


def reporter(name: str) -> Reporter:
    from compiler.cli.diffreport import brief, json_report, markdown, text

    registry: dict[str, Reporter] = {"text": text.TextReporter(), "markdown": markdown.MarkdownReporter(),
                                     "json": json_report.JsonReporter(), "brief": brief.BriefReporter()}
    return registry[name]


def unified(change: ObjectChange, context: int) -> list[str]:
    """A unified diff of the object's YAML; keyed lists aligned, so a move shows no line change."""
    old = to_yaml(denormalise(change.old, order_like=change.new)) if change.old is not None else ""
    new = to_yaml(denormalise(change.new, compare=change.old)) if change.new is not None else ""
    return list(difflib.unified_diff(old.splitlines(), new.splitlines(), f"a/{change.title}", f"b/{change.title}",
                                     n=context, lineterm=""))


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
