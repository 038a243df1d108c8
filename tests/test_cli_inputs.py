"""Inputs as a repository holds them: a committed file never decides what is read (the CI gate sees every spec)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, run_cli


def test_an_earlier_output_directory_among_the_specs_is_checked_and_counted_once(tmp_path: Path) -> None:
    jobs = tmp_path / "jobs"
    shutil.copytree(EXAMPLES / "train", jobs)
    first = run_cli(["render", "-o", str(jobs / "rendered"), str(jobs)])
    assert first.exit_code == 0, first.stderr
    again = run_cli(["render", "-o", str(tmp_path / "elsewhere"), str(jobs)])
    assert again.exit_code == 0, again.stderr
    assert f"mxjob: note: {(jobs / 'rendered').as_posix()} holds the output of an earlier" in again.stderr
    written = sorted(p.name for p in (tmp_path / "elsewhere").iterdir())
    assert written == sorted(p.name for p in (jobs / "rendered").iterdir())  # each object once, index included
    rerender = run_cli(["render", "-o", str(jobs / "rendered"), str(jobs)])  # its own DIR is left out, as before
    assert rerender.exit_code == 0, rerender.stderr


def test_a_committed_index_does_not_hide_a_spec_from_validate_render_or_diff(tmp_path: Path) -> None:
    """The CI gate bypass: an empty index file beside an invalid spec made every command skip its directory."""
    hidden = tmp_path / "jobs" / "team"
    hidden.mkdir(parents=True)
    shutil.copy(EXAMPLES / "single" / next(p.name for p in (EXAMPLES / "single").glob("*.yaml")), tmp_path / "jobs")
    (hidden / "bad.yaml").write_text(
        "apiVersion: kubeflow.org/v1\nkind: MXJob\nmetadata: {name: bad}\nspec: {mxReplicaSpecs: {Worker: {}}}\n",
        encoding="utf-8",
    )
    (hidden / ".mxjob-render.index").write_text("", encoding="utf-8")
    for args, code in [
        (["validate"], 1),
        (["render"], 1),
        (["render", "-o", str(tmp_path / "out")], 1),
        (["diff", str(EXAMPLES / "single")], 2),
    ]:
        result = run_cli([*args, str(tmp_path / "jobs")])
        assert result.exit_code == code and "bad.yaml" in result.stdout + result.stderr, (args, result.stderr)
    assert not (tmp_path / "out").exists()


def test_a_link_leaving_the_directory_read_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A committed `jobs/x.yaml -> /elsewhere/secret.yaml` would put any host file into the output and the diff."""
    secret = tmp_path / "elsewhere" / "secret.yaml"
    secret.parent.mkdir()
    secret.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: token}\ndata: {token: s3cret}\n")
    repo = tmp_path / "repo"
    (repo / "jobs" / "inner").mkdir(parents=True)
    shutil.copy(EXAMPLES / "single" / "mx_job_single_worker.yaml", repo / "jobs" / "job.yaml")
    (repo / "jobs" / "x.yaml").symlink_to(secret)
    (repo / "jobs" / "inner" / "up").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    monkeypatch.chdir(repo)
    for args in (["render", "jobs"], ["validate", "jobs"], ["render", "jobs/x.yaml"], ["diff", "jobs", "jobs"]):
        result = run_cli(args)
        assert result.exit_code == 2 and "leads outside" in result.stderr, (args, result.stderr)
        assert "s3cret" not in result.stdout + result.stderr
    (repo / "jobs" / "x.yaml").unlink()
    (repo / "jobs" / "x.yaml").symlink_to("job.yaml")  # a link that stays inside is read
    (repo / "jobs" / "inner" / "up").unlink()
    result = run_cli(["validate", "jobs"])
    assert result.exit_code == 1 and "MXJ210" in result.stdout + result.stderr  # the same job twice, as written


def _walked_as_pathlib_globs(root: Path) -> list[str]:
    """The reference walk: every path `**` matches (pathlib's recursive glob enters no linked directory), each
    kept when it is a regular file (through a link) with a manifest name and no hidden part below the root."""
    from mxjob_gitops.compiler.io.inputs import is_manifest_path

    return [
        path.as_posix()
        for path in sorted(root.rglob("*"), key=lambda p: p.as_posix())
        if is_manifest_path(path.relative_to(root).parts) and path.is_file()
    ]


def test_the_directory_walk_reads_what_pathlib_globbing_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The walker (os.walk, hidden and linked directories not entered) against pathlib's `**` on a tree with
    every kind of entry: nested and hidden folders, files and folders behind links (inside the tree), a dangling
    link, a FIFO, names that sort differently as paths and as strings, kustomize files and other suffixes."""
    import os

    from mxjob_gitops.compiler.io.inputs import discover

    root = tmp_path / "tree"
    for folder in ("a", "a/b", "a-b", "a.b", ".hidden/deep", "a/.git", "z/y/x", "k"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    for name in (
        "top.yaml", "a/one.yml", "a/b/two.json", "a-b/three.yaml", "a.b/four.yaml", ".hidden/deep/no.yaml",
        "a/.git/no.yaml", "a/.dot.yaml", "z/y/x/five.YAML", "z/y/x/six.yaml", "k/kustomization.yaml",
        "k/notes.txt", "a/b0.yaml", "a/b.yaml",
    ):  # fmt: skip
        (root / name).write_text("{}\n", encoding="utf-8")
    (root / "a" / "inside.yaml").symlink_to(root / "a-b" / "three.yaml")
    (root / "linked-dir").symlink_to(root / "z", target_is_directory=True)
    (root / "dangling.yaml").symlink_to(root / "missing.yaml")
    os.mkfifo(root / "a" / "fifo.yaml")
    monkeypatch.chdir(tmp_path)
    for given in ("tree", "tree/", str(root)):
        walked = discover([given])
        assert walked == _walked_as_pathlib_globs(Path(given)), given
        assert any(p.endswith("a/inside.yaml") for p in walked)
    monkeypatch.chdir(root)
    assert discover(["."]) == _walked_as_pathlib_globs(Path("."))
