"""The input side of a streamed render: every input read into a StreamedRender, and what each valid item renders
into (`render` to stdout and `render -o` both consume it; cli.render reports and exits)."""

from __future__ import annotations

import dataclasses
import functools
import gc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, has_errors
from mxjob_gitops.compiler.base.run import Run
from mxjob_gitops.compiler.compile.documents import Identity, Manifest, compile_documents, identity, item_manifests
from mxjob_gitops.compiler.compile.stream import StreamedRender
from mxjob_gitops.compiler.io import heldout
from mxjob_gitops.compiler.io.inputs import input_texts, unreadable
from mxjob_gitops.compiler.io.units import merge_renderings, rendered_identities, rendering_units
from mxjob_gitops.compiler.read.source import ParseStream
from mxjob_gitops.compiler.render.emit import Emitter
from mxjob_gitops.compiler.render.job import CompiledJob
from mxjob_gitops.compiler.render.options import RenderOptions

T = TypeVar("T")
R = TypeVar("R")
# With the collector paused (io.startup.paused_gc), the young generations are collected every so many streamed
# items: a job's rendering leaves reference cycles (json.dumps with indent builds its encoder from closures).
_COLLECT_EVERY = 200


class StreamedInput:
    """The inputs read into a StreamedRender, and what each valid item renders into, checked to the end
    (compiler.compile.stream: the items may be compiled and rendered in other processes)."""

    def __init__(
        self,
        paths: tuple[str, ...],
        options: RenderOptions,
        skip: list[Path],
        check_first: bool,
        run: Run | None = None,
    ) -> None:
        """`run`: the run the inputs are read and rendered under (None: the installed run, base.run)."""
        # Already-rendered output (a job with its ConfigMap) is passed through, not expanded again: the rule of
        # validate and diff, so that all three read the same input alike and render(render(x)) is render(x).
        options = dataclasses.replace(options, keep_rendered=True)
        self.options = options
        self.render = StreamedRender(options, heldout.SPILL_LIMIT if check_first else None, run)
        run = self.render.run
        # A committed `render -o` directory beside the specs: checked on its own and merged once (io.units).
        texts, units = rendering_units(list(input_texts(paths, skip, run=run)))
        for label, text in texts:
            if isinstance(text, str):
                self.render.read(ParseStream(text, label, run=run))
            else:
                self.render.parse_diagnostics.append(unreadable(text, label))
        self._units = [compile_documents(unit.documents, options, run=run) for unit in units]
        self.unit_diagnostics = [
            *(d for unit in units for d in unit.diagnostics),
            *(d for plan in self._units for d in plan.diagnostics),
        ]
        self._wanted = rendered_identities(self._units)
        self._fresh: dict[Identity, Manifest] = {}
        self.emitter = Emitter()
        self._rendered = 0

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [*self.render.diagnostics, *self.unit_diagnostics]

    @property
    def ok(self) -> bool:
        return self.render.ok and not has_errors(self.unit_diagnostics)

    def outputs(self, each: Callable[[dict[str, Any]], T]) -> Iterator[T]:
        """each(manifest) of every manifest while the input is valid; after the first error, the rest is only
        checked. `each` may run in another process (compiler.stream.rendered), its results sent back. Then the
        objects only a committed rendering holds (io.units)."""
        if not self._units:
            return self.render.rendered(functools.partial(self._item_outputs, each))
        return self._merged(each)

    def _merged(self, each: Callable[[dict[str, Any]], T]) -> Iterator[T]:
        kept = functools.partial(_keeping, each, self._wanted)
        for found, output in self.render.rendered(functools.partial(self._item_outputs, kept)):
            if found is not None:
                self._fresh[identity(found)] = found
            yield output
        yield from map(each, self._extra())

    def _extra(self) -> list[Manifest]:
        """Once the specs were rendered: the objects only a committed rendering holds, none when anything is
        wrong, a stale rendering included (its errors then join unit_diagnostics)."""
        if not self.ok:
            return []
        extra, stale = merge_renderings(self._fresh, self._units)
        self.unit_diagnostics.extend(stale)
        return [] if stale else extra

    def grouped(
        self, each: Callable[[dict[str, Any]], T], before: Callable[[str], None] | None = None
    ) -> Iterator[tuple[str, list[T]]]:
        """As outputs(), one (unit, [each(manifest)...]) per item: its unit (compile.shards.unit_of) and its outputs;
        `before(unit)` is called first, where `each` is (io.shards.ShardLayout.vouching). Then the objects only a
        committed rendering holds, each as an item of its own (io.units)."""
        if not self._units:
            return self.render.rendered(functools.partial(self._item_group, each, before))
        return self._merged_groups(each, before)

    def _merged_groups(
        self, each: Callable[[dict[str, Any]], T], before: Callable[[str], None] | None
    ) -> Iterator[tuple[str, list[T]]]:
        from mxjob_gitops.compiler.compile.shards import unit_of

        kept = functools.partial(_keeping, each, self._wanted)
        for unit, outputs in self.render.rendered(functools.partial(self._item_group, kept, before)):
            plain: list[T] = []
            for found, output in outputs:
                if found is not None:
                    self._fresh[identity(found)] = found
                plain.append(output)
            yield unit, plain
        for manifest in self._extra():
            unit = unit_of(manifest)
            if before is not None:
                before(unit)
            yield unit, [each(manifest)]

    def _item_group(
        self, each: Callable[[dict[str, Any]], T], before: Callable[[str], None] | None, item: CompiledJob | Manifest
    ) -> list[tuple[str, list[T]]]:
        from mxjob_gitops.compiler.compile.shards import unit_of

        unit = unit_of(item)
        if before is not None:
            before(unit)
        return [(unit, list(self._item_outputs(each, item)))]

    def _item_outputs(self, each: Callable[[dict[str, Any]], R], item: CompiledJob | Manifest) -> Iterator[R]:
        self._rendered += 1
        if not self._rendered % _COLLECT_EVERY:
            gc.collect(1)
        return map(each, item_manifests(item, self.options, self.emitter.expect_prefix))


def _keeping(
    each: Callable[[dict[str, Any]], T], wanted: set[Identity], manifest: Manifest
) -> tuple[Manifest | None, T]:
    """each(manifest), with the manifest itself when a committed rendering holds its identity (to compare)."""
    return (manifest if identity(manifest) in wanted else None), each(manifest)
