"""The errors every input and output module raises: input or output that cannot be used as asked (CommandError),
and a command's stop with an exit code after its message was printed (Exit, re-exported by cli.exits).

compiler.cli.guard maps both to exit codes; they live here so that the guard need not import the modules that raise
them (render to stdout never loads the output-directory code), and so that io/ can tell a command's stop apart.
"""

from __future__ import annotations


class CommandError(Exception):
    """Input or output that cannot be used as asked: its message is printed and the exit code is 2."""


class Exit(Exception):
    """Stop a command with an exit code after its message was printed."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code
