"""Work shared out over processes (compiler.fanout, compiler/io/forked.py): the runner's contract.

The runner is held to compiler.fanout.one_by_one: results in order, a child's failure or death made up for here
with the task's own result or exception, no fork beside another thread; MXJOB_JOBS and the default follow the CPUs;
too little text is not parsed ahead. That the work shared out (the fast reader's chunks, the checks made while
reading in them, a diff's first side parsed ahead, a render's parts) gives what one process gives is
tests/test_exact_mode.py's.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from mxjob_gitops.compiler.base.run import current_run
from mxjob_gitops.compiler.io import forked
from mxjob_gitops.compiler.read import readahead
from tests.conftest import run_cli
from tests.exact_inputs import inputs_and_renderings as _inputs_and_renderings

# --- the runner --------------------------------------------------------------------------------------------------


@pytest.fixture
def threads_of_earlier_tests_ignored(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fork as if this test's thread were the only one: threads an earlier test in this process left idle (a fake
    API server's request handlers, a stopped controller's workers) would otherwise make every runner serial. The
    tests of that rule itself (test_no_fork_beside_another_thread, ...) do not use this."""
    before = set(threading.enumerate())
    monkeypatch.setattr(forked, "_may_fork", lambda: hasattr(os, "fork") and not (set(threading.enumerate()) - before))
    yield


def _square(part: int, here: bool) -> tuple[int, bool, int]:
    return part * part, here, os.getpid()


def test_results_come_in_order_from_children(threads_of_earlier_tests_ignored: None) -> None:
    results = forked.run_forked(_square, [1, 2, 3, 4])
    assert [value for value, _here, _pid in results] == [1, 4, 9, 16]
    assert [here for _value, here, _pid in results] == [True, False, False, False]
    pids = {pid for _value, _here, pid in results}
    assert len(pids) == 4 and os.getpid() in pids  # the first here, each other in a process of its own


def _fails_in_children(part: int, here: bool) -> int:
    if not here:
        raise RuntimeError("only in a child")
    return part


def _dies_in_children(part: int, here: bool) -> int:
    if not here:
        os._exit(7)
    return part


def test_a_part_a_child_could_not_do_is_done_here(threads_of_earlier_tests_ignored: None) -> None:
    assert forked.run_forked(_fails_in_children, [1, 2, 3]) == [1, 2, 3]
    assert forked.run_forked(_dies_in_children, [1, 2, 3]) == [1, 2, 3]


def _refuses(part: int, here: bool) -> int:
    if part == 2:
        raise ValueError(f"part {part}")
    return part


def test_a_part_that_fails_everywhere_raises_its_own_exception(
    monkeypatch: pytest.MonkeyPatch, threads_of_earlier_tests_ignored: None
) -> None:
    started: list[int] = []
    fork = os.fork

    def recorded_fork() -> int:
        pid = fork()
        if pid:
            started.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recorded_fork)
    with pytest.raises(ValueError, match="part 2"):
        forked.run_forked(_refuses, [1, 2, 3])
    with pytest.raises(ValueError, match="part 2"):
        forked.run_forked(_refuses, [2, 1, 3])  # the first part, here: the children are ended and reaped
    assert len(started) == 4
    for pid in started:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reaped: no child left behind


def test_no_fork_beside_another_thread() -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        results = forked.run_forked(_square, [1, 2])
    finally:
        stop.set()
        other.join()
    assert {pid for _value, _here, pid in results} == {os.getpid()}
    assert [here for _value, here, _pid in results] == [True, True]


def test_a_task_in_the_background_answers_from_a_child(threads_of_earlier_tests_ignored: None) -> None:
    parent = os.getpid()
    with forked.in_background(lambda: (os.getpid(), sum(range(1000)))) as task:
        answer = task.result()
        assert task.ready() and task.result() == answer
    assert isinstance(answer, tuple) and answer[0] != parent and answer[1] == 499_500


def test_a_background_task_that_dies_or_fails_answers_none(threads_of_earlier_tests_ignored: None) -> None:
    with forked.in_background(lambda: os._exit(3)) as died, forked.in_background(lambda: 1 // 0) as failed:
        assert died.result() is None and failed.result() is None


def test_a_background_task_not_waited_for_is_ended_and_reaped(threads_of_earlier_tests_ignored: None) -> None:
    with forked.in_background(lambda: threading.Event().wait(60)) as task:
        child = task._child
        assert child is not None and not task.ready()
    with pytest.raises(ChildProcessError):
        os.waitpid(child[0], os.WNOHANG)


def test_no_background_child_beside_another_thread() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        with forked.in_background(os.getpid) as task:
            assert task.ready() and task.result() is None
    finally:
        stop.set()
        thread.join()


@pytest.mark.parametrize("value", ["0", "9", "-1", "two", "1.5", "٣"])
def test_a_bad_mxjob_jobs_is_a_usage_error(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MXJOB_JOBS", value)
    result = run_cli(["validate", "-"], stdin="a: 1\n")
    assert result.exit_code == 2
    assert "MXJOB_JOBS" in result.stderr and "Traceback" not in result.stderr


def test_the_default_follows_cpus_and_the_cgroup_quota(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(16)))
    cpu_max = tmp_path / "cpu.max"
    monkeypatch.setattr(forked, "_CGROUP_CPU_MAX", cpu_max)
    assert forked.default_workers() == forked.MAX_WORKERS  # no cgroup file
    for text, expected in [("max 100000\n", 8), ("150000 100000\n", 2), ("50000 100000\n", 1), ("bad\n", 8)]:
        cpu_max.write_text(text)
        assert forked.default_workers() == expected, text
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1})
    cpu_max.write_text("max 100000\n")
    assert forked.default_workers() == 2


# --- a diff's first side parsed ahead -----------------------------------------------------------------------------


def _texts_to_parse() -> list[tuple[str, str]]:
    """Every example, golden and corpus input and rendering, and texts parse_text reports on (syntax, a duplicate
    key, a scalar document), with anchors and aliases, empty, or only comments: each under a label of its own."""
    texts = [text for _name, text in _inputs_and_renderings()]
    texts += ["a: [1\n", "a: 1\na: 2\n", "just text\n", "a: &x {b: 1}\nc: *x\n", "", "# nothing\n", "---\n---\n"]
    return [(f"t{number}.yaml", text) for number, text in enumerate(texts)]


def test_too_little_text_for_two_workers_is_parsed_in_its_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(current_run(), "workers", 2)
    monkeypatch.setattr(current_run(), "runner", forked.run_forked)
    texts = _texts_to_parse()
    monkeypatch.setattr(readahead, "AHEAD_MIN_CHARS", sum(len(text) for _label, text in texts) // 2 + 1)
    assert readahead.parsed_ahead(texts) == {}
    monkeypatch.setattr(current_run(), "workers", 1)
    monkeypatch.setattr(readahead, "AHEAD_MIN_CHARS", 1)
    assert readahead.parsed_ahead(texts) == {}
