"""The input side of a streamed render: every input read into a StreamedRender, and what each valid item renders
into (`render` to stdout and `render -o` both consume it; cli.render reports and exits)."""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from mxjob_gitops.compiler.compile.documents import Manifest, item_manifests
from mxjob_gitops.compiler.compile.stream import StreamedRender
from mxjob_gitops.compiler.io import heldout
from mxjob_gitops.compiler.io.inputs import input_texts, unreadable
from mxjob_gitops.compiler.read.source import ParseStream
from mxjob_gitops.compiler.render.emit import Emitter
from mxjob_gitops.compiler.render.job import CompiledJob
from mxjob_gitops.compiler.render.options import RenderOptions

T = TypeVar("T")
# With the collector paused (cli.startup.paused_gc), the young generations are collected every so many streamed
# items: a job's rendering leaves reference cycles (json.dumps with indent builds its encoder from closures).
_COLLECT_EVERY = 200


class StreamedInput:
    """The inputs read into a StreamedRender, and what each valid item renders into, checked to the end
    (compiler.compile.stream: the items may be compiled and rendered in other processes)."""

    def __init__(self, paths: tuple[str, ...], options: RenderOptions, skip: list[Path], check_first: bool) -> None:
        self.options = options
        self.render = StreamedRender(options, check_first_above=heldout.SPILL_LIMIT if check_first else None)
        for label, text in input_texts(paths, skip, note_renders=True):
            if isinstance(text, str):
                self.render.read(ParseStream(text, label))
            else:
                self.render.parse_diagnostics.append(unreadable(text, label))
        self.emitter = Emitter()
        self._rendered = 0

    def outputs(self, each: Callable[[dict[str, Any]], T]) -> Iterator[T]:
        """each(manifest) of every manifest while the input is valid; after the first error, the rest is only
        checked. `each` may run in another process (compiler.stream.rendered), its results sent back."""
        return self.render.rendered(functools.partial(self._item_outputs, each))

    def grouped(
        self, each: Callable[[dict[str, Any]], T], before: Callable[[str], None] | None = None
    ) -> Iterator[tuple[str, list[T]]]:
        """As outputs(), one (unit, [each(manifest)...]) per item: its unit (compile.shards.unit_of) and its outputs;
        `before(unit)` is called first, where `each` is (io.shards.ShardLayout.vouching)."""
        return self.render.rendered(functools.partial(self._item_group, each, before))

    def _item_group(
        self, each: Callable[[dict[str, Any]], T], before: Callable[[str], None] | None, item: CompiledJob | Manifest
    ) -> list[tuple[str, list[T]]]:
        from mxjob_gitops.compiler.compile.shards import unit_of

        unit = unit_of(item)
        if before is not None:
            before(unit)
        return [(unit, list(self._item_outputs(each, item)))]

    def _item_outputs(self, each: Callable[[dict[str, Any]], T], item: CompiledJob | Manifest) -> Iterator[T]:
        self._rendered += 1
        if not self._rendered % _COLLECT_EVERY:
            gc.collect(1)
        return map(each, item_manifests(item, self.options, self.emitter.expect_prefix))
