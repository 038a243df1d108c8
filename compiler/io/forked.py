"""compiler.fanout's runner for the command line: the first part in this process, each other part in a process
forked for it, which sends its result back through a pipe (pickled) and ends.

A fork starts at once and shares the memory already built (the input text, the modules); nothing but the result
crosses back. A part is done here instead, with the task's own result or exception, when it cannot be done
elsewhere: no fork on this platform, another thread running (a fork copies only the calling thread, and locks
held by others would stay held in the child), the fork failing, or the child failing or dying. So results and
errors are those of compiler.fanout.one_by_one whatever happens to the workers.

MXJOB_JOBS sets how many processes may work at once; by default, the CPUs this process may run on and its
cgroup's CPU quota allows, at most MAX_WORKERS.

`in_background` uses the same children for one task that runs while this process goes on with other work (render -o
looks at the files of DIR while the jobs are rendered): its answer is taken when ready, and None (do the work
here) stands for no answer, whatever the reason.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Final, TypeVar, cast

from mxjob_gitops.compiler.base import fanout

T = TypeVar("T")
R = TypeVar("R")

MAX_WORKERS: Final = 8  # past this, the parts read in parallel are too small to pay for their processes
_CGROUP_CPU_MAX: Final = Path("/sys/fs/cgroup/cpu.max")


def configured_workers() -> int:
    """MXJOB_JOBS, a whole number from 1 to MAX_WORKERS in ASCII digits (anything else, ` 3` and `٣` too, is a
    usage error that names the variable), or default_workers() when unset or blank. The run context reads it
    (io/runcontext.py: one worker when the `parts` fast path is off, MXJOB_JOBS checked all the same)."""
    from mxjob_gitops.compiler.base.asciinum import whole
    from mxjob_gitops.compiler.base.escape import terminal
    from mxjob_gitops.compiler.io.errors import CommandError

    text = os.environ.get("MXJOB_JOBS")
    if text is None or not text.strip():
        return default_workers()
    count = whole(text)
    if count is None or not 1 <= count <= MAX_WORKERS:
        raise CommandError(f"MXJOB_JOBS={terminal(text)}: expected a whole number of processes from 1 to {MAX_WORKERS}")
    return count


def default_workers() -> int:
    """The CPUs this process may run on, fewer if its cgroup (v2) has a CPU quota, at most MAX_WORKERS."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    with contextlib.suppress(OSError, ValueError, ZeroDivisionError):
        quota, period = _CGROUP_CPU_MAX.read_text(encoding="ascii").split()[:2]
        if quota != "max":
            cpus = min(cpus, max(1, math.ceil(int(quota) / int(period))))
    return max(1, min(cpus, MAX_WORKERS))


def run_forked(task: Callable[[T, bool], R], parts: Sequence[T]) -> list[R]:
    """compiler.fanout's Runner: task(parts[0], True) here while each other part runs in a child."""
    if len(parts) < 2 or not _may_fork():
        return fanout.one_by_one(task, parts)
    children: list[tuple[int, int] | None] = []
    try:
        for part in parts[1:]:
            children.append(_start(task, part))
        results = [task(parts[0], True)]
        for index, child in enumerate(children, 1):
            sent = _collect(child) if child is not None else None
            children[index - 1] = None
            results.append(cast(R, sent[0]) if sent is not None else task(parts[index], True))
        return results
    finally:
        for child in children:
            if child is not None:
                _abandon(child)


class Background:
    """A task running in a forked child; `ready()` polls, `result()` waits. Use it as a context manager: a child
    whose result was not taken is ended and reaped on leaving."""

    def __init__(self, child: tuple[int, int] | None) -> None:
        self._child = child
        self._taken = False
        self._result: object = None

    def ready(self) -> bool:
        """Whether result() would not wait: the child has answered or ended (or there is none)."""
        if self._child is None or self._taken:
            return True
        with contextlib.suppress(OSError, ValueError):
            return bool(select.select([self._child[1]], [], [], 0)[0])
        return True

    def result(self) -> object:
        """The task's result, or None when no child ran it or it failed or died."""
        if not self._taken:
            self._taken = True
            child, self._child = self._child, None
            sent = _collect(child) if child is not None else None
            self._result = sent[0] if sent is not None else None
        return self._result

    def end(self) -> None:
        if self._child is not None:
            child, self._child = self._child, None
            _abandon(child)


@contextlib.contextmanager
def in_background(task: Callable[[], object]) -> Iterator[Background]:
    """task() in a forked child while this process goes on (none where run_forked would not fork: the result is
    then None at once)."""
    background = Background(_start(lambda _part, _here: task(), None) if _may_fork() else None)
    try:
        yield background
    finally:
        background.end()


def _may_fork() -> bool:
    """A platform with fork and no other thread running (a fork copies only the calling thread)."""
    return hasattr(os, "fork") and threading.active_count() == 1


def _start(task: Callable[[T, bool], R], part: T) -> tuple[int, int] | None:
    """A child working on the part: (its process id, the pipe's reading end), or None when none could start."""
    import pickle  # here, not at the top: every command's start-up imports this module, few commands fork

    try:
        reading, writing = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(reading)
        os.close(writing)
        return None
    if pid == 0:  # the child: never returns into the caller's frames (os._exit runs none of their cleanup)
        status = 1
        try:
            os.close(reading)
            payload = pickle.dumps((task(part, False),), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(writing, "wb") as pipe:
                pipe.write(payload)
            status = 0
        finally:
            os._exit(status)
    os.close(writing)
    return pid, reading


def _collect(child: tuple[int, int]) -> tuple[object] | None:
    """What the child sent ((its result,)), or None when it failed or died before sending all of it."""
    pid, reading = child
    try:
        with os.fdopen(reading, "rb") as pipe:
            payload = pipe.read()
    finally:
        os.waitpid(pid, 0)
    if not payload:
        return None
    import pickle

    try:
        sent = pickle.loads(payload)  # written by this process's own fork, above
    except Exception:  # a truncated payload: the child died while writing
        return None
    return sent if isinstance(sent, tuple) and len(sent) == 1 else None


def _abandon(child: tuple[int, int]) -> None:
    """End a child whose result is no longer wanted (the part here raised) and reap it."""
    pid, reading = child
    with contextlib.suppress(OSError):
        os.close(reading)
    with contextlib.suppress(OSError):
        os.kill(pid, 9)
    with contextlib.suppress(OSError):
        os.waitpid(pid, 0)
