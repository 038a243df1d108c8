"""A render whose Python objects are bounded by the largest job: each object is compiled, rendered and dropped.

compile_documents holds every parsed document and compiled job until the last manifest is written (about
37 KB of Python objects per 10-replica job). A StreamedRender reads each file one document at a time and
keeps a document only as its marshal bytes (about the size of its YAML), because two things need every
document before the first job compiles: the PriorityClass objects of the input and, with keep_rendered,
the ConfigMaps that mark a job as already rendered. Its items() then loads, compiles and yields each item
in input order; the caller renders it and lets it go. What stays O(input): the input texts (for
diagnostic positions), the marshal bytes, and the identity of every object produced (for duplicates).
Diagnostics are exactly compile_documents' own (pipeline.Checker is shared), so the caller must hold the
output back until items() is exhausted and `ok` is known.
"""

from __future__ import annotations

import dataclasses
import marshal
from collections.abc import Iterator

from mxjob_gitops.compiler.convert import is_mxjob
from mxjob_gitops.compiler.diagnostics import Diagnostic, has_errors
from mxjob_gitops.compiler.job import CompiledJob
from mxjob_gitops.compiler.jsonutil import as_dict
from mxjob_gitops.compiler.limits import job_output_bytes, output_limit
from mxjob_gitops.compiler.options import RenderOptions
from mxjob_gitops.compiler.pipeline import Checker, InputFacts, Manifest
from mxjob_gitops.compiler.source import ParseStream, SourceDocument, iter_objects


class StreamedRender:
    """Add every input with read(), then iterate items() once; `diagnostics` is complete after that."""

    def __init__(self, options: RenderOptions, check_first_above: int | None = None) -> None:
        """`check_first_above`: check every job before rendering any when the output may be larger (bytes)."""
        self.options = options
        self.check_first_above = check_first_above
        self.checked = False  # every object was checked before the first item was yielded
        self.parse_diagnostics: list[Diagnostic] = []
        self._stored: list[tuple[SourceDocument, bytes]] = []
        self._facts = InputFacts()
        self._checker: Checker | None = None
        self._checked = 0  # diagnostics of the checker already looked at by `ok`
        self._failed = False
        self._estimate = 0  # a rough output size (see _rough_estimate)

    def read(self, stream: ParseStream) -> None:
        """Parse one input document by document, keeping each as bytes (nothing of it when the file is refused)."""
        stored: list[tuple[SourceDocument, bytes]] = []
        facts = InputFacts()
        estimate = 0
        for document in stream:
            for _prefix, obj in iter_objects(document):
                facts.learn(document, obj)
                estimate += _rough_estimate(obj)
            stored.append((dataclasses.replace(document, data=None), marshal.dumps(document.data)))
        self.parse_diagnostics.extend(stream.diagnostics)
        if not stream.discard:
            self._stored.extend(stored)
            self._facts.absorb(facts)
            self._estimate += estimate

    def items(self) -> Iterator[CompiledJob | Manifest]:
        """Each valid item in input order, compiled from its stored bytes (the bytes are dropped as it goes).

        When the input may come near the output-size limit (or above check_first_above), every object is
        checked before the first item is yielded (compiled twice): an input over the limit is refused without
        rendering any of it, and a large rendering need not be held back (see cli.heldout).
        """
        threshold = output_limit(self.options.max_pods) // 2
        if self.check_first_above is not None:
            threshold = min(threshold, self.check_first_above)
        if self._estimate > threshold:
            for _item in self._compile(self._stored):
                pass
            if not self.ok:
                return
            self.checked = True
        self._stored.reverse()
        yield from self._compile(self._stored, drop=True)

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


def _popped(stored: list[tuple[SourceDocument, bytes]]) -> Iterator[tuple[SourceDocument, bytes]]:
    """The entries of a reversed list, each dropped from it as it is handed out."""
    while stored:
        yield stored.pop()


def _rough_estimate(obj: object) -> int:
    """compiler.limits' output estimate from an uncompiled object, only to choose whether to check every job
    before rendering any: pods are the `replicas` numbers anywhere in its spec, templates the whole spec, sized
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
            else:
                yield from _replica_counts(value)
    elif isinstance(node, list):
        for value in node:
            yield from _replica_counts(value)
