"""`mxjob diff` compiles a job found on both sides once and renders neither side of it: same output as without,
whether the jobs are compiled one by one or ahead in forked processes (CompileCache.compile_ahead), and the first
side's files parsed in their turn or ahead (cli.readahead)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.base import limits
from mxjob_gitops.compiler.base.diagnostics import Code
from mxjob_gitops.compiler.base.run import current_run
from mxjob_gitops.compiler.compile import jobcache
from mxjob_gitops.compiler.compile.checker import job_output_estimate
from mxjob_gitops.compiler.compile.documents import Manifest, Plan, compile_documents
from mxjob_gitops.compiler.compile.job import compile_object
from mxjob_gitops.compiler.compile.jobcache import CompileCache
from mxjob_gitops.compiler.diff import changes
from mxjob_gitops.compiler.io import forked, inputs
from mxjob_gitops.compiler.read import readahead
from mxjob_gitops.compiler.read.source import parse_text
from mxjob_gitops.compiler.render.options import RenderOptions
from tests.conftest import run_cli
from tests.helpers import EveryTextParsed, container, job, replica

Tree = dict[str, list[dict[str, Any]]]  # file name -> its documents
NAMES = ("alpha", "beta", "gamma", "delta")
GANG = ["--gang-scheduler", "volcano"]
OPTIONS: tuple[list[str], ...] = (
    [],
    GANG,
    GANG,
    ["--target", "argocd", *GANG],
    ["--no-job", "-n", "team"],
    ["--kubernetes-version", "1.35"],
)


def _job(
    name: str, workers: int, image: str, priority: str | None, valid: bool, min_available: int | None = None
) -> dict[str, Any]:
    template_extra = {"priorityClassName": priority} if priority else {}
    worker = replica(workers, [container(image=image, resources={"requests": {"cpu": "1"}})])
    worker["template"]["spec"].update(template_extra)
    spec = job(name=name, Scheduler=replica(1), Server=replica(1, [container(resources={"requests": {"cpu": "2"}})]))
    spec["spec"]["mxReplicaSpecs"]["Worker"] = worker
    if min_available is not None:  # only some pods count for minResources: PriorityClass values pick which
        spec["spec"]["runPolicy"] = {"schedulingPolicy": {"minAvailable": min_available}}
    if not valid:
        spec["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] = -1
    return spec


# Objects other than MXJobs, which pass through (checker.Checker): fine, a bad name (error), a Service name that
# is valid from Kubernetes 1.36 only, a pre-Kubeflow look-alike (warning), no name (error), one kind: List.
PASSING: tuple[dict[str, Any], ...] = (
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "1"}},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Settings"}},
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "1-front"}, "spec": {"ports": [{"port": 80}]}},
    {"apiVersion": "mlkube.io/v1beta1", "kind": "MXJob", "metadata": {"name": "ancient"}, "spec": {}},
    {"apiVersion": "v1", "kind": "Secret", "metadata": {}},
    {
        "apiVersion": "v1",
        "kind": "List",
        "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "l"}}],
    },
)


def _priority_class(value: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": value}


jobs = st.builds(
    _job,
    st.sampled_from(NAMES),
    st.integers(1, 3),
    st.sampled_from(("mxnet:1.9", "mxnet:2.0")),
    st.sampled_from((None, "high")),
    st.integers(0, 9).map(lambda n: n > 0),  # mostly valid
    st.sampled_from((None, 2)),
)


@st.composite
def trees(draw: st.DrawFn) -> Tree:
    tree: Tree = {}
    for position, name in enumerate(draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True))):
        spec = draw(jobs)
        spec["metadata"]["name"] = name
        tree.setdefault(f"f{position % 3}.yaml", []).append(spec)
    if draw(st.booleans()):
        tree.setdefault("priorities.yaml", []).append(_priority_class(draw(st.sampled_from((10, -10)))))
    for obj in draw(st.lists(st.sampled_from(PASSING), max_size=2)):
        tree.setdefault(draw(st.sampled_from(("f0.yaml", "objects.yaml"))), []).append(obj)
    return tree


def _all_documents(tree: Tree) -> list[tuple[str, int]]:
    return [(file, i) for file, documents in sorted(tree.items()) for i in range(len(documents))]


@st.composite
def edited(draw: st.DrawFn, tree: Tree) -> Tree:
    """The tree after a few random edits: change, add, delete, move, duplicate a name, break a job."""
    new: Tree = {file: [dict(yaml.safe_load(yaml.safe_dump(d))) for d in docs] for file, docs in tree.items()}
    for _ in range(draw(st.integers(0, 3))):
        places = _all_documents(new)
        edit = draw(
            st.sampled_from(("change", "add", "delete", "move", "duplicate", "invalid", "priority", "priority"))
        )
        if edit == "add" or not places:
            new.setdefault(draw(st.sampled_from(("f0.yaml", "f3.yaml"))), []).append(draw(jobs))
            continue
        file, index = draw(st.sampled_from(places))
        document = new[file][index]
        if edit == "priority":
            new["priorities.yaml"] = [_priority_class(draw(st.sampled_from((10, -10, 30))))]
        elif edit == "duplicate":
            new.setdefault(draw(st.sampled_from(("f1.yaml", "f5.yaml"))), []).append(document)
        elif document.get("apiVersion") != "kubeflow.org/v1" or edit == "delete":
            del new[file][index]
        elif edit == "change":
            replacement = draw(jobs)
            replacement["metadata"]["name"] = document["metadata"]["name"]
            new[file][index] = replacement
        elif edit == "move":
            del new[file][index]
            new.setdefault(draw(st.sampled_from(("f0.yaml", "f1.yaml", "f4.yaml"))), []).append(document)
        else:
            document["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] = -1
    return {file: docs for file, docs in new.items() if docs}


def _write(folder: Path, tree: Tree) -> None:
    folder.mkdir()
    for file, documents in tree.items():
        (folder / file).write_text(yaml.safe_dump_all(documents, sort_keys=False), encoding="utf-8")


def _full_render(old: Plan, new: Plan) -> tuple[list[Manifest], list[Manifest]]:
    return list(old.manifests()), list(new.manifests())


class _Forgetful(dict[int, Any]):
    """A memo that remembers nothing."""

    def __setitem__(self, key: int, value: Any) -> None:
        pass


def _forgetful_init(self: CompileCache) -> None:
    _ORIGINAL_INIT(self)
    self.passed = _Forgetful()


_ORIGINAL_INIT = CompileCache.__init__


@contextlib.contextmanager
def _without_shortcuts() -> Iterator[None]:
    """The diff as it was before any sharing: every file parsed, every object checked and every job compiled and
    rendered on each side."""
    with (
        mock.patch.object(inputs, "SharedParses", EveryTextParsed),
        mock.patch.object(CompileCache, "__init__", _forgetful_init),
        mock.patch.object(CompileCache, "compile", lambda self, *args: compile_object(*args)),
        mock.patch.object(CompileCache, "compile_ahead", lambda self, *args: None),
        mock.patch.object(changes, "differing_manifests", _full_render),
    ):
        yield


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), trees(), st.sampled_from(OPTIONS), st.sampled_from(("text", "json")))
def test_the_cached_diff_equals_the_full_diff(
    data: st.DataObject, old_tree: Tree, options: list[str], fmt: str
) -> None:
    _assert_same_as_full(old_tree, data.draw(edited(old_tree)), options, fmt)


def test_a_priority_class_value_changed_elsewhere_renders_the_unchanged_job_again() -> None:
    old_tree: Tree = {"f0.yaml": [_job("alpha", 2, "mxnet:1.9", "high", True, 2)], "p.yaml": [_priority_class(10)]}
    new_tree: Tree = {"f0.yaml": old_tree["f0.yaml"], "p.yaml": [_priority_class(-10)]}
    assert "PodGroup alpha modified" in _assert_same_as_full(
        old_tree, new_tree, ["--gang-scheduler", "volcano"], "brief"
    )


@contextlib.contextmanager
def _processes(count: int) -> Iterator[None]:
    """The command with `count` processes (MXJOB_JOBS), and work shared out however little there is."""
    with (
        mock.patch.dict(os.environ, {"MXJOB_JOBS": str(count)}),
        mock.patch.object(jobcache, "AHEAD_MIN_JOBS", 1),
        mock.patch.object(readahead, "AHEAD_MIN_CHARS", 1),
    ):
        yield


def _assert_same_as_full(old_tree: Tree, new_tree: Tree, options: list[str], fmt: str) -> str:
    """The diff with every shortcut, in one process and in three, prints what the diff without any prints."""
    with tempfile.TemporaryDirectory() as name:
        old, new = Path(name) / "old", Path(name) / "new"
        _write(old, old_tree)
        _write(new, new_tree)
        args = ["diff", "--color", "never", "--format", fmt, *options, str(old), str(new)]
        runs = []
        for count in (1, 3):
            with _processes(count):
                runs.append(run_cli(args))
        with _without_shortcuts():
            full = run_cli(args)
    for fast in runs:
        assert (fast.exit_code, fast.stdout, fast.stderr) == (full.exit_code, full.stdout, full.stderr)
    return runs[0].stdout


def test_a_job_on_both_sides_is_compiled_once_and_rendered_on_neither(tmp_path: Path) -> None:
    """Three unchanged jobs (one moved to another file), one changed: four compiles, only the changed one rendered."""
    old_tree: Tree = {"a.yaml": [_job("alpha", 2, "mxnet:1.9", None, True), _job("beta", 2, "mxnet:1.9", None, True)]}
    old_tree["b.yaml"] = [_job("gamma", 2, "mxnet:1.9", None, True), _job("delta", 2, "mxnet:1.9", None, True)]
    new_tree: Tree = {"a.yaml": [old_tree["a.yaml"][0]], "c.yaml": [old_tree["a.yaml"][1]]}
    new_tree["b.yaml"] = [old_tree["b.yaml"][0], _job("delta", 3, "mxnet:1.9", None, True)]
    _write(tmp_path / "old", old_tree)
    _write(tmp_path / "new", new_tree)
    caches: list[CompileCache] = []
    rendered: list[str] = []
    original_init, original_rendered = CompileCache.__init__, changes._rendered

    def init(self: CompileCache) -> None:
        original_init(self)
        caches.append(self)

    def rendering(plan: Plan, shared: set[int]) -> list[Manifest]:
        out = original_rendered(plan, shared)
        rendered.extend(o["metadata"]["name"] for o in out if o["kind"] == "MXJob")
        return out

    with mock.patch.object(CompileCache, "__init__", init), mock.patch.object(changes, "_rendered", rendering):
        result = run_cli(["diff", "--format", "brief", str(tmp_path / "old"), str(tmp_path / "new")])
    assert result.exit_code == 1, result.stderr
    assert (caches[0].compiled, caches[0].reused) == (5, 3)
    assert rendered == ["delta", "delta"]
    assert "delta" in result.stdout and "alpha" not in result.stdout


def test_a_cached_compile_needs_the_same_priority_class_values() -> None:
    """A job reads PriorityClass values by name: another value (or type) for that name compiles it again."""
    cache = CompileCache()
    spec = _job("alpha", 2, "mxnet:1.9", "high", True)
    spec["metadata"]["annotations"] = {"scheduling.k8s.io/group-name": "volcano"}
    options = RenderOptions.from_record({"gangScheduler": "volcano"})
    first = cache.compile(spec, options, True, {"high": 10}, {"high": "a.yaml"})
    assert cache.compile(spec, options, True, {"high": 10, "low": 1}, {"high": "a.yaml"}) is first
    assert cache.compile(spec, options, True, {"high": 20}, {"high": "a.yaml"}) is not first
    assert cache.compile(spec, options, True, {"high": True}, {"high": "a.yaml"}) is not first
    assert cache.compile(spec, options, True, {"high": 10}, {"high": "b.yaml"}) is not first
    assert cache.compile(dict(spec), options, True, {"high": 10}, {"high": "a.yaml"}) is first  # same JSON text


def test_equal_but_differently_typed_values_are_different_jobs() -> None:
    """1 == 1.0 == True in Python, not in a spec: the cache keys on JSON text, which tells them apart."""
    cache = CompileCache()
    spec = _job("alpha", 1, "mxnet:1.9", None, True)
    other = _job("alpha", 1, "mxnet:1.9", None, True)
    other["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] = True
    assert spec == other
    first = cache.compile(spec, RenderOptions(), True, {}, {})
    second = cache.compile(other, RenderOptions(), True, {}, {})
    assert second is not first and first[0] is not None and second[0] is None


def test_an_object_that_passed_is_checked_again_under_another_service_name_rule() -> None:
    """A Service named 1-front is valid from Kubernetes 1.36 on (RelaxedServiceNameValidation), not before."""
    cache = CompileCache()
    documents = parse_text(yaml.safe_dump_all([PASSING[0], PASSING[2]]), "objects.yaml").documents
    modern = compile_documents(documents, RenderOptions(kubernetes_version="1.36"), cache=cache)
    assert modern.ok and len(cache.passed) == 2
    older = compile_documents(documents, RenderOptions(kubernetes_version="1.35"), cache=cache)
    assert [d.code for d in older.diagnostics] == [Code.INVALID_NAME]
    assert older.items == [PASSING[0]]
    again = compile_documents(documents, RenderOptions(kubernetes_version="1.36"), cache=cache)
    assert again.ok and again.items == modern.items


def test_only_objects_other_than_jobs_that_passed_without_a_word_are_remembered() -> None:
    cache = CompileCache()
    spec = _job("alpha", 1, "mxnet:1.9", None, True)
    documents = parse_text(yaml.safe_dump_all([*PASSING, spec]), "objects.yaml").documents
    plan = compile_documents(documents, RenderOptions(kubernetes_version="1.36"), cache=cache)
    remembered = sorted(obj["metadata"]["name"] for obj, _relaxed, _identity in cache.passed.values())
    assert remembered == ["1-front", "l", "settings"]
    assert {d.code for d in plan.diagnostics} == {Code.INVALID_NAME, Code.UNSUPPORTED_VERSION, Code.NOT_AN_OBJECT}


def test_an_object_that_passed_on_the_old_side_is_still_a_duplicate_on_the_new() -> None:
    old_tree: Tree = {"f0.yaml": [_job("alpha", 1, "mxnet:1.9", None, True), PASSING[0]]}
    new_tree: Tree = {"f0.yaml": old_tree["f0.yaml"], "f1.yaml": [PASSING[0]]}
    with tempfile.TemporaryDirectory() as name:
        _write(Path(name) / "old", old_tree)
        _write(Path(name) / "new", new_tree)
        _assert_same_as_full(old_tree, new_tree, [], "text")
        result = run_cli(["diff", str(Path(name) / "old"), str(Path(name) / "new")])
    assert result.exit_code == 2 and "ConfigMap settings is also produced by" in result.stderr


# --- jobs compiled ahead, in forked processes ---------------------------------------------------------------------


@contextlib.contextmanager
def _forked(workers: int) -> Iterator[list[int]]:
    """compiler.fanout with forked workers; yields the sizes of the parts each fan-out was given."""
    sizes: list[int] = []

    def run(task: Any, parts: Any) -> Any:
        sizes.extend(len(part) for part in parts)
        return forked.run_forked(task, parts)

    with (
        mock.patch.object(current_run(), "workers", workers),
        mock.patch.object(current_run(), "runner", run),
        mock.patch.object(jobcache, "AHEAD_MIN_JOBS", 1),
    ):
        yield sizes


def _ahead_jobs() -> list[dict[str, Any]]:
    """Seven jobs, valid and not, with and without a PriorityClass looked up (present, absent: the last), one twice."""
    specs = [
        _job(f"job-{n}", 1 + n % 3, "mxnet:1.9", ("high", None, "low")[n % 3], n != 4, (None, 2)[n % 2])
        for n in range(6)
    ]
    return [*specs, dict(specs[1])]


@pytest.mark.parametrize("workers", [2, 3])
def test_jobs_compiled_ahead_in_children_are_what_compile_object_gives(workers: int) -> None:
    """Every part compiled (in its own process), each result entered for its own job, with every diagnostic: the
    lookups that follow find them all, in any order, and compile nothing."""
    options = RenderOptions.from_record({"gangScheduler": "volcano"})
    priorities, sources = {"high": 10}, {"high": "p.yaml"}
    jobs = _ahead_jobs()
    expected = [compile_object(spec, options, True, priorities, sources) for spec in jobs]
    assert any(found for _compiled, found in expected) and any(c is None for c, _found in expected)
    cache = CompileCache()
    with _forked(workers) as sizes:
        cache.compile_ahead(jobs, options, True, priorities, sources)
    assert len(sizes) == workers and sum(sizes) == 6 and max(sizes) - min(sizes) <= 1
    assert cache.compiled == 6  # the copy of job-1 is the same JSON text: compiled once
    with mock.patch.object(jobcache, "compile_object", side_effect=AssertionError("compiled again")):
        found = [cache.compile(spec, options, True, priorities, sources) for spec in reversed(jobs)]
    assert found[::-1] == expected
    assert (cache.compiled, cache.reused) == (6, 1)
    jobs_found = [compiled.job for compiled, _found in found if compiled is not None and compiled.job is not None]
    assert len(cache.estimates) == len({id(job) for job in jobs_found}) == 5  # job-4 invalid, job-1 twice
    assert all(cache.estimates[id(job)] == (job, job_output_estimate(job)) for job in jobs_found)


def test_a_part_a_child_could_not_send_is_compiled_here() -> None:
    """run_forked does the part here when its child dies: the results are the same."""
    options = RenderOptions()
    jobs = _ahead_jobs()
    expected = [compile_object(spec, options, True, {}, {}) for spec in jobs]
    cache = CompileCache()
    with _forked(3), mock.patch.object(forked, "_collect", lambda child: None):
        cache.compile_ahead(jobs, options, True, {}, {})
    with mock.patch.object(jobcache, "compile_object", side_effect=AssertionError("compiled again")):
        assert [cache.compile(spec, options, True, {}, {}) for spec in jobs] == expected


def test_a_job_compiled_ahead_needs_the_same_priority_class_values() -> None:
    cache = CompileCache()
    spec = _job("alpha", 2, "mxnet:1.9", "high", True, 2)
    options = RenderOptions.from_record({"gangScheduler": "volcano"})
    with _forked(2):
        cache.compile_ahead([spec, _job("beta", 1, "mxnet:1.9", None, True)], options, True, {"high": 10}, {})
    assert cache.compiled == 2
    changed = cache.compile(spec, options, True, {"high": 20}, {})
    assert changed == compile_object(spec, options, True, {"high": 20}, {})
    assert cache.compiled == 3


def test_too_few_jobs_for_two_workers_are_left_to_the_checker() -> None:
    cache = CompileCache()
    jobs = _ahead_jobs()
    with _forked(2) as sizes, mock.patch.object(jobcache, "AHEAD_MIN_JOBS", 4):
        cache.compile_ahead(jobs, RenderOptions(), True, {}, {})
    assert sizes == [] and cache.compiled == 0
    with _forked(1) as sizes:
        cache.compile_ahead(jobs, RenderOptions(), True, {}, {})
    assert sizes == [] and cache.compiled == 0


def test_a_diff_with_three_processes_compiles_each_side_ahead(tmp_path: Path) -> None:
    """Through the whole command: the old side's jobs, then the new side's changed ones, each cut into three parts
    compiled ahead; what it prints is what one process prints."""
    old_tree: Tree = {f"f{n}.yaml": [_job(f"job-{n}", 2, "mxnet:1.9", None, True)] for n in range(7)}
    new_tree: Tree = {**old_tree, **{f"f{n}.yaml": [_job(f"job-{n}", 3, "mxnet:2.0", None, True)] for n in (1, 3, 5)}}
    sizes: list[list[int]] = []
    original = jobcache.CompileCache.compile_ahead

    def recorded(self: CompileCache, objects: Any, *args: Any) -> None:
        before = self.compiled
        original(self, objects, *args)
        sizes.append([len(objects), self.compiled - before])

    with mock.patch.object(CompileCache, "compile_ahead", recorded):
        out = _assert_same_as_full(old_tree, new_tree, [], "text")
    assert sizes == [[7, 0], [7, 0], [7, 7], [7, 3]]  # one process: none ahead; three: 7, then the 3 changed
    assert "job-1" in out and "job-0" not in out


def test_the_output_limit_is_crossed_at_the_same_job_in_one_process_or_three(tmp_path: Path) -> None:
    """The output estimate of a job compiled ahead comes from its child, and the new side takes the old side's
    jobs' estimates from it: the limit (lowered to three jobs' worth) lets the old side's three jobs through and
    stops the new side at its fourth either way."""
    old_tree: Tree = {f"f{n}.yaml": [_job(f"job-{n}", 2, "mxnet:1.9", None, True)] for n in range(3)}
    new_tree: Tree = {**old_tree, **{f"f{n}.yaml": [_job(f"job-{n}", 2, "mxnet:1.9", None, True)] for n in (3, 4)}}
    compiled, _found = compile_object(old_tree["f0.yaml"][0], RenderOptions(), True, {}, {})
    assert compiled is not None and compiled.job is not None
    _write(tmp_path / "old", old_tree)
    _write(tmp_path / "new", new_tree)
    runs = []
    for count in (1, 3):
        with _processes(count), mock.patch.object(limits, "MAX_OUTPUT_BYTES", 3 * job_output_estimate(compiled.job)):
            runs.append(run_cli(["diff", str(tmp_path / "old"), str(tmp_path / "new")]))
    assert runs[0] == runs[1]
    assert runs[0].exit_code == 2 and "the rendering would be about" in runs[0].stderr
    assert "new/f3.yaml" in runs[0].stderr and "old/" not in runs[0].stderr
