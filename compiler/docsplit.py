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
from dataclasses import dataclass
from typing import Final

# Each searched after a line feed, not at a line start (`^` with re.MULTILINE): a literal first character lets the
# regex engine skip ahead, over ten times faster on a large stream; the text's very start is checked on its own.
DOCUMENT_START: Final = re.compile(r"\n---(?=[ \t\n]|\Z)")  # matched at the line feed before the line
_MARKER: Final = re.compile(r"\n(?:%|\.\.\.(?=[ \t\n]|\Z))")
_BREAKS: Final = re.compile(r"[\r\x85\u2028\u2029\ufeff\x00]")
_EMPTY_LINES: Final = re.compile(r"(?: *(?:#[^\n]*)?\n)*(?: *(?:#[^\n]*)?)?\Z")


@dataclass(frozen=True, slots=True)
class Piece:
    """One cut of the text: where it starts (a character index), its text, and how many documents it holds
    (None: one or none, unknown without parsing; 1 or 0 when certain)."""

    offset: int
    text: str
    documents: int | None


def split_documents(text: str) -> list[Piece] | None:
    """The pieces of text, one per document (the first may hold none), or None when it cannot be cut exactly."""
    if _not_covered(text):
        return None
    starts = [match.start() + 1 for match in DOCUMENT_START.finditer(text)]
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


def _not_covered(text: str) -> bool:
    """Whether the text holds a `%` directive or `...` at a line's start, or a break or character named above."""
    if _MARKER.search(text) or _MARKER.match("\n" + text[:4]):
        return True
    if text.isascii():  # str.find is a memchr; the class regex tests every character
        return "\r" in text or "\x00" in text
    return _BREAKS.search(text) is not None
