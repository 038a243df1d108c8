"""The measure of an unsharded `render --target argocd|flux` that the size guard (integrations.unitlimits, MXJ330)
reads: objects, their bytes (printed, or the files of -o), the bytes of their Flux inventory entries."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from mxjob_gitops.compiler.integrations.unitlimits import Measure, inventory_entry_bytes

if TYPE_CHECKING:  # render to stdout never loads the output-directory code
    from mxjob_gitops.compiler.io.output_dir import Entry

T = TypeVar("T")


def metered(each: Callable[[dict[str, Any]], T], manifest: dict[str, Any]) -> tuple[T, int]:
    """each(manifest) and the bytes of the object's Flux inventory entry (may run in another process)."""
    return each(manifest), inventory_entry_bytes(manifest)


class Meter:
    """Adds up what passes through it: objects, their bytes (`size` of each output), their inventory bytes."""

    def __init__(self, size: Callable[[Any], int]) -> None:
        self._size = size
        self._objects = self._bytes = self._inventory = 0

    @property
    def measure(self) -> Measure:
        return Measure(self._objects, self._bytes, self._inventory)

    @staticmethod
    def each(each: Callable[[dict[str, Any]], T]) -> Callable[[dict[str, Any]], tuple[T, int]]:
        return functools.partial(metered, each)

    def count(self, outputs: Iterable[tuple[T, int]]) -> Iterator[T]:
        for output, inventory in outputs:
            self._objects += 1
            self._bytes += self._size(output)
            self._inventory += inventory
            yield output


def text_size(text: str) -> int:
    """The bytes a printed manifest takes in the stream, with its document marker."""
    return len(text.encode("utf-8")) + 4


def entry_size(directory: Path) -> Callable[[Entry], int]:
    """The bytes of an -o file: its data, or for a file found unchanged (no data sent), the file in DIR."""

    def size(entry: Entry) -> int:
        name, data, _digest, _refused = entry
        if data is not None:
            return len(data)
        try:
            return os.stat(directory / name, follow_symlinks=False).st_size
        except OSError:
            return 0

    return size
