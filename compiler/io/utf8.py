"""Where a text that is not UTF-8 goes wrong: the line and column of the first bad byte (counted as every
diagnostic counts them, in characters of the valid text before it), for cli.inputs and cli.gitsource."""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, Location, Severity


@dataclass(frozen=True, slots=True)
class NotUtf8:
    """The first byte that is not UTF-8: its offset in the input, its value, and its line and column."""

    offset: int
    byte: int
    line: int
    column: int

    def where(self, label: str) -> Location:
        return Location(label, self.line, self.column)

    def message(self) -> str:
        return f"the file is not UTF-8 text: byte 0x{self.byte:02X} at byte offset {self.offset:,} is not valid UTF-8"

    def diagnostic(self, label: str) -> Diagnostic:
        return Diagnostic(
            Code.YAML_SYNTAX, Severity.ERROR, self.message(), location=self.where(label), hint="save it as UTF-8"
        )


def not_utf8(raw: bytes, error: UnicodeDecodeError) -> NotUtf8:
    """NotUtf8 for `raw`, which failed to decode with `error` (utf-8-sig reports offsets after the byte order mark,
    so the offset is found again in the text after it; the text before the bad byte decodes, by definition)."""
    from mxjob_gitops.compiler.read.source import SourceText

    shift = 3 if raw.startswith(codecs.BOM_UTF8) else 0
    body = raw[shift:]
    try:
        body.decode("utf-8")
        start = error.start  # not reached: the same bytes fail again
    except UnicodeDecodeError as again:
        start = again.start
    before = body[:start].decode("utf-8")
    at = SourceText("", before).position("", len(before))
    return NotUtf8(start + shift, body[start], at.line or 1, at.column or 1)
