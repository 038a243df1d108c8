"""Start-up of a command: imports with the cyclic collector paused and frozen after, and a paused collector while
a one-shot command runs (both pay for themselves in a small render's CPU)."""

from __future__ import annotations

import contextlib
import gc
import importlib
import sys
from collections.abc import Iterator
from types import ModuleType


def import_paused(name: str, hidden: tuple[str, ...] = ()) -> ModuleType:
    """Import a module with the cyclic collector paused, then freeze what exists (gc.freeze).

    click and a command's modules create tens of thousands of objects that live as long as the process (classes,
    functions, tables). Collecting while they are allocated frees nothing, and every later collection would walk
    them again; together that is about a seventh of a small render's CPU. Frozen objects are never collected, so
    freezing is done only when this call really imported the module (once per module and process).

    `hidden`: optional modules the module's import tries and can do without, kept out of this import when not
    imported yet (a later import of them works as usual).
    """
    if name in sys.modules:
        return sys.modules[name]
    was_enabled = gc.isenabled()
    gc.disable()
    absent = [module for module in hidden if module not in sys.modules]
    for module in absent:
        sys.modules[module] = None  # type: ignore[assignment]  # import raises ImportError (the documented way)
    try:
        return importlib.import_module(name)
    finally:
        for module in absent:
            if sys.modules.get(module, ...) is None:
                del sys.modules[module]
        gc.freeze()
        if was_enabled:
            gc.enable()


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """A one-shot render allocates millions of acyclic dicts; cyclic GC passes over them cost ~30% of the run."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
