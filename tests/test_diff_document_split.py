"""Documents are cut from a YAML stream by text only where that is exact (compiler/read/docsplit.py): the pieces
put together are the text, and a text cut along earlier pieces is cut as alone. That a diff's shared parses read
what parse_text reads is tests/test_exact_mode.py's (tests/exact_inputs.py's lines)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.io.inputs import SharedParses
from mxjob_gitops.compiler.read.docsplit import Piece, split_along, split_documents
from tests.exact_inputs import LINE_TEXTS, LINES

texts = LINE_TEXTS


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
