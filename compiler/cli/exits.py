"""Exit codes shared by every mxjob command, and `fail` to stop one with its message (cli.guard maps the rest)."""

from __future__ import annotations

import click

from mxjob_gitops.compiler.base.escape import terminal

OK = 0
FINDINGS = 1
USAGE = 2
INTERNAL = 3


class Exit(Exception):
    """Stop a command with an exit code after its message was printed."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def fail(message: str, code: int = USAGE) -> Exit:
    click.echo(f"mxjob: {terminal(message)}", err=True)
    return Exit(code)
