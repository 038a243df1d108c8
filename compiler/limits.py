"""Resource limits for untrusted input, each checked before the work it protects; the one place their values live.

Reused outside the compiler: the reconciler bounds the jobs it renders with DEFAULT_MAX_PODS, so that a job
Git accepted is never refused in the cluster (and the reverse). docs/limits.md explains every value.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final

import yaml

from mxjob_gitops.compiler import constants as c
from mxjob_gitops.compiler.diagnostics import Code, Diagnostic, error
from mxjob_gitops.compiler.jsonutil import as_dict

# Pods (all replica types together) one MXJob may render; `--max-pods` raises it. MX_CONFIG names every pod
# in every pod, so the rendering grows with the square of this: 1,000 pods render to about 40 MB.
DEFAULT_MAX_PODS: Final = c.MAX_PODS
# One input file (or standard input), in bytes, read before any parsing.
MAX_INPUT_BYTES: Final = 64 * 1024 * 1024
# Nesting of mappings and sequences; real manifests (CRDs included) stay far below it.
MAX_DEPTH: Final = 200
# Nodes a document may expand to once its aliases are followed (documents without anchors are not counted).
MAX_EXPANDED_NODES: Final = 1_000_000
# What one render may write, estimated from the jobs before any manifest is built (see output_limit).
MAX_OUTPUT_BYTES: Final = 512 * 1024 * 1024
# Nodes one document may hold, aliases or not (checked from the parser's events before anything is composed).
MAX_DOCUMENT_NODES: Final = MAX_EXPANDED_NODES
# One run, every channel together (files, directories, stdin, Git blobs, KRM input): bytes read, files read,
# and nodes that aliases add (so many small amplifying documents cannot add up to what one may not).
MAX_RUN_INPUT_BYTES: Final = 1024 * 1024 * 1024
MAX_RUN_FILES: Final = 50_000
MAX_RUN_ALIAS_NODES: Final = 10 * MAX_EXPANDED_NODES
# Documents of one run, every channel together: each costs a parse and an object even when empty (16 MB of `---`
# lines are 4 million documents), and each may bring a diagnostic. A rendering of 1,000 pods is about 2,000.
MAX_RUN_DOCUMENTS: Final = 100_000
# MXJobs one `convert --in-place` rewrites (each is a round trip through ruamel.yaml, about 25 ms; the documents
# around them are kept as text and cost nothing).
MAX_IN_PLACE_JOBS: Final = 1_000
# Directories below an input path (and path components below it in a Git revision); the walk is iterative.
MAX_DIRECTORY_DEPTH: Final = 100

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
    from mxjob_gitops.compiler.source import event_loader

    loader = event_loader(text)
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()  # type: ignore[no-untyped-call]
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


def pod_count_problems(data: dict[str, Any], max_pods: int) -> list[Diagnostic]:
    """Replicas per type and pods per job above max_pods (a v1 job that passed its schema)."""
    replicas = as_dict(as_dict(data.get("spec")).get("mxReplicaSpecs"))
    found: list[Diagnostic] = []
    total = 0
    for replica_type, spec in replicas.items():
        count = as_dict(spec).get("replicas", 1)
        if not isinstance(count, int) or isinstance(count, bool):
            continue
        total += max(count, 0)
        if count > max_pods:
            found.append(
                error(
                    Code.LIMIT_EXCEEDED,
                    f"{replica_type} has {count:,} replicas; a job may have at most {max_pods:,} pods",
                    ("spec", "mxReplicaSpecs", replica_type, "replicas"),
                    "pass --max-pods N to allow more; the rendering grows with the square of N",
                )
            )
    if total > max_pods and not found:
        found.append(
            error(
                Code.LIMIT_EXCEEDED,
                f"the job has {total:,} pods; at most {max_pods:,} are allowed",
                ("spec", "mxReplicaSpecs"),
                "pass --max-pods to allow more",
            )
        )
    return found


def estimated_output_bytes(jobs: Iterable[tuple[str, int, Any]]) -> int:
    """An upper estimate of what rendering jobs (name, pods, templates) writes, from their sizes alone."""
    return sum(
        job_output_bytes(name, pods, len(json.dumps(templates, ensure_ascii=False, default=str)))
        for name, pods, templates in jobs
    )


def job_output_bytes(name: str, pods: int, template_bytes: int) -> int:
    """estimated_output_bytes for one job whose templates take about `template_bytes` as text."""
    return pods * (template_bytes + 2048) + pods * pods * (len(name) + 48)


def output_limit(max_pods: int) -> int:
    """MAX_OUTPUT_BYTES, raised with the square of --max-pods above its default (one job that large fits)."""
    return MAX_OUTPUT_BYTES * max(1, math.ceil((max_pods / DEFAULT_MAX_PODS) ** 2))


def output_problem(estimate: int, max_pods: int) -> Diagnostic | None:
    limit = output_limit(max_pods)
    if estimate <= limit:
        return None
    return error(
        Code.LIMIT_EXCEEDED,
        f"with this job the rendering would be about {estimate // 2**20:,} MiB; "
        f"at most {limit // 2**20:,} MiB are written",
        ("spec", "mxReplicaSpecs"),
        "render fewer or smaller jobs per run (a higher --max-pods also raises this limit)",
    )


@dataclass(slots=True)
class RunBudget:
    """What this run has read so far, over every input channel (one per command invocation: `new_run`)."""

    input_bytes: int = 0
    files: int = 0
    alias_nodes: int = 0
    documents: int = 0

    def charge_file(self, size: int) -> str | None:
        """Count one input of `size` bytes; why the run must stop, or None."""
        self.files += 1
        self.input_bytes += size
        if self.files > MAX_RUN_FILES:
            return f"more than {MAX_RUN_FILES:,} input files in one run"
        if self.input_bytes > MAX_RUN_INPUT_BYTES:
            return f"more than {MAX_RUN_INPUT_BYTES:,} bytes of input in one run"
        return None


# A line that starts a document (`---`) or ends one (`...`), as libyaml reads it at column 0 in any context.
_DOCUMENT_LINE: Final = re.compile(r"^(?:---|\.\.\.)(?=[ \t\r\n]|\Z)", re.MULTILINE)


def document_count_problem(text: str) -> int | None:
    """Charge the run's budget with the documents the text may hold; where (a character index) the run first goes
    over MAX_RUN_DOCUMENTS, or None.

    A text holds at most one document more than it has marker lines (`---`, `...`); they are counted before any
    parse, and the count stops at the first marker past the budget (16 MB of `---` lines are refused in about
    0.1 s instead of taking 42 s and 1.4 GB to parse).
    """
    budget = run_budget()
    left = MAX_RUN_DOCUMENTS - budget.documents
    if left < 1:
        return 0
    found = 1
    for match in _DOCUMENT_LINE.finditer(text):
        found += 1
        if found > left:
            budget.documents = MAX_RUN_DOCUMENTS + 1
            return match.start()
    budget.documents += found
    return None


def list_items_problem(count: int) -> int | None:
    """Charge the run's document budget with the items of one `kind: *List` document beyond the one document it was
    charged as (each item is an object, as a document is); the position of the first item past the budget, or
    None. A List of 400,000 `{}` items took 37 s and printed 400,000 findings."""
    budget = run_budget()
    left = MAX_RUN_DOCUMENTS - budget.documents
    if count - 1 <= left:
        budget.documents += max(count - 1, 0)
        return None
    budget.documents = MAX_RUN_DOCUMENTS + 1
    return max(left + 1, 0)


_budget: ContextVar[RunBudget] = ContextVar("mxjob_run_budget")


def new_run() -> RunBudget:
    """Start counting a new run (the CLI calls this once per command)."""
    budget = RunBudget()
    _budget.set(budget)
    return budget


def run_budget() -> RunBudget:
    try:
        return _budget.get()
    except LookupError:
        return new_run()


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
    from mxjob_gitops.compiler.source import event_loader

    loader = event_loader(text)
    nodes = depth = 0
    too_deep: int | None = None
    try:
        while (event := loader.get_event()) is not None:  # type: ignore[no-untyped-call]
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
