"""Print diagnostics for people: one `file:line:col: severity CODE at path: message (hint)` line each."""

from __future__ import annotations

from collections.abc import Sequence

import click

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, Severity
from mxjob_gitops.compiler.base.printcap import PrintCap, printed_limit
from mxjob_gitops.compiler.compile.documents import sort_diagnostics
from mxjob_gitops.compiler.io.verbosity import verbosity


def report(diagnostics: Sequence[Diagnostic], *, quiet: bool = False) -> None:
    from mxjob_gitops.compiler.io.origins import relocated

    diagnostics = relocated(diagnostics)  # findings in a kustomize build, at their source file and line
    shown = [d for d in sort_diagnostics(diagnostics) if not quiet or d.severity is Severity.ERROR]
    cap = PrintCap(printed_limit(verbosity()))
    for diagnostic in cap.select(shown):
        click.echo(diagnostic.render(), err=True)
    if (note := cap.note()) is not None:
        click.echo(note, err=True)
    errors = sum(d.severity is Severity.ERROR for d in diagnostics)
    if errors:
        warnings = sum(d.severity is Severity.WARNING for d in diagnostics)
        click.echo(f"mxjob: {_plural(errors, 'error')}, {_plural(warnings, 'warning')}; nothing was written", err=True)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
