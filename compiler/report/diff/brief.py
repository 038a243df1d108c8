"""`--format brief`: one line per object, like `flux diff`'s listing."""

from __future__ import annotations

from typing import TextIO

from mxjob_gitops.compiler.base.escape import terminal
from mxjob_gitops.compiler.diff.changes import ObjectStatus
from mxjob_gitops.compiler.report.diff import DiffReport

_MARK = {ObjectStatus.ADDED: "+", ObjectStatus.REMOVED: "-", ObjectStatus.MODIFIED: "~", ObjectStatus.REORDERED: "="}


class BriefReporter:
    def write(self, report: DiffReport, out: TextIO) -> None:
        for change in report.changes:
            extra = " (will be replaced)" if change.replace else (" (order only)" if not change.counts else "")
            out.write(f"{_MARK[change.status]} {terminal(change.title)} {change.status.value}{extra}\n")
        for name in report.uncompared:
            out.write(f"! {terminal(name)} not compared (errors in it)\n")
