"""MXJOB_EXACT=1 turns every fast path off (compiler/base/exact.py); nothing a user sees may change with it.

The one differential test of the fast paths: the same commands run in process on the same inputs with the fast
paths on and off (`_both`), and must print the same bytes on stdout and stderr, write the same files and exit
alike (`_same`). The inputs: every golden case (against its expected files), example and corpus file and their
renderings, every edit of the mutation catalogs, and the generators of tests/exact_inputs.py and tests/yamlgen.py,
each aimed at one shortcut: texts that once told the fast reader from the exact one, values that do not fit their
tags, objects at the identity rules' edges, pod specs with changed env values for the memo, one
value changed in rendered objects for the compiled validator, jobs at the judge's name limits, lines that trap a
cut by text and edited trees of jobs for a diff's shared parses and compile memo, three renders into a directory
for the stat cache; large streams and a runner forced for the forked parts and chunks.

Every shortcut's use is counted (`_spies`): the fast run of a test must take the shortcuts it names
(`_both(..., taken=...)`), so that no input stops testing one unnoticed, and the exact run must take none.
"""

from __future__ import annotations

import functools
import os
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler import RenderOptions
from mxjob_gitops.compiler.base import exact, limits
from mxjob_gitops.compiler.base import run as compiler_run
from mxjob_gitops.compiler.compile import jobcache, judge, stream
from mxjob_gitops.compiler.compile.checker import job_output_estimate
from mxjob_gitops.compiler.compile.job import compile_object
from mxjob_gitops.compiler.io import forked, runcontext, statcache
from mxjob_gitops.compiler.io.inputs import SharedParses
from mxjob_gitops.compiler.read import fastread, readahead, source
from mxjob_gitops.compiler.render.emit import to_yaml
from mxjob_gitops.compiler.rules.kubevalidate import memo, pod
from mxjob_gitops.compiler.validate import validation
from tests import exact_inputs as gen
from tests.conftest import JOB_EXAMPLE_FILES, REPO, Run, run_cli
from tests.test_golden import CASES, _args
from tests.yamlgen import yaml_block

CORPUS = sorted((REPO / "tests" / "corpus").glob("*.yaml"))
# The run context each command of a test built (io/runcontext.py), latest last.
_BUILT: list[compiler_run.Run] = []
# How often each shortcut was taken since the last command started (see _spies), and in the last fast run.
_TAKEN: Counter[str] = Counter()
_FAST_TAKEN: Counter[str] = Counter()
_SLOW = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large]


@pytest.fixture(autouse=True)
def _record_runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    build = runcontext.command_run

    def recorded() -> compiler_run.Run:
        _BUILT.append(build())
        return _BUILT[-1]

    monkeypatch.setattr(runcontext, "command_run", recorded)
    yield
    _BUILT.clear()


def _count_when(
    monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, shortcut: str, taken: Callable[..., bool]
) -> None:
    """Count `shortcut` each time owner.name returns a result for which taken(result, *args) holds."""
    real = getattr(owner, name)

    def spied(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        if taken(result, *args):
            _TAKEN[shortcut] += 1
        return result

    monkeypatch.setattr(owner, name, spied)


class _CountedSpecs(memo.ValidSpecs):
    """The memo of valid pod specs, counting the specs found in it (each one not checked again)."""

    def __contains__(self, key: bytes) -> bool:
        found = super().__contains__(key)
        _TAKEN["memo"] += found
        return found


@pytest.fixture(autouse=True)
def _spies(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Where each shortcut is taken in this process, a count (a part's child counts nowhere: the parts' own count
    is the fork). The memo starts empty; forks are allowed beside threads earlier tests left (as
    tests/test_fanout.py's runner tests do), not beside a thread of this test."""
    _count_when(monkeypatch, source, "read_documents", "reader", lambda found, *_: found is not None)
    _count_when(monkeypatch, validation, "accepted_fast", "acceptance", lambda accepted, *_: bool(accepted))
    monkeypatch.setattr(pod, "_VALID_SPECS", _CountedSpecs())
    before = set(threading.enumerate())
    monkeypatch.setattr(forked, "_may_fork", lambda: hasattr(os, "fork") and not set(threading.enumerate()) - before)
    run_forked = forked.run_forked  # the runner each command's run is built with (io/runcontext.py)

    def parts(task: Any, given: Any) -> Any:
        _TAKEN["parts"] += len(given) > 1 and forked._may_fork()
        return run_forked(task, given)

    monkeypatch.setattr(runcontext, "run_forked", parts)
    shared_parse = SharedParses.__call__

    def shared(self: SharedParses, text: str, file: str) -> Any:
        _TAKEN["shared"] += bool(self._earlier)  # cut along the texts read before, its known documents not parsed
        return shared_parse(self, text, file)

    monkeypatch.setattr(SharedParses, "__call__", shared)
    reads: list[str] = []
    read_regular = statcache.read_regular

    def read(dir_fd: Any, name: str, limit: int) -> bytes | None:
        reads.append(name)
        return read_regular(dir_fd, name, limit)

    monkeypatch.setattr(statcache, "read_regular", read)
    holds = statcache.StatCache.holds

    def held(self: statcache.StatCache, dir_fd: Any, name: str, data: bytes, digest: str) -> bool:
        read = len(reads)
        found = holds(self, dir_fd, name, data, digest)
        _TAKEN["statcache"] += found and len(reads) == read  # vouched for by its stat data, not read
        return found

    monkeypatch.setattr(statcache.StatCache, "holds", held)
    _count_when(monkeypatch, statcache.StatCache, "vouches", "statcache", lambda found, *_: bool(found))
    representatives = judge.representatives

    def judged(compiled: Any, options: Any) -> Any:
        _TAKEN["representatives"] += options.engine != "jobset" and not exact.exact("representatives")
        return representatives(compiled, options)

    monkeypatch.setattr(judge, "representatives", judged)
    yield
    _TAKEN.clear()


def _both(
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    cwd: Path | None = None,
    stdin: str | None = None,
    taken: tuple[str, ...] = (),
) -> tuple[Run, Run]:
    """The command with the fast paths on, then off. The fast run must take each shortcut `taken` names (counted
    by _spies; also kept in _FAST_TAKEN), the exact run none."""
    monkeypatch.delenv("MXJOB_EXACT", raising=False)
    _TAKEN.clear()
    fast = run_cli(args, cwd=cwd, stdin=stdin)
    _FAST_TAKEN.clear()
    _FAST_TAKEN.update(_TAKEN)
    missed = [name for name in taken if not _FAST_TAKEN[name]]
    assert not missed, f"{' '.join(args)}: the fast run did not take {missed} ({fast.stderr[-500:]})"
    monkeypatch.setenv("MXJOB_EXACT", "1")
    _TAKEN.clear()
    try:
        exact_run = run_cli(args, cwd=cwd, stdin=stdin)
        assert _BUILT[-1].off == frozenset(exact.SHORTCUTS), "the command line did not turn the fast paths off"
    finally:
        monkeypatch.delenv("MXJOB_EXACT")
    taken_anyway = {name: count for name, count in _TAKEN.items() if count and name in exact.SHORTCUTS}
    assert not taken_anyway, f"{' '.join(args)}: shortcuts taken with MXJOB_EXACT=1: {taken_anyway}"
    assert not exact.exact("reader"), "the command's run outlived the command"
    return fast, exact_run


def _same(fast: Run, exact_run: Run, what: str) -> None:
    assert (fast.exit_code, fast.stderr) == (exact_run.exit_code, exact_run.stderr), what
    assert fast.stdout == exact_run.stdout, what


def _alike(monkeypatch: pytest.MonkeyPatch, args: list[str], what: str = "", **given: Any) -> Run:
    """_both and _same: the fast run's result."""
    fast, exact_run = _both(monkeypatch, args, **given)
    _same(fast, exact_run, what or " ".join(args))
    return fast


@pytest.fixture(scope="module")
def pad(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A file of comments only, 256 KiB and more: read first, it makes the run read every later text fast
    (compiler/read/source.py: FAST_READ_MIN_CHARS of the run's input), and adds nothing to the output."""
    path = tmp_path_factory.mktemp("pad") / "pad.yaml"
    path.write_text(("# " + "x" * 1000 + "\n") * 300, encoding="utf-8")
    assert path.stat().st_size >= fastread.FAST_READ_MIN_CHARS
    return str(path)


@pytest.fixture
def in_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three processes, and work shared out however little there is: texts cut into chunks (the fast reader), jobs
    compiled ahead and a diff's first side parsed ahead."""
    monkeypatch.setenv("MXJOB_JOBS", "3")
    monkeypatch.setattr(fastread, "SPLIT_MIN_CHARS", 16)
    monkeypatch.setattr(jobcache, "AHEAD_MIN_JOBS", 1)
    monkeypatch.setattr(readahead, "AHEAD_MIN_CHARS", 1)


# --- golden cases, examples, corpus ---------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_cases_are_the_same_without_fast_paths(case: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MXJOB_EXACT", "1")
    stdin_file = case / "stdin.yaml"
    stdin = stdin_file.read_text(encoding="utf-8") if stdin_file.exists() else None
    result = run_cli(_args(case), cwd=case, stdin=stdin)
    assert result.stdout == (case / "expected.out").read_text(encoding="utf-8")
    assert result.stderr == (case / "expected.err").read_text(encoding="utf-8")
    assert f"{result.exit_code}\n" == (case / "expected.exit").read_text(encoding="utf-8")


@pytest.mark.parametrize("path", [*JOB_EXAMPLE_FILES, *CORPUS], ids=lambda p: p.name)
def test_examples_and_corpus_read_render_and_validate_alike(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for command in (["render", str(path)], ["render", "--format", "json", str(path)], ["validate", str(path)]):
        _alike(monkeypatch, command)


@pytest.fixture(scope="module")
def texts(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Every example, golden and corpus input and rendering, a file each."""
    folder = tmp_path_factory.mktemp("texts")
    for number, (_name, text) in enumerate(gen.inputs_and_renderings()):
        (folder / f"t{number:03}.yaml").write_text(text, encoding="utf-8")
    return sorted(map(str, folder.iterdir()))


def test_every_input_and_rendering_read_fast_renders_and_validates_alike(
    texts: list[str], pad: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each text after the pad (so read fast): rendered alone; then all validated in one command."""
    read = 0
    for path in texts:
        _alike(monkeypatch, ["render", pad, path])
        read += _FAST_TAKEN["reader"] > 1  # the pad, then the text
    assert read >= 40, "the fast reader read too few of the inputs"
    _alike(monkeypatch, ["validate", pad, *texts], taken=("reader", "acceptance", "memo"))


# --- the readers -----------------------------------------------------------------------------------------------------

# Values the fast reader once read otherwise than the exact one (and kubectl) once a file passed 256 KiB.
HOSTILE = [
    "data: {k: train\n  \n }\n",
    "data:\n  x: {k: train,\n   \n   j: x\n  }\n",
    'data:\n  k: "x\\\n  y"\n',
    "data:\n  k: >1+\n   x\n  y\n\n",
    "data:\n  k: |2-\n     x\n    y\n",
    "data:\n  k: [x,\n  \n  y]\n",
    'data:\n  k: "a\n\n   b"\n',
    "data:\n  k: a\n    \n   b\n",
]


@pytest.mark.parametrize("body", HOSTILE)
def test_hostile_values_read_alike_in_a_large_file(body: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hostile\n"
    padding = "".join(
        f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pad-{n}\ndata:\n  k: '{'x' * 200}'\n"
        for n in range(1400)
    )
    path = tmp_path / "big.yaml"
    path.write_text(head + body + padding, encoding="utf-8")
    assert path.stat().st_size > 256 * 1024
    fast = _alike(monkeypatch, ["render", str(path)], body)
    if fast.exit_code == 0:  # the exact reader's value is the one every Go reader gives (tests/test_yaml_readers.py)
        first = next(yaml.safe_load_all(fast.stdout))
        assert first["metadata"]["name"] == "hostile"


def test_texts_the_fast_reader_reads_are_read_alike(pad: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each of tests/exact_inputs.py's ACCEPTED texts, the value of a ConfigMap that the fast reader reads."""
    for text in gen.ACCEPTED:
        stream = gen.config_map("accepted", text)
        for args in (["render", pad, "-"], ["render", "--format", "json", pad, "-"]):
            fast = _alike(monkeypatch, args, text, stdin=stream)
            assert fast.exit_code == 0 and _FAST_TAKEN["reader"] == 2, (text, fast.stderr)


@pytest.mark.parametrize("text", gen.REFUSED)
def test_texts_the_fast_reader_once_misread_are_read_alike(
    text: str, pad: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each of tests/exact_inputs.py's REFUSED texts as it is and as a ConfigMap's value, after the pad (so the
    fast reader is asked): what it does not refuse it must read as the exact reader does."""
    for written in (text, gen.config_map("refused", text)):
        _alike(monkeypatch, ["render", pad, "-"], written, stdin=written, taken=("reader",))


_PAD_SLOW = settings(max_examples=40, deadline=None, suppress_health_check=_SLOW)
_CHUNKS_SLOW = settings(max_examples=25, deadline=None, suppress_health_check=_SLOW)  # each example forks


@_PAD_SLOW
@given(
    blocks=st.lists(yaml_block(indent=2), min_size=1, max_size=3),
    flows=st.lists(gen.multiline_flow(), max_size=2),
)
def test_generated_values_render_alike_in_a_large_stream(
    blocks: list[str], flows: list[str], pad: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tests/yamlgen.py's scalars and collections (every quoting and block style), and values spread over lines,
    in objects that render passes through as they were read: the values printed, the diagnostics and the exit
    code do not change."""
    head = "".join(
        f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: generated-{n}\nextra:\n{block}\n"
        for n, block in enumerate(blocks)
    )
    head += "".join(gen.config_map(f"flow-{n}", flow) for n, flow in enumerate(flows))
    _alike(monkeypatch, ["render", pad, "-"], head, stdin=head, taken=("reader",))


def _editable() -> list[str]:
    return [text for _name, text in gen.inputs_and_renderings() if len(text) < 20_000][:40]


@_PAD_SLOW
@given(data=st.data())
def test_edited_texts_read_alike(data: st.DataObject, pad: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Real inputs edited at random: whatever rapidyaml accepts that libyaml refuses must be refused."""
    text = data.draw(st.sampled_from(_editable()))
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        edit = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        char = data.draw(st.sampled_from(gen.EDIT_CHARS))
        text = text[:at] + (char if edit != "delete" else "") + text[at + (edit != "insert") :]
    _alike(monkeypatch, ["render", pad, "-"], text, stdin=text, taken=("reader",))


@pytest.mark.parametrize("text", [*gen.MISFITS, "a: [!!int x, !!int x, !!int 1, !!int 1]\n"])
def test_values_that_do_not_fit_their_tags_are_reported_alike(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for written in (text, gen.config_map("misfit", text)):
        fast = _alike(monkeypatch, ["render", "-"], written, stdin=written)
        assert fast.exit_code != 0 and "is not a valid !!" in fast.stderr


# --- large streams, in parts -----------------------------------------------------------------------------------------


def _renamed(text: str, suffix: str) -> str:
    """A spec with every job (and its pass-through objects) given new names, so copies do not collide."""
    return re.sub(r"(?m)^(  name: )([a-z0-9-]+)$", lambda m: f"{m.group(1)}{m.group(2)}-{suffix}", text)


def _large_specs(copies: int) -> str:
    texts = [p.read_text(encoding="utf-8") for p in JOB_EXAMPLE_FILES]
    return "".join(f"---\n{_renamed(text, str(n))}" for n in range(copies) for text in texts)


@pytest.fixture(scope="module")
def large_rendering() -> Iterator[str]:
    """About 3 MB of rendered objects: the fast reader and the forked parts take it."""
    result = run_cli(["render", "-"], stdin=_large_specs(150))
    assert result.exit_code == 0, result.stderr
    assert len(result.stdout) > 2 * 1024 * 1024
    yield result.stdout


def test_a_large_spec_stream_renders_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """Over 2 MiB of estimated output: the render is cut into parts, done in children."""
    monkeypatch.setenv("MXJOB_JOBS", "3")
    specs = _large_specs(150)
    for args in (["render", "-"], ["render", "--format", "json", "-"]):
        _alike(monkeypatch, args, stdin=specs, taken=("reader", "parts", "representatives"))
    _alike(monkeypatch, ["validate", "-"], stdin=specs, taken=("reader", "representatives"))


def test_a_large_rendered_stream_validates_and_diffs_alike(
    large_rendering: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _alike(monkeypatch, ["validate", "-"], stdin=large_rendering, taken=("reader", "memo"))
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(large_rendering, encoding="utf-8")
    edited = large_rendering.replace("image: ", "image: registry.example/", 40)
    new.write_text(edited.replace("kind: Service\n", "kind: Service\n", 1), encoding="utf-8")
    for fmt in ("json",):  # the formats print the same differences (tests/test_golden.py's diff cases)
        _alike(monkeypatch, ["diff", "--format", fmt, str(old), str(new)], taken=("reader", "shared"))


def test_a_rendered_stream_read_in_chunks_validates_alike(
    large_rendering: str, in_parts: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fast reader cuts the text into three chunks, each read in a child."""
    _alike(monkeypatch, ["validate", "--format", "json", "-"], stdin=large_rendering, taken=("reader", "parts"))


# Objects given as they are, read fast or not: the reader's floats and Lists as the checks meet them.
_GIVEN = [
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "plain"}, "data": {"a": "1"}},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "unknown-field"}, "bogus": 1},
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "float-port"}, "spec": {"ports": [{"port": 80.0}]}},
    {"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "l"}}]},
    {"apiVersion": "v1", "kind": "List", "items": []},
]


@pytest.mark.parametrize("strict", ["--strict", "--no-strict"])
def test_objects_given_as_they_are_are_judged_alike(strict: str, pad: str, monkeypatch: pytest.MonkeyPatch) -> None:
    stream = yaml.safe_dump_all(_GIVEN, sort_keys=False)
    _alike(monkeypatch, ["validate", strict, pad, "-"], stdin=stream, taken=("reader",))


def test_the_mutation_catalogs_read_in_chunks_validate_alike(
    readable_catalog: str, pad: str, in_parts: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Invalid objects in every chunk; each chunk read in its own process."""
    args = ["validate", "--format", "json", pad, "-"]
    _alike(monkeypatch, args, stdin=readable_catalog, taken=("reader", "parts"))


@_CHUNKS_SLOW
@given(documents=st.lists(yaml_block(), min_size=1, max_size=8), head=st.sampled_from(["", "# head\n", "a: 1\n"]))
def test_generated_streams_read_in_chunks_render_alike(
    documents: list[str], head: str, pad: str, in_parts: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = head + "".join(gen.config_map(f"g{n}", document) for n, document in enumerate(documents))
    _alike(monkeypatch, ["render", pad, "-"], text, stdin=text, taken=("reader",))


def _streams() -> list[str]:
    return [text for _name, text in gen.inputs_and_renderings() if text.count("\n---") >= 3 and len(text) < 60_000]


@_CHUNKS_SLOW
@given(data=st.data())
def test_edited_streams_read_in_chunks_render_alike(
    data: st.DataObject, pad: str, in_parts: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit anywhere, so that what refuses a text (a tab, a `%` line, a syntax error) may be in any chunk."""
    text = data.draw(st.sampled_from(_streams()))
    at = data.draw(st.integers(0, len(text)))
    text = text[:at] + data.draw(st.sampled_from(gen.EDIT_CHARS)) + text[at:]
    _alike(monkeypatch, ["render", pad, "-"], text, stdin=text, taken=("reader",))


# --- render -o and its stat cache ------------------------------------------------------------------------------------


def _tree(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def _after_a_tick(directory: Path) -> None:
    """Wait until the file system's clock has passed every file's ctime in `directory` (bounded): only files
    older than a render are recorded by it (compiler/io/statcache.py)."""
    newest = max(p.lstat().st_ctime_ns for p in directory.iterdir())
    probe = directory.parent / "probe"
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        probe.write_bytes(b"")
        if probe.stat().st_mtime_ns > newest:
            return
    pytest.fail("the file system clock did not move")


@pytest.mark.parametrize("jobs", ["1", "3"])
def test_render_into_a_directory_writes_alike(jobs: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Four times each way: the first writes, the second records what it finds unchanged, the third is vouched
    for by the stat cache, the fourth after a hand edit that keeps size and mtime. With three processes, the parts
    vouch for their own files."""
    monkeypatch.setenv("MXJOB_JOBS", jobs)
    monkeypatch.setattr(stream, "FANOUT_MIN_BYTES", 0)  # in parts however small (with three processes)
    specs = tmp_path / "specs.yaml"
    specs.write_text(_large_specs(10), encoding="utf-8")
    fast_dir, exact_dir = tmp_path / "fast", tmp_path / "exact"
    for turn in range(4):
        if turn == 3:
            for directory in (fast_dir, exact_dir):
                target = next(p for p in sorted(directory.glob("pod-*.yaml")))
                before, info = target.read_bytes(), target.stat()
                target.write_bytes(before.replace(b"image: ", b"image:_", 1))
                os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))
        _TAKEN.clear()
        monkeypatch.delenv("MXJOB_EXACT", raising=False)
        fast = run_cli(["render", "-o", str(fast_dir), str(specs)])
        vouched = _TAKEN["statcache"]
        monkeypatch.setenv("MXJOB_EXACT", "1")
        _TAKEN.clear()
        exact_run = run_cli(["render", "-o", str(exact_dir), str(specs)])
        monkeypatch.delenv("MXJOB_EXACT")
        assert _TAKEN["statcache"] == 0
        assert fast.exit_code == exact_run.exit_code == 0, (fast.stderr, exact_run.stderr)
        assert fast.stdout == exact_run.stdout
        assert fast.stderr.replace(str(fast_dir), "DIR") == exact_run.stderr.replace(str(exact_dir), "DIR")
        assert _tree(fast_dir) == _tree(exact_dir)
        assert (vouched > 50) is (turn >= 2), (turn, vouched)
        if turn == 3:
            assert "1 written" in fast.stderr
        _after_a_tick(fast_dir)
        _after_a_tick(exact_dir)


# --- the switch ----------------------------------------------------------------------------------------------------


def test_a_fast_path_can_be_turned_off_alone_and_a_wrong_name_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MXJOB_EXACT", "reader, memo")
    alone = run_cli(["render", str(JOB_EXAMPLE_FILES[0])])
    assert alone.exit_code == 0, alone.stderr
    assert [name for name in exact.SHORTCUTS if name in _BUILT[-1].off] == ["reader", "memo"]
    monkeypatch.setenv("MXJOB_EXACT", "fastest")
    wrong = run_cli(["render", str(JOB_EXAMPLE_FILES[0])])
    assert wrong.exit_code == 2 and "MXJOB_EXACT: 'fastest' is no fast path" in wrong.stderr
    assert wrong.stdout == ""


# --- the checks: memo, compiled validator, checks while reading, representatives -------------------------


def _catalog_stream() -> str:
    """Every edit of both mutation catalogs (tests/hidden_mutations.py, tests/kube_mutations.py), each object in a
    namespace of its own unless the edit is to its namespace (so no two collide), as one YAML stream."""
    from tests import hidden_mutations

    bases = hidden_mutations.render_bases()
    documents = []
    for index, (base, obj) in enumerate(hidden_mutations.mutated_objects(bases)):
        metadata = obj.get("metadata")
        if isinstance(metadata, dict) and metadata.get("namespace") == bases[base]["metadata"].get("namespace"):
            metadata["namespace"] = f"mutation-{index}"
        documents.append(obj)
    assert len(documents) > 300
    return yaml.safe_dump_all(documents, sort_keys=False)


@pytest.fixture(scope="module")
def catalog_stream() -> str:
    return _catalog_stream()


@pytest.fixture(scope="module")
def readable_catalog() -> str:
    """The catalogs' objects the fast reader reads (not those with a tab, an alias, ...), each of its own name, as
    one stream; those over 64 KiB (the annotation-size cases) are left out to keep the stream small."""
    from tests import hidden_mutations

    mutated = hidden_mutations.mutated_objects(hidden_mutations.render_bases())
    objects = [obj for base, obj in mutated if not base.endswith(":job")]
    for number, obj in enumerate(objects):
        metadata = obj.get("metadata")
        if isinstance(metadata, dict) and isinstance(metadata.get("name"), str) and metadata["name"]:
            metadata["name"] = f"{metadata['name'][:50]}-{number}"
    texts = ["---\n" + to_yaml(obj) for obj in objects]
    return "".join(text for text in texts if len(text) < 65_536 and fastread.read_documents(text) is not None)


@pytest.mark.parametrize(
    "command",
    [
        ["validate", "-"],
        ["validate", "--kubernetes-version", "1.20", "-"],
        ["render", "-"],
    ],
    ids=["validate", "validate-1.20", "render"],
)
def test_the_mutation_catalogs_are_judged_alike(
    command: list[str], catalog_stream: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pod-spec memo, the compiled schema acceptance and the representatives
    all meet every edit of the catalogs: the verdicts, their wording and the exit code must not change."""
    taken = ("representatives",) if command[0] == "render" else ("memo", "acceptance")
    fast = _alike(monkeypatch, command, stdin=catalog_stream, taken=taken)
    assert fast.exit_code == 1  # the catalogs hold invalid objects, and each is checked
    if command[0] == "validate":
        summary = re.search(r"(\d+) valid, (\d+) invalid", fast.stdout)
        assert summary is not None and int(summary[1]) > 100 and int(summary[2]) > 100, fast.stdout[-300:]


@pytest.mark.parametrize(("version", "strict"), [("1.20", "--no-strict"), ("1.35", "--strict")])
def test_the_readable_catalog_read_fast_is_judged_alike(
    version: str, strict: str, readable_catalog: str, pad: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read fast or not: the same verdicts under two versions and strictnesses."""
    args = ["validate", "--kubernetes-version", version, strict, pad, "-"]
    fast = _alike(monkeypatch, args, stdin=readable_catalog, taken=("reader",))
    assert fast.exit_code == 1


_VALID_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "team"}}


@settings(max_examples=80, deadline=None, suppress_health_check=_SLOW)
@given(objects=st.lists(gen.identity_objects(), min_size=1, max_size=8), version=st.sampled_from(["1.35", "1.36"]))
@example(objects=[{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "1-front"}}], version="1.35")
@example(objects=[{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"namespace": ""}}], version="1.35")
def test_objects_at_the_identity_rules_edges_are_judged_alike(
    objects: list[Any], version: str, pad: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tests/exact_inputs.py's objects (a Service named 1-front is valid from 1.36 on), after one that passes, read
    after the pad: the fast reader takes every text it accepts (not an empty string, which it leaves to the exact
    reader), so their odd scalars (numbers, nulls, non-ASCII names) meet both readers and the checks after."""
    stream = yaml.safe_dump_all([_VALID_MAP, *objects], sort_keys=False)
    _alike(monkeypatch, ["render", "--kubernetes-version", version, pad, "-"], stream, stdin=stream)


@functools.cache
def _pod_specs() -> list[Any]:
    """Each pod base of the examples, then every pod edit of both catalogs."""
    from tests import hidden_mutations

    bases = hidden_mutations.render_bases()
    specs = [bases[base]["spec"] for base in hidden_mutations.EXAMPLE_PODS]
    specs += [
        obj.get("spec")
        for base, obj in hidden_mutations.mutated_objects(bases)
        if base in hidden_mutations.EXAMPLE_PODS
    ]
    return specs


def _pod(name: str, spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


@settings(max_examples=80, deadline=None, suppress_health_check=_SLOW)
@given(
    index=st.integers(0, 10_000),
    first=st.lists(gen.ENV_VALUE, max_size=4),
    second=st.lists(gen.ENV_VALUE, max_size=4),
    version=st.sampled_from([None, "1.20", "1.32", "1.36"]),
)
def test_a_pod_spec_remembered_with_other_env_values_is_judged_alike(
    index: int, first: list[Any], second: list[Any], version: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spec with one set of env values, then with another (the memo keys each value by whether it is empty,
    which is all the rules read of it), after a valid example pod twice (the second remembered)."""
    specs = _pod_specs()
    spec = specs[index % len(specs)]
    pods = [_pod("base-1", specs[0]), _pod("base-2", specs[0])]
    pods += [_pod("first", gen.with_env_values(spec, first)), _pod("second", gen.with_env_values(spec, second))]
    stream = yaml.safe_dump_all(pods, sort_keys=False)
    flags = ["--kubernetes-version", version] if version else []
    _alike(monkeypatch, ["validate", *flags, "-"], stream, stdin=stream, taken=("memo",))


def test_a_value_beside_value_from_is_found_after_the_same_var_without_one(monkeypatch: pytest.MonkeyPatch) -> None:
    source_ref = {"fieldRef": {"fieldPath": "metadata.name"}}
    pods = [
        _pod(
            name,
            {
                "containers": [
                    {"name": "c", "image": "x", "env": [{"name": "X", "value": value, "valueFrom": source_ref}]}
                ]
            },
        )
        for name, value in (("empty", ""), ("empty-again", ""), ("set", "set"))
    ]
    fast = _alike(monkeypatch, ["validate", "-"], stdin=yaml.safe_dump_all(pods), taken=("memo",))
    assert fast.exit_code == 1 and "may not be specified when `value` is not empty" in fast.stdout + fast.stderr


@settings(max_examples=80, deadline=None, suppress_health_check=_SLOW)
@given(data=st.data(), strict=st.booleans())
def test_rendered_objects_with_one_value_changed_are_judged_alike(
    data: st.DataObject, strict: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One rendered object of each kind, then one with a value changed anywhere but apiVersion and kind (a float,
    a wrong type, an unknown field): the compiled validator accepts what the explaining one finds nothing in."""
    samples = gen.example_renderings()
    manifest = data.draw(st.sampled_from(samples))
    path = data.draw(st.sampled_from([p for p in gen.paths(manifest)[1:] if p[0] not in ("apiVersion", "kind")]))
    mutant = gen.replaced(manifest, path, data.draw(gen.MUTANTS))
    stream = yaml.safe_dump_all([*samples, mutant], sort_keys=False)
    args = ["validate", "--strict" if strict else "--no-strict", "-"]
    _alike(monkeypatch, args, f"{path}", stdin=stream, taken=("acceptance",))


# Objects the compiled validator and the explaining one once told apart (a float where Kubernetes wants an integer).
_TOLD_APART = [
    (("spec", "containers", 0, "imagePullPolicyy"), "Always"),  # unknown field
    (("spec", "containers", 0, "ports"), [{"containerPort": "eighty"}]),  # wrong type
    (("spec", "containers", 0, "ports"), [{"containerPort": 80.0}]),
    (("spec", "containers"), None),
    (("metadata", "labels"), {"a": 1}),
]


@pytest.mark.parametrize(("path", "value"), _TOLD_APART)
def test_objects_the_validators_once_told_apart_are_judged_alike(
    path: tuple[str | int, ...], value: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pod_object = next(m for m in gen.example_renderings() if m["kind"] == "Pod")
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80.0}]}}
    stream = yaml.safe_dump_all([pod_object, gen.replaced(pod_object, path, value), service], sort_keys=False)
    fast = _alike(monkeypatch, ["validate", "-"], stdin=stream, taken=("acceptance",))
    assert "1 valid, 2 invalid" in fast.stdout + fast.stderr


_JOBS = gen.example_jobs()


@settings(max_examples=40, deadline=None, suppress_health_check=_SLOW)
@given(data=st.data())
def test_a_job_with_a_float_anywhere_is_judged_alike(data: st.DataObject, monkeypatch: pytest.MonkeyPatch) -> None:
    """validate walks a job for floats once, not each object it renders (exact while the compiler writes no float
    of its own: tests/test_validate_fast.py): a float anywhere in a job gives the same results."""
    spec = data.draw(st.sampled_from(_JOBS))
    leaves = [p for p in gen.paths(spec)[1:] if p[0] not in ("apiVersion", "kind") and gen.is_leaf(spec, p)]
    path = data.draw(st.sampled_from(leaves))
    stream = yaml.safe_dump(gen.replaced(spec, path, data.draw(gen.FLOATS)), sort_keys=False)
    _alike(monkeypatch, ["validate", "-"], f"{path}", stdin=stream)


@pytest.mark.parametrize("spec", _JOBS, ids=[j["metadata"]["name"] for j in _JOBS])
def test_a_job_written_with_a_float_quantity_is_found_valid_either_way(
    spec: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    changed = yaml.safe_load(yaml.safe_dump(spec))
    template = next(iter(changed["spec"]["mxReplicaSpecs"].values()))["template"]
    template["spec"]["containers"][0]["resources"] = {"limits": {"cpu": 2.5}}  # the compiler writes "2500m"
    fast = _alike(monkeypatch, ["validate", "-"], stdin=yaml.safe_dump(changed), taken=("acceptance",))
    assert fast.exit_code == 0, fast.stdout + fast.stderr


@pytest.mark.parametrize("engine", ["pods", "jobset"])
@pytest.mark.parametrize("version", ["1.23", "1.35", "1.36"])
def test_jobs_at_the_name_limits_are_judged_alike(engine: str, version: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Job names from fitting to one character over (the scheduler's names, then the workers' at 100 and more,
    are the longest; tests/test_judge_names.py holds why the highest index stands for every one), each job in a
    namespace of its own; the jobset engine judges every object anyway."""
    jobs = []
    for length in range(47, 54):
        for workers in (1, 10, 11, 101):
            spec = gen.long_named_job(length, workers)
            spec["metadata"]["namespace"] = f"w{workers}"
            jobs.append(spec)
    stream = yaml.safe_dump_all(jobs, sort_keys=False)
    args = ["validate", "--format", "json", "--engine", engine, "--kubernetes-version", version, "-"]
    fast = _alike(monkeypatch, args, stdin=stream, taken=("representatives",) if engine == "pods" else ())
    assert fast.exit_code == 1 and '"valid"' in fast.stdout  # the limit lies inside the lengths tried


# --- diff: shared parses, the compile memo, jobs compiled and texts parsed ahead --------------------------------------


def _diff_alike(
    monkeypatch: pytest.MonkeyPatch, old_tree: gen.Tree, new_tree: gen.Tree, options: list[str], fmt: str, where: Path
) -> Run:
    """The diff of the two trees with the fast paths on (in one process, then in three with every share-out
    forced) and off: the same output. The fast runs share parses."""
    old, new = where / "old", where / "new"
    gen.write_tree(old, old_tree)
    gen.write_tree(new, new_tree)
    args = ["diff", "--color", "never", "--format", fmt, *options, str(old), str(new)]
    monkeypatch.setenv("MXJOB_JOBS", "1")
    # A side with no file left is refused before anything is read ("no ... files found"): nothing to share.
    fast = _alike(monkeypatch, args, taken=("shared",) if old_tree and new_tree else ())
    with monkeypatch.context() as forced:
        forced.setenv("MXJOB_JOBS", "3")
        forced.setattr(jobcache, "AHEAD_MIN_JOBS", 1)
        forced.setattr(readahead, "AHEAD_MIN_CHARS", 1)
        _TAKEN.clear()
        monkeypatch.delenv("MXJOB_EXACT", raising=False)
        in_parts = run_cli(args)
    assert (in_parts.exit_code, in_parts.stdout, in_parts.stderr) == (fast.exit_code, fast.stdout, fast.stderr)
    return fast


@settings(max_examples=25, deadline=None, suppress_health_check=_SLOW)
@given(
    data=st.data(),
    old_tree=gen.trees(),
    options=st.sampled_from(gen.DIFF_OPTIONS),
    fmt=st.sampled_from(("text", "json")),
)
def test_edited_trees_diff_alike(
    data: st.DataObject,
    old_tree: gen.Tree,
    options: list[str],
    fmt: str,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """tests/exact_inputs.py's trees of jobs and other objects, and a few edits of each (change, add, delete,
    move, duplicate a name, break a job, change a PriorityClass value)."""
    new_tree = data.draw(gen.edited(old_tree))
    _diff_alike(monkeypatch, old_tree, new_tree, options, fmt, tmp_path_factory.mktemp("trees"))


def test_a_tree_emptied_by_its_edits_diffs_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file deleted on the new side: both ways refuse it alike (exit 2, nothing shared to take)."""
    old_tree = {"f0.yaml": [gen.small_job("alpha", 1, "mxnet:1.9", None, True)]}
    fast = _diff_alike(monkeypatch, old_tree, {}, [], "text", tmp_path)
    assert fast.exit_code == 2 and "files found in" in fast.stderr, fast.stderr


def test_a_priority_class_value_changed_elsewhere_renders_the_unchanged_job_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old_tree = {
        "f0.yaml": [gen.small_job("alpha", 2, "mxnet:1.9", "high", True, 2)],
        "p.yaml": [gen.priority_class(10)],
    }
    new_tree = {"f0.yaml": old_tree["f0.yaml"], "p.yaml": [gen.priority_class(-10)]}
    fast = _diff_alike(monkeypatch, old_tree, new_tree, gen.GANG, "brief", tmp_path)
    assert "PodGroup alpha modified" in fast.stdout


def test_an_object_that_passed_on_the_old_side_is_still_a_duplicate_on_the_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old_tree = {"f0.yaml": [gen.small_job("alpha", 1, "mxnet:1.9", None, True), gen.PASSING[0]]}
    new_tree = {"f0.yaml": old_tree["f0.yaml"], "f1.yaml": [gen.PASSING[0]]}
    fast = _diff_alike(monkeypatch, old_tree, new_tree, [], "text", tmp_path)
    assert fast.exit_code == 2 and "ConfigMap settings is also produced by" in fast.stderr


def test_a_diff_in_three_processes_compiles_ahead_alike(
    tmp_path: Path, in_parts: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    old_tree = {f"f{n}.yaml": [gen.small_job(f"job-{n}", 2, "mxnet:1.9", None, True)] for n in range(7)}
    new_tree = {
        **old_tree,
        **{f"f{n}.yaml": [gen.small_job(f"job-{n}", 3, "mxnet:2.0", None, True)] for n in (1, 3, 5)},
    }
    gen.write_tree(tmp_path / "old", old_tree)
    gen.write_tree(tmp_path / "new", new_tree)
    fast = _alike(monkeypatch, ["diff", str(tmp_path / "old"), str(tmp_path / "new")], taken=("shared", "parts"))
    assert fast.exit_code == 1 and "job-1" in fast.stdout and "job-0" not in fast.stdout


@pytest.mark.parametrize("jobs", ["1", "3"])
def test_the_output_limit_is_crossed_at_the_same_job(
    jobs: str, tmp_path: Path, in_parts: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The limit (lowered to about three jobs' worth) lets the old side's three jobs through and stops the new
    side at its fourth, whether the estimates come from children or not."""
    monkeypatch.setenv("MXJOB_JOBS", jobs)
    old_tree = {f"f{n}.yaml": [gen.small_job(f"job-{n}", 2, "mxnet:1.9", None, True)] for n in range(3)}
    new_tree = {**old_tree, **{f"f{n}.yaml": [gen.small_job(f"job-{n}", 2, "mxnet:1.9", None, True)] for n in (3, 4)}}
    compiled, _found = compile_object(old_tree["f0.yaml"][0], RenderOptions(), True, {}, {})
    assert compiled is not None and compiled.job is not None
    monkeypatch.setattr(limits, "MAX_OUTPUT_BYTES", 3 * job_output_estimate(compiled.job))
    gen.write_tree(tmp_path / "old", old_tree)
    gen.write_tree(tmp_path / "new", new_tree)
    fast = _alike(monkeypatch, ["diff", str(tmp_path / "old"), str(tmp_path / "new")], taken=("shared",))
    assert fast.exit_code == 2 and "the rendering would be about" in fast.stderr, fast.stderr
    assert "new/f3.yaml" in fast.stderr and "old/" not in fast.stderr


@settings(max_examples=60, deadline=None, suppress_health_check=_SLOW)
@given(others=st.lists(gen.LINE_TEXTS, min_size=1, max_size=3), data=st.data())
def test_texts_cut_along_earlier_ones_diff_alike(
    others: list[str], data: st.DataObject, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tests/exact_inputs.py's lines, in texts on the first side; on the second, the same texts and one made of
    their lines and documents, with lines and pieces dropped, added and moved: each read as if alone."""
    pieces = [piece for other in others for piece in re.split(r"(?m)^(?=---)", other) if piece] + others
    parts = data.draw(st.lists(st.sampled_from(pieces) | st.sampled_from(gen.LINES).map(lambda line: line + "\n")))
    text = "".join(parts) + data.draw(st.sampled_from(("", "---", "--- x", "...", "%", "a: 1", "\n---\n")))
    where = tmp_path_factory.mktemp("cut")
    for side in ("old", "new"):
        (where / side).mkdir()
        for number, other in enumerate(others):
            (where / side / f"other-{number}.yaml").write_text(other, encoding="utf-8")
    (where / "new" / "new.yaml").write_text(text, encoding="utf-8")
    (where / "new" / "again.yaml").write_text(text, encoding="utf-8")
    _alike(monkeypatch, ["diff", "--format", "json", str(where / "old"), str(where / "new")], text)


def test_inputs_parsed_ahead_and_shared_diff_alike(
    texts: list[str], tmp_path: Path, in_parts: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every input and rendering, and texts a reader reports on, on the first side (parsed ahead in three
    processes, the large ones read in chunks); on the second, the same with a document moved in each."""
    bad = ["a: [1\n", "a: 1\na: 2\n", "just text\n", "a: &x {b: 1}\nc: *x\n", "", "# nothing\n", "---\n---\n"]
    small = [text for text in map(Path.read_text, map(Path, texts)) if len(text) < 20_000]
    assert len(small) > 40
    all_texts = small[:50] + bad
    for side in ("old", "new"):
        (tmp_path / side).mkdir()
    for number, text in enumerate(all_texts):
        (tmp_path / "old" / f"t{number:03}.yaml").write_text(text, encoding="utf-8")
        moved = text.replace("\n---", "\n---\n# moved\n---", 1)
        (tmp_path / "new" / f"t{number:03}.yaml").write_text(moved, encoding="utf-8")
    args = ["diff", "--format", "json", str(tmp_path / "old"), str(tmp_path / "new")]
    _alike(monkeypatch, args, taken=("shared", "parts", "reader"))
