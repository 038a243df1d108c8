"""`render -o` into a directory the attacker prepared: committed journals, staging links, forged indexes, links on
DIR's path. Nothing outside DIR is read, moved, written or deleted; a file the render does not own stays."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.io import dirfd
from mxjob_gitops.compiler.io.output_dir import _read_index
from mxjob_gitops.compiler.io.rendernames import INDEX, JOURNAL, STAGING
from mxjob_gitops.compiler.io.statcache import cache_root
from tests.conftest import run_cli
from tests.helpers import job, replica


def _spec(root: Path) -> Path:
    path = root / "jobs" / "j.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        yaml.safe_dump(job(name="j", Scheduler=replica(1), Server=replica(1), Worker=replica(2))), encoding="utf-8"
    )
    return path


def _tree(root: Path) -> dict[str, bytes | str]:
    """Every entry below root: a file's bytes, a link's target, a directory's marker."""
    found: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        name = str(path.relative_to(root))
        if path.is_symlink():
            found[name] = "-> " + os.readlink(path)
        elif path.is_dir():
            found[name] = "<dir>"
        else:
            found[name] = path.read_bytes()
    return found


def _repository(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A checkout with a secret in .git/config, the job, and deploy/ as the output directory."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text("[http]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n")
    deploy = repo / "deploy"
    deploy.mkdir()
    return repo, _spec(repo), deploy


def test_a_committed_journal_is_never_carried_out(tmp_path: Path) -> None:
    """The reported attack: `write config` with the staging directory a link to ../.git."""
    repo, spec, deploy = _repository(tmp_path)
    (deploy / JOURNAL).write_text("# mxjob render journal v1\nwrite config\n", encoding="utf-8")
    (deploy / STAGING).symlink_to("../.git")
    git_before, deploy_before = _tree(repo / ".git"), _tree(deploy)
    result = run_cli(["render", "-o", str(deploy), str(spec)])
    assert result.exit_code == 2, result.stderr
    assert "never carried out" in result.stderr and "remove it" in result.stderr
    assert _tree(repo / ".git") == git_before and _tree(deploy) == deploy_before


def test_a_journal_with_a_forged_or_copied_mac_is_refused(tmp_path: Path) -> None:
    repo, spec, deploy = _repository(tmp_path)
    other = tmp_path / "other"
    assert run_cli(["render", "-o", str(other), str(spec)]).exit_code == 0
    # A journal this user's key really signed, but for another directory (its device and inode are bound in).
    fd = os.open(other, os.O_RDONLY | os.O_DIRECTORY)
    try:
        key = dirfd.local_key(cache_root())
        body = f"# mxjob render journal v2\nstaging {STAGING}.00.00\nremove {INDEX} 00\n"
        tag = dirfd.mac(key, dirfd.directory_identity(fd), b"journal", body.encode())
    finally:
        os.close(fd)
    for journal in (body + f"mac {tag}\n", body + "mac " + "0" * 64 + "\n"):
        (deploy / JOURNAL).write_text(journal, encoding="utf-8")
        before = _tree(repo)
        result = run_cli(["render", "-o", str(deploy), str(spec)])
        assert result.exit_code == 2 and "never carried out" in result.stderr, result.stderr
        assert _tree(repo) == before


def test_a_forged_index_removes_nothing_whose_bytes_it_does_not_know(tmp_path: Path) -> None:
    repo, spec, deploy = _repository(tmp_path)
    (deploy / "notes.md").write_text("the team's notes", encoding="utf-8")
    (deploy / "link.yaml").symlink_to("../.git/config")
    (deploy / INDEX).write_text(f"notes.md {'0' * 64}\nlink.yaml\n../.git/config\n", encoding="utf-8")
    result = run_cli(["render", "-o", str(deploy), str(spec)])
    assert result.exit_code == 0, result.stderr
    assert (deploy / "notes.md").read_text(encoding="utf-8") == "the team's notes"
    assert (deploy / "link.yaml").is_symlink() and "kept 2 file(s)" in result.stderr
    assert (repo / ".git" / "config").read_text().startswith("[http]")


@pytest.mark.parametrize(
    "names",
    [
        ["", ".", "..", "pod-j.yaml"],
        ["", ".", "..", "a/b/c", "/b", "a/", "../b", "a/..", "a//b", "a\\b", "a\0b", "pod-j.yaml", "shard-0001/p.yaml"],
    ],
)
def test_an_index_line_names_only_plain_components(names: list[str], tmp_path: Path) -> None:
    """Every name the index holds is one plain component (no empty name, separator, NUL, `.` or `..`), or two of
    them (a shard's file: dirfd.relative), whether or not the index holds a separator anywhere."""
    (tmp_path / INDEX).write_text("".join(f"{name} {'0' * 64}\n" for name in names), encoding="utf-8")
    directory = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert list(_read_index(directory)) == [n for n in ("pod-j.yaml", "shard-0001/p.yaml") if n in names]
    finally:
        os.close(directory)


def test_a_stale_file_the_render_wrote_is_removed_while_unchanged(tmp_path: Path) -> None:
    _repo, spec, deploy = _repository(tmp_path)
    assert run_cli(["render", "-o", str(deploy), str(spec)]).exit_code == 0
    spec.write_text(
        yaml.safe_dump(job(name="j", Scheduler=replica(1), Server=replica(1), Worker=replica(1))), encoding="utf-8"
    )
    result = run_cli(["render", "-o", str(deploy), str(spec)])
    assert result.exit_code == 0 and not (deploy / "pod-j-worker-1.yaml").exists(), result.stderr


def test_staging_look_alikes_and_links_are_left_alone(tmp_path: Path) -> None:
    repo, spec, deploy = _repository(tmp_path)
    (deploy / f"{STAGING}.0011.forged").mkdir()
    (deploy / f"{STAGING}.0011.forged" / "keep").write_text("x", encoding="utf-8")
    (deploy / f"{STAGING}.0022.other").symlink_to("../.git")
    result = run_cli(["render", "-o", str(deploy), str(spec)])
    assert result.exit_code == 0, result.stderr
    assert (deploy / f"{STAGING}.0011.forged" / "keep").is_file() and (deploy / f"{STAGING}.0022.other").is_symlink()
    assert sorted(p.name for p in (repo / ".git").iterdir()) == ["config"]


def test_a_link_on_the_output_path_is_refused_unless_asked(tmp_path: Path) -> None:
    repo, spec, deploy = _repository(tmp_path)
    deploy.rmdir()
    deploy.symlink_to(".git")
    for target in (deploy, deploy / "sub"):
        result = run_cli(["render", "-o", str(target), str(spec)])
        assert result.exit_code == 2 and "symbolic link" in result.stderr, result.stderr
    assert sorted(p.name for p in (repo / ".git").iterdir()) == ["config"]


_ENTRY_NAMES = st.sampled_from(
    [JOURNAL, INDEX, STAGING, f"{STAGING}.1.2", "pod-j-worker-0.yaml", "kustomization.yaml", "x.yaml", "sub"]
)
_LINK_TARGETS = st.sampled_from(["../outside", "../outside/secret", "/dev/zero", "..", "missing"])
_TEXTS = st.sampled_from(
    [
        "write config\n",
        "remove secret\n",
        f"write ../outside/secret\nmac {'0' * 64}\n",
        "../outside/secret\nsecret\npod-j-worker-0.yaml\n",
        f"pod-j-worker-0.yaml {'1' * 64}\n",
        "",
    ]
)
_ENTRIES = st.lists(
    st.tuples(_ENTRY_NAMES, st.one_of(st.tuples(st.just("link"), _LINK_TARGETS), st.tuples(st.just("file"), _TEXTS))),
    max_size=6,
    unique_by=lambda entry: entry[0],
)


@settings(max_examples=40, deadline=None)
@given(entries=_ENTRIES, rerender=st.booleans())
def test_a_hostile_output_directory_never_reaches_outside(
    entries: list[tuple[str, tuple[str, str]]], rerender: bool
) -> None:
    root = Path(tempfile.mkdtemp(prefix="hostile-"))
    try:
        _attack(root, entries, rerender)
    finally:
        shutil.rmtree(root)


def _attack(root: Path, entries: list[tuple[str, tuple[str, str]]], rerender: bool) -> None:
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret").write_text("secret", encoding="utf-8")
    deploy = root / "deploy"
    deploy.mkdir()
    spec = _spec(root)
    if rerender:
        assert run_cli(["render", "-o", str(deploy), str(spec)]).exit_code == 0
    for name, (kind, value) in entries:
        path = deploy / name
        if path.is_dir() and not path.is_symlink():
            continue
        path.unlink(missing_ok=True)
        if kind == "link":
            path.symlink_to(value)
        else:
            path.write_text(value, encoding="utf-8")
    before = _tree(outside)
    foreign = {n: b for n, b in _tree(deploy).items() if isinstance(b, bytes) and n not in (INDEX, JOURNAL)}
    result = run_cli(["render", "-o", str(deploy), str(spec)])
    assert result.exit_code in (0, 2), result.stderr
    assert _tree(outside) == before
    index = (deploy / INDEX).read_text(encoding="utf-8") if result.exit_code == 0 else ""
    for name, data in foreign.items():
        # A file the attacker placed survives as it was, unless the render now writes that name itself.
        assert f"{name} " in index or (deploy / name).read_bytes() == data, name
