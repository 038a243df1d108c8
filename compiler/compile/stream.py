"""The streamed render of `mxjob render`: every input read before the first job compiles, each document kept
only as its marshal bytes (about the size of its YAML), because two things need every document first: the
PriorityClass objects of the input and, with keep_rendered, the ConfigMaps that mark a job as already rendered.
rendered(render) then runs compiler.engine over the stored documents: each object examined (checked,
compiled), accounted for in input order and, while no error was found, rendered; in one process (item by item:
what is held is the input texts for diagnostic positions, the marshal bytes not yet compiled and the identity
of every object produced) or in parts over the run's workers. Diagnostics are exactly compile_documents' own
(the same engine), so the caller must hold the output back until rendered() is exhausted and `ok` is known.
"""

from __future__ import annotations

import dataclasses
import marshal
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, has_errors
from mxjob_gitops.compiler.base.jsonutil import as_dict
from mxjob_gitops.compiler.base.limits import job_output_bytes, output_limit
from mxjob_gitops.compiler.base.run import Run, current_run
from mxjob_gitops.compiler.compile import engine as _engine
from mxjob_gitops.compiler.compile.engine import Engine, InputFacts, Item, Settings, Stored
from mxjob_gitops.compiler.read.source import ParseStream, iter_objects
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.spec.convert import is_mxjob

R = TypeVar("R")

# An input whose whole estimate is below FANOUT_MIN_BYTES is done in this process (a process started for it
# would cost more than it saves).
FANOUT_MIN_BYTES = 2 * 1024 * 1024


class StreamedRender:
    """Add every input with read(), then iterate rendered() once; `diagnostics` is complete after that."""

    def __init__(self, options: RenderOptions, check_first_above: int | None = None, run: Run | None = None) -> None:
        """`check_first_above`: check every job before rendering any when the output may be larger (bytes); `run`:
        whose workers render in parts (None: the installed run, base.run)."""
        self.options = options
        self.run = run if run is not None else current_run()
        self.check_first_above = check_first_above
        self.checked = False  # every object was checked before the first output was handed out
        self.parse_diagnostics: list[Diagnostic] = []
        self._stored: list[Stored] = []
        self._weights: list[int] = []  # each stored document's _rough_estimate
        self._facts = InputFacts()
        self._engine: Engine[Any] | None = None
        self._estimate = 0  # a rough output size (see _rough_estimate)

    def read(self, stream: ParseStream) -> None:
        """Parse one input document by document, keeping each as bytes (nothing of it when the file is refused)."""
        stored: list[Stored] = []
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

    def rendered(self, render: Callable[[Item], Iterable[R]]) -> Iterator[R]:
        """What render(item) gives for each valid item, in input order, while no error was found (`ok`); every
        object is checked to the end. Of an input with an error, what was given before is to be thrown away.

        When the input may come near the output-size limit (or above check_first_above), every object is
        checked before the first item is rendered (a first pass that renders nothing): an input over the limit
        is refused without rendering any of it, and a large rendering need not be held back (see
        io.heldout). With more than one worker (in_parts), the items are examined and rendered in parts, where
        the runner puts them (render is then called in a forked process, and what it gives is sent back)."""
        engine: Engine[R] = Engine(self._stored, self._weights, Settings(self._facts, self.options), self.run)
        self._engine = engine
        workers = self.run.workers if self.in_parts else 1
        failed = has_errors(self.parse_diagnostics)
        if self._check_first():
            for _record in engine.run(None, workers, failed=failed):
                pass
            if not self.ok:
                return
            self.checked = True
        else:  # a round is accounted for before anything of it is handed out
            self.checked = workers >= 2 and len(engine.rounds()) == 1
        for _document, _prefix, item, output in engine.run(render, workers, failed=failed, drop=True):
            if output is not None:  # rendered in a part
                yield from output
            elif item is not None:  # examined here and accounted for: rendered now
                yield from render(item)

    @property
    def valid_items(self) -> int:
        """The valid items of the input (once rendered() is exhausted)."""
        return self._engine.valid_items if self._engine is not None else 0

    @property
    def in_parts(self) -> bool:
        """Whether rendered() examines and renders the items in parts (known once every input was read): not
        when a document may render to more than a round (then it is rendered here, item by item)."""
        return (
            self.run.workers >= 2
            and self._estimate >= FANOUT_MIN_BYTES
            and max(self._weights, default=0) <= _engine.ROUND_BYTES
        )

    def _check_first(self) -> bool:
        """Whether every job is to be checked before any is rendered (see rendered())."""
        threshold = output_limit(self.options.max_pods) // 2
        if self.check_first_above is not None:
            threshold = min(threshold, self.check_first_above)
        return self._estimate > threshold

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Parse diagnostics, then those of compiling (all of them once rendered() is exhausted)."""
        checker = self._engine.checker if self._engine is not None else None
        compiled = checker.all_diagnostics() if checker is not None else []
        return [*self.parse_diagnostics, *compiled]

    @property
    def ok(self) -> bool:
        """No error so far: while it holds, the outputs seen can be kept (and must be held back until the end)."""
        return not has_errors(self.parse_diagnostics) and (self._engine is None or self._engine.ok)


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
