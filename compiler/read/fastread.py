"""Read a large YAML stream at native speed where that gives exactly what compiler.source's exact reader gives.

compiler.source (ParseStream) calls `read_documents` for large texts and takes its answer when it is not None;
None sends the text to the exact reader (PyYAML's C parser, Python construction, goscalar's scalar rules). The
fast reader parses each document's text (compiler.docsplit) with rapidyaml, writes it as JSON with rapidyaml's
own emitter and loads that with orjson, then proves the result equal to the exact reader's or gives up:

- libyaml's parser (PyYAML's CParser.raw_parse: all in C, no Python object per event) must accept the whole
  text: rapidyaml accepts texts libyaml refuses (a `]` starting a scalar, misindented lines), and the exact
  reader reports those. Its event count must equal what the loaded documents imply (a scalar per key and
  value, a start and an end per collection and document): a duplicate key collapsed in JSON (an error for
  the exact reader), or any structure rapidyaml read otherwise, refuses the stream.
- Values: a string with a line break in it comes from a multi-line scalar, whose folding the event count does
  not prove; it is refused unless it is the value of one of the text's literal block scalars (`|`, `|-`), read
  here by their own rules (`_literal_values`), and text where rapidyaml was found to fold otherwise is refused
  (`_value_risks`: lines of blanks, escaped line breaks, explicit indentation indicators of block scalars).
- Text the fast reader is not trusted with is refused before parsing (`_refused`): tabs, characters the YAML
  spec does not allow raw (libyaml refuses them, rapidyaml does not), anchors, aliases, tags, explicit `?` keys
  and the reserved indicators `@` and backtick at the start of a token; compiler.docsplit refuses directives,
  `...`, byte order marks and line breaks other than LF.
- rapidyaml's emitter writes a quoted or block scalar as a JSON string, a plain one as a number when it has
  a number's form (`.5` as `0.5`, `1.` as `1.0`), `true`, `false`, `null` and an empty scalar as themselves,
  `nan`/`inf` spellings as the strings `.nan`/`.inf`/`-.inf`, and every other plain scalar as a string
  (rapidyaml 0.15.2, src/c4/yml/emit.def.hpp: Emitter::_json_writev, _json_maybe_write_naninf). orjson refuses
  what JSON cannot hold (`+1`, `01.5`, `0x1F` written bare, control characters). So a number, boolean or null
  in the result came from a plain scalar with JSON's own spelling, which goscalar reads to the same value;
  only a non-finite float (`1e400`, a string for goscalar) is refused.
- A string in the result is the exact reader's string unless goscalar gives that text another type: then it
  must not have come from a plain scalar. That choice of the emitter depends on the text alone, so one probe
  per distinct text tells whether a plain one would be written as a string at all (`0` is written as a
  number: every string "0" was quoted); when it would, the text must not occur anywhere a plain scalar can
  begin and end (`_maybe_plain`), else the stream is refused. `""` and the `.nan`/`.inf`/`-.inf` the
  emitter writes for other spellings are refused.
- Keys: JSON keys are strings. A key goscalar reads as a string is the exact reader's key however it was
  quoted; one it reads otherwise (`1`, `yes`, `~`, `<<`, ...) must be quoted, or plain with the same text the
  exact reader gives it without a word (`1`, `true`).
- The limits hold (compiler.limits): a document that may hold more than MAX_DOCUMENT_NODES nodes is not
  parsed, one deeper than MAX_DEPTH or over the node limit once loaded is refused; the exact reader then
  reports it. There are no aliases on this path.
A text of SPLIT_MIN_CHARS or more is cut into chunks at document starts (compiler.docsplit's cut: each chunk is
a stream of its own), which compiler.fanout may read in other processes; every step above is then taken chunk by
chunk, which is the same as over the whole text (the screens look at characters and at line starts; each chunk
starts a line).
Locations are not taken from this reader: a diagnostic composes the text again with the exact reader
(compiler.source.SourceText), so positions are the same on both paths. tests/test_exact_mode.py holds commands
with and without it equal on tables, generated documents, every example, golden case and corpus file, and on
random edits of them; tests/test_fastread.py holds it to the Go readers.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import marshal
import math
import re
from collections.abc import Iterator, Sequence
from typing import Any, Final

from mxjob_gitops.compiler.base.limits import MAX_DEPTH, MAX_DOCUMENT_NODES
from mxjob_gitops.compiler.base.run import Run, current_run
from mxjob_gitops.compiler.read import goscalar
from mxjob_gitops.compiler.read.docsplit import DOCUMENT_START, Piece, split_documents

# Below this many characters (in the text or read by the run so far) the exact reader is used: importing the
# native modules costs more than they save.
FAST_READ_MIN_CHARS: Final = 256 * 1024
# From this many characters on, the text is cut into parts for compiler.fanout's workers: below it, starting a
# process and sending its documents back costs more than the part's reading.
SPLIT_MIN_CHARS: Final = 4 * 1024 * 1024
# How much longer the chunk read in this process is than each chunk read in another: a child's chunk costs more
# (its values are marshalled, piped back and loaded here; its first writes fault in copied pages). Reading the
# 27.7 MB rendering of 1,000 jobs on 2 CPUs, 4 interleaved rounds: 0.88-1.05 s with equal chunks, 0.85-0.95 s
# with 1.1, 0.87-1.00 s with 1.2.
FIRST_CHUNK_WEIGHT: Final = 1.1

_INDICATORS: Final = "&*!@`?"
_AT_TOKEN_START: Final = re.compile(r"(?:^|(?<=[ \[{,:]))(?:[&*!@`]|\?(?=[ \n]|$))", re.MULTILINE)
# Where rapidyaml's values are not proven by the event count (a scalar's text, not the tree's shape): a line of
# blanks only (inside a flow collection or a multi-line scalar it changes the value: `{k: train\n  \n }` is
# "train\n" to rapidyaml, "train" to libyaml and Go), an escaped line break in a double-quoted scalar, and a block
# scalar with an explicit indentation indicator (`>1+`, `|2-`). A value with a line break in it is refused
# unless it is the value of a literal block scalar of the text (`|` or `|-`, no indicator: _literal_values reads
# those by the spec's few rules, no folding); else it comes from a multi-line scalar that only the exact reader
# folds.
# Each is looked for from a substring found by str.find: one regex over a whole large stream costs a tenth of its
# reading.
_BLANKS_LINE: Final = re.compile(r"^ +$", re.MULTILINE)
_INDENTATION_INDICATOR: Final = re.compile(r"[|>](?:[1-9][+-]?|[+-][1-9])(?=[ \n#]|$)")
_UNPRINTABLE: Final = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")
_NANINF_OUT: Final = frozenset({".nan", ".inf", "-.inf"})
_JSON_INT: Final = re.compile(r"-?(?:0|[1-9][0-9]*)")
# compiler.limits.node_count_problem's cheap bound, per document: a text under it cannot hold too many nodes.
_NODE_MARKS: Final = ",:-[{?\n"


class _Refused(Exception):
    """The fast reader cannot vouch for this text: the exact reader must read it."""


# One document as read_documents gives it: its JSON text or value, its start, whether it holds a float.
Read = tuple[Any, int, bool]


def read_documents(
    text: str,
    *,
    values: bool = False,
    pieces: Sequence[Piece] | None = None,
    cut: list[Piece] | None = None,
    run: Run | None = None,
) -> list[Read] | None:
    """Each document of the stream as (its JSON text: `load` gives its value; with `values`, the value itself,
    index of its first character, whether it holds a float), nulls
    included (the exact reader counts them), or None when the exact reader must read the text. JSON text unless
    asked: a render streams its documents (compiler.stream), so the values of a whole large file must not be
    alive at once (loading again costs orjson's time twice, a tenth of the whole); a caller that keeps them all
    asks for values. `pieces`: split_documents(text), when the caller has cut
    the text already (each chunk then takes its own pieces instead of cutting again); else `cut`, when given, is
    filled with them where the text was read here (the chunks cut it, each in its process). `run`: whose workers
    and runner (None: the installed run)."""
    run = run if run is not None else current_run()
    count = run.workers if len(text) >= SPLIT_MIN_CHARS else 1
    try:
        with run.native_guard():  # the command line silences fd 2, where rapidyaml prints each parse error
            parts = run.runner(functools.partial(_read_chunk, text, values, pieces), _chunks(text, count))
    except Exception:  # _Refused, rapidyaml's parse errors, orjson's JSONDecodeError: the exact reader decides
        return None
    documents: list[Read] = []
    starts: list[tuple[int, int | None]] = []
    for part in parts:
        read, cuts = marshal.loads(part) if isinstance(part, bytes) else part
        documents.extend(read)
        starts.extend(cuts)
    if cut is not None and pieces is None:
        ends = [at for at, _count in starts[1:]] + [len(text)]
        cut.extend(Piece(at, text[at:end], count) for (at, count), end in zip(starts, ends, strict=True))
    return documents


def _chunks(text: str, count: int) -> list[tuple[int, int]]:
    """The text cut into at most `count` runs, each but the first starting at a line that starts a document
    (compiler.docsplit's cut): (start, end) character indexes. The first run, read here, is FIRST_CHUNK_WEIGHT
    times as long as each of the others, whose values must also be sent back and loaded here."""
    cuts = [0]
    shares = FIRST_CHUNK_WEIGHT + count - 1
    for part in range(1, count):
        found = DOCUMENT_START.search(text, max(int(len(text) * (FIRST_CHUNK_WEIGHT + part - 1) / shares), cuts[-1]))
        if found is None:
            break
        if found.start() + 1 > cuts[-1]:
            cuts.append(found.start() + 1)
    cuts.append(len(text))
    return list(itertools.pairwise(cuts))


def _refused(text: str) -> bool:
    """Whether the text holds what the fast reader is not trusted with (see the module's docstring)."""
    if "\t" in text or "\r" in text:
        return True
    if _value_risks(text):
        return True
    if any(indicator in text for indicator in _INDICATORS) and _AT_TOKEN_START.search(text):
        return True
    if text.isascii():
        return any(chr(code) in text for code in (*range(9), 11, 12, *range(14, 32), 127))
    return _UNPRINTABLE.search(text) is not None


def load(document: str) -> Any:
    """The value of a document read_documents gave."""
    import orjson

    return orjson.loads(document)


def _read_chunk(
    text: str,
    values: bool,
    given: Sequence[Piece] | None,
    chunk: tuple[int, int],
    here: bool,
) -> tuple[list[Read], list[tuple[int, int | None]]] | bytes:
    """The documents of text[start:end] as read_documents gives them, and where its pieces start with how many
    documents each holds (none when `given`); values sent from another process (not
    `here`, compiler.fanout) come marshalled, which loads in two thirds of orjson's time. _chunks cut the
    text so that the screens of a chunk and of its pieces are those of the whole text taken chunk by chunk:
    each chunk starts at a line's start, and the stream is the concatenation of its pieces as independent
    streams (compiler.docsplit); the pieces of the whole text `given` between the chunk's ends are its own.
    Raises _Refused (or rapidyaml's, orjson's errors) where the exact reader must
    read the text."""
    import orjson
    import ryml

    start, end = chunk
    part = text[start:end]
    if _refused(part):
        raise _Refused
    pieces: Sequence[Piece] | None
    if given is None:
        pieces, base = split_documents(part), start
    else:  # _chunks cuts where a piece starts
        first, last = (bisect.bisect_left(given, at, key=_offset) for at in chunk)
        pieces, base = given[first:last], 0
    if pieces is None:
        raise _Refused
    events = _libyaml_events(part)
    tree = ryml.Tree()
    read: list[tuple[Any, str | None, int, bool]] = []
    keys: set[str] = set()
    strings: dict[str, str] = {}
    counted = 2  # the stream's start and end
    for piece in pieces:
        if piece.documents == 0:
            continue
        if 2 * len(piece.text) + 4 > MAX_DOCUMENT_NODES and _node_bound(piece.text) > MAX_DOCUMENT_NODES:
            raise _Refused  # the exact reader counts its nodes without building them
        tree.clear()
        tree.clear_arena()
        ryml.parse_in_arena(piece.text.encode(), tree)
        root = tree.root_id()
        children = [tree.child(root, n) for n in range(tree.num_children(root))] if tree.is_stream(root) else [root]
        if len(children) != 1 and not (piece.documents is None and not children):
            raise _Refused
        for child in children:
            json = ryml.emit_json_malloc(tree, child)
            data = orjson.loads(json)
            implied, floats = _events(data, keys, strings)
            counted += implied
            # Kept until the chunk is proven: the value where it is asked for, else the JSON text.
            kept = (data if values else None, None if values else json)
            read.append((*kept, base + piece.offset + _start(piece.text), floats))
    if counted != events:  # a duplicate key collapsed, or rapidyaml read a structure libyaml did not
        raise _Refused
    if not all(_key_ok(text, key) for key in keys) or not all(_string_ok(text, value) for value in strings):
        raise _Refused
    multiline = {value for value in strings if "\n" in value}
    if multiline and not all(map(functools.partial(_one_line, part), multiline - _literal_values(part))):
        raise _Refused
    documents = [(data if values else json, at, fl) for data, json, at, fl in read]
    starts = [(base + piece.offset, piece.documents) for piece in pieces] if given is None else []
    return (documents, starts) if here or not values else marshal.dumps((documents, starts))


def _offset(piece: Piece) -> int:
    return piece.offset


def _node_bound(text: str) -> int:
    return 2 * sum(text.count(mark) for mark in _NODE_MARKS) + 4


def _libyaml_events(text: str) -> int:
    """How many events libyaml's parser gives for the text, all in C (PyYAML's CParser.raw_parse): it raises
    where the exact reader reports a syntax error, whatever rapidyaml would make of the text."""
    from yaml._yaml import CParser

    parser = CParser(text)
    try:
        return int(parser.raw_parse())
    finally:
        parser.dispose()


def _events(root: Any, keys: set[str], strings: dict[str, str]) -> tuple[int, bool]:
    """The parser events of a loaded document (its start and end, a scalar per key and scalar value, a start and
    an end per collection) and whether it holds a float; its keys and strings are collected. Refused: a
    non-finite float, nesting deeper than MAX_DEPTH, more than MAX_DOCUMENT_NODES nodes (keys included, as
    compiler.limits counts them).

    Equal string values become one object (`strings` maps each to the first one met): orjson shares equal keys
    but makes every value anew, and a rendering repeats a few thousand strings hundreds of thousands of times
    (a third of the loaded objects' memory; marshal then sends each once)."""
    if type(root) is not dict and type(root) is not list:
        if type(root) is str:
            strings.setdefault(root, root)
        elif type(root) is float and not math.isfinite(root):
            raise _Refused
        return 3, type(root) is float
    values = 1
    keyed = 0
    collections = 0
    floats = False
    share = strings.setdefault
    stack = [(root, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        container, depth = pop()
        collections += 1
        if depth > MAX_DEPTH:
            raise _Refused
        items: Any
        if type(container) is dict:
            keys.update(container)
            keyed += len(container)
            items = container.items()
        else:
            items = enumerate(container)
        values += len(container)
        for at, value in items:
            kind = type(value)
            if kind is str:
                container[at] = share(value, value)
            elif kind is dict or kind is list:
                push((value, depth + 1))
            elif kind is float:
                if not math.isfinite(value):
                    raise _Refused
                floats = True
    if values + keyed > MAX_DOCUMENT_NODES:
        raise _Refused
    return 2 + values + keyed + collections, floats


_START: Final = re.compile(r"(?:---(?=[ \n]|\Z))?(?:[ \n]+|#[^\n]*)*")


def _start(piece: str) -> int:
    """Where the document's root node begins: after its `---` marker, blanks and comments."""
    match = _START.match(piece)
    return match.end() if match else 0


def _string_ok(text: str, value: str) -> bool:
    if value == "" or value in _NANINF_OUT or "\r" in value:
        return False
    if goscalar.resolve(value) == goscalar.STR:
        return True
    return not _plain_is_string(value) or not _maybe_plain(text, value)


def _key_ok(text: str, key: str) -> bool:
    if key == "" or key in _NANINF_OUT or "\n" in key or "\r" in key:
        return False
    if key != "<<" and goscalar.resolve(key) == goscalar.STR:
        return True
    if not _maybe_plain(text, key):
        return True
    if key in ("true", "false"):  # a plain null key is an error
        return True
    return bool(_JSON_INT.fullmatch(key)) and str(goscalar.parse_int(key)) == key


@functools.lru_cache(maxsize=4096)
def _plain_is_string(value: str) -> bool:
    """Whether rapidyaml's JSON emitter writes this text, as a plain scalar, as a JSON string."""
    import orjson
    import ryml

    try:
        tree = ryml.parse_in_arena(f"- {value}\n".encode())
        return isinstance(orjson.loads(ryml.emit_json_malloc(tree, tree.root_id()))[0], str)
    except Exception:
        return True


def _maybe_plain(text: str, value: str) -> bool:
    """Whether the text holds `value` where a plain scalar can begin and end (a superset of where one does: a
    plain scalar begins at a line's start, after a blank, a flow indicator or a JSON-like key's `:`, and ends
    at a line's end, a blank, a flow indicator or `:`)."""
    pattern = r"(?<![^ \n\[{,:])" + re.escape(value) + r"(?![^ \n,\]}:])"
    return re.search(pattern, text) is not None


# A literal block scalar's header from its `|` on (found with str.find: a regex anchored by a look-behind scans every
# character of a large stream at a fraction of its speed); the `|` starts a line or follows a blank, `:` or `-`.
_LITERAL_HEADER: Final = re.compile(r"\|(-?) *(?:#[^\n]*)?\n")


def _literal_values(text: str) -> set[str]:
    """The values of the text's literal block scalars with no indentation indicator and clip (`|`) or strip
    (`|-`) chomping, by the YAML 1.2 spec's rules for them (8.1.2, 8.1.1.2): the lines indented at least as the
    first non-empty one, that indentation removed, line breaks kept, trailing empty lines dropped and one final
    line break kept (clip) or none (strip). A header that is no block scalar only adds a value nothing matches."""
    values: set[str] = set()
    for header in _literal_headers(text):
        lines: list[str] = []
        indent = 0
        position = header.end()
        while position < len(text):
            end = text.find("\n", position)
            end = len(text) if end < 0 else end
            line = text[position:end]
            if line:
                width = len(line) - len(line.lstrip(" "))
                indent = indent or width
                if width == 0 or width < indent:
                    break
                line = line[indent:]
            lines.append(line)
            position = end + 1
        while lines and not lines[-1]:
            lines.pop()
        if lines and indent:
            body = "\n".join(lines)
            values.add(body if header.group(1) else body + "\n")
    return values


def _value_risks(text: str) -> bool:
    """Whether the text holds what rapidyaml was found to fold otherwise (_BLANKS_LINE, an escaped line break,
    _INDENTATION_INDICATOR)."""
    if (" \n" in text or text.endswith(" ")) and _BLANKS_LINE.search(text):
        return True
    if "\\\n" in text or text.endswith("\\"):
        return True
    return any(_INDENTATION_INDICATOR.match(text, at) for mark in "|>" for at in _positions(text, mark))


def _positions(text: str, mark: str) -> Iterator[int]:
    at = text.find(mark)
    while at >= 0:
        yield at
        at = text.find(mark, at + 1)


def _literal_headers(text: str) -> Iterator[re.Match[str]]:
    for at in _positions(text, "|"):
        if at == 0 or text[at - 1] in " :-\n":
            header = _LITERAL_HEADER.match(text, at)
            if header is not None:
                yield header


def _one_line(text: str, value: str) -> bool:
    """Whether the text holds `value` as a one-line double-quoted scalar with its line breaks escaped, as JSON
    writes it (non-ASCII characters escaped or not): then no folding made it."""
    import json

    return any(json.dumps(value, ensure_ascii=escaped) in text for escaped in (False, True))
