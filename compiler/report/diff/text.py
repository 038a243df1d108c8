"""`--format text`: a unified diff per object, coloured when the command line asks (cli.diff decides: a terminal,
and never when NO_COLOR is set)."""

from __future__ import annotations

from typing import TextIO

from mxjob_gitops.compiler.base.escape import terminal
from mxjob_gitops.compiler.diff.restarts import describe
from mxjob_gitops.compiler.report.diff import DiffReport, notes, unified

_COLOURS = {"+": "\033[32m", "-": "\033[31m", "@": "\033[36m"}
_BOLD, _RESET = "\033[1m", "\033[0m"


class TextReporter:
    def __init__(self, colour: bool = False) -> None:
        self.colour = colour

    def write(self, report: DiffReport, out: TextIO) -> None:
        paint = self.colour
        for change in report.changes:
            header = terminal(f"{change.status.value} {change.title}" + (f" (job {change.job})" if change.job else ""))
            out.write((f"{_BOLD}{header}{_RESET}" if paint else header) + "\n")
            for note in notes(change):
                out.write(f"# {terminal(note)}\n")
            if not change.counts:
                continue
            for line in map(terminal, unified(change, report.context)):
                if paint and line[:1] in _COLOURS and not line.startswith(("+++", "---")):
                    line = f"{_COLOURS[line[0]]}{line}{_RESET}"
                out.write(line + "\n")
        for restart in report.restarts:
            out.write(terminal(describe(restart)) + "\n")
        for name in report.uncompared:
            out.write(f"# not compared (errors in it, on stderr): {terminal(name)}\n")
        total = len(report.differences)
        span = terminal(f"{report.base}..{report.head}")
        out.write(f"mxjob diff {span}: {total} {'object differs' if total == 1 else 'objects differ'}\n")
