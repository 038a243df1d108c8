"""The compile engine (compiler.engine) run in parts over compiler.fanout's workers gives what its one part run
here gives: the same outputs, diagnostics, validity and item count.

On generated inputs that carry every check across objects (duplicates inside a part and across parts, a
PriorityClass after the job that uses it, invalid jobs and objects in any part, a List, the output-size limit),
cut into any number of parts and rounds, each part's records sent through pickle as a child sends them; and
`mxjob render` with forked workers on inputs with errors in a later round (tests/test_exact_mode.py holds the
command with parts on and off on valid inputs, tests/test_fanout.py the runner's contract).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.base import limits
from mxjob_gitops.compiler.base.run import Run, current_run, running
from mxjob_gitops.compiler.compile import checker, engine, stream
from mxjob_gitops.compiler.compile.documents import item_manifests
from mxjob_gitops.compiler.compile.stream import StreamedRender
from mxjob_gitops.compiler.read.source import ParseStream
from mxjob_gitops.compiler.render.emit import Emitter, json_list_item
from mxjob_gitops.compiler.render.gang.plan import GangScheduler
from mxjob_gitops.compiler.render.options import RenderOptions
from tests.conftest import run_cli
from tests.exact_inputs import PASSING, Tree, priority_class, trees
from tests.helpers import job, replica

T = TypeVar("T")
R = TypeVar("R")


def _texts(tree: Tree) -> list[tuple[str, str]]:
    return [(file, "\n---\n".join(json_list_item(d) for d in documents)) for file, documents in sorted(tree.items())]


class _Sent:
    """A fanout runner that does every part as a child would (`here` false, the result pickled and loaded)."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, task: Callable[[T, bool], R], parts: Sequence[T]) -> list[R]:
        self.calls.append(len(parts))
        return [pickle.loads(pickle.dumps(task(part, False))) for part in parts]


def _rendered(texts: list[tuple[str, str]], options: RenderOptions, here: bool = False) -> tuple[Any, ...]:
    """Outputs, diagnostics, validity and item count of the render under the installed run (`here`: the default
    run, in one process)."""
    if here:
        with running(Run()):
            return _rendered(texts, options)
    streamed = StreamedRender(options)
    for file, text in texts:
        streamed.read(ParseStream(text, file))
    emitter = Emitter()

    def render(item: Any) -> Iterator[str]:
        return map(emitter.to_yaml, item_manifests(item, options, emitter.expect_prefix))

    outputs = list(streamed.rendered(render))
    return outputs, [d.render() for d in streamed.diagnostics], streamed.ok, streamed.valid_items


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[int, int], _Sent]]:
    def install(workers: int, round_bytes: int) -> _Sent:
        runner = _Sent()
        monkeypatch.setattr(current_run(), "runner", runner)
        monkeypatch.setattr(current_run(), "workers", workers)
        monkeypatch.setattr(stream, "FANOUT_MIN_BYTES", 0)
        monkeypatch.setattr(engine, "ROUND_BYTES", round_bytes)
        return runner

    yield install


@st.composite
def inputs(draw: st.DrawFn) -> Tree:
    """tests.exact_inputs' trees, plus copies of a job (a duplicate in another part) and more files to cut."""
    tree = draw(trees())
    for position in range(draw(st.integers(0, 4))):
        tree.setdefault(f"g{position}.yaml", []).append(full(f"extra-{position}", 2))
    if draw(st.booleans()):
        first = next(iter(sorted(tree)))
        tree.setdefault("zz-copy.yaml", []).append(tree[first][0])
    if draw(st.booleans()):
        tree.setdefault("zz-late.yaml", []).append(priority_class(draw(st.sampled_from((10, 20)))))
    return tree


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    inputs(),
    st.integers(2, 4),
    st.sampled_from((12_000, 20_000, 40_000, 10**9)),
    st.sampled_from(
        (
            RenderOptions(),
            RenderOptions(gang_scheduler=GangScheduler.parse("volcano")),
            RenderOptions(max_pods=12),
            RenderOptions(include_job=False, namespace="team"),
        )
    ),
    st.sampled_from((None, 20_000, 60_000)),
)
def test_rendered_in_parts_is_what_one_process_renders(
    sent: Callable[[int, int], _Sent],
    monkeypatch: pytest.MonkeyPatch,
    tree: Tree,
    workers: int,
    round_bytes: int,
    options: RenderOptions,
    output_limit: int | None,
) -> None:
    """`output_limit`: the output-size limit of the checks across jobs, as if it were that small (whether to check
    every job first is still decided by the real one, so the parts find that their sum is too large)."""
    if output_limit is not None:
        monkeypatch.setattr(
            checker,
            "output_problem",
            lambda estimate, _pods: limits.output_problem(estimate, 0) if estimate > output_limit else None,
        )
    texts = _texts(tree)
    expected = _rendered(texts, options, here=True)
    runner = sent(workers, round_bytes)
    _assert_same(_rendered(texts, options), expected)
    # a document that may render to more than a round is never held whole: then everything is rendered here
    assert bool(runner.calls) == (_largest_document(texts, options) <= round_bytes)


def _largest_document(texts: list[tuple[str, str]], options: RenderOptions) -> int:
    streamed = StreamedRender(options)
    for file, text in texts:
        streamed.read(ParseStream(text, file))
    return max(streamed._weights, default=0)


def _assert_same(got: tuple[Any, ...], expected: tuple[Any, ...]) -> None:
    """Equal, except that of an invalid input (whose output the command never shows) each may have given some of
    the items before the first error: in one process up to the error, in parts the rounds accounted for before."""
    assert got[1:] == expected[1:]
    if got[2]:
        assert got[0] == expected[0]
    else:
        shorter, longer = sorted((got[0], expected[0]), key=len)
        assert longer[: len(shorter)] == shorter


def full(name: str, workers: int) -> dict[str, Any]:
    return job(name, Scheduler=replica(1), Server=replica(1), Worker=replica(workers))


def test_a_duplicate_across_parts_is_found_where_one_process_finds_it(sent: Callable[[int, int], _Sent]) -> None:
    tree: Tree = {
        "a.yaml": [full("same", 2), full("other", 1)],
        "b.yaml": [full("third", 1), PASSING[0], full("same", 1), PASSING[0]],
    }
    expected = _rendered(_texts(tree), RenderOptions(), here=True)
    # the job (one line for its ConfigMap, 3 pods and their Services and the MXJob); the ConfigMap `settings`
    assert sum("also produced by" in line or "also defined at" in line for line in expected[1]) == 2
    assert len(expected[1]) == 2
    runner = sent(4, 10**9)
    _assert_same(_rendered(_texts(tree), RenderOptions()), expected)
    assert runner.calls == [4]


def test_an_error_in_a_later_round_stops_the_output_but_not_the_checks(sent: Callable[[int, int], _Sent]) -> None:
    tree: Tree = {f"f{i}.yaml": [full(f"j{i}", 2)] for i in range(6)}
    tree["f3.yaml"][0]["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] = -1
    tree["f5.yaml"].append({"apiVersion": "v1", "kind": "Secret", "metadata": {}})
    expected = _rendered(_texts(tree), RenderOptions(), here=True)
    runner = sent(2, _largest_document(_texts(tree), RenderOptions()))  # a round closes at its second job
    got = _rendered(_texts(tree), RenderOptions())
    _assert_same(got, expected)
    # the round before the error was handed out: two jobs of 10 objects each
    assert len(got[0]) == 20 and not got[2] and len(got[1]) == 2
    assert len(runner.calls) == 4  # three of two jobs each, then the Secret after the last job


# --- the command, with forked workers --------------------------------------------------------------------------


def _tree_files(folder: Path, tree: Tree) -> Path:
    folder.mkdir()
    for file, text in _texts(tree):
        (folder / file).write_text(text, encoding="utf-8")
    return folder


def _cases() -> dict[str, Tree]:
    jobs = {
        f"f{i:02d}.yaml": [job(f"j{i}", Scheduler=replica(1), Server=replica(2), Worker=replica(3))] for i in range(12)
    }
    broken = {name: [dict(d) for d in documents] for name, documents in jobs.items()}
    broken["f10.yaml"] = [job("j10", Worker=replica(-1))]
    duplicated = {**jobs, "f11.yaml": [*jobs["f11.yaml"], jobs["f01.yaml"][0]]}
    return {
        "valid": {**jobs, "objects.yaml": [PASSING[0], PASSING[5]], "zz.yaml": [priority_class(5)]},
        "broken": broken,
        "duplicated": duplicated,
    }


@pytest.mark.parametrize(
    ("case", "args"), [("broken", []), ("duplicated", ["--format", "json"]), ("valid", ["--max-pods", "4"])]
)
def test_the_command_with_workers_prints_what_one_process_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str, args: list[str]
) -> None:
    folder = _tree_files(tmp_path / "in", _cases()[case])
    monkeypatch.setattr(stream, "FANOUT_MIN_BYTES", 0)
    monkeypatch.setattr(engine, "ROUND_BYTES", 20_000)  # several rounds
    runs = []
    for workers in ("1", "3"):
        monkeypatch.setenv("MXJOB_JOBS", workers)
        runs.append(run_cli(["render", *args, str(folder)]))
    assert runs[0] == runs[1]
    assert runs[0].exit_code == 1


def test_a_directory_rendered_with_workers_is_the_one_rendered_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In several rounds; rendered again, every file is found unchanged (vouched for in the parts)."""
    folder = _tree_files(tmp_path / "in", _cases()["valid"])
    monkeypatch.setattr(stream, "FANOUT_MIN_BYTES", 0)
    monkeypatch.setattr(engine, "ROUND_BYTES", 20_000)
    monkeypatch.setenv("MXJOB_RENDER_CACHE", str(tmp_path / "cache"))
    trees = []
    for workers in ("1", "3"):
        monkeypatch.setenv("MXJOB_JOBS", workers)
        out = tmp_path / f"out-{workers}"
        first = run_cli(["render", "-o", str(out), str(folder)])
        again = run_cli(["render", "-o", str(out), str(folder)])
        assert first.exit_code == again.exit_code == 0, first.stderr
        assert "0 written" in again.stderr
        trees.append({p.name: p.read_bytes() for p in out.iterdir() if p.is_file()})
    assert trees[0] == trees[1] and len(trees[0]) > 100


def test_the_run_passed_is_the_one_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run passed to the entry points, not installed, takes their budget and spreads their parts; the installed
    run is left alone."""
    from mxjob_gitops.compiler.compile import jobcache
    from mxjob_gitops.compiler.compile.documents import compile_documents
    from mxjob_gitops.compiler.read.source import parse_text

    monkeypatch.setattr(stream, "FANOUT_MIN_BYTES", 0)
    monkeypatch.setattr(jobcache, "AHEAD_MIN_JOBS", 1)
    runner, installed = _Sent(), current_run().budget.documents
    run = Run(runner=runner, workers=3)
    texts = _texts({f"f{i}.yaml": [full(f"j{i}", 2)] for i in range(6)})
    streamed = StreamedRender(RenderOptions(), run=run)
    for file, text in texts:
        streamed.read(ParseStream(text, file, run=run))
    assert len(list(streamed.rendered(lambda item: [item]))) == 6 and streamed.ok
    assert runner.calls == [3] and run.budget.documents == 6
    documents = [d for file, text in texts for d in parse_text(text, file, run=run).documents]
    plan = compile_documents(documents, RenderOptions(), cache=jobcache.CompileCache(), run=run)
    assert plan.ok and len(plan.items) == 6
    assert runner.calls == [3, 3] and run.budget.documents == 12  # the jobs compiled ahead, in three parts
    assert current_run().budget.documents == installed
