"""A checker of the Mermaid the docs use (tests/test_docs.py calls it): flowchart, sequenceDiagram and
stateDiagram-v2, in the subset the pages write. No Mermaid renderer installs here without a browser (mermaid-cli
drives Chromium through puppeteer, which downloads its own build), so each block is parsed line by line against
the grammar of that subset (after Mermaid's own docs, mermaid.js.org/syntax/*): every line must be one of the
forms below, blocks must close, and every arrow must join nodes or participants the diagram declares. A line this
checker does not know is an error: write the diagram in the subset, or teach the subset the new form."""

from __future__ import annotations

import re

# A quoted label: no raw double quote inside, no HTML entity (GitHub shows `&amp;` as it is written).
_LABEL = r'"[^"&]*"'
_ID = r"[A-Za-z][\w-]*"
# flowchart: a node, optionally with a label in one of the shapes used: id["…"], id[("…")] (a database)
_NODE = rf"{_ID}(?:\[{_LABEL}\]|\[\({_LABEL}\)\])?"
_NODES = rf"{_NODE}(?:\s*&\s*{_NODE})*"
_LINK = rf"(?:-->|<-->|-\.->|-\. {_LABEL} \.->|-\.\w+\.->|--\s*{_LABEL}\s*-->)"
_FLOW_LINE = re.compile(rf"^{_NODES}(?:\s*{_LINK}\s*{_NODES})*$")
_FLOW_HEADER = re.compile(r"^flowchart (LR|RL|TD|TB|BT)$")
_SUBGRAPH = re.compile(rf"^subgraph {_ID}(?:\[{_LABEL}\])?$")

# sequenceDiagram: a participant is a word; `;` ends a statement there, so no text may hold one (`#59;` does)
_WORD = r"[A-Za-z]\w*"
_PARTICIPANT = re.compile(rf"^participant ({_WORD})(?: as [^:;]+)?$")
_MESSAGE = re.compile(rf"^({_WORD})\s*(?:->>|-->>|->|-->|-x|--x)\s*({_WORD}): [^;]+$")
_NOTE = re.compile(rf"^Note (?:over|left of|right of) ({_WORD})(?:,\s*({_WORD}))?: [^;]+$")
_ALT = re.compile(r"^(alt|opt|loop|par|critical) .+$")
_ELSE = re.compile(r"^else .+$")

_STATE_DECL = re.compile(rf'^state "[^"]+" as ({_ID})(?: \{{)?$')
_TRANSITION = re.compile(rf"^(\[\*\]|{_ID}) --> (\[\*\]|{_ID})(?:: [^;]+)?$")
_STATE_NOTE = re.compile(rf"^note (?:right|left) of ({_ID})$")


def problems(block: str) -> list[str]:
    """What in one ```mermaid block is outside the subset, or unbalanced, or names an undeclared node."""
    lines = [line.strip() for line in block.splitlines() if line.strip() and not line.strip().startswith("%%")]
    if not lines:
        return ["an empty diagram"]
    kind = lines[0]
    if _FLOW_HEADER.match(kind):
        return _flowchart(lines[1:])
    if kind == "sequenceDiagram":
        return _sequence(lines[1:])
    if kind == "stateDiagram-v2":
        return _states(lines[1:])
    return [f"diagram type {kind!r} is not in the subset (flowchart, sequenceDiagram, stateDiagram-v2)"]


def _flowchart(lines: list[str]) -> list[str]:
    found: list[str] = []
    depth = 0
    labelled: set[str] = set()
    used: list[tuple[str, str]] = []
    for line in lines:
        if _SUBGRAPH.match(line):
            depth += 1
            labelled.add(line.split()[1].split("[")[0])
        elif line == "end":
            depth -= 1
            if depth < 0:
                found.append("`end` without a subgraph")
        elif _FLOW_LINE.match(line):
            for node in re.finditer(rf"({_ID})(\[)?", _strip_labels(line)):
                if node.group(2):
                    labelled.add(node.group(1))
                else:
                    used.append((node.group(1), line))
        else:
            found.append(f"not a flowchart line of the subset: {line!r}")
    if depth:
        found.append(f"{depth} subgraph(s) not closed with `end`")
    found.extend(
        f"node {name!r} is used but never given a label: {line!r}" for name, line in used if name not in labelled
    )
    return found


def _strip_labels(line: str) -> str:
    """The line with every quoted label emptied, so that words in labels are not taken for node names."""
    return re.sub(r"-\.\w+\.->", "-.->", re.sub(_LABEL, '""', line))


def _sequence(lines: list[str]) -> list[str]:
    found: list[str] = []
    declared: set[str] = set()
    blocks = 0
    for line in lines:
        if line == "autonumber":
            continue
        if match := _PARTICIPANT.match(line):
            declared.add(match.group(1))
        elif match := _MESSAGE.match(line):
            found.extend(f"participant {name!r} is not declared" for name in match.groups() if name not in declared)
        elif match := _NOTE.match(line):
            found.extend(
                f"participant {name!r} is not declared" for name in match.groups() if name and name not in declared
            )
        elif _ALT.match(line):
            blocks += 1
        elif _ELSE.match(line):
            if not blocks:
                found.append("`else` outside alt")
        elif line == "end":
            blocks -= 1
            if blocks < 0:
                found.append("`end` without alt")
        else:
            found.append(f"not a sequenceDiagram line of the subset: {line!r}")
    if blocks:
        found.append(f"{blocks} alt block(s) not closed with `end`")
    return found


def _states(lines: list[str]) -> list[str]:
    found: list[str] = []
    braces = 0
    in_note = False
    for line in lines:
        if in_note:
            in_note = line != "end note"
            continue
        if re.fullmatch(r"direction (LR|RL|TB|BT)", line):
            continue
        if _STATE_DECL.match(line):
            braces += line.endswith("{")
        elif line == "}":
            braces -= 1
            if braces < 0:
                found.append("`}` without a composite state")
        elif _TRANSITION.match(line):
            continue
        elif _STATE_NOTE.match(line):
            in_note = True
        else:
            found.append(f"not a stateDiagram-v2 line of the subset: {line!r}")
    if braces:
        found.append(f"{braces} composite state(s) not closed with `}}`")
    if in_note:
        found.append("a note not closed with `end note`")
    return found
