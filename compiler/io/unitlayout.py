"""`render -o DIR --shard-size N --repo-url URL`: the shard layout (io.shards) that also writes the GitOps objects
syncing the shards (render.gitopsunits) into DIR, beside the record and outside every shard, through the same
transaction; and the measure of an unsharded render that the size guard reads (integrations.unitlimits)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from mxjob_gitops.compiler.integrations.gitopsinput import clean_repo_path
from mxjob_gitops.compiler.integrations.unitlimits import Measure, inventory_entry_bytes
from mxjob_gitops.compiler.io.output_dir import Entry, OutputError
from mxjob_gitops.compiler.io.repopath import repo_path
from mxjob_gitops.compiler.io.shards import ShardLayout
from mxjob_gitops.compiler.render.gitopsunits import ARGOCD_FILE, FLUX_FILE, UnitSettings, unit_file
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.spec.targets import Target

T = TypeVar("T")


class UnitLayout(ShardLayout):
    """A ShardLayout whose closing files also hold `target`'s GitOps objects for the shards it laid out."""

    def __init__(self, size: int, moves: Iterable[str], target: Target, settings: UnitSettings) -> None:
        super().__init__(size, moves)
        self.target = target
        self.settings = settings
        self.reserved = ShardLayout.reserved | {ARGOCD_FILE, FLUX_FILE}
        self.note = ""  # said after the write (unit_layout: DIR in no Git work tree)

    def closing(self, names: list[str]) -> list[tuple[str, bytes]]:
        closing = super().closing(names)
        if self.placement is None:  # pragma: no cover - super().closing raised already
            raise RuntimeError("closing() before arrange() was consumed")
        try:
            name, text = unit_file(self.target, self.placement.record.shard_names(), self.settings)
        except ValueError as exc:
            raise OutputError(str(exc)) from None
        return [*closing, (name, text.encode("utf-8"))]

    def report(self, quiet: bool) -> list[str]:
        return [*super().report(quiet), *([self.note] if self.note and not quiet else [])]


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


def unit_layout(
    size: int,
    moves: Iterable[str],
    options: RenderOptions,
    settings: UnitSettings,
    output_dir: Path,
    given_path: str | None,
) -> UnitLayout:
    """The layout for --repo-url: DIR's repository path is --repo-path when given, else read with git; when DIR is
    in no work tree, DIR is taken as the repository's root, and the layout's report says so (with the fix). -n is
    where Argo CD puts objects without a namespace."""
    from dataclasses import replace

    path = clean_repo_path(given_path) if given_path is not None else repo_path(output_dir)
    note = ""
    if path is None:
        path = "."
        note = (
            "warning: not inside a Git work tree, so the shards' paths in "
            f"{ARGOCD_FILE if options.target is Target.ARGOCD else FLUX_FILE} are written as if it were the "
            "repository's root; give --repo-path PATH (its path from the repository's root) if it is not"
        )
    settings = replace(settings, repo_path=path, destination_namespace=options.namespace)
    layout = UnitLayout(size, moves, options.target, settings)
    layout.note = note
    return layout
