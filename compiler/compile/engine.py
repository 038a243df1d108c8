"""The one compile engine: a sequence of documents in, each object examined on its own (checker.Checker.examine:
checked, compiled and, when asked, rendered) where the run's runner puts it, and accounted for here in input
order (Checker.account: a second producer of an object, the output-size limit).

The documents are kept parsed (compile_documents) or as marshal bytes (compiler.stream); the input is cut into
rounds of bounded estimated output (ROUND_BYTES) and each round into parts, one per worker. With one worker the
one part is run here, lazily: each object is examined, accounted for and only then rendered, so a serial render
holds one item at a time. With more, each part's records (what examine found, and the rendering of each valid
item) come back from the runner, a round is accounted for in input order, and only then is its output handed on.
After an error the rest is only checked: nothing more is rendered (unless `keep_going`, which compile_documents
asks for: a Plan holds every valid item of an invalid input).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import marshal
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, JsonPath, has_errors
from mxjob_gitops.compiler.base.fanout import Runner, one_by_one
from mxjob_gitops.compiler.base.run import Run, current_run
from mxjob_gitops.compiler.compile.checker import Checker, Manifest
from mxjob_gitops.compiler.read.source import SourceDocument, iter_objects
from mxjob_gitops.compiler.render.job import CompiledJob
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.rules.objectcheck import Identity, identity
from mxjob_gitops.compiler.spec import constants as c

if TYPE_CHECKING:
    from mxjob_gitops.compiler.compile.jobcache import CompileCache

R = TypeVar("R")
Item = CompiledJob | Manifest
# One input document: the document (its data, or None when the data is kept as marshal bytes beside it) and
# those bytes (None: the data is the document's own; b"": dropped once compiled).
Stored = tuple[SourceDocument, bytes | None]
# A round is cut when its estimated output passes this: what the parts of one round send back is held here
# until the round is accounted for.
ROUND_BYTES = 64 * 1024 * 1024


@dataclass(slots=True)
class InputFacts:
    """What compiling an object learns from the other objects of the input: the PriorityClass values (with where
    each was found) and the jobs whose ConfigMap is present (the input is a rendering, not a spec, for those)."""

    priorities: dict[str, int] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    rendered: set[tuple[str, str]] = field(default_factory=set)

    def learn(self, document: SourceDocument, obj: Any) -> None:
        """Take in one object of the document (a later PriorityClass of the same name wins)."""
        kind = obj.get("kind") if isinstance(obj, dict) else None
        if kind != "PriorityClass" and kind != "ConfigMap":
            return
        metadata = obj.get("metadata")
        if not isinstance(metadata, dict):
            return
        if kind == "PriorityClass":
            name, value = metadata.get("name"), obj.get("value")
            if isinstance(name, str) and isinstance(value, int):
                self.priorities[name] = value
                self.sources[name] = f"PriorityClass object at {document.file}, document {document.index + 1}"
            return
        labels = metadata.get("labels")
        if isinstance(labels, dict) and c.LABEL_JOB_NAME in labels:
            self.rendered.add((identity(obj)[2], str(labels[c.LABEL_JOB_NAME])))

    def absorb(self, other: InputFacts) -> None:
        """Take in what another part of the input taught (read after this one)."""
        self.priorities.update(other.priorities)
        self.sources.update(other.sources)
        self.rendered |= other.rendered

    def checker(self, options: RenderOptions, defaults: bool = True, cache: CompileCache | None = None) -> Checker:
        """A Checker for the objects of this input (a `cache` shared with another input's: compiler.jobcache)."""
        priorities, sources = self.priority_classes(options)
        rendered = self.rendered if options.keep_rendered else set()
        if cache is None:
            return Checker(options, defaults, priorities, sources, rendered)
        return Checker(options, defaults, priorities, sources, rendered, cache.compile, cache.passed, cache.estimates)

    def priority_classes(self, options: RenderOptions) -> tuple[dict[str, int], dict[str, str]]:
        """The PriorityClass values known offline: the input's, overridden by --priority-class."""
        values, sources = dict(self.priorities), dict(self.sources)
        for name, value in options.priority_classes:
            values[name] = value
            sources[name] = "--priority-class"
        return values, sources


@dataclass(frozen=True, slots=True)
class Settings:
    """What every part examines with: the input's facts, the options, whether jobs get defaults (not for `mxjob
    convert`) and the diff's compile memo."""

    facts: InputFacts
    options: RenderOptions
    defaults: bool = True
    cache: CompileCache | None = None

    def checker(self) -> Checker:
        return self.facts.checker(self.options, self.defaults, self.cache)


class Engine(Generic[R]):
    """Runs passes over the stored documents (see the module docstring); `checker` holds the last pass's
    accounting, `ok` whether it found no error so far."""

    def __init__(
        self, stored: list[Stored], weights: Sequence[int], settings: Settings, run: Run | None = None
    ) -> None:
        """`weights`: each document's estimated output (how rounds and parts are cut); `run`: whose runner spreads
        the parts (None: the installed run, base.run)."""
        self.stored, self.weights, self.settings = stored, weights, settings
        self.context = run if run is not None else current_run()
        self.checker: Checker | None = None
        self.valid_items = 0  # the valid items of the last pass
        self._checked = 0  # diagnostics of the checker already looked at by `ok`
        self._failed = False

    @property
    def ok(self) -> bool:
        """No error so far in this pass."""
        checker = self.checker
        if self._failed or checker is None:
            return not self._failed
        new, self._checked = checker.diagnostics[self._checked :], len(checker.diagnostics)
        self._failed = has_errors(new) or checker.too_big is not None
        return not self._failed

    def rounds(self) -> list[tuple[int, int]]:
        return _cut(self.weights, ROUND_BYTES)

    def run(
        self,
        render: Callable[[Item], Iterable[R]] | None,
        workers: int = 1,
        *,
        failed: bool = False,
        keep_going: bool = False,
        drop: bool = False,
    ) -> Iterator[tuple[SourceDocument, JsonPath, Item | None, list[R] | None]]:
        """One pass: each valid item in input order while no error was found (`failed`: one was found before, e.g.
        in parsing; `keep_going`: every valid item anyway), as (document, prefix, item, None) when its part was run
        here lazily (the caller renders it: examined, accounted for, then rendered) or (document, prefix, None,
        render(item)) when its part was rendered where the runner put it. Nothing when neither `render` nor
        `keep_going` asks for the items (a pass that only checks). Every object is checked to the end. `workers`:
        how many parts each round is cut into, run by the run's runner (one: run here, lazily). `drop`: forget each
        document's bytes once it is examined."""
        checker = self.checker = self.settings.checker()
        self._checked, self._failed, self.valid_items = 0, failed, 0
        lazy = workers < 2
        runner: Runner = one_by_one if lazy else self.context.runner
        stored, account, wants_items = self.stored, checker.account, render is not None or keep_going
        for start, end in self.rounds():
            wanted = render if keep_going or self.ok else None
            task = functools.partial(_examine_part, stored, self.settings, wanted, keep_going, lazy, drop)
            pending: list[tuple[SourceDocument, JsonPath, None, list[R]]] = []
            valid_items = 0
            for records in runner(task, _parts(self.weights, start, end, workers)):
                for index, prefix, diagnostics, identities, estimate, valid, output, item in records:
                    document = stored[index][0]
                    account(document, prefix, diagnostics, identities, estimate)
                    valid_items += valid
                    if item is not None and wants_items and (keep_going or self.ok):
                        yield document, prefix, item, None
                    elif output is not None:
                        pending.append((document, prefix, None, output))
            self.valid_items += valid_items
            if drop:  # the bytes are no longer needed; the documents stay (diagnostic locations)
                for index in range(start, end):
                    if stored[index][1] is not None:
                        stored[index] = (stored[index][0], b"")
            if keep_going or self.ok:
                yield from pending


# One object of a part, as _examine_part gives it: its document's index in the store, its prefix, what examine
# found (diagnostics, identities, estimate), whether the item is valid, and either render(item) (a part whose
# records are sent: the item stays, only the rendering crosses) or the item itself (a part run here lazily: the
# engine renders it once it is accounted for). A plain tuple: a part of a rendering sends tens of thousands,
# and pickle takes a NamedTuple holding a dataclass three times as long.
_Record = tuple[int, JsonPath, Sequence[Diagnostic], list[Identity], int | None, bool, list[R] | None, Item | None]


def _examine_part(
    stored: list[Stored],
    settings: Settings,
    render: Callable[[Item], Iterable[R]] | None,
    keep_going: bool,
    lazy: bool,
    drop: bool,
    part: tuple[int, int],
    _here: bool,
) -> Iterable[_Record[R]]:
    """The records of the documents stored[start:end] (a compiler.fanout task): a list, or a generator when
    `lazy` (the one part of a pass run here)."""
    records = _records(stored, settings, render, keep_going, lazy, drop, part)
    return records if lazy else list(records)


def _records(
    stored: list[Stored],
    settings: Settings,
    render: Callable[[Item], Iterable[R]] | None,
    keep_going: bool,
    lazy: bool,
    drop: bool,
    part: tuple[int, int],
) -> Iterator[_Record[R]]:
    checker = settings.checker()
    failed = False
    for index in range(*part):
        slim, blob = stored[index]
        document = slim if blob is None else dataclasses.replace(slim, data=marshal.loads(blob))
        if lazy and drop and blob is not None:
            stored[index] = (slim, b"")
        for prefix, obj in iter_objects(document):
            passed = checker.passed_before(obj)  # a diff: an object that passed on the other side already
            if passed is not None:
                item: Item | None = obj
                diagnostics: Sequence[Diagnostic] = ()
                identities, estimate = [passed], None
            else:
                examined = checker.examine_in_full(slim, prefix, obj)
                item, diagnostics = examined.item, examined.diagnostics
                identities, estimate = examined.identities, examined.estimate
                failed = failed or (not keep_going and has_errors(diagnostics))
            output = None
            if not lazy and render is not None and item is not None and not failed:
                output = list(render(item))
            yield (index, prefix, diagnostics, identities, estimate, item is not None, output, item if lazy else None)


def _cut(weights: Sequence[int], limit: int) -> list[tuple[int, int]]:
    """Consecutive (start, end) ranges of the documents, each closed once its weights pass `limit`."""
    ranges: list[tuple[int, int]] = []
    start, total = 0, 0
    for index, weight in enumerate(weights):
        total += weight
        if total > limit:
            ranges.append((start, index + 1))
            start, total = index + 1, 0
    if start < len(weights) or not ranges:
        ranges.append((start, len(weights)))
    return ranges


def _parts(weights: Sequence[int], start: int, end: int, count: int) -> list[tuple[int, int]]:
    """stored[start:end] cut into at most `count` consecutive ranges of about equal weight (none empty)."""
    total = sum(weights[start:end]) or 1
    bounds = [start]
    running = 0
    for index in range(start, end):
        running += weights[index]
        if len(bounds) < count and running * count >= total * len(bounds) and index + 1 < end:
            bounds.append(index + 1)
    bounds.append(end)
    return [(a, b) for a, b in itertools.pairwise(bounds) if a < b] or [(start, end)]
