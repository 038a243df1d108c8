"""The process's standard streams while a command runs: standard error escaped line by line (EscapedLines),
standard output pointed at /dev/null once writing to it failed (drop_stdout), both installed and used by cli.guard;
and whether a stream is to be coloured (colour_wanted, for diff --color)."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TextIO

from mxjob_gitops.compiler.base.escape import terminal


class EscapedLines:
    """Standard error while a command runs: every line written is passed through escape.terminal, so no file or
    object name, whoever prints it, can start a line of its own or a GitHub Actions workflow command."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write("\n".join(map(terminal, text.split("\n"))))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def writable(self) -> bool:
        return True

    # No `buffer`: click would write bytes to it past this filter (click/_compat.py _find_binary_writer).
    @property
    def encoding(self) -> str:
        return str(getattr(self.inner, "encoding", None) or "utf-8")

    @property
    def errors(self) -> str:
        return str(getattr(self.inner, "errors", None) or "strict")


def drop_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush cannot fail again (and exit 120)."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def colour_wanted(out: TextIO, mode: str) -> bool:
    """--color: always, never, or auto (a terminal, and never when NO_COLOR is set)."""
    if mode == "always":
        return True
    if mode == "never" or "NO_COLOR" in os.environ:
        return False
    return out.isatty()
