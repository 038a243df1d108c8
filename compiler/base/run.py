"""One run of the compiler: what every stage of one command invocation shares, in one object (Run) instead of
module globals. The command line builds it once per invocation (io/runcontext.py), installs it for the
command's duration (`running`) and passes it to the entry points that take `run` (None: `current_run()`, the
installed run); the stages that are not passed one ask `current_run()`.

- `budget`: what the run has read so far, over every input channel (base.limits.RunBudget);
- `off`: the fast paths turned off (base.exact: MXJOB_EXACT);
- `runner`, `workers`: how independent parts of one piece of work are spread over processes, and over how many
  (base.fanout; io.forked for the command line);
- `native_guard`: what surrounds every parse by the native YAML parser (the command line silences file
  descriptor 2 meanwhile: io.quietfd; the compiler itself touches no file descriptor);
- `notes`: where the notes of reading go (a skipped kustomization, an earlier rendering read again): the command
  line's go to standard error unless -q (io/runcontext.py); a library caller's are dropped.

A library caller that installs none gets the default: one process, every fast path on, one budget for the process.
The run is held in one slot for the whole process, not per thread: the reconciler's worker threads compile under
the run its command installed (MXJOB_EXACT applies to them too).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from mxjob_gitops.compiler.base.fanout import Runner, one_by_one
from mxjob_gitops.compiler.base.limits import RunBudget


class Notes(Protocol):
    """A sink for notes: `wanted()` first (a note may cost work to find), then `say(text)` for each."""

    def wanted(self) -> bool: ...

    def say(self, text: str) -> None: ...


class Unheard:
    """No notes: a library caller's run (the compiler never prints)."""

    def wanted(self) -> bool:
        return False

    def say(self, text: str) -> None:
        pass


@dataclass(slots=True)
class Run:
    """The context of one run (see the module's docstring)."""

    budget: RunBudget = field(default_factory=RunBudget)
    off: frozenset[str] = frozenset()
    runner: Runner = one_by_one
    workers: int = 1
    native_guard: Callable[[], contextlib.AbstractContextManager[None]] = contextlib.nullcontext
    notes: Notes = field(default_factory=Unheard)


_current = Run()


def current_run() -> Run:
    """The run installed now (the default run when none is)."""
    return _current


@contextlib.contextmanager
def running(run: Run) -> Iterator[Run]:
    """Install `run` for the block; the run before it comes back after."""
    global _current
    previous, _current = _current, run
    try:
        yield run
    finally:
        _current = previous
