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
The stat data may be looked at before the render needs it (unchanged_files, in another process while the jobs
are rendered: cli.output_dir), or by the processes that render the files (vouches); that is still after the
time stamp, so the same holds. Every other file is read
and compared, as before. The record is a cache and nothing more: it lives outside DIR
(so DIR's Git history never sees it), is keyed by DIR's real path, and a missing, stale or unreadable record
only costs the reads. A system clock stepped backwards could make a change look old; so it could for Git.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from mxjob_gitops.compiler.io.dirfd import Directory, lstat
from mxjob_gitops.compiler.io.dirfd import read_regular as read_regular

STALE_DAYS = 30
_HEADER = "# mxjob render -o stat cache v3: name, SHA-256 of its bytes, size mtime_ns ctime_ns inode device\n"
# Below this many recorded files, looking at them while the render runs (unchanged_files) costs more than it saves.
PREFETCH_MIN_FILES = 1_000


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


def stat_fields(info: os.stat_result) -> str:
    """What of a file's stat data is recorded (and must be found again for the file to be trusted unread)."""
    return f"{info.st_size} {info.st_mtime_ns} {info.st_ctime_ns} {info.st_ino} {info.st_dev}"


Entry = tuple[str, str]  # the hex SHA-256 of the bytes a file held, and its stat_fields then


@dataclass(slots=True)
class StatCache:
    """The record read at the start of a render, and the one it leaves for the next."""

    path: Path
    since: int  # a time stamp of DIR's file system taken before any file was read (ns)
    known: dict[str, Entry] = field(default_factory=dict)  # what the last render trusted
    seen: dict[str, Entry] = field(default_factory=dict)
    # Names whose stat data was found as recorded after `since` (unchanged_files), once known; until then `poll`
    # is asked, before each file, whether they are (it sets `unchanged` when they are).
    unchanged: set[str] | None = None
    poll: Callable[[], None] | None = None

    @classmethod
    def load(cls, directory: Path, since: int) -> StatCache:
        cache = cls(cache_file(directory), since)
        try:
            text = cache.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return cache
        if not text.startswith(_HEADER):
            return cache
        for line in text[len(_HEADER) :].split("\n"):
            name, _, rest = line.partition(" ")
            digest, _, fields = rest.partition(" ")
            if len(digest) == 64 and fields:  # else a damaged line: that file is read
                cache.known[name] = (digest, fields)
        return cache

    def unchanged_files(self, dir_fd: Directory) -> set[str]:
        """The recorded names that are regular files with their recorded stat data now (through DIR's descriptor,
        never following a link): what holds() would find, to be looked at before the render needs it."""
        return {name for name, (digest, _fields) in self.known.items() if self.vouches(dir_fd, name, digest)}

    def vouches(self, dir_fd: Directory, name: str, digest: str) -> bool:
        """Whether DIR/name is a regular file with its recorded stat data now, recorded for bytes whose hex SHA-256
        is `digest`: holds()'s test that reads nothing, made where the file's bytes are (a render's part in another
        process, compiler.stream.rendered). The process that records then takes it with vouched()."""
        recorded = self.known.get(name)
        if recorded is None or recorded[0] != digest:
            return False
        try:
            info = lstat(dir_fd, name)
        except OSError:
            return False
        return stat.S_ISREG(info.st_mode) and stat_fields(info) == recorded[1]

    def vouched(self, name: str, digest: str) -> None:
        """Take in that vouches(name, digest) held (elsewhere): the file stays recorded as it was."""
        recorded = self.known.get(name)
        if recorded is None or recorded[0] != digest:
            raise RuntimeError(f"{name}: vouched for without a record of these bytes")
        self.seen[name] = recorded

    def holds(self, dir_fd: Directory, name: str, data: bytes, digest: str) -> bool:
        """Whether DIR/name is a regular file holding exactly `data`, whose hex SHA-256 is `digest`: by its recorded
        stat data, else by reading it (through DIR's descriptor, never following a link: cli.dirfd)."""
        recorded = self.known.get(name)
        if self.unchanged is None and self.poll is not None:
            self.poll()
        if recorded is not None and recorded[0] == digest and self.unchanged is not None and name in self.unchanged:
            self.seen[name] = recorded
            return True
        try:
            info = lstat(dir_fd, name)
        except OSError:
            return False
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(data):
            return False
        entry = (digest, stat_fields(info))
        if recorded == entry:
            self.seen[name] = entry
            return True
        if read_regular(dir_fd, name, len(data)) != data:
            return False
        if info.st_ctime_ns < self.since and info.st_mtime_ns < self.since:
            self.seen[name] = entry  # the bytes read are those of this stat data (see the module docstring)
        return True

    def save(self, names: set[str]) -> None:
        """Record the files of `names` that were found unchanged and may be trusted (unless that is the record as
        it was read); best effort."""
        entries = {name: entry for name, entry in self.seen.items() if name in names}
        if entries == self.known:
            with contextlib.suppress(OSError):
                os.utime(self.path)  # in use: _prune keeps it
            _prune(self.path.parent)
            return
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with temporary.open("w", encoding="utf-8") as handle:
                handle.write(_HEADER)
                handle.writelines(f"{n} {d} {f}\n" for n, (d, f) in sorted(entries.items()))
            os.replace(temporary, self.path)
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
            return
        _prune(self.path.parent)


@contextlib.contextmanager
def looked_at_meanwhile(cache: StatCache, dir_fd: int) -> Iterator[None]:
    """The recorded files' stat data looked at in another process while this one renders (cli.forked), for
    holds() to ask: an unchanged re-render of 22,000 files spent a fifth of its time over what rendering to stdout
    costs on that."""
    if len(cache.known) < PREFETCH_MIN_FILES:
        yield
        return
    from mxjob_gitops.compiler.io.forked import in_background

    with in_background(functools.partial(cache.unchanged_files, dir_fd)) as looking:

        def poll() -> None:
            if looking.ready():  # else holds() looks at the file itself meanwhile
                result = looking.result()
                cache.unchanged = result if isinstance(result, set) else set()

        cache.poll = poll
        try:
            yield
        finally:
            cache.poll, cache.unchanged = None, None


def _prune(folder: Path) -> None:
    """Drop the records of directories no render has written for STALE_DAYS (temporary ones, mostly)."""
    cutoff = time.time() - STALE_DAYS * 86_400
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if entry.name.endswith(".stat") and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                        os.unlink(entry.path)
