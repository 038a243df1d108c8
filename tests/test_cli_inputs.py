"""Inputs as a repository holds them: a committed file never decides what is read (the CI gate sees every spec)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, run_cli


def test_an_earlier_output_directory_among_the_specs_is_read_and_named(tmp_path: Path) -> None:
    jobs = tmp_path / "jobs"
    shutil.copytree(EXAMPLES / "train", jobs)
    first = run_cli(["render", "-o", str(jobs / "rendered"), str(jobs)])
    assert first.exit_code == 0, first.stderr
    again = run_cli(["render", "-o", str(tmp_path / "elsewhere"), str(jobs)])
    assert again.exit_code == 1 and "MXJ210" in again.stderr
    assert f"mxjob: note: {(jobs / 'rendered').as_posix()} holds the output of an earlier" in again.stderr
    assert not (tmp_path / "elsewhere").exists()
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
