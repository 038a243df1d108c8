"""What validate's fast paths rest on: no job renders a float it does not hold (validate walks a job for floats
once), valid examples need no explaining validator, and a valid rendered stream is located without composing it
again. That the compiled validator accepts exactly what the explaining one finds nothing in, on rendered objects
with one value changed and jobs with a float anywhere, is tests/test_exact_mode.py's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler import RenderOptions, compile_documents, parse_text
from mxjob_gitops.compiler.base.diagnostics import Location
from mxjob_gitops.compiler.render.job import CompiledJob
from mxjob_gitops.compiler.rules.schema import has_float
from mxjob_gitops.compiler.validate import kubeschema
from mxjob_gitops.compiler.validate.kubeschema import (
    DEFAULT_KUBERNETES_VERSION,
)
from mxjob_gitops.compiler.validate.validation import validate_plan
from tests.conftest import JOB_EXAMPLE_FILES, run_cli
from tests.exact_inputs import is_leaf, paths, replaced

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


def test_no_input_job_renders_a_float() -> None:
    """The other half of the rule below: no job of the examples and golden inputs renders a float (default
    options; 21 jobs)."""
    inputs = [*JOB_EXAMPLE_FILES, *sorted(GOLDEN.glob("*/input.yaml"))]
    for path in inputs:
        plan = compile_documents(parse_text(path.read_text(encoding="utf-8"), str(path)).documents, RenderOptions())
        jobs = [i for i in plan.items if isinstance(i, CompiledJob) and not has_float(i.conversion.data)]
        assert not any(has_float(m) for job in jobs for m in plan.item_manifests(job)), path
    assert len(inputs) > 20


FLOATS = st.sampled_from([1.0, 2.5, 0.5, 1e3, 3600.0, 7])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_job_renders_a_float_only_when_it_holds_one(data: st.DataObject) -> None:
    """validate_plan walks a job for floats once, not each object it renders: that is exact only while the
    compiler writes no float of its own."""
    job = data.draw(st.sampled_from(JOBS))
    leaves = [p for p in paths(job)[1:] if p[0] not in ("apiVersion", "kind") and is_leaf(job, p)]
    path = data.draw(st.sampled_from(leaves))
    changed = replaced(job, path, data.draw(FLOATS))
    plan = compile_documents(parse_text(json.dumps(changed), "job.json").documents, RenderOptions())
    for item in plan.items:
        if isinstance(item, CompiledJob) and not has_float(item.conversion.data):
            assert not any(has_float(m) for m in plan.item_manifests(item)), path


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
