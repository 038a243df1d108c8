"""Environment errors (full disk, permissions, paths that cannot be DIR) are exit 2 with one line naming the path.

They are produced for real, not mocked: /dev/full for a full standard output, a directory without write
permission (as root, with CAP_DAC_OVERRIDE dropped through setpriv), RLIMIT_FSIZE for a write that fails
half-way through a render into DIR.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli
from tests.helpers import job, replica

_SETPRIV = shutil.which("setpriv")


def _job(tmp_path: Path, name: str = "j", workers: int = 2, note: str = "") -> Path:
    path = tmp_path / f"{name}.json"
    documents = [
        job(name=name, Scheduler=replica(1), Server=replica(1), Worker=replica(workers)),
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{name}-note"}, "data": {"n": note}},
    ]
    path.write_text("\n---\n".join(json.dumps(d) for d in documents), encoding="utf-8")
    return path


def _mxjob(
    args: Sequence[str],
    *,
    stdout: int | None = subprocess.PIPE,
    prefix: Sequence[str] = (),
    preexec: Callable[[], None] | None = None,
    stdin: bytes = b"",
) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [*prefix, sys.executable, "-m", "mxjob_gitops", *args],
        stdout=stdout,
        input=stdin,
        stderr=subprocess.PIPE,
        env=env,
        preexec_fn=preexec,
        timeout=120,
        check=False,
    )


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() if p.is_file() else b"<dir>" for p in sorted(directory.rglob("*"))
    }


def _one_line_naming(stderr: bytes, where: str) -> None:
    lines = stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"mxjob: {where}") and "internal error" not in lines[0], lines


@pytest.mark.parametrize(
    "args",
    [["render"], ["render", "--format", "json"], ["validate"], ["validate", "--format", "json"], ["convert"], ["krm"]],
)
def test_a_full_standard_output_is_exit_2(tmp_path: Path, args: list[str]) -> None:
    source = _job(tmp_path)
    stdin = b""
    if args == ["krm"]:
        stdin = json.dumps(
            {
                "apiVersion": "config.kubernetes.io/v1",
                "kind": "ResourceList",
                "items": [job(name="j", Worker=replica(1))],
            }
        ).encode()
    with open("/dev/full", "wb") as full:
        done = _mxjob([*args, *([] if stdin else [str(source)])], stdout=full.fileno(), stdin=stdin)
    assert done.returncode == 2
    _one_line_naming(done.stderr, "standard output: No space left on device")


def test_paths_that_cannot_be_the_output_directory(tmp_path: Path) -> None:
    source = str(_job(tmp_path))
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    (tmp_path / "dangling").symlink_to(tmp_path / "missing")
    for where, words in [
        ("afile/sub", "afile/sub: cannot create the directory: Not a directory"),
        ("dangling", "which does not exist"),
        ("/", "refusing to render into the root directory"),
    ]:
        result = run_cli(["render", "-o", where, source], cwd=tmp_path)
        assert result.exit_code == 2 and words in result.stderr and result.stdout == "", (where, result.stderr)
    result = run_cli(["render", "-o", "afile", source], cwd=tmp_path)
    assert result.exit_code == 2 and "is a file" in result.stderr
    assert (tmp_path / "afile").read_text(encoding="utf-8") == "x" and not (tmp_path / "missing").exists()


def test_a_directory_symlink_to_another_file_system_is_followed_when_asked(tmp_path: Path) -> None:
    """Files are staged inside DIR itself, so every rename stays on DIR's file system (tmpfs here)."""
    real = Path(tempfile.mkdtemp(dir="/dev/shm"))
    try:
        assert os.stat(real).st_dev != os.stat(tmp_path).st_dev
        (tmp_path / "link").symlink_to(real)
        for workers in (2, 3):
            args = ["render", "-o", str(tmp_path / "link"), str(_job(tmp_path, workers=workers))]
            refused = run_cli(args)
            assert refused.exit_code == 2 and "symbolic link" in refused.stderr, refused.stderr
            result = run_cli([*args, "--follow-output-symlink"])
            assert result.exit_code == 0, result.stderr
        assert (real / "pod-j-worker-2.yaml").is_file() and (tmp_path / "link").is_symlink()
        assert sorted(p.name for p in real.iterdir() if p.name.startswith(".")) == [".mxjob-render.index"]
    finally:
        shutil.rmtree(real)


def _unprivileged() -> list[str]:
    """A command prefix under which directory permissions apply (root bypasses them with CAP_DAC_OVERRIDE)."""
    if os.geteuid() != 0:
        return []
    assert _SETPRIV is not None, "setpriv (util-linux) is needed to test permissions as root"
    return [_SETPRIV, "--bounding-set", "-dac_override,-dac_read_search", "--"]


def test_a_read_only_directory_is_exit_2_and_left_as_it_was(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_cli(["render", "-o", str(out), str(_job(tmp_path))]).exit_code == 0
    before = _snapshot(out)
    out.chmod(0o555)
    try:
        done = _mxjob(["render", "-o", str(out), str(_job(tmp_path, workers=3))], prefix=_unprivileged())
    finally:
        out.chmod(0o755)
    assert done.returncode == 2 and done.stdout == b""
    _one_line_naming(done.stderr, str(out))
    assert "Permission denied" in done.stderr.decode()
    assert _snapshot(out) == before


def test_a_write_that_fails_half_way_leaves_the_previous_rendering(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_cli(["render", "-o", str(out), str(_job(tmp_path))]).exit_code == 0
    before = _snapshot(out)
    limit = max(len(data) for data in before.values()) + 4096

    def small_files() -> None:  # the kernel refuses to grow any file past `limit` bytes (EFBIG)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    bigger = _job(tmp_path, workers=3, note="x" * (2 * limit))
    done = _mxjob(["render", "-o", str(out), str(bigger)], preexec=small_files)
    assert done.returncode == 2 and done.stdout == b""
    _one_line_naming(done.stderr, str(out))
    assert "File too large" in done.stderr.decode()
    assert _snapshot(out) == before  # nothing half-written, no staging directory left
    assert run_cli(["render", "-o", str(out), str(bigger)]).exit_code == 0


@pytest.mark.parametrize(
    "value", ["nan", "NaN", "inf", "-inf", "-1", "1e999", "86401", "soon", "0x10", "1\n::error::x"]
)
def test_a_bad_lock_timeout_is_a_usage_error_not_a_hang(
    tmp_path: Path, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MXJOB_LOCK_TIMEOUT must be a finite number of seconds from 0 to a day: anything else is exit 2 naming the
    variable, before anything is read or created, even while another render holds the directory (`nan` compared
    false with every deadline and waited forever; `soon` was an internal error)."""
    import fcntl
    import time

    out = tmp_path / "out"
    out.mkdir()
    holder = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    monkeypatch.setenv("MXJOB_LOCK_TIMEOUT", value)
    try:
        started = time.monotonic()
        result = run_cli(["render", "-o", str(out / "new"), str(_job(tmp_path))])
        assert time.monotonic() - started < 10
    finally:
        os.close(holder)
    assert result.exit_code == 2, result.stderr
    assert result.stderr.startswith("mxjob: MXJOB_LOCK_TIMEOUT=") and len(result.stderr.splitlines()) == 1
    assert not (out / "new").exists()


def test_a_good_lock_timeout_waits_that_long(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import fcntl
    import time

    out = tmp_path / "out"
    out.mkdir()
    holder = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    monkeypatch.setenv("MXJOB_LOCK_TIMEOUT", "0.3")
    try:
        started = time.monotonic()
        result = run_cli(["render", "-o", str(out), str(_job(tmp_path))])
        waited = time.monotonic() - started
    finally:
        os.close(holder)
    assert result.exit_code == 2 and "another mxjob render is writing this directory" in result.stderr
    assert 0.3 <= waited < 10
