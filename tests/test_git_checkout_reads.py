"""The Git side of `mxjob diff` reads what a checkout of the revision has: a symbolic link as the file it leads
to (within the directory read; one that leads outside is refused as on the working tree), a submodule at its
recorded commit when its repository is there, else named in a note."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_cli
from tests.helpers import git, init_repo, job, replica


def _spec(name: str) -> str:
    return yaml.safe_dump(job(name=name, Scheduler=replica(1), Server=replica(1), Worker=replica(1)))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "gitops"
    (root / "jobs").mkdir(parents=True)
    init_repo(root)
    (root / "jobs" / "mnist.yaml").write_text(_spec("mnist"), encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one job")
    return root


def _pods(stdout: str) -> list[str]:
    return sorted(line for line in stdout.splitlines() if line.startswith("+ Pod"))


def test_a_linked_job_appears_as_in_the_checkout(repo: Path) -> None:
    """jobs/#evil is no manifest name, jobs/evil.yaml -> #evil is: the checkout renders the job's 3 pods."""
    (repo / "jobs" / "#evil").write_text(_spec("evil"), encoding="utf-8")
    os.symlink("#evil", repo / "jobs" / "evil.yaml")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a linked job")
    rendered = run_cli(["render", "jobs"], cwd=repo)
    assert rendered.exit_code == 0 and rendered.stdout.count("kind: Pod") == 6
    result = run_cli(["diff", "--base", "main~1", "--head", "main", "--format", "brief", "jobs"], cwd=repo)
    assert result.exit_code == 1, result.stderr
    assert _pods(result.stdout) == [f"+ Pod evil-{kind}-0 added" for kind in ("scheduler", "server", "worker")]
    working = run_cli(["diff", "--base", "main", "--format", "brief", "jobs"], cwd=repo)
    assert working.exit_code == 0, working.stdout + working.stderr


@pytest.mark.parametrize("target", ["../outside.yaml", "/etc/hostname"])
def test_a_link_leading_out_of_the_directory_read_is_refused(repo: Path, target: str) -> None:
    (repo / "outside.yaml").write_text(_spec("outside"), encoding="utf-8")
    os.symlink(target, repo / "jobs" / "leak.yaml")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a link out")
    on_disk = run_cli(["render", "jobs"], cwd=repo)
    result = run_cli(["diff", "--base", "main~1", "--head", "main", "jobs"], cwd=repo)
    assert result.exit_code == 2 and result.stdout == ""
    assert "main:jobs/leak.yaml: a symbolic link that leads outside" in result.stderr
    if target.startswith(".."):
        assert on_disk.exit_code == 2 and "jobs/leak.yaml: a symbolic link that leads outside" in on_disk.stderr


def test_a_submodule_is_read_at_its_recorded_commit(repo: Path, tmp_path: Path) -> None:
    library = tmp_path / "library"
    library.mkdir()
    init_repo(library)
    (library / "shared.yaml").write_text(_spec("shared"), encoding="utf-8")
    git(library, "add", "-A")
    git(library, "commit", "-qm", "shared job")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "jobs/library")
    git(repo, "commit", "-qm", "the library as a submodule")
    (library / "shared.yaml").write_text(_spec("changed"), encoding="utf-8")
    git(library, "commit", "-qam", "not recorded")
    result = run_cli(["diff", "--base", "main~1", "--head", "main", "--format", "brief", "jobs"], cwd=repo)
    assert result.exit_code == 1, result.stderr
    assert _pods(result.stdout) == [f"+ Pod shared-{kind}-0 added" for kind in ("scheduler", "server", "worker")]


def test_a_submodule_that_is_not_here_is_named(repo: Path, tmp_path: Path) -> None:
    library = tmp_path / "library"
    library.mkdir()
    init_repo(library)
    (library / "shared.yaml").write_text(_spec("shared"), encoding="utf-8")
    git(library, "add", "-A")
    git(library, "commit", "-qm", "shared job")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "jobs/library")
    git(repo, "commit", "-qm", "the library as a submodule")
    git(repo, "submodule", "deinit", "-q", "-f", "jobs/library")
    result = run_cli(["diff", "--base", "main~1", "--head", "main", "--format", "brief", "jobs"], cwd=repo)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "main:jobs/library is a submodule" in result.stderr and "its files are not read" in result.stderr


def test_the_object_store_reads_what_the_checkout_reads(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A revision of regular files only is read blob by blob; through a checkout it reads the same, file for file."""
    from mxjob_gitops.compiler.io import gitsource

    nested = repo / "jobs" / "team" / "deep"
    nested.mkdir(parents=True)
    (nested / "a.yml").write_text(_spec("a") + "---\n" + _spec("b"), encoding="utf-8")
    (repo / "jobs" / ".hidden").mkdir()
    (repo / "jobs" / ".hidden" / "skip.yaml").write_text(_spec("hidden"), encoding="utf-8")
    (repo / "jobs" / "notes.txt").write_text("not read", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "more files")
    previous = Path.cwd()
    os.chdir(repo)
    try:
        blobs = gitsource.read_revision("main", ["jobs"])
        monkeypatch.setattr(gitsource, "_needs_checkout", lambda *_: True)
        checkout = gitsource.read_revision("main", ["jobs"])
    finally:
        os.chdir(previous)
    assert blobs.files == checkout.files == ["main:jobs/mnist.yaml", "main:jobs/team/deep/a.yml"]
    assert [(d.file, d.data) for d in blobs.documents] == [(d.file, d.data) for d in checkout.documents]
