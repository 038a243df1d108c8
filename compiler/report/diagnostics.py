"""Diagnostics for people, written to a stream (the CLI passes standard error): one
`file:line:col: severity CODE at path: message (hint)` line each, sorted, capped (base.printcap), then how many
errors stopped the command; and the updates of a diff the API server would refuse."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, Severity
from mxjob_gitops.compiler.base.printcap import PrintCap
from mxjob_gitops.compiler.compile.documents import sort_diagnostics


def write_diagnostics(diagnostics: Sequence[Diagnostic], out: TextIO, *, quiet: bool, limit: int) -> None:
    """Every diagnostic (errors only when quiet), at most `limit` of them (-1: all), and the error count."""
    shown = [d for d in sort_diagnostics(diagnostics) if not quiet or d.severity is Severity.ERROR]
    cap = PrintCap(limit)
    for diagnostic in cap.select(shown):
        _line(out, diagnostic.render())
    if (note := cap.note()) is not None:
        _line(out, note)
    errors = sum(d.severity is Severity.ERROR for d in diagnostics)
    if errors:
        warnings = sum(d.severity is Severity.WARNING for d in diagnostics)
        _line(out, f"mxjob: {_plural(errors, 'error')}, {_plural(warnings, 'warning')}; nothing was written")


def write_refusals(refused: Sequence[Diagnostic], out: TextIO) -> None:
    """The updates of a diff the API server would refuse, each, then how many."""
    for diagnostic in refused:
        _line(out, diagnostic.render())
    count = sum(d.severity is Severity.ERROR for d in refused)
    if count:
        _line(out, f"mxjob: the API server would refuse {count} update(s) of this change")


def _line(out: TextIO, text: str) -> None:
    out.write(text + "\n")
    out.flush()


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
