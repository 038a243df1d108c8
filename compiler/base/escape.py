"""One escaping function per output format, for every string that came from input (file names, object names,
messages that quote values, Git refs). Called by every printer: diagnostics, the validate and diff reporters,
the CLI's error lines. JSON has its own in emit.json_text.

- `terminal`: one line for a person or a CI log. Control characters (C0, DEL, C1, so also ANSI escapes and
  line breaks), bidirectional overrides and isolates, line/paragraph separators, BOM, non-characters and lone
  surrogates become `\\xNN` / `\\uNNNN`; GitHub Actions' workflow-command openers are broken up too, since the
  runner reads every line of a step's output: `::` after leading blanks (actions/runner
  src/Runner.Common/ActionCommand.cs TryParseV2) and `##[` anywhere in a line (TryParse).
- `github_data` / `github_property`: a command's message and its `file=`/`title=` values, escaped as the
  runner unescapes them (ActionCommand.cs _escapeDataMappings, _escapePropertyMappings), after `terminal`.
- `tap_description`: a test point's description; TAP 14 reads `#` as the start of a directive (`# TODO`,
  `# SKIP`) unless written `\\#`, and `\\\\` as a backslash (testanything.org tap-version-14-specification).
- `xml_text`: characters XML 1.0 does not allow (its `Char` production: no C0 but tab/LF/CR, no U+FFFE/FFFF,
  no lone surrogates) become `\\uNNNN`; ElementTree escapes markup but writes these as they are.
- `markdown_code` / `markdown_text` / `markdown_html`: a string in a CommonMark/GFM comment: a code span whose
  backtick fence is longer than any run inside it (pipes escaped in a table), prose with markup characters
  backslash-escaped, or HTML-escaped text inside a tag.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ufff9-\ufffb"
    "\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]"
)
_COMMAND = re.compile(r"(?<=:):|(?<=##)\[")
# What XML 1.0 does not allow (its Char production is TAB, LF, CR, U+0020-U+D7FF, U+E000-U+FFFD and U+10000 up),
# spelled as the short complement: the negated class with the large ranges costs 9 ms to compile at every start.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_MARKUP = re.compile(r"[\\`*_\[\]<&|!~]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e"}


def _code(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    point = ord(char)
    return f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}"


def terminal(text: str) -> str:
    """One printable line: no control, bidi or invisible character, no workflow-command opener."""
    return _COMMAND.sub(lambda m: f"\\x{ord(m.group()):02x}", _UNSAFE.sub(_code, text))


def github_data(text: str) -> str:
    return terminal(text).replace("%", "%25")


def github_property(text: str) -> str:
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


def tap_description(text: str) -> str:
    return terminal(text).replace("\\", "\\\\").replace("#", "\\#")


def xml_text(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def markdown_code(text: str, table: bool = False) -> str:
    """`text` as an inline code span that nothing in it can close; in a GFM table cell, pipes are escaped."""
    body = terminal(text)
    longest = max((len(run) for run in re.findall("`+", body)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if body[:1] == "`" or body[-1:] == "`" or (body[:1] == " " and body[-1:] == " ") else ""
    span = f"{fence}{pad}{body}{pad}{fence}"
    return span.replace("|", "\\|") if table else span


def markdown_text(text: str) -> str:
    """`text` as literal Markdown prose: the characters that open markup (emphasis, code, links, images, HTML,
    entities, tables, strikethrough) are backslash-escaped, which CommonMark allows for any ASCII punctuation."""
    return _MARKUP.sub(r"\\\g<0>", terminal(text))


def markdown_html(text: str) -> str:
    """`text` for inside an HTML element of a comment (e.g. `<code>` in a `<summary>`)."""
    import html  # only the markdown diff report needs it

    return html.escape(terminal(text), quote=True).replace("`", "&#96;").replace("|", "&#124;")
