"""A render whose Python objects are bounded by the largest job: each object is compiled, rendered and dropped.

compile_documents holds every parsed document and compiled job until the last manifest is written (about
37 KB of Python objects per 10-replica job). A StreamedRender reads each file one document at a time and
keeps a document only as its marshal bytes (about the size of its YAML), because two things need every
document before the first job compiles: the PriorityClass objects of the input and, with keep_rendered,
the ConfigMaps that mark a job as already rendered. Its items() then loads, compiles and yields each item
in input order; the caller renders it and lets it go. What stays O(input): the input texts (for
diagnostic positions), the marshal bytes, and the identity of every object produced (for duplicates).
Diagnostics are exactly compile_documents' own (checker.Checker is shared), so the caller must hold the
output back until items() is exhausted and `ok` is known.

rendered(render) gives render(item) of each valid item instead, and spreads the work over compiler.fanout's
workers: the input is cut into rounds of bounded output size, each round into parts, and each part's objects
are examined (checked, compiled: Checker.examine) and rendered where the runner puts them. What examine
leaves to the checks across objects (a second producer of an object, the output-size limit) is done here,
on each part's records in input order (Checker.account), so diagnostics are those of items() exactly.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import marshal
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, JsonPath, has_errors
from mxjob_gitops.compiler.base.jsonutil import as_dict
from mxjob_gitops.compiler.base.limits import job_output_bytes, output_limit
from mxjob_gitops.compiler.base.run import current_run
from mxjob_gitops.compiler.compile.checker import Checker, Examined
from mxjob_gitops.compiler.compile.documents import InputFacts, Manifest
from mxjob_gitops.compiler.read.source import ParseStream, SourceDocument, iter_objects
from mxjob_gitops.compiler.render.job import CompiledJob
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.rules.objectcheck import Identity
from mxjob_gitops.compiler.spec.convert import is_mxjob

R = TypeVar("R")
# rendered(): a round is cut when its estimated output passes this (what the parts of one round send back is
# held here until the round is accounted for), and an input whose whole estimate is below FANOUT_MIN_BYTES is
# done in this process (a process started for it would cost more than it saves).
ROUND_BYTES = 64 * 1024 * 1024
FANOUT_MIN_BYTES = 2 * 1024 * 1024


class StreamedRender:
    """Add every input with read(), then iterate items() once; `diagnostics` is complete after that."""

    def __init__(self, options: RenderOptions, check_first_above: int | None = None) -> None:
        """`check_first_above`: check every job before rendering any when the output may be larger (bytes)."""
        self.options = options
        self.check_first_above = check_first_above
        self.checked = False  # every object was checked before the first item was yielded
        self.parse_diagnostics: list[Diagnostic] = []
        self._stored: list[tuple[SourceDocument, bytes]] = []
        self._weights: list[int] = []  # each stored document's _rough_estimate
        self.valid_items = 0  # items yielded by items() or rendered by rendered()
        self._facts = InputFacts()
        self._checker: Checker | None = None
        self._checked = 0  # diagnostics of the checker already looked at by `ok`
        self._failed = False
        self._estimate = 0  # a rough output size (see _rough_estimate)

    def read(self, stream: ParseStream) -> None:
        """Parse one input document by document, keeping each as bytes (nothing of it when the file is refused)."""
        stored: list[tuple[SourceDocument, bytes]] = []
        weights: list[int] = []
        facts = InputFacts()
        for document in stream:
            weight = 0
            for _prefix, obj in iter_objects(document):
                facts.learn(document, obj)
                weight += _rough_estimate(obj)
            stored.append((dataclasses.replace(document, data=None), marshal.dumps(document.data)))
            weights.append(weight)
        self.parse_diagnostics.extend(stream.diagnostics)
        if not stream.discard:
            self._stored.extend(stored)
            self._weights.extend(weights)
            self._facts.absorb(facts)
            self._estimate += sum(weights)

    def items(self) -> Iterator[CompiledJob | Manifest]:
        """Each valid item in input order, compiled from its stored bytes (the bytes are dropped as it goes).

        When the input may come near the output-size limit (or above check_first_above), every object is
        checked before the first item is yielded (compiled twice): an input over the limit is refused without
        rendering any of it, and a large rendering need not be held back (see cli.heldout).
        """
        if self._check_first():
            for _item in self._compile(self._stored):
                pass
            if not self.ok:
                return
            self.checked = True
        self._stored.reverse()
        for item in self._compile(self._stored, drop=True):
            self.valid_items += 1
            yield item

    def rendered(self, render: Callable[[CompiledJob | Manifest], Iterable[R]]) -> Iterator[R]:
        """What render(item) gives for each valid item, in input order, while no error was found (`ok`); the
        same diagnostics as items(). Of an input with an error, what was given before is to be thrown away.

        With more than one fanout worker, the items are examined and rendered in parts, where the runner puts
        them (render is then called in a forked process, and what it gives is sent back); see the module
        docstring. A document whose rendering may be larger than a round is never held whole: such an input is
        rendered here, item by item and output by output, as the serial branch does for every input."""
        if not self.in_parts:
            for item in self.items():
                if self.ok:
                    yield from render(item)
            return
        weights = self._weights
        checker = self._checker = self._facts.checker(self.options)
        self._checked = 0
        rounds = _cut(weights, ROUND_BYTES)
        self.checked = len(rounds) == 1  # the round is accounted for before anything of it is handed out
        for start, end in rounds:
            # After an error the rest is only checked, as items() does: nothing more is rendered.
            task = functools.partial(
                _examine_part, self._stored, self._facts, self.options, render if self.ok else None
            )
            outputs: list[R] = []
            run = current_run()
            for records in run.runner(task, _parts(weights, start, end, run.workers)):
                for index, prefix, diagnostics, identities, estimate, valid, output in records:
                    examined = Examined(None, diagnostics, identities, estimate)
                    checker.account(self._stored[index][0], prefix, examined)
                    self.valid_items += valid
                    if output is not None:
                        outputs.extend(output)
            for index in range(start, end):  # the bytes are no longer needed; the documents stay (locations)
                self._stored[index] = (self._stored[index][0], b"")
            if self.ok:
                yield from outputs

    @property
    def in_parts(self) -> bool:
        """Whether rendered() examines and renders the items in parts (known once every input was read)."""
        return (
            current_run().workers >= 2
            and self._estimate >= FANOUT_MIN_BYTES
            and max(self._weights, default=0) <= ROUND_BYTES
            and not self._check_first()
        )

    def _check_first(self) -> bool:
        """Whether every job is to be checked before any is rendered (see items())."""
        threshold = output_limit(self.options.max_pods) // 2
        if self.check_first_above is not None:
            threshold = min(threshold, self.check_first_above)
        return self._estimate > threshold

    def _compile(
        self, stored: list[tuple[SourceDocument, bytes]], drop: bool = False
    ) -> Iterator[CompiledJob | Manifest]:
        checker = self._checker = self._facts.checker(self.options)
        self._checked = 0
        for slim, blob in _popped(stored) if drop else stored:
            document = dataclasses.replace(slim, data=marshal.loads(blob))
            for prefix, obj in iter_objects(document):
                item = checker.add(slim, prefix, obj)
                if item is not None:
                    yield item

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Parse diagnostics, then those of compiling (all of them once items() is exhausted)."""
        compiled = self._checker.all_diagnostics() if self._checker is not None else []
        return [*self.parse_diagnostics, *compiled]

    @property
    def ok(self) -> bool:
        """No error so far: while it holds, the items seen can be rendered (and must be held back until the end)."""
        checker = self._checker
        if self._failed or checker is None:
            return not self._failed and not has_errors(self.parse_diagnostics)
        new, self._checked = checker.diagnostics[self._checked :], len(checker.diagnostics)
        self._failed = has_errors(self.parse_diagnostics) or has_errors(new) or checker.too_big is not None
        return not self._failed


# One object of a part, as _examine_part sends it: its document's index in StreamedRender._stored, its prefix,
# what examine found (diagnostics, identities, estimate: the item stays, only the rendering crosses), whether the
# item is valid, and render(item) when it is and its part had no error before it. A plain tuple: a part of a
# rendering sends tens of thousands, and pickle takes a NamedTuple holding a dataclass three times as long.
_Record = tuple[int, JsonPath, list[Diagnostic], list[Identity], int | None, bool, list[R] | None]


def _examine_part(
    stored: Sequence[tuple[SourceDocument, bytes]],
    facts: InputFacts,
    options: RenderOptions,
    render: Callable[[CompiledJob | Manifest], Iterable[R]] | None,
    part: tuple[int, int],
    _here: bool,
) -> list[_Record[R]]:
    """The records of the documents stored[start:end] (a compiler.fanout task)."""
    checker = facts.checker(options)
    records: list[_Record[R]] = []
    failed = False
    for index in range(*part):
        slim, blob = stored[index]
        document = dataclasses.replace(slim, data=marshal.loads(blob))
        for prefix, obj in iter_objects(document):
            examined = checker.examine(slim, prefix, obj)
            failed = failed or has_errors(examined.diagnostics)
            valid = examined.item is not None
            output = (
                list(render(examined.item)) if render is not None and examined.item is not None and not failed else None
            )
            records.append((index, prefix, examined.diagnostics, examined.identities, examined.estimate, valid, output))
    return records


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


def _popped(stored: list[tuple[SourceDocument, bytes]]) -> Iterator[tuple[SourceDocument, bytes]]:
    """The entries of a reversed list, each dropped from it as it is handed out."""
    while stored:
        yield stored.pop()


def _rough_estimate(obj: object) -> int:
    """compiler.limits' output estimate from an uncompiled object, only to choose whether to check every job
    before rendering any, and how to cut the input into parts and rounds (rendered()): pods are the `replicas`
    numbers anywhere in its spec outside pod templates, templates the whole spec, sized
    by marshal (about 2/3 of its JSON text, and 6x faster to measure than json.dumps).
    A wrong guess costs time (a second compile, or rendering before a refusal), never a wrong output."""
    if not isinstance(obj, dict) or not is_mxjob(obj):
        return 0
    spec, name = obj.get("spec"), as_dict(obj.get("metadata")).get("name")
    pods = sum(_replica_counts(spec))
    return job_output_bytes(str(name), max(pods, 1), len(marshal.dumps(spec)))


def _replica_counts(node: object) -> Iterator[int]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "replicas" and isinstance(value, int):
                yield max(value, 0)
            elif key != "template":  # a pod template is most of a job's nodes, and none of them counts
                yield from _replica_counts(value)
    elif isinstance(node, list):
        for value in node:
            yield from _replica_counts(value)
