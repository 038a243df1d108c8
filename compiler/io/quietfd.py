"""Silence file descriptor 2 around the native YAML parser's parses (the command line's Run.native_guard,
io/runcontext.py)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """File descriptor 2 points at the null device meanwhile: rapidyaml prints each parse error there before it
    raises, and the exact reader then reports the error properly, located (raises OSError if it cannot)."""
    if sys.stderr is not None:
        sys.stderr.flush()
    saved = os.dup(2)
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 2)
        finally:
            os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
