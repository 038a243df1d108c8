"""File-system access below an output directory through directory file descriptors (used by cli.output_dir).

Every name handed to these functions is one plain path component, or two (`shard-0001/pod-a.yaml`, a file of a
subdirectory: the subdirectory is opened on its own, without following a link), resolved relative to an open
directory (openat(2)-style `dir_fd`) with O_NOFOLLOW: a symbolic link committed into DIR, or swapped in while a render
runs, is never followed, so no read, write, rename or removal lands outside DIR. The same defense as git's
refusal to write through a symlinked path (git's `symlinks.c`, `has_symlink_leading_path`) and Argo CD's
repo-server checks that a path stays inside the repository (argo-cd `util/io/path`, `CheckOutOfBoundsSymlinks`).

State that steers a later render (the journal of an interrupted one, its staging directories) is
authenticated with a key that never leaves this machine's user cache (`local_key`): a journal committed to
the repository, or copied from elsewhere, does not verify and is never carried out.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class SymlinkRefused(OSError):
    """A path component is a symbolic link and following it was not asked for."""


def plain(name: str) -> bool:
    """One path component that stays in its directory (no separator, not . or .., no NUL)."""
    return bool(name) and not ("/" in name or "\\" in name or "\0" in name or name in (".", ".."))


def relative(name: str) -> bool:
    """One plain path component, or two joined by '/' (a file of a subdirectory)."""
    head, slash, tail = name.partition("/")
    return plain(head) and (not slash or plain(tail))


class Held:
    """A directory's descriptor and the subdirectories opened below it, kept open until close(): what a render
    passes for DIR and its staging directory, so that a shard's directory is opened once, not for every file."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._below: dict[str, int] = {}
        self._missing: set[str] = set()  # found absent (until this Held creates it): a new shard's 1,000 files ask

    def below(self, head: str, create: bool) -> int:
        fd = self._below.get(head)
        if fd is None:
            if head in self._missing and not create:
                raise FileNotFoundError(errno.ENOENT, "no such directory", head)
            try:
                fd = self._below[head] = _open_below(self.fd, head, create)
            except FileNotFoundError:
                self._missing.add(head)
                raise
            self._missing.discard(head)
        return fd

    def close(self) -> None:
        for fd in self._below.values():
            os.close(fd)
        self._below.clear()
        self._missing.clear()


Directory = int | Held  # a descriptor, or one whose subdirectories are held open


def _open_below(dir_fd: int, head: str, create: bool) -> int:
    try:
        return os.open(head, DIR_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        if not create:
            raise
        with contextlib.suppress(FileExistsError):
            os.mkdir(head, 0o777, dir_fd=dir_fd)
        return os.open(head, DIR_FLAGS, dir_fd=dir_fd)


@contextlib.contextmanager
def _parent(directory: Directory, name: str, create: bool = False) -> Iterator[tuple[int, str]]:
    """(the descriptor of the directory holding `name`, its last component): a subdirectory is opened without
    following a link (created when `create`), and closed afterwards unless `directory` holds it."""
    head, slash, tail = name.partition("/")
    fd = directory.fd if isinstance(directory, Held) else directory
    if not slash:
        yield fd, name
        return
    if isinstance(directory, Held):
        yield directory.below(head, create), tail
        return
    below = _open_below(fd, head, create)
    try:
        yield below, tail
    finally:
        os.close(below)


def lstat(dir_fd: Directory, name: str) -> os.stat_result:
    """The stat data of DIR/name, no link followed (OSError when it is not there, or its folder is a link)."""
    with _parent(dir_fd, name) as (fd, leaf):
        return os.stat(leaf, dir_fd=fd, follow_symlinks=False)


def replace(src_dir_fd: Directory, src_name: str, dst_dir_fd: Directory, name: str) -> None:
    """rename(2) SRC/src_name onto DST/name (DST's subdirectory created when missing; a link there is refused)."""
    with _parent(src_dir_fd, src_name) as (src, src_leaf), _parent(dst_dir_fd, name, create=True) as (dst, leaf):
        os.replace(src_leaf, leaf, src_dir_fd=src, dst_dir_fd=dst)


def unlink(dir_fd: Directory, name: str) -> None:
    with _parent(dir_fd, name) as (fd, leaf):
        os.unlink(leaf, dir_fd=fd)


def open_directory(path: Path, *, create: bool, follow: bool) -> int:
    """An O_DIRECTORY descriptor of `path`, walked one component at a time from / or the working directory.

    A component that is a symbolic link is refused (SymlinkRefused) unless `follow`; missing components are
    created when `create`. The caller closes the descriptor.
    """
    if follow:
        if create:
            path.mkdir(parents=True, exist_ok=True)
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    fd = os.open("/" if path.is_absolute() else ".", DIR_FLAGS)
    try:
        for part in path.parts[1:] if path.is_absolute() else path.parts:
            if part in ("", "."):
                continue
            try:
                child = os.open(part, DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                child = os.open(part, DIR_FLAGS, dir_fd=fd)
            except OSError:
                info = os.stat(part, dir_fd=fd, follow_symlinks=False)
                if stat.S_ISLNK(info.st_mode):
                    raise SymlinkRefused(0, "a symbolic link (not followed)", part) from None
                raise
            os.close(fd)
            fd = child
        return fd
    except BaseException:
        os.close(fd)
        raise


def kind_of(dir_fd: Directory, name: str) -> int | None:
    """The S_IFMT bits of DIR/name without following a link, or None when there is no such entry."""
    try:
        return stat.S_IFMT(lstat(dir_fd, name).st_mode)
    except FileNotFoundError:
        return None
    except OSError:
        if "/" in name:  # its folder is a link or not a directory: nothing of DIR's is there
            return None
        raise


def read_regular(dir_fd: Directory, name: str, limit: int) -> bytes | None:
    """The bytes of DIR/name if it is a regular file of at most `limit` bytes; None otherwise (a link, a FIFO,
    a device, a directory, missing or too large: never followed, never blocks)."""
    try:
        with _parent(dir_fd, name) as (folder, leaf):
            fd = os.open(leaf, _READ_FLAGS, dir_fd=folder)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def write_new(dir_fd: Directory, name: str, data: bytes, parents: bool = False) -> None:
    """Create DIR/name (it must not exist: O_EXCL, no link followed) holding `data`; `parents`: its subdirectory
    too, if missing."""
    with _parent(dir_fd, name, create=parents) as (folder, leaf):
        fd = os.open(leaf, _WRITE_FLAGS, 0o666, dir_fd=folder)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def remove_tree(dir_fd: int, name: str) -> None:
    """Remove the directory DIR/name and what it holds; links inside are removed, never followed."""
    if kind_of(dir_fd, name) == stat.S_IFDIR:
        # shutil.rmtree with dir_fd uses openat/unlinkat and the symlink-attack-resistant fd walk.
        import shutil

        shutil.rmtree(name, dir_fd=dir_fd)


def directory_identity(dir_fd: int) -> bytes:
    """What binds a journal to one directory: its device and inode."""
    info = os.fstat(dir_fd)
    return f"{info.st_dev}:{info.st_ino}".encode()


def local_key(cache_root: Path) -> bytes:
    """This user's secret for authenticating render state, created on first use (0600, outside any DIR).

    Where the cache cannot be written, a key for this process only: a render then still works, but the
    journal of one killed in that state cannot be verified by the next (it says so and asks to remove it).
    """
    path = cache_root / "state.key"
    with contextlib.suppress(OSError):
        fd = os.open(path, _READ_FLAGS)
        try:
            info = os.fstat(fd)
            key = os.read(fd, 64)
            if stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and len(key) == 32:
                return key
        finally:
            os.close(fd)
    key = secrets.token_bytes(32)
    with contextlib.suppress(OSError):
        cache_root.mkdir(parents=True, exist_ok=True)
        temporary = cache_root / f".state.key.{os.getpid()}"
        fd = os.open(temporary, _WRITE_FLAGS, 0o600)
        try:
            os.write(fd, key)
        finally:
            os.close(fd)
        os.replace(temporary, path)
        return local_key_file_or(path, key)
    return key


def local_key_file_or(path: Path, fallback: bytes) -> bytes:
    """The key a concurrent first render left at `path` (the last rename wins), else `fallback`."""
    with contextlib.suppress(OSError):
        data = path.read_bytes()
        if len(data) == 32:
            return data
    return fallback


def mac(key: bytes, *parts: bytes) -> str:
    """HMAC-SHA256 over the parts (length-prefixed, so no two part lists collide), in hex."""
    message = b"".join(len(p).to_bytes(8, "big") + p for p in parts)
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def same_mac(expected: str, given: str) -> bool:
    return hmac.compare_digest(expected.encode(), given.encode())
