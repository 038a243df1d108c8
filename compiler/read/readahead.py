"""Parse the texts of a whole input ahead of their turn over compiler.fanout's workers: cli.inputs.SharedParses
asks for it when `mxjob diff` reads its first side, whose files are all new to it.

Each worker parses a contiguous part of the texts with parse_text, as the reading would one by one, and sends
back, for each text it read without a word, each document's value, index, start and whether it holds a float;
SharedParses then takes that text's documents from here, built on the caller's own text, where it would have
parsed the whole text. A text parse_text reports anything for, or whose aliases count against the run's budget
(compiler.limits: that count lives in the process that parses), is not sent: it is parsed in its turn, as before.
A text large enough for the fast reader to cut in chunks (compiler.fastread.SPLIT_MIN_CHARS) is left to it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Final

from mxjob_gitops.compiler.base.run import Run, current_run
from mxjob_gitops.compiler.read.fastread import SPLIT_MIN_CHARS
from mxjob_gitops.compiler.read.source import ParseResult, SourceDocument, SourceText, parse_text

# Below this many characters for each worker, one process parses the texts sooner than two: a child's documents
# are pickled, piped back and loaded here (see docs/performance.md, "The two sides of a diff").
AHEAD_MIN_CHARS: Final = 256 * 1024

Texts = Sequence[tuple[str, str]]  # (label, text)
Sent = list[tuple[Any, int, int | None, bool | None]]  # each document's value, index, start, floats
Ready = dict[str, tuple[str, ParseResult]]  # label -> (the text parsed, parse_text's result for it)


def parsed_ahead(texts: Texts, run: Run | None = None) -> Ready:
    """parse_text's result for the texts a worker read without a word (none when the texts are too few); `run`:
    whose workers, runner and budget (None: the installed run)."""
    run = run if run is not None else current_run()
    candidates = [(label, text) for label, text in texts if len(text) < SPLIT_MIN_CHARS]
    total = sum(len(text) for _label, text in candidates)
    count = min(run.workers, total // AHEAD_MIN_CHARS)
    if count < 2:
        return {}
    parts = _parts(candidates, total, count)
    ready: Ready = {}
    for part, sent in zip(parts, run.runner(functools.partial(_parse_part, run), parts), strict=True):
        for (label, text), documents in zip(part, sent, strict=True):
            if documents is not None:
                source = SourceText(label, text)
                found = [
                    SourceDocument(data, label, index, source, start, floats)
                    for data, index, start, floats in documents
                ]
                ready[label] = (text, ParseResult(found, []))
    return ready


def _parts(texts: Texts, total: int, count: int) -> list[list[tuple[str, str]]]:
    """The texts cut into `count` contiguous parts of about as many characters each."""
    parts: list[list[tuple[str, str]]] = [[] for _ in range(count)]
    before = 0  # characters in the texts before this one
    for label, text in texts:
        parts[min(count - 1, before * count // total)].append((label, text))
        before += len(text)
    return parts


def _parse_part(run: Run, part: Texts, _here: bool) -> list[Sent | None]:
    """Each text's documents as parse_text reads them, or None where it reports anything, counts aliases or fails."""
    budget = run.budget
    sent: list[Sent | None] = []
    for label, text in part:
        aliases = budget.alias_nodes
        try:
            parsed = parse_text(text, label, run=run)
        except Exception:  # the reading in its turn meets it again
            sent.append(None)
            continue
        clean = not parsed.diagnostics and budget.alias_nodes == aliases
        sent.append([(d.data, d.index, d.start, d.floats) for d in parsed.documents] if clean else None)
    return sent
