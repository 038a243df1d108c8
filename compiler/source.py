"""Parse YAML/JSON text into documents that remember where every field came from (safe YAML only)."""

from __future__ import annotations

import bisect
import collections.abc
import itertools
import math
import operator
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import yaml

from mxjob_gitops.compiler import goscalar
from mxjob_gitops.compiler.construct import Fallback, FastConstructor
from mxjob_gitops.compiler.diagnostics import Code, Diagnostic, JsonPath, Location, Severity
from mxjob_gitops.compiler.fastread import FAST_READ_MIN_CHARS, read_documents
from mxjob_gitops.compiler.fastread import load as load_document
from mxjob_gitops.compiler.limits import (
    MAX_DEPTH,
    MAX_DOCUMENT_NODES,
    MAX_RUN_ALIAS_NODES,
    alias_expansion,
    alias_problem,
    run_budget,
    structure_problems,
)

_LINE_BREAK = re.compile("\r\n|\r|\n")
_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# Kubernetes reads YAML the way go-yaml does: timestamps and "=" stay strings.
_DROPPED_RESOLVERS = {"tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:value"}
_STRING_TAGS = ("tag:yaml.org,2002:binary", "tag:yaml.org,2002:value")


@dataclass(frozen=True, slots=True)
class Problem:
    code: Code
    message: str
    index: int
    hint: str = ""
    severity: Severity = Severity.ERROR


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """A safe loader that records duplicate keys, unknown tags and non-JSON values instead of guessing."""

    yaml_implicit_resolvers: ClassVar[dict[Any, Any]] = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag not in _DROPPED_RESOLVERS]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    yaml_constructors: ClassVar[dict[Any, Any]] = dict(yaml.SafeLoader.yaml_constructors)

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.problems: list[Problem] = []
        self._tags: dict[tuple[str, Any], str] = {}
        self._fast = FastConstructor(self)

    def construct_fast(self, node: yaml.Node) -> Any:
        """construct_document(node), the same value and problems, through compiler.construct when it can.

        Whatever stops the fast walk (a case it leaves to PyYAML, or an error) sends the document to PyYAML's
        constructor, so that an error is always the one PyYAML raises first: it reaches nested collections in
        waves, the walk depth first, and with two errors in one document they could meet different ones."""
        before = len(self.problems)
        try:
            return self._fast.document(node)
        except (Fallback, yaml.YAMLError, ValueError, LookupError, TypeError):
            del self.problems[before:]
            return self.construct_document(node)

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: Any) -> Any:
        """The implicit tag of a plain scalar, remembered per value: a rendered stream repeats the same few
        thousand scalars, and PyYAML's regex scan per scalar is the largest part of parsing it."""
        if kind is not yaml.ScalarNode:
            return super().resolve(kind, value, implicit)
        key = (value, implicit)
        tag = self._tags.get(key)
        if tag is None:
            plain = implicit[0] and value != "<<"  # `<<` stays a merge key, as in go-yaml
            tag = self._tags[key] = goscalar.resolve(value) if plain else super().resolve(kind, value, implicit)
        return tag

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

    def construct_as_string(self, node: yaml.Node) -> str:
        return str(node.value) if isinstance(node, yaml.ScalarNode) else ""

    def construct_timestamp_text(self, node: yaml.Node) -> str:
        """A timestamp stays its text, as in kubectl and Argo CD; kustomize (so Flux) rewrites it as RFC 3339."""
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

    def construct_undefined(self, node: yaml.Node) -> None:
        self._problem(
            Code.UNSAFE_TAG,
            f"tag {node.tag!r} is not allowed: only plain YAML (maps, lists, strings, numbers, booleans) is read",
            node,
            "remove the tag",
        )
        return None


for _tag, _method in (
    ("int", _Loader.construct_yaml_int),
    ("bool", _Loader.construct_yaml_bool),
    ("float", _Loader.construct_yaml_float),
):
    _Loader.add_constructor("tag:yaml.org,2002:" + _tag, _method)
for _tag in _STRING_TAGS:
    _Loader.add_constructor(_tag, _Loader.construct_as_string)
_Loader.add_constructor(goscalar.TIMESTAMP, _Loader.construct_timestamp_text)
_Loader.add_constructor(goscalar.V3_OCTAL, _Loader.construct_v3_octal_text)
for _tag in ("tag:yaml.org,2002:set", "tag:yaml.org,2002:omap", "tag:yaml.org,2002:pairs"):
    _Loader.add_constructor(_tag, _Loader.construct_undefined)
_Loader.add_constructor(None, _Loader.construct_undefined)


def _required(value: Any) -> Any:
    """A goscalar parse that found no value: the constructor's error (a value that does not fit its tag)."""
    if value is None:
        raise ValueError("not a value of its tag")
    return value


@dataclass(slots=True)
class SourceText:
    """The text of one input; its node trees are composed again only when a diagnostic needs a position.

    Keeping every node tree from the first parse would cost memory and, through the garbage collector,
    more time than parsing twice in the rare case of an error.
    """

    file: str
    text: str
    _nodes: list[yaml.Node] | None = None
    _line_starts: list[int] | None = None

    def position(self, file: str, index: int) -> Location:
        """The 1-based line and column of a character index, counting only YAML 1.2's line breaks (LF, CR,
        CRLF; the YAML 1.2 spec, section 5.4): the parser also breaks lines at NEL, LS and PS."""
        if self._line_starts is None:
            self._line_starts = _line_starts(self.text)
        line = bisect.bisect_right(self._line_starts, index) - 1
        return Location(file, line + 1, index - self._line_starts[line] + 1)

    def node(self, index: int) -> yaml.Node | None:
        if self._nodes is None:
            self._nodes = _compose_all(self.text)
        return self._nodes[index] if 0 <= index < len(self._nodes) else None


def _line_starts(text: str) -> list[int]:
    """Where each line begins. Without a CR, from the lengths of the text split at LF (all in C: a large
    stream has a million lines, and a match object per line cost half a second)."""
    if "\r" in text:
        return [0, *(m.end() for m in _LINE_BREAK.finditer(text))]
    lengths = itertools.accumulate(map(len, text.split("\n")[:-1]))
    return [0, *map(operator.add, lengths, itertools.count(1))]


def _compose_all(text: str) -> list[yaml.Node]:
    loader = _Loader(text)
    nodes: list[yaml.Node] = []
    try:
        while loader.check_node():
            nodes.append(loader.get_node())
    except yaml.YAMLError:
        pass
    finally:
        loader.dispose()
    return nodes


@dataclass(frozen=True, slots=True)
class SourceDocument:
    """One parsed document and the means to map a JSON path back to its line and column."""

    data: Any
    file: str
    index: int
    source: SourceText | None = field(default=None, compare=False, repr=False)
    start: int | None = field(default=None, compare=False, repr=False)  # character index, kept from the parse
    # False when the reader saw no float in it (compiler.fastread): no object of it needs a walk for floats.
    floats: bool | None = field(default=None, compare=False, repr=False)

    def locate(self, path: Sequence[str | int], *, key: bool = False) -> Location:
        if not path and self.start is not None and self.source is not None:  # nothing to compose again
            return self.source.position(self.file, self.start)
        node = self.source.node(self.index) if self.source is not None else None
        if node is None or self.source is None:
            return Location(self.file)
        return self.source.position(self.file, _find_mark(node, path, key).index)


def _find_mark(node: yaml.Node, path: Sequence[str | int], key: bool) -> Any:
    current = node
    last = len(path) - 1
    for position, part in enumerate(path):
        if isinstance(current, yaml.MappingNode):
            match = None
            for key_node, value_node in current.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.value == str(part):
                    match = (key_node, value_node)
            if match is None:
                break
            if key and position == last:
                return match[0].start_mark
            current = match[1]
        elif isinstance(current, yaml.SequenceNode) and isinstance(part, int) and part < len(current.value):
            current = current.value[part]
        else:
            break
    return current.start_mark


@dataclass(slots=True)
class ParseResult:
    documents: list[SourceDocument]
    diagnostics: list[Diagnostic]


def parse_text(text: str, file: str, *, fast: bool = True) -> ParseResult:
    """Split a YAML or JSON stream into documents; empty documents are skipped as kubectl does.

    Limits (compiler.limits) come first: nesting depth on the event stream, aliases on each composed
    document before it is constructed; a document over a limit ends the file with one located error.
    A large text is read by compiler.fastread when it can prove its reading equal to this one (then nothing but
    non-mapping documents is to report, and positions still come from this reader); `fast=False` never uses it.
    """
    stream = ParseStream(text, file, fast=fast, whole=True)
    documents = list(stream)
    return ParseResult([] if stream.discard else documents, stream.diagnostics)


class ParseStream:
    """parse_text one document at a time (a render need not hold every document of a large file at once).

    Once iterated, `diagnostics` holds what parse_text reports, and `discard` says that the documents
    already yielded must be dropped (a document over a limit: nothing from the file is used).
    """

    def __init__(self, text: str, file: str, *, fast: bool = True, whole: bool = False) -> None:
        """`fast=False`: never compiler.fastread (the tests' reference). `whole`: the caller keeps every document
        (parse_text), so the fast reader may hand over values at once instead of JSON text to load in turn."""
        self.text, self.file, self.fast, self.whole = text, file, fast, whole
        self.diagnostics: list[Diagnostic] = []
        self.discard = False

    def __iter__(self) -> Iterator[SourceDocument]:
        text, file, diagnostics = self.text, self.file, self.diagnostics
        source = SourceText(file, text)
        # Large texts, and every text once the run has read that much (rapidyaml's import has paid for itself): the
        # fast reader refuses a text over a limit, reported below.
        if self.fast and max(len(text), run_budget().input_bytes) >= FAST_READ_MIN_CHARS:
            fast = read_documents(text, values=self.whole)
            if fast is not None:
                yield from self._fast_documents(fast, source)
                return
        too_many, too_deep = structure_problems(text)
        if too_many is not None:
            diagnostics.append(
                Diagnostic(
                    Code.LIMIT_EXCEEDED,
                    Severity.ERROR,
                    f"a document holds more than {MAX_DOCUMENT_NODES:,} nodes here",
                    location=source.position(file, too_many),
                    hint="nothing from this file was used; split the data into several objects",
                )
            )
            return
        if too_deep is not None:
            diagnostics.append(
                Diagnostic(
                    Code.LIMIT_EXCEEDED,
                    Severity.ERROR,
                    f"the input nests deeper than {MAX_DEPTH} levels here",
                    location=source.position(file, too_deep),
                    hint="nothing from this file was used",
                )
            )
            return
        loader = _Loader(text)
        try:
            yield from self._documents(loader, source)
        finally:
            loader.dispose()
        # In text order: PyYAML's constructor reaches nested collections in waves, the fast one depth first.
        for problem_ in sorted(loader.problems, key=lambda problem: problem.index):
            diagnostics.append(
                Diagnostic(
                    problem_.code,
                    problem_.severity,
                    problem_.message,
                    location=source.position(file, problem_.index),
                    hint=problem_.hint,
                )
            )

    def _fast_documents(self, documents: list[tuple[Any, int, bool]], source: SourceText) -> Iterator[SourceDocument]:
        """What _documents yields for a text compiler.fastread read (it read it only if nothing is to report
        but documents that are not mappings); each value is made when its turn comes."""
        documents.reverse()
        index = 0
        while documents:
            entry, start, floats = documents.pop()
            data = entry if self.whole else load_document(entry)
            if data is not None:
                document = SourceDocument(data, self.file, index, source, start, floats)
                if not isinstance(data, dict):
                    self.diagnostics.append(_not_a_mapping(document, data))
                yield document
            index += 1

    def _documents(self, loader: _Loader, source: SourceText) -> Iterator[SourceDocument]:
        file, diagnostics = self.file, self.diagnostics
        anchors = "&" in self.text
        index = 0
        try:
            while loader.check_node():
                node = loader.get_node()
                problem = alias_problem(node) if anchors else None
                if anchors and problem is None:
                    budget = run_budget()
                    budget.alias_nodes += alias_expansion(node)
                    if budget.alias_nodes > MAX_RUN_ALIAS_NODES:
                        problem = (f"aliases in this run expand past {MAX_RUN_ALIAS_NODES:,} nodes in all", node)
                if problem is not None:
                    diagnostics.append(
                        Diagnostic(
                            Code.LIMIT_EXCEEDED,
                            Severity.ERROR,
                            problem[0],
                            location=source.position(file, problem[1].start_mark.index),
                            document=index,
                            hint="nothing from this file was used",
                        )
                    )
                    self.discard = True
                    break
                data = loader.construct_document(node) if anchors else loader.construct_fast(node)
                if data is not None:
                    document = SourceDocument(data, file, index, source, node.start_mark.index)
                    if not isinstance(data, dict):
                        diagnostics.append(_not_a_mapping(document, data))
                    yield document
                index += 1
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            location = source.position(file, mark.index) if mark else Location(file)
            what = " ".join(str(part) for part in (exc.context, exc.problem) if part)
            diagnostics.append(
                Diagnostic(
                    Code.YAML_SYNTAX,
                    Severity.ERROR,
                    f"YAML syntax error: {what}",
                    location=location,
                    document=index,
                    hint="fix the YAML; nothing from this file was used",
                )
            )
        except yaml.YAMLError as exc:
            diagnostics.append(
                Diagnostic(
                    Code.YAML_SYNTAX, Severity.ERROR, f"YAML error: {exc}", location=Location(file), document=index
                )
            )


def _not_a_mapping(document: SourceDocument, data: Any) -> Diagnostic:
    return Diagnostic(
        Code.NOT_AN_OBJECT,
        Severity.ERROR,
        f"document {document.index + 1} is a {type(data).__name__}, not a Kubernetes object",
        location=document.locate(()),
        document=document.index,
        hint="each document must be a mapping with apiVersion and kind",
    )


def event_loader(text: str) -> yaml.SafeLoader:
    """A loader to read parser events from (compiler.limits scans them for depth)."""
    return _Loader(text)


def iter_objects(document: SourceDocument) -> Iterator[tuple[JsonPath, Any]]:
    """Yield the objects of a document, unwrapping `kind: List` (and `*List` kinds) item by item.

    List items are yielded whatever they are, so that a caller can report the ones that are not objects.
    """
    data = document.data
    if not isinstance(data, dict):
        return
    kind = data.get("kind")
    items = data.get("items")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
        for position, item in enumerate(items):
            yield ("items", position), item
        return
    yield (), data
