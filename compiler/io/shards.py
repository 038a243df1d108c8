"""`render -o DIR --shard-size N`: the layout that puts each unit's files into its shard directory of DIR (a
kustomize directory each), writes the record DIR/shards.yaml, and reads the record back. Used by the one writer of
-o (io.output_dir, which keeps its transaction, pruning and stat record for the tree); the placement itself is
compiler.compile.shards (pure).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from mxjob_gitops.compiler.base.escape import terminal
from mxjob_gitops.compiler.compile.shards import (
    RECORD,
    Placement,
    ShardRecord,
    assign,
    parse_record,
    record_text,
    shard_number,
)
from mxjob_gitops.compiler.io import dirfd
from mxjob_gitops.compiler.io.errors import CommandError
from mxjob_gitops.compiler.io.output_dir import KUSTOMIZATION, Entry, Layout, OutputError, Vouching, kustomization

_RECORD_LIMIT = 64 << 20  # bytes of a record read at most

# A unit's files as the render makes them: (its unit key, the entries of its objects).
Group = tuple[str, list[Entry]]


class ShardLayout(Layout):
    """Shards of at most `size` objects; `moves`: the units to move (--move-job). After the write, `placement`
    holds what was decided (the moves made and the warnings to print)."""

    reserved = frozenset({RECORD})

    def __init__(self, size: int, moves: Iterable[str] = ()) -> None:
        self.size = size
        self.moves = frozenset(moves)
        self.previous: ShardRecord | None = None
        self.placement: Placement | None = None
        self._files: dict[str, list[str]] = {}
        self._was: dict[str, str] = {}

    def vouching(self, vouching: Vouching) -> Callable[[str], None]:
        """What to call before a unit's files are made (StreamedInput.grouped's `before`): a unit the record keeps in
        its shard has its files vouched for under that shard's name; a new or moved one's are not vouched for."""

        def before_unit(unit: str) -> None:
            shard = self._was.get(unit) if unit not in self.moves else None
            vouching.prefix = f"{shard}/" if shard is not None else None

        return before_unit

    def begin(self, dir_fd: int, directory: Path) -> None:
        data = dirfd.read_regular(dir_fd, RECORD, _RECORD_LIMIT)
        if data is None:
            if dirfd.kind_of(dir_fd, RECORD) is not None:
                raise OutputError(f"{directory / RECORD}: not a regular file of at most {_RECORD_LIMIT} bytes")
            return
        try:
            self.previous = parse_record(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise OutputError(
                f"{directory / RECORD}: not a shard record ({exc}); restore it from Git (without it every job "
                "would be placed anew, and a job that moves restarts)"
            ) from None
        self.adopted = frozenset({RECORD})  # read as the record: replaced by the new one, indexed or not
        self._was = self.previous.shard_of()

    def arrange(self, entries: Iterable[Group]) -> Iterator[Entry]:
        """The entries of each unit in its shard: a recorded unit's at once, the others' once every unit is known."""
        was = self._was
        counts: dict[str, int] = {}
        held: list[Group] = []
        for unit, files in entries:
            counts[unit] = counts.get(unit, 0) + len(files)
            shard = was.get(unit) if unit not in self.moves else None
            if shard is None:
                held.append((unit, files))
            else:
                yield from self._into(shard, files)
        try:
            self.placement = assign(self.previous, counts, self.size, self.moves)
        except ValueError as exc:
            raise OutputError(f"--move-job: {exc}") from None
        placed = self.placement.record.shard_of()
        for unit, files in held:
            yield from self._into(placed[unit], files)

    def _into(self, shard: str, files: list[Entry]) -> Iterator[Entry]:
        names = self._files.setdefault(shard, [])
        for name, data, digest, refused in files:
            if refused:
                yield (name, data, digest, refused)
                continue
            names.append(name)
            yield (f"{shard}/{name}", data, digest, refused)

    def closing(self, names: list[str]) -> list[tuple[str, bytes]]:
        if self.placement is None:
            raise RuntimeError("closing() before arrange() was consumed")
        closing = [
            (f"{shard}/{KUSTOMIZATION}", kustomization(sorted(self._files.get(shard, []))).encode("utf-8"))
            for shard in self.placement.record.shard_names()
        ]
        closing.append((RECORD, record_text(self.placement.record).encode("utf-8")))
        return closing

    def report(self, quiet: bool) -> list[str]:
        """What to print after the write: each move (always: it restarts a job), then the warnings unless quiet."""
        if self.placement is None:
            return []
        lines = [
            f"moved {terminal(unit)} from {old} to {new}: it restarts (its pods are pruned by {old}'s Application "
            f"or Kustomization and re-created by {new}'s)"
            for unit, old, new in self.placement.moved
        ]
        if not quiet:
            lines.extend(f"warning: {terminal(line)}" for line in self.placement.warnings)
        return lines


def read_shards(directory: Path) -> ShardRecord | None:
    """DIR's record (None when DIR holds none); a record that does not parse is a CommandError (exit 2)."""
    try:
        fd = dirfd.open_directory(directory, create=False, follow=False)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CommandError(f"{directory}: {exc.strerror or exc}") from None
    try:
        data = dirfd.read_regular(fd, RECORD, _RECORD_LIMIT)
    finally:
        os.close(fd)
    if data is None:
        return None
    try:
        return parse_record(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise CommandError(f"{directory / RECORD}: not a shard record ({exc})") from None


def shard_directories(directory: Path) -> list[str]:
    """The shard directories of DIR by number, as its record lists them ([] when DIR is not sharded)."""
    record = read_shards(directory)
    return [name for name in record.shard_names() if shard_number(name)] if record is not None else []
