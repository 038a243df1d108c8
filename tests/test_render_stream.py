"""Streamed render: the same output and diagnostics as compile_documents, held back until all is known (never a
partial stream on stdout), the input dropped as it is compiled, every job checked first when the output is large."""

from __future__ import annotations

import io
import json
import pickle
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler import RenderOptions, compile_documents, parse_text
from mxjob_gitops.compiler.base.run import current_run
from mxjob_gitops.compiler.compile import stream
from mxjob_gitops.compiler.compile.documents import item_manifests
from mxjob_gitops.compiler.compile.engine import Engine
from mxjob_gitops.compiler.compile.stream import StreamedRender
from mxjob_gitops.compiler.io import heldout
from mxjob_gitops.compiler.read.source import ParseStream
from mxjob_gitops.compiler.render.emit import Emitter, to_json, write_json_list
from mxjob_gitops.compiler.render.gang.base import GANG_ANNOTATION
from tests.conftest import run_cli
from tests.helpers import job, replica

REPO = Path(__file__).resolve().parent.parent
T = TypeVar("T")
R = TypeVar("R")
PRIORITY = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 9}


def _gang_job(name: str) -> dict[str, Any]:
    spec = job(name, Scheduler=replica(1), Server=replica(1), Worker=replica(2))
    spec["metadata"]["annotations"] = {GANG_ANNOTATION: "volcano"}
    spec["spec"]["runPolicy"] = {"schedulingPolicy": {"priorityClass": "high"}}
    return spec


def _texts() -> list[tuple[str, str]]:
    """Inputs that exercise every cross-document check: a PriorityClass after the job that uses it,
    duplicates inside one file and across files, a List, objects that are no objects, a YAML error."""
    one = "\n---\n".join(
        to_json(d)
        for d in (_gang_job("a"), job("b", Scheduler=replica(1), Server=replica(1), Worker=replica(2)), PRIORITY)
    )
    listed = to_json({"apiVersion": "v1", "kind": "List", "items": [job("b", Worker=replica(1)), 3, {"kind": "X"}]})
    examples = sorted((REPO / "examples").rglob("*.yaml"))
    return [
        ("one.yaml", one),
        ("list.yaml", listed),
        ("bad.yaml", "a: [1\n"),
        *((str(path), path.read_text(encoding="utf-8")) for path in examples),
    ]


def _yaml(manifests: Any) -> str:
    out = io.StringIO()
    Emitter().write_yaml_stream(manifests, out)
    return out.getvalue()


def _sent(task: Callable[[T, bool], R], parts: Sequence[T]) -> list[R]:
    """A fanout runner that does every part as a child would (`here` false, the result pickled and loaded)."""
    return [pickle.loads(pickle.dumps(task(part, False))) for part in parts]


@pytest.mark.parametrize("workers", [1, 3])
@pytest.mark.parametrize("check_first", [False, True])
@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_streamed_render_matches_compile_documents(
    monkeypatch: pytest.MonkeyPatch, count: int, check_first: bool, workers: int
) -> None:
    """The engine fed with marshal bytes (one part here, or parts sent as from children) and fed with parsed
    documents (compile_documents) finds the same; a render gives each valid item while no error was found."""
    if check_first:  # as if the input came near the output-size limit: every job checked before rendering
        monkeypatch.setattr(stream, "output_limit", lambda _max_pods: 0)
    texts = _texts()[:count] if count < 4 else _texts()
    options = RenderOptions(gang_scheduler=None)
    documents, parse_diagnostics = [], []
    streamed = StreamedRender(options)
    for file, text in texts:
        parsed = parse_text(text, file)
        documents.extend(parsed.documents)
        parse_diagnostics.extend(parsed.diagnostics)
        streamed.read(ParseStream(text, file))
    plan = compile_documents(documents, options)
    if workers > 1:
        monkeypatch.setattr(current_run(), "runner", _sent)
        monkeypatch.setattr(current_run(), "workers", workers)
        monkeypatch.setattr(stream, "FANOUT_MIN_BYTES", 0)
        assert streamed.in_parts
    outputs = list(streamed.rendered(lambda item: [_yaml(item_manifests(item, options))]))
    assert [d.render() for d in streamed.diagnostics] == [d.render() for d in [*parse_diagnostics, *plan.diagnostics]]
    assert streamed.ok == (plan.ok and not parse_diagnostics)
    # checked before anything was handed out: checked first, or in parts of one round accounted for first
    assert streamed.checked == ((check_first and streamed.ok) or (workers > 1 and not check_first))
    assert streamed.valid_items == len(plan.items)
    expected = [_yaml(plan.item_manifests(item)) for item in plan.items]
    if streamed.ok:
        assert outputs == expected
    else:  # what was rendered before the first error was found, to be thrown away; nothing when checked first
        assert outputs == expected[: len(outputs)] and not (check_first and outputs)


def test_streamed_render_drops_each_document_once_compiled() -> None:
    """What a serial render holds of its input: the documents not yet compiled, as bytes (then the round size
    and the largest job bound what is held; see test_render_parts)."""
    streamed = StreamedRender(RenderOptions())
    text = "\n---\n".join(to_json(job(f"j{i}", Worker=replica(1))) for i in range(3))
    streamed.read(ParseStream(text, "in.yaml"))
    outputs = streamed.rendered(lambda item: [item])
    next(outputs)
    assert [bool(blob) for _slim, blob in streamed._stored] == [False, True, True]
    assert all(slim.data is None for slim, _ in streamed._stored)
    list(outputs)
    assert not any(blob for _slim, blob in streamed._stored)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.dictionaries(
            st.text(max_size=5),
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.text(),
                lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                max_leaves=8,
            ),
            max_size=4,
        ),
        max_size=4,
    )
)
def test_json_list_written_item_by_item_is_the_whole_list(documents: list[dict[str, Any]]) -> None:
    out = io.StringIO()
    assert write_json_list(documents, out) == len(documents)
    assert out.getvalue() == to_json({"apiVersion": "v1", "kind": "List", "items": documents})
    assert json.loads(out.getvalue())["items"] == documents


class _Pipe(io.BytesIO):
    """Standard output that is no regular file (its bytes are only what was released)."""

    def fileno(self) -> int:
        raise io.UnsupportedOperation("fileno")


@pytest.mark.parametrize("released", [True, False])
def test_held_output_past_the_limit_into_a_pipe(monkeypatch: pytest.MonkeyPatch, released: bool) -> None:
    monkeypatch.setattr(heldout, "LIMIT", 10)
    sink = _Pipe()
    held = heldout.HeldOutput(sink)
    for part in ("héllo ", "wörld\n", "and more\n"):
        held.write(part)
    assert held.temporary is not None and sink.getvalue() == b""
    held.release() if released else held.discard()
    assert sink.getvalue() == ("héllo wörld\nand more\n".encode() if released else b"")


@pytest.mark.parametrize("released", [True, False])
def test_held_output_past_the_limit_into_a_regular_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, released: bool
) -> None:
    monkeypatch.setattr(heldout, "LIMIT", 10)
    path = tmp_path / "out"
    with path.open("wb") as handle:
        handle.write(b"before\n")  # stdout opened at an offset: what was there stays
        held = heldout.HeldOutput(handle)
        for part in ("héllo ", "wörld\n", "and more\n"):
            held.write(part)
        assert held.temporary is None and held.start == len(b"before\n")
        held.release() if released else held.discard()
        handle.write(b"after\n")
    assert path.read_bytes() == b"before\n" + ("héllo wörld\nand more\n".encode() if released else b"") + b"after\n"


def _bad_last_job(tmp_path: Path, jobs: int) -> Path:
    """Enough valid jobs to render past the in-memory limit, then an invalid one."""
    documents = [job(f"job-{i:04d}", Scheduler=replica(1), Server=replica(3), Worker=replica(6)) for i in range(jobs)]
    documents.append(job("bad", Worker=replica(-1)))
    path = tmp_path / "in.yaml"
    path.write_text("\n---\n".join(to_json(d) for d in documents), encoding="utf-8")
    return path


@pytest.mark.parametrize("into", ["file", "pipe"])
def test_an_error_in_the_last_job_prints_nothing(tmp_path: Path, into: str) -> None:
    """The first 800 jobs render to about 19 MB (past the 16 MiB held in memory) before the last one fails."""
    source = _bad_last_job(tmp_path, 800)
    command = [sys.executable, "-m", "mxjob_gitops", "render", str(source)]
    if into == "file":
        target = tmp_path / "out.yaml"
        with target.open("wb") as handle:
            done = subprocess.run(command, stdout=handle, stderr=subprocess.PIPE, check=False, timeout=300)
        stdout = target.read_bytes()
    else:
        done = subprocess.run(command, capture_output=True, check=False, timeout=300)
        stdout = done.stdout
    assert done.returncode == 1, done.stderr
    assert b"in.yaml" in done.stderr and b"nothing was written" in done.stderr
    assert stdout == b""


@pytest.mark.parametrize(("spill_limit", "passes"), [(10**9, 1), (10, 2)])
def test_a_rendering_into_a_pipe_is_checked_first_only_above_the_spill_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spill_limit: int, passes: int
) -> None:
    """Past the in-memory limit, a rendering into a pipe goes through a temporary file (each job compiled once)
    up to SPILL_LIMIT; a larger one has every job checked before any is rendered (compiled twice)."""
    monkeypatch.setattr(heldout, "LIMIT", 10)
    monkeypatch.setattr(heldout, "SPILL_LIMIT", spill_limit)
    compiles: list[int] = []
    compile_pass = Engine.run

    def counted(self: Engine[Any], *args: Any, **kwargs: Any) -> Any:
        compiles.append(1)
        return compile_pass(self, *args, **kwargs)

    monkeypatch.setattr(Engine, "run", counted)
    jobs = [job(f"j{i}", Scheduler=replica(1), Server=replica(1), Worker=replica(2)) for i in range(3)]
    source = tmp_path / "in.yaml"
    source.write_text("\n---\n".join(to_json(d) for d in jobs), encoding="utf-8")
    done = run_cli(["render", str(source)])  # click's runner: standard output is no regular file
    assert done.exit_code == 0, done.stderr
    assert len(compiles) == passes
    expected = compile_documents(parse_text(source.read_text(encoding="utf-8"), str(source)).documents, RenderOptions())
    assert done.stdout == _yaml(expected.manifests())


def test_held_output_of_a_checked_render_goes_straight_into_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once every job was checked first, nothing but an internal error can stop the stream: no temporary copy."""
    monkeypatch.setattr(heldout, "LIMIT", 10)
    sink = _Pipe()
    held = heldout.HeldOutput(sink, checked=lambda: True)
    for part in ("héllo ", "wörld\n", "and more\n"):
        held.write(part)
    assert held.temporary is None
    held.release()
    assert sink.getvalue() == "héllo wörld\nand more\n".encode()


def test_a_large_rendering_into_a_pipe_is_checked_first() -> None:
    options = RenderOptions()
    text = "\n---\n".join(to_json(job(f"j{i}", Worker=replica(1))) for i in range(3))
    for above, checked in ((None, False), (10**9, False), (10, True)):
        streamed = StreamedRender(options, check_first_above=above)
        streamed.read(ParseStream(text, "in.yaml"))
        assert len(list(streamed.rendered(lambda item: [item]))) == 3 and streamed.checked == checked and streamed.ok
