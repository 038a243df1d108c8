"""Random or broken input never yields a traceback: the compiler returns diagnostics, the CLI an exit code."""

from __future__ import annotations

import copy
import json
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler import RenderOptions, compile_documents, parse_text
from mxjob_gitops.compiler.render.emit import to_yaml
from tests.conftest import JOB_EXAMPLE_FILES, run_cli

EXAMPLE_DOCS = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in JOB_EXAMPLE_FILES]

junk = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8), st.floats(allow_nan=False)),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_paths(item, (*prefix, index)))
    return found


@st.composite
def mutated_jobs(draw: st.DrawFn) -> dict[str, Any]:
    document = copy.deepcopy(draw(st.sampled_from(EXAMPLE_DOCS)))
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        paths = [p for p in _paths(document) if p]
        path = draw(st.sampled_from(paths))
        parent: Any = document
        for part in path[:-1]:
            parent = parent[part]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "delete":
            del parent[path[-1]]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.text(max_size=10))] = draw(junk)
        else:
            parent[path[-1]] = draw(junk)
    result: dict[str, Any] = document
    return result


def _compile_text(text: str) -> None:
    parsed = parse_text(text, "fuzz.yaml")
    plan = compile_documents(parsed.documents, RenderOptions(namespace="ns"))
    if plan.ok and not parsed.diagnostics:
        for manifest in plan.manifests():
            to_yaml(manifest)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_jobs())
def test_mutated_jobs_never_raise(document: dict[str, Any]) -> None:
    _compile_text(json.dumps(document))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_random_text_never_raises(text: str) -> None:
    _compile_text(text)


@settings(max_examples=150, deadline=None)
@given(junk)
def test_random_documents_never_raise(document: Any) -> None:
    _compile_text(json.dumps(document))
    _compile_text(
        json.dumps({"apiVersion": "kubeflow.org/v1", "kind": "MXJob", "metadata": {"name": "x"}, "spec": document})
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_jobs())
def test_cli_always_exits_cleanly(document: dict[str, Any]) -> None:
    result = run_cli(["render", "-"], stdin=json.dumps(document))
    assert result.exit_code in (0, 1, 2), result.stderr
    assert "Traceback" not in result.stderr
    assert (result.stdout == "") == (result.exit_code != 0)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_jobs())
def test_fast_and_reference_schema_validators_agree(document: dict[str, Any]) -> None:
    """check_schema lets the fast validator decide alone only for documents without floats (jsonschema_rs takes 0.0
    for an integer, as JSON Schema does; the reference validator, like the API server, does not): there both agree,
    and a float only ever makes the reference stricter."""
    from mxjob_gitops.compiler.rules.schema import _fast_validator, _validator, has_float

    fast = _fast_validator()
    assert fast is not None
    reference = _validator().is_valid(document)
    if has_float(document):
        assert fast.is_valid(document) or not reference
    else:
        assert fast.is_valid(document) == reference
