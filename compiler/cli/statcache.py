"""What `render -o` saw of each file it owns (stat data and a content hash), so an unchanged file is not read.

The idea is Git's index (git's read-cache.c): ie_match_stat / ce_match_stat_basic take a file to be as
recorded when lstat(2) returns the recorded size, times, inode and device; is_racy_timestamp distrusts an
entry that is not older than the index file itself, and ce_modified_check_fs / ce_compare_data then compare
the contents. Here, a file this render owns is taken to hold the bytes about to be written, without reading
it, only when all of these hold:
- lstat gives a regular file whose size, mtime, ctime, inode and device are those recorded;
- the recorded SHA-256 of its bytes is that of the bytes about to be written;
- the entry was recorded only because its ctime was older than a time stamp of DIR's own file system taken
  before its bytes were read (the staging directory's mtime). Any later change to the file, through write(2),
  truncate, utimes or a rename onto it, sets its ctime to at least that time stamp: later than recorded.
  This is stricter than Git's rule, which also trusts a change made within the clock tick in which the file
  was looked at, if the index was written in a later tick. The price: a file written by a render is recorded
  only once the next render has read it.
Every other file is read and compared, as before. The record is a cache and nothing more: it lives outside DIR
(so DIR's Git history never sees it), is keyed by DIR's real path, and a missing, stale or unreadable record
only costs the reads. A system clock stepped backwards could make a change look old; so it could for Git.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from mxjob_gitops.compiler.cli.dirfd import read_regular as read_regular

STALE_DAYS = 30
_HEADER = "# mxjob render -o stat cache v2: name, SHA-256 of (size mtime_ns ctime_ns inode device NUL SHA-256)\n"


def cache_root() -> Path:
    """$MXJOB_RENDER_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/mxjob-gitops/render-o: this user's render -o state."""
    root = os.environ.get("MXJOB_RENDER_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mxjob-gitops", "render-o"
    )
    return Path(root)


def cache_file(directory: Path) -> Path:
    """Where the record of DIR lives, in cache_root()."""
    key = hashlib.sha256(os.fsencode(directory.resolve())).hexdigest()[:32]
    return cache_root() / f"{key}.stat"


def _entry(info: os.stat_result, digest: bytes) -> bytes:
    """One file's record: the SHA-256 of its stat data and of the SHA-256 `digest` of the bytes it holds (32 bytes
    in memory; render -o has that digest for its index already, so the bytes are hashed once)."""
    stat_data = f"{info.st_size} {info.st_mtime_ns} {info.st_ctime_ns} {info.st_ino} {info.st_dev}\0"
    return hashlib.sha256(stat_data.encode() + digest).digest()


@dataclass(slots=True)
class StatCache:
    """The record read at the start of a render, and the one it leaves for the next."""

    path: Path
    since: int  # a time stamp of DIR's file system taken before any file was read (ns)
    known: dict[str, bytes] = field(default_factory=dict)  # name -> _entry(): what the last render trusted
    seen: dict[str, bytes] = field(default_factory=dict)

    @classmethod
    def load(cls, directory: Path, since: int) -> StatCache:
        cache = cls(cache_file(directory), since)
        try:
            with cache.path.open(encoding="utf-8") as handle:
                if handle.readline() != _HEADER:
                    return cache
                for line in handle:
                    name, _, digest = line.rstrip("\n").partition(" ")
                    with contextlib.suppress(ValueError):  # a damaged line: that file is read
                        cache.known[name] = bytes.fromhex(digest)
        except (OSError, UnicodeDecodeError):
            cache.known.clear()
        return cache

    def holds(self, dir_fd: int, name: str, data: bytes, digest: bytes) -> bool:
        """Whether DIR/name is a regular file holding exactly `data`, whose SHA-256 is `digest`: by its recorded
        stat data, else by reading it (through DIR's descriptor, never following a link: cli.dirfd)."""
        try:
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except OSError:
            return False
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(data):
            return False
        entry = _entry(info, digest)
        if self.known.pop(name, None) == entry:  # popped: the record is held once, in `seen` or `known`
            self.seen[name] = entry
            return True
        if read_regular(dir_fd, name, len(data)) != data:
            return False
        if info.st_ctime_ns < self.since and info.st_mtime_ns < self.since:
            self.seen[name] = entry  # the bytes read are those of this stat data (see the module docstring)
        return True

    def save(self, names: set[str]) -> None:
        """Record the files of `names` that were found unchanged and may be trusted; best effort."""
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with temporary.open("w", encoding="utf-8") as handle:
                handle.write(_HEADER)
                handle.writelines(f"{n} {e.hex()}\n" for n, e in sorted(self.seen.items()) if n in names)
            os.replace(temporary, self.path)
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
            return
        _prune(self.path.parent)


def _prune(folder: Path) -> None:
    """Drop the records of directories no render has written for STALE_DAYS (temporary ones, mostly)."""
    cutoff = time.time() - STALE_DAYS * 86_400
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if entry.name.endswith(".stat") and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                        os.unlink(entry.path)
