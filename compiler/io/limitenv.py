"""The run's limits from the environment (the CLI group calls it once per command): MXJOB_MAX_DOCUMENTS,
MXJOB_MAX_PRINTED_DIAGNOSTICS, MXJOB_MAX_DIRECTORY_DEPTH and MXJOB_MAX_IN_PLACE_JOBS, each a whole number in ASCII
digits within compiler.base.limits.LIMIT_BOUNDS. Anything else is a usage error (exit 2) naming the variable,
before anything is read. Unset or blank: the default (docs/limits.md)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from mxjob_gitops.compiler.base.asciinum import whole
from mxjob_gitops.compiler.base.escape import terminal
from mxjob_gitops.compiler.base.limits import LIMIT_BOUNDS, RunLimits
from mxjob_gitops.compiler.io.errors import CommandError


def limits_from(environ: Mapping[str, str]) -> RunLimits:
    """The defaults, with every limit the environment sets."""
    changes: dict[str, int] = {}
    for attribute, (variable, lowest, highest, what) in LIMIT_BOUNDS.items():
        text = environ.get(variable)
        if text is None or not text.strip():
            continue
        value = whole(text)
        if value is None or not lowest <= value <= highest:
            raise CommandError(
                f"{variable}={terminal(text[:40])!r}: give the most {what}, a whole number from {lowest:,} to "
                f"{highest:,} in the digits 0-9 (docs/limits.md)"
            )
        changes[attribute] = value
    return dataclasses.replace(RunLimits(), **changes)
