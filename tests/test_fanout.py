"""Work shared out over processes (compiler.fanout, compiler/io/forked.py) gives what one process gives.

The runner is held to compiler.fanout.one_by_one: results in order, a child's failure or death made up for here
with the task's own result or exception, no fork beside another thread. The fast reader cut into chunks read in
children is held to the same reader in one piece, on every example, golden and corpus text and their renderings,
on generated streams and on randomly edited ones (so a refusal may sit in any chunk). The checks done while
reading (compiler.validation.vouch_for) are held to the checks validate_plan makes without them, on every
object of both mutation catalogs; and `mxjob validate` prints the same with one process and with three. The
texts of a diff's first side parsed ahead in children (cli.readahead) are held to parse_text's, text by text.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler import RenderOptions, compile_documents
from mxjob_gitops.compiler.base import fanout
from mxjob_gitops.compiler.base.run import current_run
from mxjob_gitops.compiler.io import forked
from mxjob_gitops.compiler.io import inputs as inputs_module
from mxjob_gitops.compiler.io.inputs import SharedParses, read_inputs
from mxjob_gitops.compiler.read import fastread, readahead, source
from mxjob_gitops.compiler.read.docsplit import Piece, split_documents
from mxjob_gitops.compiler.read.source import parse_text
from mxjob_gitops.compiler.render.emit import to_yaml
from mxjob_gitops.compiler.validate.kubeschema import resolve_version
from mxjob_gitops.compiler.validate.validation import validate_plan, vouch_for
from tests import hidden_mutations
from tests.conftest import run_cli
from tests.test_fastread import _inputs_and_renderings
from tests.yamlgen import yaml_block

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


# --- the fast reader in chunks ------------------------------------------------------------------------------------


@pytest.fixture()
def in_chunks(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every text over a few bytes is cut into up to three chunks, read in children."""
    monkeypatch.setattr(fastread, "SPLIT_MIN_CHARS", 16)
    monkeypatch.setattr(current_run(), "workers", 3)
    monkeypatch.setattr(current_run(), "runner", forked.run_forked)
    yield


_SLOW_WITH_FIXTURE = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]  # in_chunks holds for every example


def _one_piece(text: str, values: bool) -> Any:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(current_run(), "workers", 1)
        patch.setattr(current_run(), "runner", fanout.one_by_one)
        return fastread.read_documents(text, values=values)


def _same_in_chunks(text: str) -> bool:
    """Whether the text was read; either way, in chunks exactly as in one piece, and so when given the text's
    pieces (cut by the caller: cli.inputs.SharedParses)."""
    pieces = split_documents(text)
    for values in (False, True):
        whole = _one_piece(text, values)
        cut: list[Piece] = []
        assert fastread.read_documents(text, values=values, cut=cut) == whole, text
        assert cut == (pieces if whole is not None else []), text  # the chunks' own cuts, put together
        if pieces is not None:
            assert fastread.read_documents(text, values=values, pieces=pieces) == whole, text
    return fastread.read_documents(text) is not None


def test_a_diff_reading_in_chunks_shares_as_parse_text_reads(in_chunks: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """SharedParses lets the fast reader cut the first text (in each chunk's process) and cuts the next along it:
    each reads as parse_text reads it, and the second shares the first one's documents."""
    monkeypatch.setattr(source, "FAST_READ_MIN_CHARS", 0)
    texts = [text for _name, text in _inputs_and_renderings() if text.count("\n---") >= 6][:6]
    assert texts
    for text in texts:
        parse = SharedParses()
        first = parse(text, "old.yaml")
        edited = text.replace("\n---", "\n---\n# moved\n---", 1)
        second = parse(edited, "new.yaml")
        for mine, theirs in ((first, parse_text(text, "old.yaml")), (second, parse_text(edited, "new.yaml"))):
            assert [(d.index, d.start, d.data) for d in mine.documents] == [
                (d.index, d.start, d.data) for d in theirs.documents
            ]
            assert mine.diagnostics == theirs.diagnostics
        assert any(a.data is b.data for a in first.documents for b in second.documents)


def test_chunks_of_every_input_and_rendering_read_as_one(in_chunks: None) -> None:
    texts = [text for _name, text in _inputs_and_renderings()]
    assert sum(map(_same_in_chunks, texts)) >= 40
    assert any(len(fastread._chunks(text, 3)) == 3 for text in texts)  # really cut


@settings(max_examples=60, deadline=None, suppress_health_check=_SLOW_WITH_FIXTURE)
@given(st.lists(yaml_block(), min_size=1, max_size=8), st.sampled_from(["", "# head\n", "a: 1\n"]))
def test_chunks_of_generated_streams_read_as_one(in_chunks: None, documents: list[str], head: str) -> None:
    _same_in_chunks(head + "".join(f"---\n{document}\n" for document in documents))


_STREAMS = [text for _name, text in _inputs_and_renderings() if text.count("\n---") >= 3 and len(text) < 60_000]


@settings(max_examples=60, deadline=None, suppress_health_check=_SLOW_WITH_FIXTURE)
@given(st.data())
def test_chunks_of_edited_streams_read_as_one(in_chunks: None, data: st.DataObject) -> None:
    """An edit anywhere, so that what refuses a text (a tab, a `%` line, a syntax error) may be in any chunk."""
    text = data.draw(st.sampled_from(_STREAMS))
    at = data.draw(st.integers(0, len(text)))
    char = data.draw(st.sampled_from(["\t", "\n%YAML 1.2\n", "\n...\n", "]", " &a", "\n---\n", ":", "\x01", "é"]))
    _same_in_chunks(text[:at] + char + text[at:])


# --- checks done while reading ------------------------------------------------------------------------------------


def _catalog_objects() -> list[dict[str, Any]]:
    """Every object of both mutation catalogs, valid and invalid, each with a name of its own."""
    mutated = hidden_mutations.mutated_objects(hidden_mutations.render_bases())
    objects = [obj for base, obj in mutated if not base.endswith(":job")]
    for number, obj in enumerate(objects):
        metadata = obj.get("metadata")
        if isinstance(metadata, dict) and isinstance(metadata.get("name"), str) and metadata["name"]:
            metadata["name"] = f"{metadata['name'][:50]}-{number}"
    return objects


def _catalog_stream() -> str:
    """The catalogs' objects the fast reader reads (not those with a tab, an alias, ...), as one stream; those
    over 64 KiB (the annotation-size cases) are left out to keep the stream small."""
    texts = ["---\n" + to_yaml(obj) for obj in _catalog_objects()]
    return "".join(text for text in texts if len(text) < 65_536 and fastread.read_documents(text) is not None)


CATALOG_STREAM = _catalog_stream()


def _results(text: str, version: str, strict: bool, vouched: bool) -> tuple[list[Any], list[Any], int]:
    vouch = vouch_for(version, strict) if vouched else None
    parsed = parse_text(text, "catalog.yaml", vouch=vouch)
    options = RenderOptions(keep_rendered=True, kubernetes_version=version)
    plan = compile_documents(parsed.documents, options)
    results = list(validate_plan(plan, version, strict))
    return results, [*parsed.diagnostics, *plan.diagnostics], sum(d.vouched for d in parsed.documents)


@pytest.mark.parametrize("version", ["1.20", "1.36", None])
@pytest.mark.parametrize("strict", [True, False])
def test_checks_while_reading_report_what_validate_reports(
    version: str | None, strict: bool, in_chunks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(source, "FAST_READ_MIN_CHARS", 0)
    resolved = resolve_version(version or "1.35")
    plain, plain_diagnostics, none = _results(CATALOG_STREAM, resolved, strict, vouched=False)
    vouched, vouched_diagnostics, clean = _results(CATALOG_STREAM, resolved, strict, vouched=True)
    assert none == 0 and 100 < clean < len(vouched)  # the reader vouched for the valid ones only
    assert sum(r.status.value == "invalid" for r in plain) > 100
    assert vouched == plain
    assert vouched_diagnostics == plain_diagnostics


def test_validate_prints_the_same_with_one_process_or_three(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream over SPLIT_MIN_CHARS with invalid objects in every chunk, through the whole command."""
    text = CATALOG_STREAM
    while len(text) < fastread.SPLIT_MIN_CHARS:
        text += text
    path = tmp_path / "big.yaml"
    path.write_text(text)
    runs = {}
    for jobs in ("1", "3"):
        monkeypatch.setenv("MXJOB_JOBS", jobs)
        runs[jobs] = run_cli(["validate", "--format", "json", str(path)])
    assert runs["1"].exit_code == runs["3"].exit_code == 1
    assert runs["1"].stdout == runs["3"].stdout and runs["1"].stderr == runs["3"].stderr
    assert '"invalid"' in runs["1"].stdout


# --- a diff's first side parsed ahead -----------------------------------------------------------------------------


def _texts_to_parse() -> list[tuple[str, str]]:
    """Every example, golden and corpus input and rendering, and texts parse_text reports on (syntax, a duplicate
    key, a scalar document), with anchors and aliases, empty, or only comments: each under a label of its own."""
    texts = [text for _name, text in _inputs_and_renderings()]
    texts += ["a: [1\n", "a: 1\na: 2\n", "just text\n", "a: &x {b: 1}\nc: *x\n", "", "# nothing\n", "---\n---\n"]
    return [(f"t{number}.yaml", text) for number, text in enumerate(texts)]


@pytest.mark.parametrize("workers", [2, 3])
def test_texts_parsed_ahead_are_what_parse_text_gives(workers: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each clean text's documents come back for its own label (in every part, from its own process); a text
    parse_text reports on, or with aliases, is not parsed ahead."""
    monkeypatch.setattr(readahead, "AHEAD_MIN_CHARS", 1)
    monkeypatch.setattr(current_run(), "workers", workers)
    sizes: list[int] = []

    def run(task: Any, parts: Any) -> Any:
        if getattr(task, "func", None) is readahead._parse_part:  # not the fast reader's own, inside parse_text
            sizes.extend(len(part) for part in parts)
        return forked.run_forked(task, parts)

    monkeypatch.setattr(current_run(), "runner", run)
    texts = _texts_to_parse()
    ready = readahead.parsed_ahead(texts)
    assert len(sizes) == workers and sum(sizes) == len(texts)
    clean = 0
    for label, text in texts:
        expected = parse_text(text, label)
        if expected.diagnostics or "&" in text:
            assert label not in ready, label
            continue
        clean += 1
        assert ready[label][0] is text
        found = ready[label][1]
        assert found.diagnostics == []
        assert [(d.data, d.file, d.index, d.start) for d in found.documents] == [
            (d.data, d.file, d.index, d.start) for d in expected.documents
        ], label
        assert all(d.source is not None and d.source.text is text for d in found.documents)
    assert clean > 40 and len(ready) == clean


def test_too_little_text_for_two_workers_is_parsed_in_its_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(current_run(), "workers", 2)
    monkeypatch.setattr(current_run(), "runner", forked.run_forked)
    texts = _texts_to_parse()
    monkeypatch.setattr(readahead, "AHEAD_MIN_CHARS", sum(len(text) for _label, text in texts) // 2 + 1)
    assert readahead.parsed_ahead(texts) == {}
    monkeypatch.setattr(current_run(), "workers", 1)
    monkeypatch.setattr(readahead, "AHEAD_MIN_CHARS", 1)
    assert readahead.parsed_ahead(texts) == {}


def test_a_first_side_read_ahead_reads_as_one_by_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """read_inputs with a fresh SharedParses: the same documents (and where they were read) and diagnostics as
    reading each file in its turn, and a second side read after it shares the first one's documents."""
    for label, text in _texts_to_parse():
        (tmp_path / label).write_text(text, encoding="utf-8")
    monkeypatch.setattr(readahead, "AHEAD_MIN_CHARS", 1)
    monkeypatch.setattr(current_run(), "workers", 3)
    monkeypatch.setattr(current_run(), "runner", forked.run_forked)
    whole: list[str] = []  # the texts parsed whole in their turn

    def counted(text: str, file: str, **given: Any) -> Any:
        whole.append(file)
        return parse_text(text, file, **given)

    monkeypatch.setattr(inputs_module, "parse_text", counted)
    parse = SharedParses()
    ahead = read_inputs([str(tmp_path)], parse=parse)
    assert not parse.reads_ahead and not parse._ready
    assert len(whole) < len(_texts_to_parse()) - 40  # most were taken as parsed ahead
    again = read_inputs([str(tmp_path)], parse=parse)
    alone = read_inputs([str(tmp_path)])
    for inputs in (ahead, again):
        assert [(d.data, d.file, d.index, d.start) for d in inputs.documents] == [
            (d.data, d.file, d.index, d.start) for d in alone.documents
        ]
        assert inputs.diagnostics == alone.diagnostics and inputs.files == alone.files
    reported = {d.location.file for d in alone.diagnostics if d.location is not None}
    pairs = [(a, b) for a, b in zip(ahead.documents, again.documents, strict=True) if a.file not in reported]
    assert len(pairs) > 40 and all(a.data is b.data for a, b in pairs)  # a file read without a word: shared
