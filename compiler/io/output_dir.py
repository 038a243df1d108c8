"""Write `render -o DIR`: one file per object plus kustomization.yaml, committed through a journal, stale files pruned.

DIR is untrusted: in CI it is part of a pull request's checkout, so everything in it may have been placed there
by the author (docs/security.md, "The output directory"). Hence, by construction:
- Every access goes through a descriptor of DIR (cli.dirfd): a name is one path component, opened with
  O_NOFOLLOW; DIR and its parents are walked without following a symbolic link (unless --follow-output-symlink).
- Ownership: DIR/.mxjob-render.index lists the files the last render wrote, each with the SHA-256 of its bytes.
  A listed name may be replaced by a new rendering of it (a link there is replaced, never followed); a stale
  file is removed only while it still holds exactly the recorded bytes (so an index written by someone else
  can only name files whose contents they already know, inside DIR). An unlisted file or a directory is
  never replaced, moved or removed: a new file that would take its name is an error.
- Crash safety: one render at a time holds an exclusive flock(2) on DIR. New files are written into a fresh
  staging directory `.mxjob-render.staging.<random>.<mac>`; the list of renames and removals goes to
  DIR/.mxjob-render.journal in one rename(2), the commit point. A run killed after it leaves a journal that the
  next run carries out first. Journal and staging names carry an HMAC with a key kept in this user's cache
  (never in DIR), bound to DIR's device and inode: a journal committed to the repository or copied from
  another directory does not verify and is never carried out (exit 2, asking to remove it).
A file this render owns that already holds the bytes it would write is neither staged nor touched, so an
unchanged re-render costs little more than printing the stream; whether it does is told by its stat data where
that can be trusted, else by reading it (cli.statcache).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import secrets
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mxjob_gitops.compiler.base.asciinum import decimal
from mxjob_gitops.compiler.base.escape import terminal
from mxjob_gitops.compiler.base.exact import exact
from mxjob_gitops.compiler.io import dirfd
from mxjob_gitops.compiler.io.errors import CommandError
from mxjob_gitops.compiler.io.rendernames import INDEX, JOURNAL, STAGING
from mxjob_gitops.compiler.io.statcache import StatCache, cache_file, cache_root, looked_at_meanwhile
from mxjob_gitops.compiler.rules.names import kind_problem, name_problem, namespace_problem

_JOURNAL_HEADER = "# mxjob render journal v2: carry out every line, then delete this file\n"
# How long a render waits for another one writing the same directory (MXJOB_LOCK_TIMEOUT overrides).
LOCK_TIMEOUT_SECONDS = 120.0
KUSTOMIZATION = "kustomization.yaml"
_INDEX_HEADER = (
    "# Files written by `mxjob render -o` (name, SHA-256); the next render replaces or removes only these.\n"
)
_STATE_LIMIT = 64 << 20  # bytes of an index or journal read at most (a larger one is not ours)
_FILE_LIMIT = 1 << 30  # bytes of a stale file read to compare it with its recorded digest


class OutputError(CommandError):
    """The directory cannot be written as asked (exit code 2); nothing in it was changed."""


# One file to write: (its name, its bytes, their hex SHA-256, ""); its bytes None when a Vouching found the
# file as recorded with that digest (nothing to send or write); or ("", None, "", why the object cannot be
# written), raised as an OutputError when the writer comes to it, as file_name would have. A plain tuple: a
# child sends thousands of them (compiler.stream.rendered), and pickle takes a NamedTuple five times slower.
Entry = tuple[str, bytes | None, str, str]


class Vouching:
    """Which files need not be sent or compared: set by write_output_dir, once DIR's index and stat record are
    read, before the first entry is made, when the entries are made in parts (in other processes, which then
    look at the stat data of their own files: StatCache.vouches); else it vouches for nothing."""

    def __init__(self) -> None:
        self.check: Callable[[str, str], bool] | None = None
        # Where the files now being made go in DIR (a layout's shard directory, "shard-0001/"), None when unknown.
        self.prefix: str | None = ""

    def __call__(self, name: str, digest: str) -> bool:
        return self.check is not None and self.prefix is not None and self.check(self.prefix + name, digest)


def file_entry(
    manifest: dict[str, Any], serialise: Callable[[dict[str, Any]], str], suffix: str, vouching: Vouching
) -> Entry:
    """The file of one manifest (work that may be done in another process: compiler.stream.rendered)."""
    try:
        name = file_name(manifest, suffix)
    except OutputError as exc:
        return ("", None, "", str(exc))
    data = serialise(manifest).encode("utf-8")
    digest = _digest(data)
    return (name, None, digest, "") if vouching(name, digest) else (name, data, digest, "")


@dataclass(frozen=True, slots=True)
class WriteSummary:
    written: int
    unchanged: int
    removed: int
    kept: tuple[str, ...] = ()  # stale files left in place: changed since a render wrote them


class Layout:
    """Where a render's entries go in DIR, and which files close the tree; this one, FLAT: every file in DIR, in the
    order given, and one kustomization.yaml listing them. io.shards.ShardLayout puts them into shard directories.
    The writer calls begin() once DIR is locked and its index read, then stages arrange(entries), then closing()."""

    reserved: frozenset[str] = frozenset()  # names of DIR the layout writes itself (an object's file may not)
    adopted: frozenset[str] = frozenset()  # files begin() read and took as its own: replaced though not indexed

    def begin(self, dir_fd: int, directory: Path) -> None:
        """Read what steers the layout from DIR (held locked), or refuse it (OutputError)."""
        from mxjob_gitops.compiler.compile.shards import RECORD

        if dirfd.kind_of(dir_fd, RECORD) is not None:
            raise OutputError(
                f"{directory / RECORD}: this directory holds stable shards; render it with --shard-size N "
                "(rendering it unsharded would move every job, which restarts them all: remove the record first "
                "if that is what you want)"
            )

    def arrange(self, entries: Iterable[Any]) -> Iterator[Entry]:
        return iter(entries)

    def closing(self, names: list[str]) -> list[tuple[str, bytes]]:
        """The files written after every entry, given the names of the entries' files in order."""
        return [(KUSTOMIZATION, kustomization(names).encode("utf-8"))]


FLAT = Layout()


def file_name(manifest: dict[str, Any], suffix: str) -> str:
    """`<kind>-<name>`, prefixed by `<namespace>.` for namespaced objects (a namespace has no '.').

    Every part was validated by the compiler (compiler.names); they are checked again here, because a file
    name is where an unchecked string would do harm: anything invalid is an error, never a rewritten name.
    """
    metadata = manifest.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    kind = manifest.get("kind")
    name = metadata.get("name") or metadata.get("generateName")
    namespace = metadata.get("namespace")
    if (
        not isinstance(kind, str)
        or not isinstance(name, str)
        or (namespace is not None and not isinstance(namespace, str))
        or kind_problem(kind)
        or (namespace is not None and namespace_problem(namespace))
        or name_problem(kind, name, prefix=not metadata.get("name"))
    ):
        raise OutputError(
            f"refusing to name a file after {kind!r} {namespace!r}/{name!r}: not a valid "
            "Kubernetes kind, namespace and name"
        )
    base = f"{kind.lower()}-{name}{suffix}"
    return f"{namespace}.{base}" if namespace else base


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_index(dir_fd: int) -> dict[str, str | None]:
    """The names the last render wrote with their digests (None: an index of an older version, without them).
    A name that is neither one plain path component nor two (a shard's file) is ignored (a hand-edited index)."""
    data = dirfd.read_regular(dir_fd, INDEX, _STATE_LIMIT)
    owned: dict[str, str | None] = {}
    for line in (data or b"").decode("utf-8", errors="replace").splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, digest = line.partition(" ")
        if dirfd.relative(name):
            owned[name] = digest if len(digest) == 64 else None
    return owned


def _index_text(digests: dict[str, str]) -> str:
    return _INDEX_HEADER + "".join(f"{n} {digests[n]}\n" for n in sorted(digests))


def kustomization(names: Iterable[str]) -> str:
    lines = [
        "# Generated by mxjob render; do not edit.",
        "apiVersion: kustomize.config.k8s.io/v1beta1",
        "kind: Kustomization",
        "resources:",
    ]
    lines.extend(f"- {name}" for name in names)
    return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class _Dir:
    """DIR as this render holds it: its descriptor, its path (for messages), the key, and its identity."""

    fd: int
    path: Path
    key: bytes
    tree: dirfd.Held  # fd, with the shard directories below it held open

    def mac(self, *parts: str) -> str:
        return dirfd.mac(self.key, dirfd.directory_identity(self.fd), *(p.encode() for p in parts))


def write_output_dir(
    directory: Path,
    entries: Iterable[Entry],
    *,
    follow_symlink: bool = False,
    in_parts: Vouching | None = None,
    layout: Layout | None = None,
) -> WriteSummary:
    """Stage every file, then commit through the journal; an OSError becomes an OutputError naming the path.
    `in_parts`: the entries are made in parts, by file_entry with this Vouching (else the recorded files' stat
    data is looked at in a process of its own while they are made: statcache.looked_at_meanwhile).
    `layout`: where the entries go and which files close the tree (default: FLAT, DIR's files and one
    kustomization.yaml; io.shards puts them into shard directories)."""
    layout = layout if layout is not None else FLAT
    _prepare(directory)
    try:
        fd = dirfd.open_directory(directory, create=True, follow=follow_symlink)
    except dirfd.SymlinkRefused as exc:
        raise OutputError(
            f"{directory}: {exc.filename!r} on its path is a symbolic link; render -o never writes through one "
            "(a checked-out repository can use one to send files elsewhere). Give the real path, or pass "
            "--follow-output-symlink if you trust it"
        ) from None
    except OSError as exc:
        raise OutputError(f"{directory}: cannot create the directory: {exc.strerror or exc}") from None
    try:
        with _locked(fd, directory):
            out = _Dir(fd, directory, dirfd.local_key(cache_root()), dirfd.Held(fd))
            recover(out)
            staging = _new_staging(out)
            staging_fd = os.open(staging, dirfd.DIR_FLAGS, dir_fd=fd)
            try:
                owned = _read_index(fd)
                layout.begin(fd, directory)
                since = os.fstat(staging_fd).st_mtime_ns
                cache = (
                    StatCache(cache_file(directory), since) if exact("statcache") else StatCache.load(directory, since)
                )
                if in_parts is not None:
                    in_parts.check = lambda name, digest: name in owned and cache.vouches(out.tree, name, digest)
                with contextlib.nullcontext() if in_parts is not None else looked_at_meanwhile(cache, fd):
                    names, staged, digests = _stage(out, staging_fd, owned, layout.arrange(entries), cache, layout)
                summary = _commit(out, staging, staging_fd, owned, names, staged, digests, layout.adopted)
            finally:
                out.tree.close()
                os.close(staging_fd)
                dirfd.remove_tree(fd, staging)
            cache.save(set(names))
            return summary
    except OSError as exc:
        raise OutputError(f"{directory / str(exc.filename or '')}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _prepare(directory: Path) -> None:
    """Refuse paths that cannot be DIR."""
    if directory.resolve() == Path(directory.anchor or "/").resolve():
        raise OutputError(f"{directory}: refusing to render into the root directory")
    if directory.is_symlink() and not directory.exists():
        raise OutputError(f"{directory}: a symbolic link to {os.readlink(directory)}, which does not exist")
    if directory.exists() and not directory.is_dir():
        raise OutputError(f"{directory}: exists and is not a directory")


MAX_LOCK_TIMEOUT_SECONDS = 86_400.0  # a day: past that, waiting is not what anyone meant


def lock_timeout(default: float) -> float:
    """MXJOB_LOCK_TIMEOUT: seconds from 0 to a day in ASCII digits, `2` or `0.5` (`nan`, `inf`, `-1`, `1e1`, `٣`,
    ` 3` or `soon` are usage errors, exit 2, that name the variable; `nan` would otherwise compare false and wait
    forever). Unset or blank: the default."""
    text = os.environ.get("MXJOB_LOCK_TIMEOUT")
    if text is None or not text.strip():
        return default
    seconds = decimal(text)
    if seconds is None or seconds > MAX_LOCK_TIMEOUT_SECONDS:
        raise CommandError(
            f"MXJOB_LOCK_TIMEOUT={terminal(text[:40])!r}: give the seconds render -o waits for another render of "
            f"the same directory, a number from 0 to {MAX_LOCK_TIMEOUT_SECONDS:g}"
        )
    return seconds


@contextlib.contextmanager
def _locked(dir_fd: int, directory: Path) -> Iterator[None]:
    """An exclusive flock on DIR (a second render waits); released when this process ends, however it ends."""
    timeout = lock_timeout(LOCK_TIMEOUT_SECONDS)
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(dir_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise OutputError(
                    f"{directory}: another mxjob render is writing this directory "
                    f"(waited {timeout:g} s); try again when it is done"
                ) from None
            time.sleep(0.02)
    try:
        yield
    finally:
        fcntl.flock(dir_fd, fcntl.LOCK_UN)


def _new_staging(out: _Dir) -> str:
    """A fresh staging directory in DIR whose name this user's key authenticates (mkdir never follows a link)."""
    token = secrets.token_hex(8)
    name = f"{STAGING}.{token}.{out.mac('staging', token)[:32]}"
    os.mkdir(name, 0o700, dir_fd=out.fd)
    return name


def _ours(out: _Dir, name: str) -> bool:
    """Whether `name` is a staging directory name a render of this user made in this DIR."""
    prefix, _, rest = name.partition(".mxjob-render.staging.")
    token, _, tag = rest.partition(".")
    return prefix == "" and bool(token) and dirfd.same_mac(out.mac("staging", token)[:32], tag)


def _stage(
    out: _Dir,
    staging_fd: int,
    owned: dict[str, str | None],
    entries: Iterable[Entry],
    cache: StatCache,
    layout: Layout,
) -> tuple[list[str], list[str], dict[str, str]]:
    """Every file name in order, the files staged, and each file's digest: a file this render owns that already
    holds the same bytes is left as it is (an unchanged re-render writes nothing but the index and the journal)."""
    names: list[str] = []
    staged: list[str] = []
    digests: dict[str, str] = {}

    def put(name: str, data: bytes | None, digest: str) -> None:
        if not dirfd.relative(name):
            raise OutputError(f"{out.path / name}: refusing to write outside {out.path}")
        if data is None:  # vouched for where it was made (Vouching): owned and as recorded
            if name not in owned:
                raise RuntimeError(f"{name}: vouched for but not owned")
            cache.vouched(name, digest)
        elif name not in owned or not cache.holds(out.tree, name, data, digest):
            dirfd.write_new(staging_fd, staged_name(name), data)
            staged.append(name)
        names.append(name)
        digests[name] = digest

    for name, data, digest, refused in entries:
        if refused:
            raise OutputError(refused)
        if name in digests or name.rpartition("/")[2] in (KUSTOMIZATION, INDEX) or name in layout.reserved:
            raise OutputError(f"two objects would both be written to {out.path / name}")
        put(name, data, digest)
    for name, data in layout.closing(names):
        put(name, data, _digest(data))
    return names, staged, digests


def _commit(
    out: _Dir,
    staging: str,
    staging_fd: int,
    owned: dict[str, str | None],
    names: list[str],
    staged: list[str],
    digests: dict[str, str],
    adopted: frozenset[str] = frozenset(),
) -> WriteSummary:
    for folder in sorted({name.partition("/")[0] for name in staged if "/" in name}):
        if dirfd.kind_of(out.fd, folder) not in (None, stat.S_IFDIR):
            raise OutputError(
                f"{out.path / folder} exists and is not a directory; move it away or render into another directory"
            )
    for name in staged:
        kind = dirfd.kind_of(out.tree, name)
        # An owned name may hold a link now: rename(2) replaces the link itself and never follows it.
        if kind is not None and (
            (name not in owned and name not in adopted) or kind not in (stat.S_IFREG, stat.S_IFLNK)
        ):
            raise OutputError(
                f"{out.path / name} exists and was not written by mxjob render; "
                "move it away or render into another directory"
            )
    stale, kept = [], []
    for name in sorted(set(owned) - set(names)):
        if dirfd.kind_of(out.tree, name) is None:
            continue
        data = dirfd.read_regular(out.tree, name, _FILE_LIMIT)
        recorded = owned[name]
        if data is not None and recorded is not None and _digest(data) == recorded:
            stale.append(name)
        else:
            kept.append(name)
    dirfd.write_new(staging_fd, INDEX, _index_text(digests).encode())
    lines = [
        f"staging {staging}",
        *(f"write {n}" for n in staged),
        f"write {INDEX}",
        *(f"remove {n} {owned[n]}" for n in stale),
        *(f"rmdir {d}" for d in _emptied(stale, names)),
    ]
    body = _JOURNAL_HEADER + "".join(f"{line}\n" for line in lines)
    dirfd.write_new(staging_fd, JOURNAL, (body + f"mac {out.mac('journal', body)}\n").encode())
    os.replace(JOURNAL, JOURNAL, src_dir_fd=staging_fd, dst_dir_fd=out.fd)  # the commit point
    recover(out, leftovers=False)  # this render's staging directory is removed by write_output_dir
    return WriteSummary(len(staged), len(names) - len(staged), len(stale), tuple(kept))


def recover(out: _Dir, leftovers: bool = True) -> None:
    """Finish a committed render (the journal's steps are idempotent), then drop this user's staging leftovers
    (`leftovers`: a listing of DIR, which holds a file per object).

    Called with the lock held, first thing in every render. A journal that does not verify is never carried out.
    """
    if dirfd.kind_of(out.fd, JOURNAL) is not None:
        lines = _verified_journal(out)
        staging = lines[0].removeprefix("staging ") if lines and lines[0].startswith("staging ") else ""
        if not _ours(out, staging):
            raise OutputError(f"{out.path / JOURNAL}: unreadable; remove the file and render again")
        try:  # absent: every write was done before the previous run stopped
            held: dirfd.Held | None = dirfd.Held(os.open(staging, dirfd.DIR_FLAGS, dir_fd=out.fd))
        except FileNotFoundError:
            held = None
        try:
            for line in lines[1:]:
                _replay(out, held, line)
        finally:
            if held is not None:
                held.close()
                os.close(held.fd)
        out.tree.close()  # a shard directory may have been removed: opened again when next needed
        os.unlink(JOURNAL, dir_fd=out.fd)
    # A directory's link count is 2 plus its subdirectories where the file system keeps it so (ext4, xfs, tmpfs;
    # btrfs says 1): at 2, no staging directory was left behind, and DIR's thousands of names need no listing.
    if leftovers and os.fstat(out.fd).st_nlink != 2:
        for name in os.listdir(out.fd):
            if name.startswith(STAGING + ".") and _ours(out, name):
                dirfd.remove_tree(out.fd, name)


def _verified_journal(out: _Dir) -> list[str]:
    data = dirfd.read_regular(out.fd, JOURNAL, _STATE_LIMIT)
    text = (data or b"").decode("utf-8", errors="replace")
    body, _, tag = text.rstrip("\n").rpartition("\n")
    body += "\n"
    if data is None or not tag.startswith("mac ") or not dirfd.same_mac(out.mac("journal", body), tag[4:]):
        raise OutputError(
            f"{out.path / JOURNAL} was not left by an interrupted mxjob render of this directory on this machine "
            "(a committed or copied journal is never carried out); remove it and render again"
        )
    return [line for line in body.splitlines() if line and not line.startswith("#")]


def _replay(out: _Dir, staging: dirfd.Held | None, line: str) -> None:
    action, _, rest = line.partition(" ")
    name, _, digest = rest.partition(" ")
    known = (action in ("write", "remove") and dirfd.relative(name)) or (action == "rmdir" and dirfd.plain(name))
    if not known:
        raise OutputError(f"{out.path / JOURNAL}: unreadable line {line[:80]!r}; remove the file and render again")
    if action == "rmdir":
        with contextlib.suppress(OSError):  # not empty (or not a directory): left as it is
            os.rmdir(name, dir_fd=out.fd)
    elif action == "write":
        source = staged_name(name)
        if (
            staging is not None
            and dirfd.kind_of(staging, source) == stat.S_IFREG
            and dirfd.kind_of(out.tree, name) != stat.S_IFDIR
        ):
            dirfd.replace(staging, source, out.tree, name)
    else:
        data = dirfd.read_regular(out.tree, name, _FILE_LIMIT)
        if data is not None and _digest(data) == digest:
            dirfd.unlink(out.tree, name)


def staged_name(name: str) -> str:
    """Where a file of DIR is staged: every file in the staging directory itself, a shard's `shard-0001/f.yaml` as
    `shard-0001+f.yaml` ('+' is in no file name render writes). Files made in many new directories cost ext4
    about three times the system time of as many in one (each new directory's inodes go to another block group);
    renamed into their shard directories, they cost what the flat render's cost."""
    return name.replace("/", "+")


def _emptied(stale: list[str], names: list[str]) -> list[str]:
    """The subdirectories whose last file this render removes (a shard no longer in the layout)."""
    kept = {name.partition("/")[0] for name in names if "/" in name}
    return sorted({name.partition("/")[0] for name in stale if "/" in name} - kept)


def missing_directories(directory: Path) -> list[Path]:
    """`directory` and those of its parents that do not exist yet, deepest first."""
    missing: list[Path] = []
    for path in (directory, *directory.parents):
        if os.path.lexists(path):
            break
        missing.append(path)
    return missing


def remove_empty(directories: list[Path]) -> None:
    """Remove the directories missing_directories found, where still empty (a failed render leaves none behind)."""
    for path in directories:
        with contextlib.suppress(OSError):
            path.rmdir()
