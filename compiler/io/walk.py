"""The directories below an input path, walked without recursion and only so deep (cli.inputs calls it).

os.walk (Python 3.11) and Path.rglob recurse once per level, so a directory 1,000 levels deep ended a run with
RecursionError (exit 3); this walk keeps its own stack and refuses a tree deeper than the run's directory depth
limit (compiler.base.limits.run_limits) with the path where it goes too deep.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from mxjob_gitops.compiler.base.limits import run_limits


class TooDeep(Exception):
    """A directory nests deeper than the run's limit below the walked root; `path` is the first one."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.path = path


def walk(root: Path) -> Iterator[tuple[Path, list[os.DirEntry[str]]]]:
    """Each directory below `root` (itself included) with its entries that are not directories to enter: as
    os.walk with followlinks off, it does not enter a linked directory, and it does not enter hidden ones (nothing
    below one is read). Unreadable directories are skipped, as os.walk skips them."""
    most = run_limits().directory_depth
    stack: list[tuple[Path, int]] = [(root, 0)]
    while stack:
        directory, depth = stack.pop()
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda entry: entry.name, reverse=True)
        except OSError:
            continue
        others: list[os.DirEntry[str]] = []
        for entry in entries:
            if _enter(entry):
                if depth + 1 > most:
                    raise TooDeep(directory / entry.name)
                stack.append((directory / entry.name, depth + 1))
            else:
                others.append(entry)
        yield directory, others


def _enter(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False) and not entry.name.startswith(".")
    except OSError:
        return False
