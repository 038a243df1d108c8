"""Exit codes shared by every mxjob command, and `fail` to stop one with its message (cli.guard maps the rest)."""

from __future__ import annotations

import click

from mxjob_gitops.compiler.base.escape import terminal
from mxjob_gitops.compiler.io.errors import Exit as Exit

OK = 0
FINDINGS = 1
USAGE = 2
INTERNAL = 3


def fail(message: str, code: int = USAGE) -> Exit:
    click.echo(f"mxjob: {terminal(message)}", err=True)
    return Exit(code)
