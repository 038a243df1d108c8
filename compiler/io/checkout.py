"""A Git revision written out as a checkout has it, in a temporary directory: symbolic links as links, submodules
at their recorded commit when their repository is here. cli.gitsource reads a revision through it whenever the
object store alone would read something other than a checkout (links, submodules, kustomizations to build).

Nothing in the repository changes: the revision is read into a temporary index (GIT_INDEX_FILE) and written with
`git checkout-index --prefix`, which applies the checkout's own filters and writes links as links.
"""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath

import click

from mxjob_gitops.compiler.io.gitrun import git

_GITLINK = "160000"


@contextlib.contextmanager
def checked_out(top: Path, commit: str, shown: str, wanted: Sequence[str] | None) -> Iterator[Path]:
    """The tree of COMMIT (an id in the repository TOP) as a checkout has it, removed afterwards. `shown` names
    the revision in notes; `wanted` (paths relative to TOP, None for all) are those whose missing submodules are
    named in a note."""
    with tempfile.TemporaryDirectory(prefix="mxjob-revision-") as scratch:
        tree = Path(scratch) / "tree"
        tree.mkdir()
        _write(top, commit, tree, Path(scratch), shown, wanted, "")
        yield tree


def _write(
    repository: Path, commit: str, tree: Path, scratch: Path, shown: str, wanted: Sequence[str] | None, prefix: str
) -> None:
    """Write COMMIT of REPOSITORY into TREE, then each submodule it records (PREFIX: where REPOSITORY's tree sits
    in the outermost one, for the notes)."""
    index = scratch / f"index-{len(list(scratch.glob('index-*')))}"
    git(["read-tree", commit], repository, index=index)
    git(["checkout-index", "--all", "--force", f"--prefix={tree}/"], repository, index=index)
    for mode, oid, name in _staged(repository, index):
        if mode != _GITLINK:
            continue
        where = f"{prefix}{name}"
        module = repository / name
        if _has_commit(module, oid):
            (tree / name).mkdir(parents=True, exist_ok=True)
            _write(module, oid, tree / name, scratch, shown, wanted, f"{where}/")
        elif wanted is None or any(_below(where, path) for path in wanted):
            click.echo(
                f"mxjob: note: {shown}:{where} is a submodule (commit {oid[:12]}) whose repository is not here; "
                "its files are not read (`git submodule update --init` fetches it)",
                err=True,
            )


def _staged(repository: Path, index: Path) -> list[tuple[str, str, str]]:
    """(mode, object id, path) of every entry of the temporary index."""
    listing = git(["ls-files", "--stage", "-z"], repository, index=index)
    found: list[tuple[str, str, str]] = []
    for entry in listing.split(b"\0"):
        header, tab, name = entry.partition(b"\t")  # `<mode> <oid> <stage>\t<path>`
        fields = header.split()
        if tab and len(fields) == 3:
            found.append((fields[0].decode(), fields[1].decode(), name.decode("utf-8", "surrogateescape")))
    return found


def _has_commit(module: Path, oid: str) -> bool:
    """Whether the submodule checked out at MODULE (its own repository) holds the recorded commit."""
    if not (module / ".git").exists():
        return False
    done = subprocess.run(
        ["git", "-C", str(module), "cat-file", "-e", f"{oid}^{{commit}}"], capture_output=True, check=False
    )
    return done.returncode == 0


def _below(path: str, top: str) -> bool:
    """Whether PATH is TOP or lies below it (TOP `.` is everything), or holds TOP (a submodule above a path)."""
    if top in ("", "."):
        return True
    inner, outer = PurePosixPath(path), PurePosixPath(top)
    return inner == outer or inner.is_relative_to(outer) or outer.is_relative_to(inner)
