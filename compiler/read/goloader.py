"""The YAML loader with the Kubernetes tools' reading rules: go-yaml v2's plain scalars and map keys
(compiler.goscalar), duplicate keys, tags and non-JSON values recorded as problems instead of guessed, and the
warnings where kubectl and kustomize read one text differently. compiler.source drives it."""

from __future__ import annotations

import base64
import collections.abc
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import yaml

from mxjob_gitops.compiler.base.diagnostics import Code, Severity
from mxjob_gitops.compiler.read import goscalar

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# Kubernetes reads YAML the way go-yaml does: timestamps and "=" stay strings.
_DROPPED_RESOLVERS = {"tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:value"}
_STRING_TAGS = ("tag:yaml.org,2002:value",)
_BINARY = "tag:yaml.org,2002:binary"


@dataclass(frozen=True, slots=True)
class Problem:
    code: Code
    message: str
    index: int
    hint: str = ""
    severity: Severity = Severity.ERROR


class GoLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """A safe loader that records duplicate keys, unknown tags and non-JSON values instead of guessing."""

    yaml_implicit_resolvers: ClassVar[dict[Any, Any]] = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag not in _DROPPED_RESOLVERS]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    yaml_constructors: ClassVar[dict[Any, Any]] = dict(yaml.SafeLoader.yaml_constructors)

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.problems: list[Problem] = []

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: Any) -> Any:
        """The implicit tag of a plain scalar by go-yaml v2's rules (compiler.goscalar); `<<` stays a merge key."""
        if kind is yaml.ScalarNode and implicit[0] and value != "<<":
            return goscalar.resolve(value)
        return super().resolve(kind, value, implicit)

    def _problem(
        self, code: Code, message: str, node: yaml.Node, hint: str = "", severity: Severity = Severity.ERROR
    ) -> None:
        self.problems.append(Problem(code, message, node.start_mark.index, hint, severity))

    def note_duplicate_key(self, key_node: yaml.Node) -> None:
        self._problem(
            Code.DUPLICATE_KEY,
            f"duplicate key {key_node.value!r}: YAML parsers disagree on which value wins",
            key_node,
            "keep exactly one entry",
        )

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[str, Any]:
        """SafeConstructor.construct_mapping (yaml/constructor.py: merge keys flattened, then each pair), but every
        key becomes its JSON text before it meets the others: PyYAML's dict takes `1`, `1.0` and `true` for one
        key and keeps one value silently. Two keys with one text or one spelling are a duplicate (MXJ003)."""
        if not isinstance(node, yaml.MappingNode):
            return super().construct_mapping(node, deep=deep)  # PyYAML raises its error
        own = {id(key_node) for key_node, _ in node.value}  # not the pairs a merge key brings in
        self.flatten_mapping(node)
        out: dict[str, Any] = {}
        seen: set[str] = set()  # own keys' texts and spellings (a key of its own overrides a merged one)
        for key_node, value_node in node.value:
            text = self._key(key_node, deep)
            if id(key_node) in own and isinstance(key_node, yaml.ScalarNode):
                if text in seen or key_node.value in seen:
                    self.note_duplicate_key(key_node)
                seen.update((text, key_node.value))
            out[text] = self.construct_object(value_node, deep=deep)
        return out

    def _key(self, node: yaml.Node, deep: bool) -> str:
        """A key's JSON text as kubectl reads it (goscalar.key_text); a plain key that kustomize keeps as written
        but kubectl rewrites (`1.0`, `0x10`, `True`) is warned about, a null key (both refuse it) is an error."""
        if node.tag == goscalar.TIMESTAMP:  # a key keeps its text in both readers
            return str(node.value)
        key = self.construct_object(node, deep=deep)
        if not isinstance(key, collections.abc.Hashable):
            raise yaml.constructor.ConstructorError(None, None, "found unhashable key", node.start_mark)
        text = goscalar.key_text(key)
        if not isinstance(node, yaml.ScalarNode) or node.style or node.tag == goscalar.STR:
            return text
        if key is None:
            self._problem(
                Code.NOT_JSON,
                f"the map key {node.value!r} is null, which kubectl and kustomize refuse",
                node,
                f"quote it ('{node.value}') if you meant the text",
            )
        elif text != node.value and not goscalar.ambiguous(node.value):
            self._problem(
                Code.AMBIGUOUS_SCALAR,
                f"the map key {node.value!r} is {text!r} for kubectl and Argo CD but {node.value!r} for kustomize "
                "and Flux; read as " + repr(text),
                node,
                f"quote it ('{node.value}') to keep it as written, or write {text}",
                Severity.WARNING,
            )
        return text

    def _tagged_scalar(self, node: yaml.ScalarNode, construct: Callable[[yaml.ScalarNode], Any]) -> Any:
        """A scalar made by a PyYAML constructor, or (recorded as a problem) its text when an explicit tag
        does not fit it: `!!int abc`, `!!bool maybe`, or `!!int` with no text make PyYAML raise ValueError,
        KeyError or IndexError."""
        try:
            return construct(node)
        except (ValueError, KeyError, IndexError):
            tag = str(node.tag).replace("tag:yaml.org,2002:", "!!")
            hint = "fix the value or drop the tag"
            self._problem(Code.UNSAFE_TAG, f"{node.value!r} is not a valid {tag}", node, hint)
            return str(node.value)

    def construct_yaml_int(self, node: yaml.ScalarNode) -> Any:
        return self._tagged_scalar(node, lambda n: _required(goscalar.parse_int(str(n.value).replace("_", ""))))

    def construct_yaml_bool(self, node: yaml.ScalarNode) -> Any:
        value = self._tagged_scalar(node, lambda n: _required(goscalar.parse_bool(str(n.value))))
        if goscalar.ambiguous(str(node.value)) and not node.style:
            self._problem(
                Code.AMBIGUOUS_SCALAR,
                f"{node.value!r} is the boolean {str(value).lower()} for kubectl and Argo CD (YAML 1.1) but the "
                "string for kustomize and Flux (YAML 1.2); read as the boolean and written as "
                f"{str(value).lower()}",
                node,
                f"quote it ('{node.value}') if you meant the string, else write {str(value).lower()}",
                Severity.WARNING,
            )
        return value

    def construct_yaml_float(self, node: yaml.ScalarNode) -> Any:
        value = self._tagged_scalar(node, lambda n: _required(goscalar.parse_float(str(n.value))))
        if not isinstance(value, float):
            return value
        if math.isinf(value) or math.isnan(value):
            self._problem(
                Code.NOT_JSON,
                f"{node.value!r} is not a number Kubernetes can store",
                node,
                "quote it to make it a string",
            )
        return value

    def construct_binary(self, node: yaml.Node) -> Any:
        """`!!binary`: the base64 text decoded, as sigs.k8s.io/yaml and kyaml read it (go-yaml's resolve decodes it
        with base64.StdEncoding, which skips line breaks and requires the padding; the bytes become a Go string,
        which encoding/json writes with U+FFFD for bytes that are not UTF-8). realcomp's yaml2json and
        kyaml2json read `v: !!binary aGVsbG8=` as "hello"; a collection so tagged is read as the collection."""
        if isinstance(node, yaml.MappingNode):
            return self.construct_mapping(node, deep=True)
        if isinstance(node, yaml.SequenceNode):
            return self.construct_sequence(node, deep=True)
        return self._tagged_scalar(node, _base64_text) if isinstance(node, yaml.ScalarNode) else None

    def construct_null(self, node: yaml.Node) -> Any:
        """null; an explicit `!!null` on text that is no null (`!!null x`) is refused, as both Go readers do."""
        if isinstance(node, yaml.ScalarNode) and goscalar.resolve(str(node.value) or "~") != goscalar.NULL:
            return self._tagged_scalar(node, _not_a_value)
        return None

    def construct_str(self, node: yaml.Node) -> Any:
        """A string; `!!str` on a collection is the collection, as both Go readers read it (`v: !!str [a]`)."""
        if isinstance(node, yaml.MappingNode):
            return self.construct_mapping(node, deep=True)
        if isinstance(node, yaml.SequenceNode):
            return self.construct_sequence(node, deep=True)
        return yaml.SafeLoader.construct_yaml_str(self, node)

    def construct_as_string(self, node: yaml.Node) -> str:
        return str(node.value) if isinstance(node, yaml.ScalarNode) else ""

    def construct_timestamp_text(self, node: yaml.Node) -> str:
        """A timestamp stays its text, as in kubectl and Argo CD; kustomize (so Flux) rewrites it as RFC 3339. An
        explicit `!!timestamp` on other text is refused, as both Go readers refuse it."""
        if isinstance(node, yaml.ScalarNode) and not goscalar.is_timestamp(str(node.value)):
            return str(self._tagged_scalar(node, _not_a_value))
        if isinstance(node, yaml.ScalarNode) and not node.style and not goscalar.RFC3339.fullmatch(node.value):
            self._problem(
                Code.AMBIGUOUS_SCALAR,
                f"{node.value!r} is kept as written by kubectl and Argo CD, but kustomize (so Flux) rewrites it as "
                "an RFC 3339 timestamp; read as the text",
                node,
                f"quote it ('{node.value}') to keep the text everywhere",
                Severity.WARNING,
            )
        return self.construct_as_string(node)

    def construct_v3_octal_text(self, node: yaml.Node) -> str:
        """`0o-7` stays its text, as in kubectl and Argo CD; kustomize (so Flux) reads the integer -7."""
        if isinstance(node, yaml.ScalarNode) and not node.style:
            number = goscalar.v3_octal(str(node.value).replace("_", ""))
            self._problem(
                Code.AMBIGUOUS_SCALAR,
                f"{node.value!r} is the string {node.value!r} for kubectl and Argo CD but the integer {number} for "
                "kustomize and Flux; read as the string",
                node,
                f"quote it ('{node.value}') to keep the text everywhere, or write {number}",
                Severity.WARNING,
            )
        return self.construct_as_string(node)

    def construct_merge_tagged(self, node: yaml.Node) -> Any:
        """`<<` anywhere but as a map key (where flatten_mapping has taken it as a merge key) is the text it is, as
        in both Go readers: go-yaml resolves it to its merge tag, which only a key acts on (realcomp's yaml2json
        and kyaml2json read `a: <<` and `a: !!merge x` as those strings, `a: !!merge {b: 1}` as the map)."""
        if isinstance(node, yaml.MappingNode):
            return self.construct_mapping(node, deep=True)
        if isinstance(node, yaml.SequenceNode):
            return self.construct_sequence(node, deep=True)
        return self.construct_as_string(node)

    def construct_undefined(self, node: yaml.Node) -> None:
        self._problem(
            Code.UNSAFE_TAG,
            f"tag {node.tag!r} is not allowed: only plain YAML (maps, lists, strings, numbers, booleans) is read",
            node,
            "remove the tag",
        )
        return None


for _tag, _method in (
    ("int", GoLoader.construct_yaml_int),
    ("bool", GoLoader.construct_yaml_bool),
    ("float", GoLoader.construct_yaml_float),
):
    GoLoader.add_constructor("tag:yaml.org,2002:" + _tag, _method)
for _tag in _STRING_TAGS:
    GoLoader.add_constructor(_tag, GoLoader.construct_as_string)
GoLoader.add_constructor(_BINARY, GoLoader.construct_binary)
GoLoader.add_constructor(goscalar.NULL, GoLoader.construct_null)
GoLoader.add_constructor(goscalar.STR, GoLoader.construct_str)
GoLoader.add_constructor(goscalar.TIMESTAMP, GoLoader.construct_timestamp_text)
GoLoader.add_constructor(goscalar.V3_OCTAL, GoLoader.construct_v3_octal_text)
GoLoader.add_constructor("tag:yaml.org,2002:merge", GoLoader.construct_merge_tagged)
for _tag in ("tag:yaml.org,2002:set", "tag:yaml.org,2002:omap", "tag:yaml.org,2002:pairs"):
    GoLoader.add_constructor(_tag, GoLoader.construct_undefined)
GoLoader.add_constructor(None, GoLoader.construct_undefined)


def _not_a_value(node: yaml.ScalarNode) -> Any:
    raise ValueError(node.value)


def _base64_text(node: yaml.ScalarNode) -> str:
    """ValueError (binascii.Error) when the text is not padded standard base64 once CR and LF are dropped."""
    text = str(node.value).replace("\n", "").replace("\r", "")
    return base64.b64decode(text.encode("ascii"), validate=True).decode("utf-8", "replace")


def _required(value: Any) -> Any:
    """A goscalar parse that found no value: the constructor's error (a value that does not fit its tag)."""
    if value is None:
        raise ValueError("not a value of its tag")
    return value
