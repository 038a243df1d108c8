"""Values that do not fit their tags are located errors (compiler/read/construct.py, read/goloader.py), each one
reported although scalars are remembered. That the fast constructor builds what PyYAML's own builds, problems
included, is tests/test_exact_mode.py's (with tests/exact_inputs.py's generated tagged values)."""

from __future__ import annotations

import pytest

from mxjob_gitops.compiler.base.diagnostics import Code
from mxjob_gitops.compiler.read.source import parse_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: !!int abc\n", "1:4: 'abc' is not a valid !!int"),
        ("a: [!!float x]\n", "1:5: 'x' is not a valid !!float"),
        ("a: {b: !!bool maybe}\n", "1:8: 'maybe' is not a valid !!bool"),
        ("a: !!int\n", "1:4: '' is not a valid !!int"),  # IndexError inside PyYAML
        ("- !!float\n", "1:3: '' is not a valid !!float"),
    ],
)
def test_a_value_that_does_not_fit_its_tag_is_a_located_error(text: str, expected: str) -> None:
    """PyYAML raises ValueError, KeyError or IndexError for these; they were internal errors (exit 3) before."""
    found = [d for d in parse_text(text, "in.yaml").diagnostics if d.code == Code.UNSAFE_TAG]
    assert [f"{d.location}: {d.message}" for d in found] == [f"in.yaml:{expected}"]


def test_every_misfit_is_reported_although_scalars_are_remembered() -> None:
    found = parse_text("a: [!!int x, !!int x, !!int 1, !!int 1]\n", "in.yaml").diagnostics
    assert [str(d.location) for d in found if d.code == Code.UNSAFE_TAG] == ["in.yaml:1:5", "in.yaml:1:14"]
