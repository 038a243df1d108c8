"""Parse YAML/JSON text into documents that remember where every field came from (safe YAML only)."""

from __future__ import annotations

import bisect
import itertools
import operator
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, JsonPath, Location, Severity
from mxjob_gitops.compiler.base.exact import exact
from mxjob_gitops.compiler.base.limits import (
    MAX_DEPTH,
    MAX_DOCUMENT_NODES,
    MAX_RUN_ALIAS_NODES,
    document_count_problem,
    list_items_problem,
    run_limits,
)
from mxjob_gitops.compiler.base.run import Run, current_run
from mxjob_gitops.compiler.read.docsplit import Piece
from mxjob_gitops.compiler.read.fastread import FAST_READ_MIN_CHARS, Read, read_documents
from mxjob_gitops.compiler.read.fastread import load as load_document
from mxjob_gitops.compiler.read.goloader import GoLoader
from mxjob_gitops.compiler.read.guards import alias_expansion, alias_problem, structure_problems
from mxjob_gitops.compiler.read.yamladvice import syntax_error

_LINE_BREAK = re.compile("\r\n|\r|\n")


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
    # The last position asked for without a line table: (index, its 0-based line, where that line starts).
    _cursor: tuple[int, int, int] = (0, 0, 0)
    _lf_only: bool | None = None  # whether LF is the text's only line break (then the cursor may count)

    def position(self, file: str, index: int) -> Location:
        """The 1-based line and column of a character index, counting only YAML 1.2's line breaks (LF, CR,
        CRLF; the YAML 1.2 spec, section 5.4): the parser also breaks lines at NEL, LS and PS.

        Positions asked for in text order (every document's start, when a large rendering is validated) are
        counted on from the last one, in C; the table of every line's start is built at the first step back,
        or for a text with a CR."""
        if self._line_starts is None:
            last, line, start = self._cursor
            if self._lf_only is None:
                self._lf_only = "\r" not in self.text
            if last <= index and self._lf_only:
                text = self.text
                line += text.count("\n", last, index)
                start = max(start, text.rfind("\n", last, index) + 1)
                self._cursor = (index, line, start)
                return Location(file, line + 1, index - start + 1)
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
    loader = GoLoader(text)
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


def parse_text(
    text: str,
    file: str,
    *,
    fast: bool = True,
    pieces: Sequence[Piece] | None = None,
    cut: list[Piece] | None = None,
    run: Run | None = None,
) -> ParseResult:
    """Split a YAML or JSON stream into documents; empty documents are skipped as kubectl does.

    Limits (compiler.limits) come first: nesting depth on the event stream, aliases on each composed
    document before it is constructed; a document over a limit ends the file with one located error.
    A large text is read by compiler.fastread when it can prove its reading equal to this one (then nothing but
    non-mapping documents is to report, and positions still come from this reader); `fast=False` never uses it.
    `pieces` and `cut` are the fast reader's (compiler.fastread.read_documents): the text's
    compiler.docsplit.split_documents when the caller has cut it already, or a list to fill with it where the
    fast reader cut it. `run`: whose budget, fast paths and workers (None: the
    installed run, base.run).
    """
    stream = ParseStream(text, file, fast=fast, whole=True, pieces=pieces, cut=cut, run=run)
    documents = list(stream)
    return ParseResult([] if stream.discard else documents, stream.diagnostics)


class ParseStream:
    """parse_text one document at a time (a render need not hold every document of a large file at once).

    Once iterated, `diagnostics` holds what parse_text reports, and `discard` says that the documents
    already yielded must be dropped (a document over a limit: nothing from the file is used).
    """

    def __init__(
        self,
        text: str,
        file: str,
        *,
        fast: bool = True,
        whole: bool = False,
        pieces: Sequence[Piece] | None = None,
        cut: list[Piece] | None = None,
        run: Run | None = None,
    ) -> None:
        """`fast=False`: never compiler.fastread (the tests' reference). `whole`: the caller keeps every document
        (parse_text), so the fast reader may hand over values at once instead of JSON text to load in turn.
        `pieces`, `cut`, `run`: see parse_text."""
        self.run = run if run is not None else current_run()
        self.text, self.file, self.fast, self.whole = text, file, fast, whole
        self.pieces, self.cut = pieces, cut
        self.diagnostics: list[Diagnostic] = []
        self.discard = False

    def __iter__(self) -> Iterator[SourceDocument]:
        text, file, diagnostics = self.text, self.file, self.diagnostics
        source = SourceText(file, text)
        too_many_documents = documents_over_budget(source, self.run)
        if too_many_documents is not None:
            diagnostics.append(too_many_documents)
            return
        # Large texts, and every text once the run has read that much (rapidyaml's import has paid for itself): the
        # fast reader refuses a text over a limit, reported below.
        run = self.run
        if self.fast and not exact("reader", run) and max(len(text), run.budget.input_bytes) >= FAST_READ_MIN_CHARS:
            fast = read_documents(text, values=self.whole, pieces=self.pieces, cut=self.cut, run=run)
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
        loader = GoLoader(text)
        try:
            yield from self._documents(loader, source)
        finally:
            loader.dispose()
        # In text order: PyYAML's constructor reaches nested collections in waves, not in the order of the text.
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

    def _fast_documents(self, documents: list[Read], source: SourceText) -> Iterator[SourceDocument]:
        """What _documents yields for a text compiler.fastread read (it read it only if nothing is to report
        but documents that are not mappings); each value is made when its turn comes."""
        documents.reverse()
        index = 0
        while documents:
            entry, start, floats = documents.pop()
            data = entry if self.whole else load_document(entry)
            if data is not None:
                document = SourceDocument(data, self.file, index, source, start, floats)
                items = data.get("items") if isinstance(data, dict) and _is_list_kind(data.get("kind")) else None
                if isinstance(items, list) and self._too_many_items(len(items), index, _at_item(document)):
                    return
                if not isinstance(data, dict):
                    self.diagnostics.append(_not_a_mapping(document, data))
                yield document
            index += 1

    def _too_many_items(self, items: int, index: int, where: Callable[[int], Location]) -> bool:
        """Whether the `items` of a `kind: *List` document take the run past its document budget (compiler.limits
        list_items_problem): then it is reported at the first item past it, and nothing from the file is used."""
        over = list_items_problem(items, self.run.budget) if items > 1 else None
        if over is None:
            return False
        self.diagnostics.append(
            Diagnostic(
                Code.LIMIT_EXCEEDED,
                Severity.ERROR,
                f"more than {run_limits().documents:,} documents in this run, the items of Lists counted as documents",
                location=where(min(over, items - 1)),
                document=index,
                hint="nothing from this file was used; split the input into several runs (docs/limits.md)",
            )
        )
        self.discard = True
        return True

    def _documents(self, loader: GoLoader, source: SourceText) -> Iterator[SourceDocument]:
        file, diagnostics = self.file, self.diagnostics
        anchors = "&" in self.text
        index = 0
        try:
            while loader.check_node():
                node = loader.get_node()
                problem = alias_problem(node) if anchors else None
                if anchors and problem is None:
                    budget = self.run.budget
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
                items = _list_items(node)
                if self._too_many_items(len(items), index, _at_item_node(source, items)):
                    break
                data = loader.construct_document(node)
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
            message, hint = syntax_error(
                what, self.text, mark.index if mark else None, lambda at: source.position(file, at)
            )
            diagnostics.append(
                Diagnostic(Code.YAML_SYNTAX, Severity.ERROR, message, location=location, document=index, hint=hint)
            )
        except yaml.reader.ReaderError as exc:  # a character YAML does not allow: at its index in the text
            diagnostics.append(
                Diagnostic(
                    Code.YAML_SYNTAX,
                    Severity.ERROR,
                    f"YAML syntax error: the character {_shown_character(exc.character)} is not allowed here "
                    f"({exc.reason})",
                    location=source.position(file, exc.position),
                    document=index,
                    hint="remove it, or write it as an escape (\\x..) in a double-quoted string",
                )
            )
        except yaml.YAMLError as exc:
            diagnostics.append(
                Diagnostic(
                    Code.YAML_SYNTAX, Severity.ERROR, f"YAML error: {exc}", location=Location(file), document=index
                )
            )


def _is_list_kind(kind: Any) -> bool:
    return isinstance(kind, str) and kind.endswith("List")


def _list_items(node: yaml.Node) -> list[yaml.Node]:
    """The item nodes of a composed `kind: *List` document (none for any other document), before it is built."""
    if not isinstance(node, yaml.MappingNode) or len(node.value) > 64:
        return []
    fields = {key.value: value for key, value in node.value if isinstance(key, yaml.ScalarNode)}
    kind, items = fields.get("kind"), fields.get("items")
    if not (isinstance(kind, yaml.ScalarNode) and _is_list_kind(kind.value) and isinstance(items, yaml.SequenceNode)):
        return []
    return list(items.value)


def _at_item_node(source: SourceText, items: list[yaml.Node]) -> Callable[[int], Location]:
    return lambda at: source.position(source.file, items[at].start_mark.index)


def _at_item(document: SourceDocument) -> Callable[[int], Location]:
    return lambda at: document.locate(("items", at))


def _shown_character(character: object) -> str:
    return f"U+{character:04X}" if isinstance(character, int) else repr(character)


def documents_over_budget(source: SourceText, run: Run | None = None) -> Diagnostic | None:
    """Charge the run's document budget with this text (compiler.limits.document_count_problem); the located
    refusal when it goes over, else None. `run`: None for the installed run."""
    over = document_count_problem(source.text, (run if run is not None else current_run()).budget)
    if over is None:
        return None
    return Diagnostic(
        Code.LIMIT_EXCEEDED,
        Severity.ERROR,
        f"more than {run_limits().documents:,} documents in this run",
        location=source.position(source.file, over),
        hint="nothing from this file was used; split the input into several runs (docs/limits.md)",
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


def iter_objects(document: SourceDocument) -> Iterator[tuple[JsonPath, Any]]:
    """Yield the objects of a document, unwrapping `kind: List` (and `*List` kinds) item by item.

    List items are yielded whatever they are, so that a caller can report the ones that are not objects.
    """
    return objects_of(document.data)


def objects_of(data: Any) -> Iterator[tuple[JsonPath, Any]]:
    """iter_objects of a document's value."""
    if not isinstance(data, dict):
        return
    kind = data.get("kind")
    items = data.get("items")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
        for position, item in enumerate(items):
            yield ("items", position), item
        return
    yield (), data
