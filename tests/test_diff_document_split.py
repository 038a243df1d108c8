"""Documents are cut from a YAML stream by text only where that is exact: shared parses equal parse_text's."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.io.inputs import SharedParses
from mxjob_gitops.compiler.read.docsplit import Piece, split_along, split_documents
from mxjob_gitops.compiler.read.source import ParseResult, parse_text

# Lines that are each their own trap for a cut by text: document markers inside block scalars, indented and
# not, document ends, directives, quoted and plain scalars running over a marker, flow collections, nulls.
LINES = (
    "---",
    "--- ",
    "--- a: 1",
    "---x: 1",
    " ---",
    "...",
    "%YAML 1.1",
    "%TAG ! tag:example.com,2000:",
    "# a comment",
    "",
    "   ",
    "\t",
    "a: 1",
    "b: [1, 2",
    "c: {d: 3}",
    "e: |",
    "  line",
    "  ---",
    "f: 'quoted",
    'g: "quoted',
    "  continued'",
    "h: plain",
    "  continued",
    "null",
    "~",
    "- item",
    "  - nested",
    "i: &anchor {j: 1}",
    "k: *anchor",
    "kind: MXJob",
    "a: 1",
    "a: 2",
    "l: !!binary aGVsbG8=",
    "m: !custom x",
    "\ufeffn: 1",
    "o: 1\r",
    "p: 1e999",
)


def _same(a: ParseResult, b: ParseResult) -> None:
    assert [d.render() for d in a.diagnostics] == [d.render() for d in b.diagnostics]
    assert [(d.file, d.index, d.start) for d in a.documents] == [(d.file, d.index, d.start) for d in b.documents]
    assert [_typed(d.data) for d in a.documents] == [_typed(d.data) for d in b.documents]


def _typed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


texts = st.lists(st.sampled_from(LINES), max_size=14).map("\n".join) | st.lists(
    st.sampled_from(LINES), max_size=14
).map(lambda lines: "".join(line + "\n" for line in lines))


@settings(max_examples=400, deadline=None)
@given(st.lists(texts, min_size=1, max_size=3), texts)
def test_shared_parses_equal_parse_text(others: list[str], text: str) -> None:
    """Whatever pieces of it were seen before, in other files, a text reads as parse_text reads it."""
    parse = SharedParses()
    for position, other in enumerate(others):
        _same(parse(other, f"other-{position}.yaml"), parse_text(other, f"other-{position}.yaml"))
    _same(parse(text, "new.yaml"), parse_text(text, "new.yaml"))
    _same(parse(text, "again.yaml"), parse_text(text, "again.yaml"))


@given(texts)
def test_pieces_put_together_are_the_text(text: str) -> None:
    pieces = split_documents(text)
    if pieces is not None:
        assert "".join(p.text for p in pieces) == text
        assert [p.offset for p in pieces] == [text.index(p.text, p.offset) for p in pieces]


def _along(text: str, others: list[str]) -> list[Piece] | None:
    earlier = [piece for other in others for piece in split_documents(other) or []]
    return split_along(text, earlier, {piece.text: at for at, piece in enumerate(earlier)})


@settings(max_examples=600, deadline=None)
@given(st.lists(texts, min_size=1, max_size=3), st.data())
def test_a_text_cut_along_earlier_pieces_is_cut_as_alone(others: list[str], data: st.DataObject) -> None:
    """Cut along other texts' pieces, a text is cut exactly as by itself, whatever it shares with them: here it
    is made of their lines and pieces, with lines and pieces dropped, added and moved."""
    pieces = [piece.text for other in others for piece in split_documents(other) or []] + others
    parts = data.draw(st.lists(st.sampled_from(pieces) | st.sampled_from(LINES).map(lambda line: line + "\n")))
    text = "".join(parts) + data.draw(st.sampled_from(("", "---", "--- x", "...", "%", "a: 1", "\n---\n")))
    assert _along(text, others) == split_documents(text)


@given(st.lists(texts, min_size=1, max_size=2), texts)
def test_any_text_cut_along_earlier_pieces_is_cut_as_alone(others: list[str], text: str) -> None:
    assert _along(text, others) == split_documents(text)


def test_pieces_found_along_earlier_ones_reuse_their_texts() -> None:
    old = "".join(f"---\nname: job-{n}\n" for n in range(6))
    new = old.replace("job-2\n", "job-2b\n").replace("---\nname: job-4\n", "")
    earlier = split_documents(old)
    assert earlier is not None
    found = split_along(new, earlier, {piece.text: at for at, piece in enumerate(earlier)})
    assert found == split_documents(new)
    assert found is not None
    assert [any(p.text is e.text for e in earlier) for p in found] == [True, True, False, True, True]


def test_a_stream_is_cut_before_each_document_start() -> None:
    pieces = split_documents("# head\n---\na: 1\n--- b\n---\n")
    assert pieces is not None
    assert [(p.offset, p.text, p.documents) for p in pieces] == [
        (0, "# head\n", 0),
        (7, "---\na: 1\n", 1),
        (16, "--- b\n", 1),
        (22, "---\n", 1),
    ]
    assert split_documents("a: 1\n...\n---\nb: 1\n") is None
    assert split_documents("%YAML 1.1\n---\na: 1\n") is None
    assert split_documents("a: 1\r\n") is None


def test_only_new_documents_are_parsed_and_each_keeps_its_own_position() -> None:
    parse = SharedParses()
    old = parse("---\na: 1\n---\nb: 2\n---\nc: 3\n", "old.yaml")
    new = parse("# moved\n---\nc: 3\n---\nd: 4\n---\na: 1\n", "new.yaml")
    assert [d.data for d in new.documents] == [{"c": 3}, {"d": 4}, {"a": 1}]
    assert new.documents[0].data is old.documents[2].data and new.documents[2].data is old.documents[0].data
    assert [(d.index, str(d.locate(()))) for d in new.documents] == [
        (0, "new.yaml:3:1"),
        (1, "new.yaml:5:1"),
        (2, "new.yaml:7:1"),
    ]
    assert str(new.documents[2].locate(("a",))) == "new.yaml:7:4"
