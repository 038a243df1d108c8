"""`mxjob diff --base/--head`: git runs in the repository holding PATH, and its errors name the ref and the
repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_cli
from tests.helpers import git, init_repo, job, replica


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "jobs-repo"
    (root / "jobs").mkdir(parents=True)
    init_repo(root)
    spec = job(name="mnist", Scheduler=replica(1), Server=replica(1), Worker=replica(2))
    (root / "jobs" / "mnist.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "two workers")
    spec["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] = 3
    (root / "jobs" / "mnist.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    return root


def test_runs_in_the_repository_of_the_path_from_anywhere(repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_cli(["diff", "--base", "HEAD", "--format", "brief", str(repo / "jobs")], cwd=elsewhere)
    assert result.exit_code == 1, result.stderr
    assert "+ Pod mnist-worker-2 added" in result.stdout


def test_a_file_path_and_a_deleted_path_are_found_too(repo: Path, tmp_path: Path) -> None:
    (repo / "jobs" / "mnist.yaml").unlink()
    result = run_cli(["diff", "--base", "HEAD", "--format", "brief", str(repo / "jobs" / "mnist.yaml")], cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    assert "- MXJob mnist removed" in result.stdout


def test_a_bad_ref_is_named_with_the_repository(repo: Path, tmp_path: Path) -> None:
    result = run_cli(["diff", "--base", "nosuchref", str(repo / "jobs")], cwd=tmp_path)
    assert result.exit_code == 2 and result.stdout == ""
    assert f"mxjob: git: no commit 'nosuchref' in the repository {repo.resolve()}" in result.stderr


def test_a_path_outside_any_repository_says_so(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "job.yaml").write_text(yaml.safe_dump(job(name="x", Worker=replica(1))), encoding="utf-8")
    result = run_cli(["diff", "--base", "HEAD", str(plain)], cwd=tmp_path)
    assert result.exit_code == 2 and result.stdout == ""
    assert f"mxjob: {plain}: not inside a Git repository" in result.stderr


def test_paths_in_two_repositories_are_refused(repo: Path, tmp_path: Path) -> None:
    result = run_cli(["diff", "--base", "HEAD", str(repo / "jobs"), str(tmp_path)], cwd=tmp_path)
    assert result.exit_code == 2 and "outside the repository" in result.stderr


def test_a_blob_in_both_revisions_is_read_once(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two commits sharing one of two files: cat-file is asked for three blobs in all, not four."""
    from mxjob_gitops.compiler.io import gitsource

    spec = job(name="other", Scheduler=replica(1), Server=replica(1), Worker=replica(1))
    (repo / "jobs" / "other.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "three workers, another job")
    spec = job(name="mnist", Scheduler=replica(1), Server=replica(1), Worker=replica(4))
    (repo / "jobs" / "mnist.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    git(repo, "commit", "-qam", "four workers")
    asked: list[bytes] = []
    original = gitsource._git

    def recording(args: list[str], repository: Path, stdin: bytes | None = None) -> bytes:
        if list(args[:2]) == ["cat-file", "--batch"]:  # contents read (sizes come first from --batch-check)
            asked.extend((stdin or b"").split())
        return original(args, repository, stdin)

    monkeypatch.setattr(gitsource, "_git", recording)
    result = run_cli(["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "brief", "jobs"], cwd=repo)
    assert result.exit_code == 1, result.stderr
    assert "+ Pod mnist-worker-3 added" in result.stdout and "other" not in result.stdout
    assert len(asked) == len(set(asked)) == 3


HOSTILE_REFS = ["--output=/tmp/mxjob-hostile-ref", "-c", "--name-only", "--format=%(path)", "-r", "--", "-"]


@pytest.mark.parametrize("ref", HOSTILE_REFS)
def test_a_ref_that_looks_like_an_option_is_only_a_ref(repo: Path, ref: str, tmp_path: Path) -> None:
    """A pull request can push any ref: each revision is resolved once to a commit id (`rev-parse --verify
    --end-of-options`), and only that id reaches `ls-tree` and `cat-file`, so no name is read as an option."""
    from mxjob_gitops.compiler.io import gitsource

    if ref in ("--", "-"):  # no valid ref name: a clean "no commit" error, never an option or a crash
        result = run_cli(["diff", "--base", ref, "--format", "brief", "jobs"], cwd=repo)
        assert result.exit_code == 2 and "no commit" in result.stderr, result.stderr
        return
    git(repo, "update-ref", f"refs/heads/{ref}", "HEAD")
    seen: list[list[str]] = []
    original = gitsource._git

    def recording(args: list[str], repository: Path, stdin: bytes | None = None) -> bytes:
        seen.append(list(args))
        return original(args, repository, stdin)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gitsource, "_git", recording)
        result = run_cli(["diff", "--base", ref, "--format", "brief", "jobs"], cwd=repo)
    assert result.exit_code == 1, result.stderr
    assert "+ Pod mnist-worker-2 added" in result.stdout
    assert not Path("/tmp/mxjob-hostile-ref").exists()
    resolved = [a for a in seen if a[:4] == ["rev-parse", "--verify", "--quiet", "--end-of-options"]]
    assert [a[4] for a in resolved] == [f"{ref}^{{commit}}"]  # resolved once, never read as an option
    listings = [a for a in seen if a[0] == "ls-tree"]
    assert listings and all(re.fullmatch("[0-9a-f]{40}", a[4]) for a in listings)  # only the id goes on
    assert not any(f"{ref}^{{commit}}" in a for a in seen if a not in resolved)


@pytest.mark.parametrize("ref", ["main\n--output=/tmp/mxjob-hostile-ref", "HEAD\0x", "", "main:jobs", "HEAD^{tree}"])
def test_a_revision_that_names_no_commit_is_a_clean_error(repo: Path, ref: str) -> None:
    result = run_cli(["diff", "--base", ref, "--format", "brief", "jobs"], cwd=repo)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert "no commit" in result.stderr and len(result.stderr.splitlines()) == 1
    assert not Path("/tmp/mxjob-hostile-ref").exists()


def test_revisions_compiled_in_three_processes_diff_as_in_one(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--base/--head and --base against the working tree compile through the same memo: its jobs compiled ahead
    in children, and the first revision's files parsed ahead (however few: the thresholds at 1), print what one
    process prints, errors too."""
    from mxjob_gitops.compiler.compile import jobcache
    from mxjob_gitops.compiler.read import readahead

    for number in range(5):
        spec = job(name=f"job-{number}", Scheduler=replica(1), Server=replica(1), Worker=replica(number + 1))
        (repo / "jobs" / f"job-{number}.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "five more jobs")
    bad = job(name="job-2", Scheduler=replica(1), Server=replica(1), Worker=replica(-1))
    (repo / "jobs" / "job-2.yaml").write_text(yaml.safe_dump(bad), encoding="utf-8")
    (repo / "jobs" / "job-3.yaml").write_text(yaml.safe_dump(job(name="job-3", Worker=replica(9))), encoding="utf-8")
    git(repo, "commit", "-qam", "job-3 grows, job-2 breaks")
    monkeypatch.setattr(jobcache, "AHEAD_MIN_JOBS", 1)
    monkeypatch.setattr(readahead, "AHEAD_MIN_CHARS", 1)
    commands = (["--base", "HEAD~2", "--head", "HEAD~1"], ["--base", "HEAD~1", "--head", "HEAD"], ["--base", "HEAD~2"])
    for args in commands:
        runs = []
        for jobs in ("1", "3"):
            monkeypatch.setenv("MXJOB_JOBS", jobs)
            runs.append(run_cli(["diff", "--format", "json", *args, "jobs"], cwd=repo))
        assert runs[0] == runs[1], args
    assert runs[0].exit_code == 2 and "MXJ105" in runs[0].stderr  # job-2's error, from a child or not
