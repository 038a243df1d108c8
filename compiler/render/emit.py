"""Deterministic serialisation of manifests to block YAML (kubectl style) and JSON; independent of input order.

Why not a YAML library: the output is plain JSON-shaped data, and a dedicated emitter is about 5x faster than
PyYAML's C dumper on it (bench/render_bench.py). Correctness is pinned by property tests that load the output
back with PyYAML (YAML 1.1 rules, as go-yaml and kubectl read it) and with ruamel.yaml (YAML 1.2).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, Protocol

import yaml


class TextSink(Protocol):
    """Anything with write(str): a text file, sys.stdout, an in-memory buffer."""

    def write(self, text: str, /) -> int: ...


_FIRST_KEYS = ("apiVersion", "kind", "metadata", "name", "namespace")
_FIRST = frozenset(_FIRST_KEYS)
# Plain scalars limited to a conservative alphabet; anything else is quoted.
_PLAIN = re.compile(r"(?:[A-Za-z0-9_./]|-(?=[^ ]))[A-Za-z0-9_./@%+=~:, -]*")
# Scalars that some YAML reader (YAML 1.2 core, go-yaml v2 booleans) would not read back as a string. Signs and
# underscores alone (`_`, `-_`) too: ruamel.yaml's int pattern `[-+]?[0-9_]+` takes them and then fails to load.
_NOT_STRING = re.compile(
    r"[yYnN]|[-+]?(?:_[0-9_]*|0o[-+]?[0-7_]+|0x[0-9a-fA-F_]+|0b[01_]+"
    r"|(?:\.[0-9_]+|[0-9][0-9_:]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))"
)
# Characters YAML does not allow raw, or reads as line breaks, or that a single-quoted scalar cannot hold.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")
# Also bidirectional overrides and isolates (escape.terminal's set): lossless in JSON, and a terminal showing
# the JSON cannot be made to display text in another order than it has.
_ESCAPE_AFTER_JSON = re.compile(
    "[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ufffe\uffff\ud800-\udfff]"
)
# A line that GitHub Actions runs as a workflow command (actions/runner ActionCommand.TryParseV2: `::` after
# leading blanks); `##[` anywhere is its older form (TryParse). See compiler/base/escape.py.
_COMMAND_LINE = re.compile(r"\s*::")
_RESOLVER = yaml.resolver.Resolver()
_STR_TAG = "tag:yaml.org,2002:str"
_CACHE_LIMIT = 200_000
_CACHEABLE_LENGTH = 256
# A character no plain scalar holds: a string containing one is always quoted.
_NEVER_PLAIN = re.compile(r"[^A-Za-z0-9_./@%+=~:, -]")


def single_quoted_body(text: str) -> str | None:
    """The inside of a single-quoted scalar for text, or None when text needs double quotes (also text holding
    `##[`, which a CI log would run as a workflow command: double quotes write it `##\\u005b`, see json_text)."""
    return None if _UNSAFE.search(text) or "##[" in text else text.replace("'", "''")


def _is_plain(text: str) -> bool:
    return (
        _PLAIN.fullmatch(text) is not None
        and text[-1] not in " :"
        and ": " not in text
        and " #" not in text
        and _NOT_STRING.fullmatch(text) is None
        and _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) == _STR_TAG  # type: ignore[no-untyped-call]
    )


def _double_quoted(text: str) -> str:
    return json_text(text)


def quote(text: str) -> str:
    """A single-line YAML scalar that every YAML reader reads back as exactly this string."""
    if text and _is_plain(text):
        return text
    body = single_quoted_body(text)
    return f"'{body}'" if body is not None else _double_quoted(text)


def _literal_lines(text: str) -> list[str] | None:
    """Lines for a literal block scalar, or None when the text cannot be written as one exactly."""
    body = text[:-1] if text.endswith("\n") else text
    if body.endswith("\n") or not body:
        return None
    lines = body.split("\n")
    first = next((line for line in lines if line), "")
    if first[:1] in (" ", "\t"):
        return None
    for line in lines:
        if line[-1:] in (" ", "\t") or _UNSAFE.search(line) or _COMMAND_LINE.match(line) or "##[" in line:
            return None  # a block line a CI log would run as a workflow command: double quotes keep it on one line
    return lines


def ordered_keys(mapping: dict[str, Any]) -> list[str]:
    """apiVersion, kind, metadata, name, namespace first (when present), then alphabetical."""
    order = sorted(mapping)
    if len(order) > 1 and not _FIRST.isdisjoint(mapping):
        order = [k for k in _FIRST_KEYS if k in mapping] + [k for k in order if k not in _FIRST]
    return order


def _number(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        if "e" in text and "." not in text.split("e")[0]:
            mantissa, exponent = text.split("e")
            text = f"{mantissa}.0e{exponent}"
        return text
    raise TypeError(f"cannot serialise {type(value).__name__}")


class Emitter:
    """Serialises the manifests of one render to block YAML; owns the caches that live exactly as long as it.

    `expect_prefix` lets a producer announce the long prefix that many coming strings share (MX_CONFIG lists
    every replica, so each of a job's n pods carries an O(n) value that differs only in its tail): the emitter
    checks the prefix once and then scans only the tails. An announcement is an optimisation, never a
    change of output: a string that does not start with the prefix is quoted the generic way.
    """

    def __init__(self) -> None:
        self._quoted: dict[str, str] = {}
        self._layouts: dict[tuple[tuple[str, ...], str, str], list[tuple[str, str]]] = {}
        self._prefix: tuple[str, str] | None = None

    def expect_prefix(self, prefix: str) -> None:
        """Announce a long prefix of strings to come; ignored unless it makes every such string quoted."""
        body = single_quoted_body(prefix) if _NEVER_PLAIN.search(prefix) else None
        self._prefix = (prefix, body) if body is not None and len(prefix) > _CACHEABLE_LENGTH else None

    def quote(self, text: str) -> str:
        """quote(text), remembered for short strings and shortened by an announced prefix for long ones."""
        if len(text) > _CACHEABLE_LENGTH:
            prefix = self._prefix
            if prefix is not None and text.startswith(prefix[0]):
                tail = single_quoted_body(text[len(prefix[0]) :])
                if tail is not None:
                    return f"'{prefix[1]}{tail}'"
            return quote(text)
        cached = self._quoted.get(text)
        if cached is None:
            cached = quote(text)
            if "\n" not in text:  # _mapping takes a remembered string as is: never one a block scalar may hold
                if len(self._quoted) >= _CACHE_LIMIT:
                    self._quoted.clear()
                self._quoted[text] = cached
        return cached

    def to_yaml(self, document: dict[str, Any]) -> str:
        """One manifest as block YAML, without a document marker."""
        out: list[str] = []
        if document:
            self._mapping(document, "", "", out)
        else:
            out.append("{}\n")
        return "".join(out)

    def write_yaml_stream(self, documents: Iterable[dict[str, Any]], stream: TextSink) -> int:
        """Write a multi-document stream; returns the number of documents written."""
        return write_yaml_texts(map(self.to_yaml, documents), stream)

    def _string(self, head: str, text: str, pad: str, out: list[str]) -> None:
        if "\n" in text:
            lines = _literal_lines(text)
            if lines is not None:
                out.append(f"{head} |{'' if text.endswith(chr(10)) else '-'}\n")
                out.extend(f"{pad}  {line}\n" if line else "\n" for line in lines)
                return
        out.append(f"{head} {self.quote(text)}\n")

    def _layout(self, mapping: dict[str, Any], lead: str, pad: str) -> list[tuple[str, str]]:
        """Each key in output order with the text before its value (`lead` on the first line, `pad` after),
        remembered per key tuple and indentation: a stream repeats a few hundred mapping shapes."""
        shape = (tuple(mapping), lead, pad)
        layout = self._layouts.get(shape)
        if layout is None:
            keys = ordered_keys(mapping)
            layout = [(key, _key_head(self.quote(key), lead if i == 0 else pad, pad)) for i, key in enumerate(keys)]
            if len(self._layouts) >= _CACHE_LIMIT:
                self._layouts.clear()
            self._layouts[shape] = layout
        return layout

    def _mapping(self, mapping: dict[str, Any], lead: str, pad: str, out: list[str]) -> None:
        quoted = self._quoted
        for key, head in self._layout(mapping, lead, pad):
            value = mapping[key]
            kind = type(value)
            if kind is str:
                # Only short strings are remembered; hashing a long one (MX_CONFIG of a wide job) costs a scan.
                text = quoted.get(value) if len(value) <= _CACHEABLE_LENGTH else None
                if text is not None:
                    out.append(f"{head} {text}\n")
                else:
                    self._string(head, value, pad, out)
            elif kind is dict:
                if value:
                    out.append(head + "\n")
                    inner = pad + "  "
                    self._mapping(value, inner, inner, out)
                else:
                    out.append(head + " {}\n")
            elif kind is list:
                if value:
                    out.append(head + "\n")
                    self._sequence(value, pad, out)
                else:
                    out.append(head + " []\n")
            else:
                out.append(f"{head} {self._scalar(value)}\n")

    def _sequence(self, items: list[Any], pad: str, out: list[str]) -> None:
        quoted = self._quoted
        for item in items:
            kind = type(item)
            if kind is dict:
                if item:
                    self._mapping(item, pad + "- ", pad + "  ", out)
                else:
                    out.append(f"{pad}- {{}}\n")
            elif kind is list:
                if item:
                    out.append(f"{pad}-\n")
                    self._sequence(item, pad + "  ", out)
                else:
                    out.append(f"{pad}- []\n")
            elif kind is str:
                text = quoted.get(item) if len(item) <= _CACHEABLE_LENGTH else None
                if text is not None:
                    out.append(f"{pad}- {text}\n")
                else:
                    self._string(f"{pad}-", item, pad, out)
            else:
                out.append(f"{pad}- {self._scalar(item)}\n")

    def _scalar(self, value: Any) -> str:
        return self.quote(value) if isinstance(value, str) else _number(value)


# YAML 1.2 §7.4.2 and §8.2.2 limit an implicit key to 1024 characters, and readers enforce it (PyYAML's
# scanner and go-yaml's, which kubectl uses, drop a "possible simple key" past that length): a longer key is
# written as an explicit `? key` entry, whose length no reader limits.
_SIMPLE_KEY_LIMIT = 1000


def _key_head(quoted: str, first: str, pad: str) -> str:
    if len(quoted) <= _SIMPLE_KEY_LIMIT:
        return f"{first}{quoted}:"
    return f"{first}? {quoted}\n{pad}:"


def to_yaml(document: dict[str, Any]) -> str:
    """One manifest as block YAML (a fresh Emitter: for many documents, keep one Emitter)."""
    return Emitter().to_yaml(document)


def json_text(value: Any, **options: Any) -> str:
    """json.dumps with raw UTF-8, except what YAML readers refuse or read as a line break (C1 controls, DEL,
    U+2028/2029, BOM, non-characters, lone surrogates) and bidi controls: those are \\u escapes, so JSON output
    stays valid YAML, displays in its own order and holds no GitHub Actions command."""
    text = json.dumps(value, ensure_ascii=False, **options)
    # `##[` occurs only inside a string here; as `##\u005b` no CI log runs it (escape.terminal says why).
    return _ESCAPE_AFTER_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text).replace("##[", "##\\u005b")


def to_json(document: Any) -> str:
    return json_text(document, indent=2, sort_keys=True) + "\n"


def write_yaml_stream(documents: Iterable[dict[str, Any]], stream: TextSink, emitter: Emitter | None = None) -> int:
    """Write a multi-document stream with one Emitter; returns the number of documents written."""
    return (emitter or Emitter()).write_yaml_stream(documents, stream)


def write_yaml_texts(texts: Iterable[str], stream: TextSink) -> int:
    """Write documents already serialised by Emitter.to_yaml as one stream; returns how many were written."""
    count = 0
    for text in texts:
        if count:
            stream.write("---\n")
        stream.write(text)
        count += 1
    return count


def json_list_item(document: Any) -> str:
    """One document's text inside write_json_texts' List (JSON strings hold no raw line break, so indenting its
    lines by two levels is what the whole list's json.dumps does)."""
    return json_text(document, indent=2, sort_keys=True).replace("\n", "\n    ")


def write_json_list(documents: Iterable[dict[str, Any]], stream: TextSink) -> int:
    """Write a v1 List (what `kubectl get -o json` prints for many objects), item by item: the text is
    to_json({"apiVersion": "v1", "kind": "List", "items": [...]}) exactly."""
    return write_json_texts(map(json_list_item, documents), stream)


def write_json_texts(texts: Iterable[str], stream: TextSink) -> int:
    """write_json_list of documents already serialised by json_list_item."""
    count = 0
    for text in texts:
        stream.write(",\n    " if count else '{\n  "apiVersion": "v1",\n  "items": [\n    ')
        stream.write(text)
        count += 1
    empty = to_json({"apiVersion": "v1", "kind": "List", "items": []})
    stream.write('\n  ],\n  "kind": "List"\n}\n' if count else empty)
    return count
