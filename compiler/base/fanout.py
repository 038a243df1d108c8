"""How the compiler spreads independent parts of one piece of work over processes: one by one here, unless the
run (base.run.Run.runner and .workers) holds a runner that uses more (the command line's: compiler/io/forked.py).

A task is called as `task(part, here)`: `here` is true when its result stays in this process, false when it is
sent from another process (then it should be compact to send, e.g. JSON text instead of the values). A runner
gives the results in the order of the parts, and gives what the task would give here for any part it could not
have done elsewhere: a caller sees the same results, and the same exception, whichever runner ran them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Runner(Protocol):
    def __call__(self, task: Callable[[T, bool], R], parts: Sequence[T]) -> list[R]: ...


def one_by_one(task: Callable[[T, bool], R], parts: Sequence[T]) -> list[R]:
    """Every part here, in order."""
    return [task(part, True) for part in parts]
