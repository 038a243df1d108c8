"""The error every input and output module raises for input or output that cannot be used as asked.

Its message is printed and the exit code is 2 (compiler.cli.guard maps it); it lives here so that the guard need not
import the modules that raise it (render to stdout never loads the output-directory code).
"""

from __future__ import annotations


class CommandError(Exception):
    """Input or output that cannot be used as asked: its message is printed and the exit code is 2."""
