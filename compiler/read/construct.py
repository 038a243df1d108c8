"""Turn a composed YAML document into Python values fast, exactly as the parser's PyYAML constructor would.

PyYAML's constructor runs a generator per mapping and sequence and looks every scalar's constructor up by
tag (yaml/constructor.py, BaseConstructor.construct_object and construct_document); for a document without
anchors most of that machinery is idle. This walk handles the plain cases directly and hands a document to
the loader's own constructor (`Fallback`) as soon as it meets anything else: a merge key, a non-scalar key,
a tag other than map, seq, str, int, float, bool and null. Scalar values are made by the loader's own
constructor methods, remembered per (tag, text) (a rendered stream repeats a few thousand scalars);
floats are made afresh each time, because the loader records a problem for every non-finite one.
The result, including the problems recorded on the way, equals the slow path's (tests/test_exact_mode.py).
"""

from __future__ import annotations

from typing import Any, Protocol

import yaml

_PREFIX = "tag:yaml.org,2002:"
MAP, SEQ, STR, FLOAT, MERGE = (_PREFIX + name for name in ("map", "seq", "str", "float", "merge"))
_CACHED_SCALARS = frozenset(_PREFIX + name for name in ("str", "int", "bool", "null", "timestamp"))
_CACHE_LIMIT = 100_000


class Fallback(Exception):
    """The document holds something only PyYAML's own constructor handles exactly."""


class Constructing(Protocol):
    """What the walk needs from the loader (compiler.goloader.GoLoader)."""

    yaml_constructors: dict[Any, Any]
    problems: list[Any]

    def construct_yaml_float(self, node: yaml.ScalarNode) -> Any: ...

    def note_duplicate_key(self, node: yaml.Node) -> None: ...


class FastConstructor:
    """One per loader: the scalar cache lives as long as the parse of one input."""

    def __init__(self, loader: Constructing) -> None:
        self._loader = loader
        self._scalars: dict[tuple[str, str], Any] = {}

    def document(self, node: yaml.Node) -> Any:
        """The document's value; raises Fallback (having recorded nothing) when the slow path must build it."""
        return self._value(node)

    def _value(self, node: yaml.Node) -> Any:
        tag = node.tag
        if tag in _CACHED_SCALARS and type(node) is yaml.ScalarNode:
            return self._scalar(tag, node)
        if tag == MAP and type(node) is yaml.MappingNode:
            return self._mapping(node)
        if tag == SEQ and type(node) is yaml.SequenceNode:
            return [self._value(item) for item in node.value]
        if tag == FLOAT and type(node) is yaml.ScalarNode:
            return self._loader.construct_yaml_float(node)
        raise Fallback

    def _scalar(self, tag: str, node: yaml.ScalarNode) -> Any:
        if tag == STR:
            return node.value
        key = (tag, node.value)
        cache = self._scalars
        if key in cache:
            return cache[key]
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        problems = len(self._loader.problems)
        value = self._loader.yaml_constructors[tag](self._loader, node)
        if len(self._loader.problems) == problems:  # a value that does not fit its tag is reported every time
            cache[key] = value
        return value

    def _mapping(self, node: yaml.MappingNode) -> dict[str, Any]:
        """Keys that are strings (every other key is the loader's construct_mapping's: its text, warnings)."""
        pairs = node.value
        out: dict[str, Any] = {}
        for key_node, _ in pairs:
            if type(key_node) is not yaml.ScalarNode or key_node.tag != STR:
                raise Fallback
        for key_node, value_node in pairs:
            if key_node.value in out:
                self._loader.note_duplicate_key(key_node)
            out[key_node.value] = self._value(value_node)
        return out
