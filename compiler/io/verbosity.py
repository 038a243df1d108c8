"""How much a command prints: -q/-v as the command line set them (compiler.cli.flags), read wherever a note is due."""

from __future__ import annotations

import os

import click

# Where cli.flags keeps the level in the click context's meta.
LEVEL = "mxjob.verbosity"


def verbosity() -> int:
    """-1 quiet (errors only), 0 default (errors and warnings), ≥ 1 verbose (also notes, tracebacks)."""
    ctx = click.get_current_context(silent=True)
    level = int(ctx.meta.get(LEVEL, 0)) if ctx is not None else 0
    if level == 0 and os.environ.get("MXJOB_DEBUG"):
        return 1
    return level


def quiet() -> bool:
    return verbosity() < 0
