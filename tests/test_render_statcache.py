"""`render -o`'s stat cache: an unchanged file is not read once its stat data is trusted, and never wrongly."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from mxjob_gitops.compiler.compile import stream
from mxjob_gitops.compiler.io import dirfd, forked, statcache
from mxjob_gitops.compiler.io.statcache import StatCache, cache_file
from tests.conftest import run_cli
from tests.helpers import job, replica

POD = "pod-j-worker-0.yaml"
DATA_DIGEST = hashlib.sha256(b"data").hexdigest()


@pytest.fixture(params=["here", "meanwhile", "in parts"], autouse=True)
def looked_at(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test three times: stat data looked at by holds() itself; by unchanged_files in a child process while
    the render runs (every file, its answer awaited: statcache.looked_at_meanwhile); and by the render's parts,
    each for the files it makes (StatCache.vouches; compiler.stream.rendered, a part per object here)."""
    if request.param == "meanwhile":
        monkeypatch.setattr(statcache, "PREFETCH_MIN_FILES", 1)
        monkeypatch.setattr(forked.Background, "ready", lambda self: True)
    elif request.param == "in parts":
        monkeypatch.setenv("MXJOB_JOBS", "8")
        monkeypatch.setattr(stream, "FANOUT_MIN_BYTES", 0)
    return str(request.param)


def _render(out: Path, spec: Path) -> str:
    result = run_cli(["render", "-o", str(out), str(spec)])
    assert result.exit_code == 0, result.stderr
    return result.stderr


def _spec(tmp_path: Path, image: str = "mxjob/mxnet:1") -> Path:
    spec = tmp_path / "job.json"
    data = job(name="j", Scheduler=replica(1), Server=replica(1), Worker=replica(2))
    data["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["image"] = image
    spec.write_text(json.dumps(data), encoding="utf-8")
    return spec


def _after_a_tick(directory: Path, timeout: float = 5.0) -> None:
    """Wait until the file system's clock has passed every file's ctime in `directory` (bounded)."""
    newest = max(p.lstat().st_ctime_ns for p in directory.iterdir())
    probe = directory.parent / "probe"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        probe.write_bytes(b"")
        if probe.stat().st_mtime_ns > newest:
            return
    pytest.fail("the file system clock did not move")


def _recorded(tmp_path: Path) -> tuple[Path, Path]:
    """A rendered directory whose every file a second render read and recorded."""
    spec, out = _spec(tmp_path), tmp_path / "out"
    _render(out, spec)
    _after_a_tick(out)
    assert "0 written" in _render(out, spec)
    return spec, out


def _reads(monkeypatch: pytest.MonkeyPatch, directory: Path) -> list[str]:
    """The names of files the render reads to compare them (all reads of DIR's files go through read_regular)."""
    opened: list[str] = []
    real = statcache.read_regular

    def watched(dir_fd: dirfd.Directory, name: str, limit: int) -> bytes | None:
        fd = dir_fd.fd if isinstance(dir_fd, dirfd.Held) else dir_fd
        if os.path.samefile(f"/proc/self/fd/{fd}", directory):
            opened.append(name)
        return real(dir_fd, name, limit)

    monkeypatch.setattr(statcache, "read_regular", watched)
    return opened


def test_an_unchanged_rerender_reads_no_file_once_their_stat_data_is_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, out = _recorded(tmp_path)
    assert len(StatCache.load(out, 0).known) == len(list(out.glob("*.yaml")))
    opened = _reads(monkeypatch, out)
    assert "0 written" in _render(out, spec)
    assert opened == []


def test_a_file_written_by_a_render_is_read_by_the_next(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec, out = _spec(tmp_path), tmp_path / "out"
    _render(out, spec)
    assert StatCache.load(out, 0).known == {}  # its ctime is that of this render: not trusted
    opened = _reads(monkeypatch, out)
    assert "0 written" in _render(out, spec)
    assert POD in opened


def test_a_hand_edit_that_keeps_size_and_mtime_is_still_restored(tmp_path: Path) -> None:
    spec, out = _recorded(tmp_path)
    pod = out / POD
    before, info = pod.read_bytes(), pod.stat()
    pod.write_bytes(before.replace(b"image: ", b"image:_", 1))  # the same size, other bytes
    os.utime(pod, ns=(info.st_atime_ns, info.st_mtime_ns))  # and the mtime put back
    assert (pod.stat().st_size, pod.stat().st_mtime_ns) == (info.st_size, info.st_mtime_ns)
    assert "1 written" in _render(out, spec)
    assert pod.read_bytes() == before


def test_a_file_replaced_by_one_of_the_same_size_and_mtime_is_restored(tmp_path: Path) -> None:
    spec, out = _recorded(tmp_path)
    pod = out / POD
    before, info = pod.read_bytes(), pod.stat()
    other = tmp_path / "other.yaml"
    other.write_bytes(before.replace(b"image: ", b"image:_", 1))
    os.utime(other, ns=(info.st_atime_ns, info.st_mtime_ns))
    os.replace(other, pod)
    assert "1 written" in _render(out, spec)
    assert pod.read_bytes() == before


def test_new_bytes_for_a_recorded_file_are_written(tmp_path: Path) -> None:
    _, out = _recorded(tmp_path)
    changed = _spec(tmp_path, image="mxjob/mxnet:2")  # same length: the same size on disk
    assert "written" in _render(out, changed) and b"mxjob/mxnet:2" in (out / POD).read_bytes()


def test_a_file_changed_in_the_tick_it_was_read_in_is_not_recorded(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"data")
    ctime = path.stat().st_ctime_ns
    directory = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        racy = StatCache(tmp_path / "cache", since=ctime)
        assert racy.holds(directory, "f", b"data", DATA_DIGEST) and racy.seen == {}
        settled = StatCache(tmp_path / "cache", since=ctime + 1)
        assert settled.holds(directory, "f", b"data", DATA_DIGEST) and list(settled.seen) == ["f"]
    finally:
        os.close(directory)


@pytest.mark.parametrize("damage", ["not a cache\n", "", "\0\xff garbage", None])
def test_a_damaged_or_missing_cache_only_costs_the_reads(tmp_path: Path, damage: str | None) -> None:
    spec, out = _recorded(tmp_path)
    pod = out / POD
    before = pod.read_bytes()
    record = cache_file(out)
    header = record.read_text(encoding="utf-8").splitlines()[0]
    if damage is None:
        record.unlink()
    else:
        record.write_text(header + "\n" + damage + f"{POD} 1 2 3 4 5 zz\n", encoding="utf-8")
    pod.write_bytes(before.replace(b"image: ", b"image:_", 1))
    assert "1 written" in _render(out, spec) and pod.read_bytes() == before


def test_an_unwritable_cache_location_does_not_fail_the_render(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a directory", encoding="utf-8")
    monkeypatch.setenv("MXJOB_RENDER_CACHE", str(blocker / "cache"))
    spec, out = _spec(tmp_path), tmp_path / "out"
    _render(out, spec)
    _after_a_tick(out)
    assert "0 written" in _render(out, spec)
    assert not (blocker / "cache").exists() and statcache.cache_file(out).parent == blocker / "cache"


def test_records_of_directories_not_rendered_for_a_month_are_dropped(tmp_path: Path) -> None:
    spec, out = _spec(tmp_path), tmp_path / "out"
    folder = cache_file(out).parent
    folder.mkdir(parents=True, exist_ok=True)
    old, recent = folder / ("0" * 32 + ".stat"), folder / ("1" * 32 + ".stat")
    for record in (old, recent):
        record.write_text("", encoding="utf-8")
    month = time.time() - (statcache.STALE_DAYS + 1) * 86_400
    os.utime(old, (month, month))
    _render(out, spec)
    _after_a_tick(out)
    _render(out, spec)
    assert not old.exists() and recent.exists() and cache_file(out).exists()


def test_an_unchanged_record_is_not_written_again_but_kept(tmp_path: Path) -> None:
    spec, out = _recorded(tmp_path)
    record = cache_file(out)
    text = record.read_text(encoding="utf-8")
    month = time.time() - (statcache.STALE_DAYS + 1) * 86_400
    os.utime(record, (month, month))
    assert "0 written" in _render(out, spec)
    assert record.read_text(encoding="utf-8") == text and record.stat().st_mtime > month + 86_400


def test_the_files_looked_at_meanwhile_are_those_holds_trusts(tmp_path: Path) -> None:
    _, out = _recorded(tmp_path)
    pod = out / POD
    pod.write_bytes(pod.read_bytes())  # the same bytes, a new ctime: no longer as recorded
    directory = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        cache = StatCache.load(out, time.time_ns())
        found = cache.unchanged_files(directory)
    finally:
        os.close(directory)
    assert found == set(cache.known) - {POD} and len(found) >= 5


def test_files_found_as_recorded_by_the_parts_are_not_sent_or_compared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, looked_at: str
) -> None:
    """In parts, each part vouches for its own unchanged files: here only kustomization.yaml is compared."""
    spec, out = _recorded(tmp_path)
    compared: list[str] = []
    holds = StatCache.holds

    def counted(self: StatCache, dir_fd: int, name: str, data: bytes, digest: str) -> bool:
        compared.append(name)
        return holds(self, dir_fd, name, data, digest)

    monkeypatch.setattr(StatCache, "holds", counted)
    assert "0 written" in _render(out, spec)
    if looked_at == "in parts":
        assert compared == ["kustomization.yaml"]
    else:
        assert len(compared) == len(list(out.glob("*.yaml")))
