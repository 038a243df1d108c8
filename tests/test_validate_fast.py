"""validate's fast path: the compiled validator accepts exactly what the explaining validator finds nothing in."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler import RenderOptions, compile_documents, parse_text
from mxjob_gitops.compiler.base.diagnostics import Location
from mxjob_gitops.compiler.compile.documents import Plan
from mxjob_gitops.compiler.render.job import CompiledJob
from mxjob_gitops.compiler.rules.schema import has_float
from mxjob_gitops.compiler.validate import kubeschema
from mxjob_gitops.compiler.validate.kubeschema import (
    DEFAULT_KUBERNETES_VERSION,
    accepted_fast,
    schema_errors,
    validator_for,
)
from mxjob_gitops.compiler.validate.validation import ObjectResult, Status, validate_plan
from tests.conftest import JOB_EXAMPLE_FILES, run_cli

VERSION = DEFAULT_KUBERNETES_VERSION
GOLDEN = Path(__file__).parent / "golden"


def _rendered() -> list[dict[str, Any]]:
    text = "\n---\n".join(path.read_text(encoding="utf-8") for path in JOB_EXAMPLE_FILES)
    plan = compile_documents(parse_text(text, "examples").documents, RenderOptions())
    assert plan.ok
    return list(plan.manifests())


RENDERED = _rendered()
# One object of each kind the examples render: the mutation property below walks each of them.
SAMPLES = list({(m["apiVersion"], m["kind"]): m for m in RENDERED}.values())


def _explained(manifest: dict[str, Any], strict: bool = True) -> list[str]:
    validator = validator_for(manifest, VERSION, strict)
    assert validator is not None
    return [f"{e.pointer}: {e.message}" for e in schema_errors(manifest, validator)]


def _paths(node: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    found = [prefix]
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        found.extend(_paths(value, (*prefix, key)))
    return found


def _replace(manifest: dict[str, Any], path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(manifest)
    if not path:
        return changed
    parent: Any = changed
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return changed


def test_every_rendered_example_is_accepted_by_both() -> None:
    assert len({m["kind"] for m in RENDERED}) >= 4
    for manifest in RENDERED:
        assert accepted_fast(manifest, VERSION, strict=True), manifest["metadata"]["name"]
        assert _explained(manifest) == []


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("spec", "containers", 0, "imagePullPolicyy"), "Always"),  # unknown field
        (("spec", "containers", 0, "ports"), [{"containerPort": "eighty"}]),  # wrong type
        (("spec", "containers", 0, "ports"), [{"containerPort": 80.0}]),  # a float where Kubernetes wants an integer
        (("spec", "containers"), None),
        (("metadata", "labels"), {"a": 1}),
    ],
)
def test_invalid_objects_get_the_explaining_validators_findings(path: tuple[str | int, ...], value: Any) -> None:
    bad = _replace(next(m for m in RENDERED if m["kind"] == "Pod"), path, value)
    assert not accepted_fast(bad, VERSION, strict=True)
    assert _explained(bad) != []


MUTANTS = st.sampled_from([1.0, 2.5, "x", "", 7, -1, None, True, {"zz": 1}, [], ["x"], [{"zz": 1}]])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fast_and_explaining_validators_agree_on_mutations(data: st.DataObject) -> None:
    manifest = data.draw(st.sampled_from(SAMPLES))
    # apiVersion and kind pick the schema; every other value is fair game
    path = data.draw(st.sampled_from([p for p in _paths(manifest)[1:] if p[0] not in ("apiVersion", "kind")]))
    mutant = _replace(manifest, path, data.draw(MUTANTS))
    strict = data.draw(st.booleans())
    fast = accepted_fast(mutant, VERSION, strict)
    # accepted means the explaining validator finds nothing; a float always goes to the explaining validator
    assert fast == (_explained(mutant, strict) == [] and not has_float(mutant)), (path, mutant)


def test_findings_are_the_same_with_and_without_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    plan = compile_documents(
        parse_text(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: c, image: i, bogus: 1}\n"
            "---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80.0}]}\n",
            "in.yaml",
        ).documents,
        RenderOptions(),
    )
    fast = list(validate_plan(plan, VERSION, True))
    monkeypatch.setattr(kubeschema, "rust_validators", lambda: None)
    slow = list(validate_plan(plan, VERSION, True))
    assert fast == slow and all(result.findings for result in fast)


def test_rendered_examples_validate_without_building_the_explaining_validators() -> None:
    kubeschema._kubernetes_validator.cache_clear()
    kubeschema._own_validator.cache_clear()
    assert run_cli(["validate", *map(str, JOB_EXAMPLE_FILES)]).exit_code == 0
    assert kubeschema._kubernetes_validator.cache_info().misses == 0
    assert kubeschema._own_validator.cache_info().misses == 0


def test_a_valid_rendered_stream_is_located_without_composing_it_again() -> None:
    text = "".join(f"---\n# object {i}\n" + json.dumps(m) + "\n" for i, m in enumerate(RENDERED))
    parsed = parse_text(text, "rendered.yaml")
    plan = compile_documents(parsed.documents, RenderOptions(keep_rendered=True))
    results = list(validate_plan(plan, VERSION, True))
    source = parsed.documents[0].source
    assert source is not None and source._nodes is None  # nothing needed a position beyond a document's start
    assert [r.origin.line for r in results] == [3 * i + 3 for i in range(len(RENDERED))]
    composed = [d.source.node(d.index) for d in parsed.documents if d.source is not None]
    assert [r.origin for r in results] == [
        Location("rendered.yaml", n.start_mark.line + 1, n.start_mark.column + 1) for n in composed if n is not None
    ]


JOBS = [d.data for path in JOB_EXAMPLE_FILES for d in parse_text(path.read_text(encoding="utf-8"), str(path)).documents]
FLOATS = st.sampled_from([1.0, 2.5, 0.5, 1e3, 3600.0, 7])


def _results_both_ways(job: dict[str, Any]) -> tuple[list[ObjectResult], list[ObjectResult], Plan]:
    """validate_plan's results as it runs, and with the explaining validator alone (no fast path at all)."""
    plan = compile_documents(parse_text(json.dumps(job), "job.json").documents, RenderOptions())
    fast = list(validate_plan(plan, VERSION, True))
    with mock.patch.object(kubeschema, "rust_validators", lambda: None):
        slow = list(validate_plan(plan, VERSION, True))
    return fast, slow, plan


def _is_leaf(node: Any, path: tuple[str | int, ...]) -> bool:
    for key in path:
        node = node[key]
    return not isinstance(node, dict | list)


def test_no_input_job_renders_a_float() -> None:
    """The other half of the rule below: no job of the examples and golden inputs renders a float (default
    options; 21 jobs)."""
    inputs = [*JOB_EXAMPLE_FILES, *sorted(GOLDEN.glob("*/input.yaml"))]
    for path in inputs:
        plan = compile_documents(parse_text(path.read_text(encoding="utf-8"), str(path)).documents, RenderOptions())
        jobs = [i for i in plan.items if isinstance(i, CompiledJob) and not has_float(i.conversion.data)]
        assert not any(has_float(m) for job in jobs for m in plan.item_manifests(job)), path
    assert len(inputs) > 20


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_job_renders_a_float_only_when_it_holds_one(data: st.DataObject) -> None:
    """validate_plan walks a job for floats once, not each object it renders: that is exact only while the
    compiler writes no float of its own. A float anywhere in a job: the same results as without the fast path."""
    job = data.draw(st.sampled_from(JOBS))
    leaves = [p for p in _paths(job)[1:] if p[0] not in ("apiVersion", "kind") and _is_leaf(job, p)]
    path = data.draw(st.sampled_from(leaves))
    fast, slow, plan = _results_both_ways(_replace(job, path, data.draw(FLOATS)))
    assert fast == slow, path
    for item in plan.items:
        if isinstance(item, CompiledJob) and not has_float(item.conversion.data):
            assert not any(has_float(m) for m in plan.item_manifests(item)), path


@pytest.mark.parametrize("job", JOBS, ids=[j["metadata"]["name"] for j in JOBS])
def test_a_job_written_with_a_float_quantity_is_found_valid_both_ways(job: dict[str, Any]) -> None:
    changed = copy.deepcopy(job)
    template = next(iter(changed["spec"]["mxReplicaSpecs"].values()))["template"]
    template["spec"]["containers"][0]["resources"] = {"limits": {"cpu": 2.5}}  # the compiler writes "2500m"
    fast, slow, plan = _results_both_ways(changed)
    assert plan.ok and len(fast) > 1 and all(r.status is Status.VALID for r in fast)
    assert fast == slow


def _reference_position(text: str, index: int) -> tuple[int, int]:
    """Line and column from first principles: YAML 1.2's line breaks (CRLF, CR, LF) before the index."""
    line, start, at = 1, 0, 0
    while at < index:
        width = 2 if text.startswith("\r\n", at) and at + 1 < index else 1
        if text[at] in "\r\n":
            line, start = line + 1, at + width
        at += width
    return line, index - start + 1


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="ab\n\r:- ", max_size=40),
    st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=8),
    st.booleans(),
)
def test_positions_counted_on_from_the_last_agree_with_the_line_table(
    text: str, fractions: list[float], in_order: bool
) -> None:
    """Every document's start is located as validate walks a large rendering; positions asked for in text order
    are counted on from the last one, anything else goes to the table of line starts. Both give one answer."""
    from mxjob_gitops.compiler.read.source import SourceText

    indexes = [round(fraction * len(text)) for fraction in fractions]
    if in_order:
        indexes.sort()
    source = SourceText("f.yaml", text)
    for index in indexes:
        if text[index - 1 : index + 1] == "\r\n":  # inside a CRLF: no character starts there
            continue
        location = source.position("f.yaml", index)
        assert (location.line, location.column) == _reference_position(text, index)
