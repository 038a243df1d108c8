"""`mxjob diff` compiles a job found on both sides once and renders neither side of it: same output as without."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler import jobcache
from mxjob_gitops.compiler.cli import inputs
from mxjob_gitops.compiler.diagnostics import Code
from mxjob_gitops.compiler.job import compile_object
from mxjob_gitops.compiler.jobcache import CompileCache
from mxjob_gitops.compiler.options import RenderOptions
from mxjob_gitops.compiler.pipeline import Manifest, Plan, compile_documents
from mxjob_gitops.compiler.source import parse_text
from tests.conftest import run_cli
from tests.helpers import container, job, replica

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


# Objects other than MXJobs, which pass through (pipeline.Checker): fine, a bad name (error), a Service name that
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
        mock.patch.object(inputs, "SharedParses", lambda: parse_text),
        mock.patch.object(CompileCache, "__init__", _forgetful_init),
        mock.patch.object(CompileCache, "compile", lambda self, *args: compile_object(*args)),
        mock.patch.object(jobcache, "differing_manifests", _full_render),
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


def _assert_same_as_full(old_tree: Tree, new_tree: Tree, options: list[str], fmt: str) -> str:
    with tempfile.TemporaryDirectory() as name:
        old, new = Path(name) / "old", Path(name) / "new"
        _write(old, old_tree)
        _write(new, new_tree)
        args = ["diff", "--color", "never", "--format", fmt, *options, str(old), str(new)]
        fast = run_cli(args)
        with _without_shortcuts():
            full = run_cli(args)
    assert (fast.exit_code, fast.stdout, fast.stderr) == (full.exit_code, full.stdout, full.stderr)
    return fast.stdout


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
    original_init, original_rendered = CompileCache.__init__, jobcache._rendered

    def init(self: CompileCache) -> None:
        original_init(self)
        caches.append(self)

    def rendering(plan: Plan, shared: set[int]) -> list[Manifest]:
        out = original_rendered(plan, shared)
        rendered.extend(o["metadata"]["name"] for o in out if o["kind"] == "MXJob")
        return out

    with mock.patch.object(CompileCache, "__init__", init), mock.patch.object(jobcache, "_rendered", rendering):
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
