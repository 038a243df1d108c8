"""`--format markdown`: a pull-request comment that always fits (GitHub rejects bodies over 65,536 characters).

Summary first (counts per job), then a collapsible section per job with a ```diff block per object.
Comments are cut only between objects and every code fence is closed; an object too large for a comment
on its own is shortened with a note. `--split DIR` writes every part as `part-N-of-M.md`; without it the
first part is printed and says how many objects did not fit.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from mxjob_gitops.compiler.base.escape import markdown_code, markdown_html, markdown_text, terminal
from mxjob_gitops.compiler.diff.changes import ObjectChange, ObjectStatus
from mxjob_gitops.compiler.diff.restarts import describe as describe_restart
from mxjob_gitops.compiler.report.diff import DiffReport, describe, notes, summarise, unified

GITHUB_LIMIT = 65_536
_LISTED = 20  # files and errors of an invalid side listed in the comment; the rest are counted
_MARKS = {ObjectStatus.ADDED: "+", ObjectStatus.REMOVED: "-", ObjectStatus.MODIFIED: "~"}


@dataclass(frozen=True, slots=True)
class Block:
    job: str
    text: str


def _job_label(job: str) -> str:
    return markdown_code(job, table=True) if job else "other objects"


def summary(report: DiffReport, limit: int) -> str:
    changes = report.differences
    counts = {
        s: sum(c.status is s for c in changes)
        for s in (ObjectStatus.ADDED, ObjectStatus.REMOVED, ObjectStatus.MODIFIED)
    }
    replaced = sum(c.replace for c in changes)
    lines = [f"### mxjob diff {markdown_code(report.base)} → {markdown_code(report.head)}", ""]
    lines.extend(_refused(report))
    lines.extend(_invalid(report))
    if not changes:
        lines.append("No differences in what was compared." if report.uncompared else "No differences.")
        return "\n".join(lines) + "\n"
    lines.append(
        f"**{len(changes)} {'object differs' if len(changes) == 1 else 'objects differ'}**: "
        f"{counts[ObjectStatus.ADDED]} added, "
        f"{counts[ObjectStatus.REMOVED]} removed, {counts[ObjectStatus.MODIFIED]} modified"
        + (f"; {replaced} pods will be replaced (delete + create)" if replaced else "")
        + "."
    )
    lines.extend(_restarts(report, limit))
    lines.extend(["", "| job | added | removed | modified |", "|---|---|---|---|"])
    rows = [
        f"| {_job_label(job)} | {describe(s.counts[ObjectStatus.ADDED])} | "
        f"{describe(s.counts[ObjectStatus.REMOVED])} | {describe(s.counts[ObjectStatus.MODIFIED])} |"
        for job, s in sorted(summarise(changes).items(), key=lambda item: (item[0] == "", item[0]))
    ]
    text = "\n".join(lines)
    for position, row in enumerate(rows):
        if len(text) + len(row) + 200 > limit:
            text += f"\n| … {len(rows) - position} more jobs | | | |"
            break
        text += "\n" + row
    return text + "\n\n"


def _invalid(report: DiffReport) -> list[str]:
    """The errors of an invalid side, first: the files they are in were not compared, the rest was."""
    if not report.invalid:
        return []
    lines = [f"**Not compared: {len(report.uncompared)} file(s) with errors** (the rest is compared below):", ""]
    lines.extend(f"- {markdown_code(name)}" for name in report.uncompared[:_LISTED])
    if len(report.uncompared) > _LISTED:
        lines.append(f"- … {len(report.uncompared) - _LISTED} more files")
    lines.append("")
    if len(report.invalid) > _LISTED:
        lines.append(f"The first {_LISTED} of {len(report.invalid)} errors (all are on stderr):")
        lines.append("")
    for d in report.invalid[:_LISTED]:
        where = markdown_code(str(d.location)) if d.location else ""
        lines.append(
            f"- {d.code.value} {where}: {markdown_text(d.message)}" + (f" ({markdown_text(d.hint)})" if d.hint else "")
        )
    return [*lines, ""]


def _restarts(report: DiffReport, limit: int) -> list[str]:
    """What the change restarts, a line per job (at most a quarter of the comment; the rest counted)."""
    if not report.restarts:
        return []
    lines = ["", "**Restarts:**", ""]
    budget = limit // 4
    for position, restart in enumerate(report.restarts):
        line = f"- {markdown_text(describe_restart(restart))}"
        if budget - len(line) < 0:
            lines.append(f"- … {len(report.restarts) - position} more jobs (run `mxjob diff` locally for all)")
            break
        lines.append(line)
        budget -= len(line) + 1
    return lines


def _refused(report: DiffReport) -> list[str]:
    """Updates the API server would refuse, first: the sync of this change fails until they are fixed."""
    if not report.refused:
        return []
    lines = [f"**The API server would refuse {len(report.refused)} update(s) of this change:**", ""]
    for d in report.refused:
        where = markdown_code(str(d.location)) if d.location else ""
        lines.append(
            f"- {d.code.value} {where} at {markdown_code(d.json_path)}: {markdown_text(d.message)}"
            + (f" ({markdown_text(d.hint)})" if d.hint else "")
        )
    return [*lines, ""]


def _fence(lines: list[str]) -> str:
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    return "`" * max(3, longest + 1)


def object_block(change: ObjectChange, context: int, limit: int) -> str:
    identity = f"{change.namespace + '/' if change.namespace else ''}{change.name}"
    head = [f"#### {markdown_text(change.kind)} {markdown_code(identity)} · {change.status.value}"]
    head.extend(f"> {markdown_text(note)}" for note in notes(change))
    head.append("")
    lines = [terminal(line) for line in unified(change, context)[2:]]
    fence = _fence(lines)
    body = [fence + "diff", *lines, fence]
    text = "\n".join([*head, *body]) + "\n\n"
    if len(text) <= limit:
        return text
    kept: list[str] = []
    budget = limit - len("\n".join(head)) - 300
    for line in lines:
        if budget - len(line) - 1 < 0:
            break
        kept.append(line)
        budget -= len(line) + 1
    omitted = len(lines) - len(kept)
    note = f"*{omitted} more diff lines not shown: run `mxjob diff` locally for the whole object.*"
    return "\n".join([*head, fence + "diff", *kept, fence, note]) + "\n\n"


def _open(job: str, changes: list[ObjectChange], continued: bool) -> str:
    mine = [c for c in changes if c.job == job and c.counts]
    marks = " ".join(f"{_MARKS[s]}{sum(c.status is s for c in mine)}" for s in _MARKS)
    suffix = " (continued)" if continued else ""
    label = f"<code>{markdown_html(job)}</code>" if job else "other objects"
    return f"<details><summary>{label}: {marks}{suffix}</summary>\n\n"


_CLOSE = "</details>\n\n"


def compose(report: DiffReport, limit: int = GITHUB_LIMIT, summary_only: bool = False) -> list[str]:
    """Comment bodies, each at most `limit` characters; the first starts with the summary."""
    head = summary(report, limit)
    if summary_only or not report.differences:
        return [head]
    reserve = 400  # part header, closing tags, the "more objects" note
    blocks = [Block(c.job, object_block(c, report.context, limit - reserve - 200)) for c in report.differences]
    parts: list[str] = []
    current, job = head, None
    for block in blocks:
        opening = _open(block.job, report.changes, continued=False) if block.job != job else ""
        if len(current) + len(opening) + len(block.text) + len(_CLOSE) + reserve > limit and current.strip():
            parts.append(current + (_CLOSE if job is not None else ""))
            current = ""
            opening = _open(block.job, report.changes, continued=block.job == job)
        elif block.job != job and job is not None:
            current += _CLOSE
        current += opening + block.text
        job = block.job
    parts.append(current + _CLOSE)
    total = len(parts)
    if total > 1:
        parts = [f"{p}\n*Part {i} of {total} of this diff.*\n" for i, p in enumerate(parts, start=1)]
    return parts


class MarkdownReporter:
    def __init__(
        self, limit: int = GITHUB_LIMIT, split: Callable[[list[str]], str] | None = None, summary_only: bool = False
    ) -> None:
        self.limit = limit
        self.split = split
        self.summary_only = summary_only

    def write(self, report: DiffReport, out: TextIO) -> None:
        parts = compose(report, self.limit, self.summary_only)
        if self.split is not None:
            where = self.split(parts)
            out.write(f"mxjob diff: wrote {len(parts)} comment part(s) to {where}\n")
            return
        if len(parts) == 1:
            out.write(parts[0])
            return
        first = parts[0]
        shown = first.count("\n#### ")
        note = (
            f"\n*{len(report.differences) - shown} more objects did not fit in one comment: run `mxjob diff "
            "--split DIR` for every part, or `mxjob diff` locally.*\n"
        )
        out.write(first + note)
