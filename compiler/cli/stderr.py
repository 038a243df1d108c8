"""Print diagnostics for people: one `file:line:col: severity CODE at path: message (hint)` line each."""

from __future__ import annotations

from collections.abc import Sequence

import click

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, Severity
from mxjob_gitops.compiler.compile.documents import sort_diagnostics


def report(diagnostics: Sequence[Diagnostic], *, quiet: bool = False) -> None:
    shown = [d for d in sort_diagnostics(diagnostics) if not quiet or d.severity is Severity.ERROR]
    for diagnostic in shown:
        click.echo(diagnostic.render(), err=True)
    errors = sum(d.severity is Severity.ERROR for d in diagnostics)
    if errors:
        warnings = sum(d.severity is Severity.WARNING for d in diagnostics)
        click.echo(f"mxjob: {_plural(errors, 'error')}, {_plural(warnings, 'warning')}; nothing was written", err=True)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
