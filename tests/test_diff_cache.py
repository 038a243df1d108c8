"""`mxjob diff` compiles a job found on both sides once and renders neither side of it (compiler/compile/jobcache.py):
what the cache keys on (PriorityClass values, JSON text, the Service name rule), what it remembers, and jobs
compiled ahead in forked processes entered each for its own job, a dying child's part done here. That the diff
prints with all this what it prints without is tests/test_exact_mode.py's (tests/exact_inputs.py's edited trees)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml

from mxjob_gitops.compiler.base.diagnostics import Code
from mxjob_gitops.compiler.base.run import current_run
from mxjob_gitops.compiler.compile import jobcache
from mxjob_gitops.compiler.compile.checker import job_output_estimate
from mxjob_gitops.compiler.compile.documents import Manifest, Plan, compile_documents
from mxjob_gitops.compiler.compile.job import compile_object
from mxjob_gitops.compiler.compile.jobcache import CompileCache
from mxjob_gitops.compiler.diff import changes
from mxjob_gitops.compiler.io import forked
from mxjob_gitops.compiler.read.source import parse_text
from mxjob_gitops.compiler.render.options import RenderOptions
from tests.conftest import run_cli
from tests.exact_inputs import PASSING as PASSING
from tests.exact_inputs import Tree as Tree
from tests.exact_inputs import priority_class as _priority_class
from tests.exact_inputs import small_job as _job
from tests.exact_inputs import trees as trees
from tests.exact_inputs import write_tree


def test_a_job_on_both_sides_is_compiled_once_and_rendered_on_neither(tmp_path: Path) -> None:
    """Three unchanged jobs (one moved to another file), one changed: four compiles, only the changed one rendered."""
    old_tree: Tree = {"a.yaml": [_job("alpha", 2, "mxnet:1.9", None, True), _job("beta", 2, "mxnet:1.9", None, True)]}
    old_tree["b.yaml"] = [_job("gamma", 2, "mxnet:1.9", None, True), _job("delta", 2, "mxnet:1.9", None, True)]
    new_tree: Tree = {"a.yaml": [old_tree["a.yaml"][0]], "c.yaml": [old_tree["a.yaml"][1]]}
    new_tree["b.yaml"] = [old_tree["b.yaml"][0], _job("delta", 3, "mxnet:1.9", None, True)]
    write_tree(tmp_path / "old", old_tree)
    write_tree(tmp_path / "new", new_tree)
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


__all__ = ["PASSING", "Tree", "_priority_class", "trees"]  # tests/test_render_parts.py takes its trees from here
