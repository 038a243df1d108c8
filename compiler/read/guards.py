"""Guards on the shape of YAML text, run before and while it is read: depth, node count and alias expansion.

Their limits' values live in compiler.base.limits; these walk the text and the parser's nodes and events.
"""

from __future__ import annotations

import re
from typing import Final

import yaml

from mxjob_gitops.compiler.base.limits import MAX_DEPTH, MAX_DOCUMENT_NODES, MAX_EXPANDED_NODES
from mxjob_gitops.compiler.read.goloader import GoLoader

# A document start marker at the beginning of a line (the text is split there for the nesting bound).
_DOCUMENT_MARKER: Final = re.compile(r"^---(?=[ \t\r\n]|\Z)", re.MULTILINE)


# gopkg.in/yaml.v3 decode.go (allowedAliasRatio): up to 400,000 decoded nodes 99% of them may come from
# aliases, from 4,000,000 on only 10%, linearly in between; fewer than 100 aliases or 1,000 nodes always pass.
_ALIAS_RATIO_LOW: Final = 400_000


_ALIAS_RATIO_HIGH: Final = 4_000_000


def allowed_alias_ratio(decoded: int) -> float:
    if decoded <= _ALIAS_RATIO_LOW:
        return 0.99
    if decoded >= _ALIAS_RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decoded - _ALIAS_RATIO_LOW) / (_ALIAS_RATIO_HIGH - _ALIAS_RATIO_LOW)


def alias_problem(root: yaml.Node) -> tuple[str, yaml.Node] | None:
    """Why a composed document must not be constructed (a recursive alias, too much expansion), or None.

    Walks each distinct node once (iteratively), so the check costs what the document's text costs, however
    far its aliases would expand. An edge to a node already seen is an alias use, as in the source.
    """
    decoded: dict[int, int] = {}
    aliased: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, list[yaml.Node]]] = [(root, _children(root))]
    on_path.add(id(root))
    while stack:
        node, pending = stack[-1]
        if pending:
            child = pending.pop()
            if id(child) in on_path:
                return "a recursive alias (a node that contains itself)", child
            if id(child) not in decoded:
                on_path.add(id(child))
                stack.append((child, _children(child)))
            continue
        stack.pop()
        on_path.discard(id(node))
        total, aliases = 1, 0
        seen: set[int] = set()
        for child in _children(node):
            again = id(child) in seen or _defined_elsewhere(child, node)
            seen.add(id(child))
            total += decoded[id(child)] + again
            aliases += aliased[id(child)] + again
        decoded[id(node)], aliased[id(node)] = total, aliases
        if total > MAX_EXPANDED_NODES:
            return f"aliases expand this document past {MAX_EXPANDED_NODES:,} nodes", node
        if aliases > 100 and total > 1000 and aliases / total > allowed_alias_ratio(total):
            return f"excessive aliasing: {aliases:,} of {total:,} nodes come from aliases", node
    return None


def alias_expansion(root: yaml.Node) -> int:
    """How many nodes aliases add to a document once followed (decoded nodes minus the distinct ones)."""
    decoded: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            decoded[id(node)] = 1 + sum(decoded[id(child)] for child in _children(node))
            continue
        if id(node) in decoded:
            continue
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in decoded)
    distinct = len(decoded)
    return max(0, decoded[id(root)] - distinct)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _defined_elsewhere(child: yaml.Node, parent: yaml.Node) -> bool:
    """Whether the child's own text lies outside its parent's: then the parent reaches it through an alias."""
    return bool(child.start_mark.index < parent.start_mark.index or child.end_mark.index > parent.end_mark.index)


def depth_problem(text: str) -> int | None:
    """Where (a character index) the text first nests deeper than MAX_DEPTH levels, or None; checked on parser
    events, before anything is composed.

    A cheap bound skips the scan for almost every file: block nesting needs indentation (at most one level
    per column for a line's length), flow nesting a bracket each. The bound is taken per document: no
    collection spans a `---` line, because libyaml reads one at column 0 as a document marker in any
    context (flow collections end in a syntax error there, quoted scalars refuse it: scanner.c,
    yaml_parser_fetch_next_token and yaml_parser_scan_flow_scalar), so a many-document stream with a
    few `{}` each is not scanned as a whole.
    """
    if _shallow(text):
        return None
    loader = GoLoader(text)
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    return event.start_mark.index if event.start_mark is not None else 0
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return None  # the parse proper reports it, located
    finally:
        loader.dispose()
    return None


def _shallow(text: str) -> bool:
    return all(_nesting_bound(document) <= MAX_DEPTH for document in _DOCUMENT_MARKER.split(text))


def _nesting_bound(document: str) -> int:
    """An upper bound of the nesting in one document's text (lines split at LF only: never shorter)."""
    longest = max(map(len, document.split("\n")))
    return document.count("[") + document.count("{") + 2 * longest + 2


# Characters that can begin or separate a node; a document has at most about twice as many nodes as these.
_NODE_MARKS: Final = ",:-[{?\n"


def node_count_problem(text: str) -> int | None:
    """Where (a character index) a document first holds more than MAX_DOCUMENT_NODES nodes, or None.

    Every node is preceded by a separator (`-`, `,`, `:`, `[`, `{`, `?`, a line break) or starts a document, so
    a text with few of them is let through at the cost of a few str.count calls; a text with many is counted
    exactly from the parser's events, which holds no node in memory and stops at the first document over the
    limit. Before this, only documents with anchors were bounded: 20 MB of `[0,0,...]` took 3.3 GB and 69 s.
    """
    if _few_nodes(text):
        return None
    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_class(text)
    nodes = 0
    try:
        while (event := loader.get_event()) is not None:
            if isinstance(event, yaml.DocumentStartEvent):
                nodes = 0
            elif isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                nodes += 1
                if nodes > MAX_DOCUMENT_NODES:
                    return int(event.start_mark.index) if event.start_mark else 0
            elif isinstance(event, yaml.StreamEndEvent):
                break
    except yaml.YAMLError:
        return None  # the parser proper reports the syntax error, before it composes anything past it
    finally:
        loader.dispose()
    return None


def _few_nodes(text: str) -> bool:
    return 2 * sum(text.count(mark) for mark in _NODE_MARKS) + 2 * text.count("---") + 2 <= MAX_DOCUMENT_NODES


def structure_problems(text: str) -> tuple[int | None, int | None]:
    """(node_count_problem(text), depth_problem(text)) as the reader reports them (the depth only without a node
    problem), in one pass over the parser's events when neither cheap bound lets the text through (a large
    rendering: its long lines defeat the nesting bound), not two."""
    if _few_nodes(text):
        return None, depth_problem(text)
    if _shallow(text):
        return node_count_problem(text), None
    loader = GoLoader(text)
    nodes = depth = 0
    too_deep: int | None = None
    try:
        while (event := loader.get_event()) is not None:
            if isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                nodes += 1
                if nodes > MAX_DOCUMENT_NODES:
                    return (int(event.start_mark.index) if event.start_mark else 0), None
                if not isinstance(event, yaml.ScalarEvent):
                    depth += 1
                    if depth > MAX_DEPTH and too_deep is None:
                        too_deep = event.start_mark.index if event.start_mark is not None else 0
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            elif isinstance(event, yaml.DocumentStartEvent):
                nodes = 0
            elif isinstance(event, yaml.StreamEndEvent):
                break
    except yaml.YAMLError:
        pass  # the parse proper reports it, located
    finally:
        loader.dispose()
    return None, too_deep
