"""Cut a YAML stream's text into its documents' texts without parsing it, where that is certain to be exact.

libyaml ends whatever is open and starts a new document at a line that begins with `---` followed by a
blank or the end (scanner.c, yaml_parser_fetch_next_token: a document indicator is checked at column 0
before anything else; an open flow collection or quoted scalar is a syntax error there). A stream with no
other document-level marker is therefore the concatenation of independent streams cut right before each
such line, and each piece after the first holds exactly one document (possibly empty). The first piece
holds no document when it is only blank lines and comments, else exactly one.

Texts this reasoning does not cover are not cut (None): `...` document ends and `%` directives at column
0 (both change what follows), line breaks other than LF (CR, NEL, LS and PS also break lines for libyaml),
byte order marks and NUL characters inside the text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final, NamedTuple

# Each searched after a line feed, not at a line start (`^` with re.MULTILINE): a literal first character lets the
# regex engine skip ahead, over ten times faster on a large stream; the text's very start is checked on its own.
DOCUMENT_START: Final = re.compile(r"\n---(?=[ \t\n]|\Z)")  # matched at the line feed before the line
_MARKER: Final = re.compile(r"\n(?:%|\.\.\.(?=[ \t\n]|\Z))")
# Both in one pass (half the time of two): group 1 is set at a document start, else a marker was found.
_START_OR_MARKER: Final = re.compile(r"\n(?:(---)(?=[ \t\n]|\Z)|%|\.\.\.(?=[ \t\n]|\Z))")
_BREAKS: Final = re.compile(r"[\r\x85\u2028\u2029\ufeff\x00]")
_EMPTY_LINES: Final = re.compile(r"(?: *(?:#[^\n]*)?\n)*(?: *(?:#[^\n]*)?)?\Z")


class Piece(NamedTuple):
    """One cut of the text: where it starts (a character index), its text, and how many documents it holds
    (None: one or none, unknown without parsing; 1 or 0 when certain). A tuple: a large stream has tens of
    thousands, and a frozen dataclass takes three times as long to make."""

    offset: int
    text: str
    documents: int | None


def split_documents(text: str) -> list[Piece] | None:
    """The pieces of text, one per document (the first may hold none), or None when it cannot be cut exactly."""
    if _not_covered(text):
        return None
    starts: list[int] = []
    for match in _START_OR_MARKER.finditer(text):
        if match.group(1) is None:
            return None  # a `%` directive or a `...` document end at a line's start
        starts.append(match.start() + 1)
    if DOCUMENT_START.match("\n" + text[:4]):
        starts.insert(0, 0)
    pieces: list[Piece] = []
    if not starts or starts[0] > 0:
        head = text[: starts[0] if starts else len(text)]
        pieces.append(Piece(0, head, 0 if _EMPTY_LINES.match(head) else None))
    for position, start in enumerate(starts):
        end = starts[position + 1] if position + 1 < len(starts) else len(text)
        pieces.append(Piece(start, text[start:end], 1))
    return pieces


def split_along(text: str, earlier: Sequence[Piece], where: Mapping[str, int]) -> list[Piece] | None:
    """split_documents(text), found by comparing rather than searching where the text repeats pieces another
    text was cut into (`earlier`, in that text's order; `where`: each one's text -> its index in `earlier`).

    A piece of another text that is found at a cut of this one and is followed by a cut (or the end) is one of
    this text's pieces, and holds no `%` or `...` marker: the cuts and markers inside it are those the other text
    had there (none), because the patterns look at most four characters past a line feed and every cut is
    followed by `---`. Elsewhere the text is searched piece by piece, and the next earlier piece expected is
    the one after the last piece of this text found in `earlier`. A pull request leaves most of a large
    rendering as it was: its pieces are then compared (and their texts, with their hashes, reused) instead
    of the whole text being searched and copied."""
    if _not_covered(text):
        return None
    length = len(text)
    pieces: list[Piece] = []
    at = 0
    if not DOCUMENT_START.match("\n" + text[:4]):
        at = _next_cut(text, 0)
        if _has_marker(text, 0, at):
            return None
        pieces.append(Piece(0, text[:at], 0 if _EMPTY_LINES.match(text, 0, at) else None))
    expected = 0
    while at < length:
        if expected < len(earlier):
            candidate = earlier[expected].text
            end = at + len(candidate)
            if (
                earlier[expected].documents == 1
                and text.startswith(candidate, at)
                and (end == length or DOCUMENT_START.match(text, end - 1))
            ):
                pieces.append(Piece(at, candidate, 1))
                at, expected = end, expected + 1
                continue
        end = _next_cut(text, at)
        if _has_marker(text, at, end):
            return None
        piece = text[at:end]
        known = where.get(piece)
        if known is not None:  # moved, or after pieces left out: the same text, with its hash
            piece, expected = earlier[known].text, known + 1
        else:  # changed, or added: expect the piece after the one expected
            expected += 1
        pieces.append(Piece(at, piece, 1))
        at = end
    return pieces


def _next_cut(text: str, start: int) -> int:
    """Where the next document starts after the line feed at or after `start`, or the text's end."""
    found = DOCUMENT_START.search(text, start)
    return found.start() + 1 if found else len(text)


def _has_marker(text: str, start: int, end: int) -> bool:
    """Whether a `%` or `...` marker starts at a line feed in text[start:end], where `end` is the text's end or a
    cut (text[end - 1] is then a line feed, so no marker reaches `end` or needs the text after it)."""
    return _MARKER.search(text, start, end) is not None


def _not_covered(text: str) -> bool:
    """Whether the text starts with a `%` directive or `...`, or holds a break or character named above (those
    at the start of a later line are found while cutting)."""
    if _MARKER.match("\n" + text[:4]):
        return True
    if text.isascii():  # str.find is a memchr; the class regex tests every character
        return "\r" in text or "\x00" in text
    return _BREAKS.search(text) is not None
