"""The cyclic collector's pace while `mxjob validate` checks tens of thousands of rendered objects (the command
runs with the collector paused: io.startup.paused_gc)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import TypeVar

from mxjob_gitops.compiler.compile.documents import Plan
from mxjob_gitops.compiler.validate.validation import ObjectResult, validate_plan

T = TypeVar("T")

_COLLECT_EVERY = 4_000  # rendered objects; about 200 jobs of the benchmark's kind


def collecting(results: Iterator[T]) -> Iterator[T]:
    """The results, with the young generations collected every few thousand objects while the collector is
    paused: rendering a job leaves a few reference cycles behind (json's encoder closures), the rest is freed
    by reference counting. As render does (io/streamed.py), at about the same pace."""
    for count, result in enumerate(results, 1):
        if not count % _COLLECT_EVERY:
            gc.collect(1)
        yield result


@contextlib.contextmanager
def young_only_collections() -> Iterator[None]:
    """Keep the periodic collections to what checking allocates: the documents read and compiled (a million
    containers for 22,000 objects) stay alive to the end, and the first collection that met them cost a tenth
    of the whole command. They are moved out of the collector's reach (gc.freeze) and handed back after."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def validate_paced(plan: Plan, version: str, strict: bool) -> list[ObjectResult]:
    """validate_plan's results, with the collector kept to what checking allocates."""
    with young_only_collections():
        return list(collecting(validate_plan(plan, version, strict)))
