"""DIR's path inside the Git work tree that holds it (`render -o DIR --repo-url`: where Argo CD or Flux finds the
shards), read with git; None when DIR is in no work tree (then --repo-path says it)."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from mxjob_gitops.compiler.io.gitrun import git
from mxjob_gitops.compiler.io.inputs import InputError


def repo_path(directory: Path) -> str | None:
    """DIR's path from its work tree's root, "/"-separated ("." for the root); DIR need not exist yet (its
    nearest existing parent is asked). None outside a work tree, or without git."""
    absolute = Path(os.path.abspath(directory))
    existing, rest = absolute, PurePosixPath()
    while not existing.is_dir():
        if existing.parent == existing:
            return None
        rest = PurePosixPath(existing.name) / rest
        existing = existing.parent
    try:
        top = git(["rev-parse", "--show-toplevel"], existing).decode("utf-8").strip()
    except (InputError, UnicodeDecodeError):
        return None
    if not top:
        return None
    try:
        inside = Path(os.path.realpath(existing)).relative_to(os.path.realpath(top))
    except ValueError:  # DIR in the .git directory, or a work tree git reports elsewhere
        return None
    path = (PurePosixPath(inside.as_posix()) / rest).as_posix()
    return "." if path in ("", ".") else path.removeprefix("./")
