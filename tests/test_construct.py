"""The fast constructor (compiler/read/construct.py) builds what PyYAML's own constructor builds, problems included."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.base.diagnostics import Code
from mxjob_gitops.compiler.read.goloader import GoLoader
from mxjob_gitops.compiler.read.source import parse_text

SCALARS = [
    "1", "-0x1F", "0o17", "0b101", "1_000", "1:30", "1.5", "1e3", "-.5", ".inf", "-.Inf", ".nan", "yes", "No",
    "on", "true", "FALSE", "null", "~", "''", "'q'", '"d\\n"', "2001-12-14", "=", "abc", "a b", "!!str 12",
    "!!int 12", "!!int abc", "!!int 0x", "!!float 1", "!!float x", "!!bool yes", "!!bool maybe", "!!null x",
    "!!binary aGVsbG8=", "!!timestamp 2001-12-14", "!foo x", "!!str", "!!int",
]  # fmt: skip
KEYS = ["a", "a", "b", "1", "01", "true", "yes", "null", "~", "1.0", "'1'", "<<", "!!int 2", "'a'", "!!float 3"]


def _flow(draw_children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pairs = st.lists(st.tuples(st.sampled_from(KEYS), draw_children), max_size=4)
    mapping = pairs.map(lambda kv: "{" + ", ".join(f"{k}: {v}" for k, v in kv) + "}")
    sequence = st.lists(draw_children, max_size=4).map(lambda items: "[" + ", ".join(items) + "]")
    complex_key = st.tuples(draw_children, draw_children).map(lambda kv: "{? " + kv[0] + " : " + kv[1] + "}")
    tagged = st.tuples(st.sampled_from(["!!map ", "!!seq ", "!!set ", "!!omap ", "!!str ", "!x "]), draw_children)
    return st.one_of(mapping, sequence, complex_key, tagged.map("".join))


FLOW = st.recursive(st.sampled_from(SCALARS), _flow, max_leaves=12)
BLOCK = st.lists(st.tuples(st.sampled_from(KEYS), FLOW), min_size=1, max_size=5).map(
    lambda kv: "".join(f"{k}: {v}\n" for k, v in kv)
)
STREAM = st.lists(st.one_of(BLOCK, FLOW.map(lambda text: text + "\n")), min_size=1, max_size=3).map("---\n".join)


def _outcome(text: str, fast: bool) -> tuple[str, list[tuple[Any, ...]]]:
    loader = GoLoader(text)
    values: list[Any] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            values.append(loader.construct_fast(node) if fast else loader.construct_document(node))
    except Exception as exc:  # the same failure is expected of both paths
        values.append(f"{type(exc).__name__}: {exc}")
    finally:
        loader.dispose()
    problems = sorted((p.index, p.code, p.message, p.hint) for p in loader.problems)
    return repr(values), problems


@settings(max_examples=400, deadline=None)
@given(STREAM)
@example("a: {a: [!!int, 1]}\na: !!map 1\n")  # two errors: PyYAML meets the outer one first
@example("a: [[!!bool maybe], !!seq x]\n")
def test_fast_constructor_equals_pyyaml_constructor(text: str) -> None:
    assert _outcome(text, fast=True) == _outcome(text, fast=False)


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
