"""Read input files as they are in a Git revision, straight from the object store (no checkout, tree untouched).

Git runs in the repository that holds the given PATHs (not in the current directory), and every failure
names the revision and the repository.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from mxjob_gitops.compiler.base.limits import MAX_INPUT_BYTES, run_limits
from mxjob_gitops.compiler.base.run import current_run
from mxjob_gitops.compiler.io.gitrun import git
from mxjob_gitops.compiler.io.inputs import InputError, Inputs, Parser, charge, is_manifest_path, reading_ahead
from mxjob_gitops.compiler.io.shown import shown
from mxjob_gitops.compiler.io.utf8 import not_utf8
from mxjob_gitops.compiler.read.source import parse_text

# The one git runner (io.gitrun), by a name of this module: tests count the calls a revision costs through it.
_git = git
_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # SHA-1 or SHA-256


def repository_of(paths: Sequence[str]) -> Path:
    """The top of the work tree that holds PATHS (all of them), whatever the current directory is."""
    real = [Path(os.path.realpath(p)) for p in paths if p != "-"]
    if len(real) != len(paths):
        raise InputError("--base and --head read PATH... from Git; '-' (standard input) has no revision")
    start = real[0]
    while not start.is_dir():
        start = start.parent
    try:
        top = Path(_git(["rev-parse", "--show-toplevel"], start).decode().strip())
    except InputError:
        raise InputError(
            f"{paths[0]}: not inside a Git repository (--base and --head read PATH... from the "
            "repository that holds it)"
        ) from None
    for path, resolved in zip(paths, real, strict=True):
        if not resolved.is_relative_to(top):
            raise InputError(f"{path}: outside the repository {top} that holds {paths[0]}")
    return top


def resolve_revision(revision: str, top: Path) -> str:
    """The id of the commit REVISION names, resolved once; only this id is passed on to other Git commands, so a
    name that begins with `-` (`--output=…`, `-c`) is never read as an option and a ref moved meanwhile changes
    nothing. `--end-of-options` keeps `rev-parse` itself from reading the name as an option (git 2.30+)."""
    failure = InputError(
        f"git: no commit {revision!r} in the repository {top} (a branch, tag or commit there; "
        f"a shallow CI checkout may need `git fetch origin {revision}` or the full history)"
    )
    if not revision or "\0" in revision:
        raise failure
    try:
        found = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}"], top)
    except InputError:
        raise failure from None
    commit = found.decode("ascii", "replace").strip()
    if not _OBJECT_ID.fullmatch(commit):
        raise failure
    return commit


def read_revision(
    revision: str, paths: Sequence[str], parse: Parser = parse_text, texts: dict[str, str] | None = None
) -> Inputs:
    """Every manifest file under PATHS at REVISION, parsed; files are named `REVISION:path` (path as given).

    `texts` (object id -> text) holds blobs already read, by another revision for instance: a blob with the
    same id has the same bytes, so it is not asked from Git again; the ones read here are added to it."""
    top = repository_of(paths)
    commit = resolve_revision(revision, top)
    relative = [Path(os.path.realpath(p)).relative_to(top).as_posix() or "." for p in paths]
    listing = _blobs(commit, relative, top)
    _not_too_deep(
        revision, top, relative, [name for name, _oid, _mode in listing if is_manifest_path(PurePosixPath(name).parts)]
    )
    if _needs_checkout(paths, listing):
        from mxjob_gitops.compiler.io.revisiontree import read_checkout

        return read_checkout(revision, commit, top, paths, relative, parse)
    wanted = [(name, oid) for name, oid, _ in listing if is_manifest_path(PurePosixPath(name).parts)]
    known = {} if texts is None else texts
    inputs = Inputs()
    _read_blobs(revision, top, [(name, oid) for name, oid in wanted if oid not in known], known)
    labelled = [(f"{revision}:{shown(top / name)}", known[oid]) for name, oid in wanted]
    from mxjob_gitops.compiler.io.rendernames import INDEX

    indexed = {PurePosixPath(name).parent for name, _oid, _mode in listing if PurePosixPath(name).name == INDEX}
    inputs.renderings = {f"{revision}:{shown(top / directory)}" for directory in indexed}
    ahead = reading_ahead(parse)
    if ahead is not None:
        ahead.read_ahead(labelled)
    for label, text in labelled:
        parsed = parse(text, label)
        inputs.files.append(label)
        inputs.documents.extend(parsed.documents)
        inputs.diagnostics.extend(parsed.diagnostics)
    if ahead is not None:
        ahead.forget_ahead()
    return inputs


def _not_too_deep(revision: str, top: Path, relative: Sequence[str], names: Sequence[str]) -> None:
    """Refuse a file more directories below the PATH that lists it than the run's limit (run_limits), as io.walk
    refuses such a directory in the work tree."""
    roots = [len(PurePosixPath(r).parts) if r != "." else 0 for r in relative]
    for name in names:
        parts = PurePosixPath(name).parts
        below = min(
            (len(parts) - 1 - depth for r, depth in zip(relative, roots, strict=True) if _under(name, r)),
            default=0,
        )
        if below > (most := run_limits().directory_depth):
            raise InputError(
                f"{revision}:{shown(top / name)}: directories nest deeper than {most} levels below "
                "the path given; nothing was read (docs/limits.md)"
            )


def _under(name: str, root: str) -> bool:
    return root == "." or name == root or name.startswith(root.rstrip("/") + "/")


def _read_blobs(revision: str, top: Path, wanted: list[tuple[str, str]], texts: dict[str, str]) -> None:
    """Read the blobs of `wanted` (path, object id) into texts; a blob that is not UTF-8 is an input error."""
    if not wanted:
        return
    # Blobs are asked for by object id: `cat-file --batch` reads one request per line, and a path may hold a
    # newline (git allows any byte but NUL in a path), which would split `REVISION:path` into two requests.
    request = "".join(f"{oid}\n" for _, oid in wanted).encode("ascii")
    # Sizes first (`--batch-check`): a blob over the input limit is never read, and the run's budget is charged
    # before any byte is, exactly as for files (cli.inputs.charge).
    sizes = _split_check(_git(["cat-file", "--batch-check"], top, stdin=request))
    budget = current_run().budget
    for (name, _oid), size in zip(wanted, sizes, strict=True):
        label = f"{revision}:{shown(top / name)}"
        if size > MAX_INPUT_BYTES:
            raise InputError(f"{label}: larger than {MAX_INPUT_BYTES:,} bytes; split it into several files")
        charge(budget, label, size)
    blobs = _split_batch(_git(["cat-file", "--batch"], top, stdin=request))
    for (name, oid), blob in zip(wanted, blobs, strict=True):
        try:
            texts[oid] = blob.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            bad = not_utf8(blob, exc)
            raise InputError(f"{revision}:{shown(top / name)}:{bad.line}:{bad.column}: {bad.message()}") from None


def _blobs(commit: str, paths: Sequence[str], top: Path) -> list[tuple[str, str, str]]:
    """(path, object id, mode) of every blob and submodule under PATHS in COMMIT (an id), from a NUL-separated
    listing (any path)."""
    listing = _git(["ls-tree", "-r", "-z", "--full-tree", commit, "--", *paths], top)
    found: list[tuple[str, str, str]] = []
    for entry in listing.split(b"\0"):
        header, tab, name = entry.partition(b"\t")  # `<mode> <type> <oid>\t<path>`
        fields = header.split()
        if tab and len(fields) == 3 and fields[1] in (b"blob", b"commit"):
            found.append((name.decode("utf-8", "surrogateescape"), fields[2].decode("ascii"), fields[0].decode()))
    return found


# A symbolic link, a submodule (gitlink): what a checkout has there is not the blob's text.
_NOT_A_FILE = frozenset({"120000", "160000"})


def _needs_checkout(paths: Sequence[str], listing: list[tuple[str, str, str]]) -> bool:
    """Whether the revision is read through a checkout (cli.revisiontree) rather than blob by blob: a -k DIR to
    build, or a link, a submodule or a kustomization among the files, which the object store alone would read
    other than a checkout does. The blob path reads only regular files, exactly as the checkout path would."""
    from mxjob_gitops.compiler.io.inputs import KUSTOMIZE_FILES
    from mxjob_gitops.compiler.io.kustomize import Kustomization

    return any(isinstance(p, Kustomization) for p in paths) or any(
        mode in _NOT_A_FILE or PurePosixPath(name).name in KUSTOMIZE_FILES for name, _, mode in listing
    )


def _split_check(output: bytes) -> list[int]:
    """The sizes from `git cat-file --batch-check` output: `<sha> <type> <size>` per line."""
    sizes: list[int] = []
    for line in output.splitlines():
        fields = line.split()
        if len(fields) != 3 or not fields[2].isdigit():
            raise InputError(f"git cat-file: {line.decode(errors='replace')}")
        sizes.append(int(fields[2]))
    return sizes


def _split_batch(output: bytes) -> list[bytes]:
    """Split `git cat-file --batch` output: `<sha> <type> <size>\\n<content>\\n` per object."""
    blobs: list[bytes] = []
    position = 0
    while position < len(output):
        header_end = output.index(b"\n", position)
        header = output[position:header_end].split()
        if len(header) < 3:
            raise InputError(f"git cat-file: {output[position:header_end].decode(errors='replace')}")
        size = int(header[2])
        start = header_end + 1
        blobs.append(output[start : start + size])
        position = start + size + 1
    return blobs
