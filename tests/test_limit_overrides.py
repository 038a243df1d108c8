"""The run budgets a user may change (docs/limits.md): MXJOB_MAX_DOCUMENTS, MXJOB_MAX_PRINTED_DIAGNOSTICS,
MXJOB_MAX_DIRECTORY_DEPTH and MXJOB_MAX_IN_PLACE_JOBS, each through every command the limit applies to; a value
that is not a whole number within its bounds is a usage error (exit 2) naming the variable, before anything is
read."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from mxjob_gitops.compiler.base.limits import LIMIT_BOUNDS, RunLimits, set_run_limits
from tests.conftest import EXAMPLES, run_cli
from tests.helpers import git, init_repo, job, replica

SPEC = (EXAMPLES / "single" / "mx_job_single_worker.yaml").read_text(encoding="utf-8")


def _maps(count: int) -> str:
    return "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}}}\n" for i in range(count))


CONFIG_MAPS = _maps(4)
RESOURCE_LIST = json.dumps(
    {
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}"}} for i in range(4)],
    }
)


@pytest.fixture(autouse=True)
def default_limits() -> Iterator[None]:
    yield
    set_run_limits(RunLimits())  # the commands ran in this process: leave the defaults behind


COMMANDS = {
    "render": (["render", "in.yaml"], None),
    "validate": (["validate", "in.yaml"], None),
    "diff": (["diff", "in.yaml", "in.yaml"], None),
    "convert": (["convert", "in.yaml"], None),
    "krm": (["krm"], RESOURCE_LIST),
}


@pytest.mark.parametrize("variable", [bound[0] for bound in LIMIT_BOUNDS.values()])
@pytest.mark.parametrize("value", ["0", "-1", "1e3", "\u0663", "ten", "99999999999", " 5"])
@pytest.mark.parametrize("command", COMMANDS, ids=list(COMMANDS))
def test_a_bad_value_is_a_usage_error_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, command: str
) -> None:
    (tmp_path / "in.yaml").write_text(SPEC, encoding="utf-8")
    monkeypatch.setenv(variable, value)
    args, stdin = COMMANDS[command]
    result = run_cli(args, cwd=tmp_path, stdin=stdin)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"mxjob: {variable}=") and "a whole number from 1 to" in result.stderr


@pytest.mark.parametrize("command", COMMANDS, ids=list(COMMANDS))
def test_fewer_documents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    (tmp_path / "in.yaml").write_text(CONFIG_MAPS, encoding="utf-8")
    args, stdin = COMMANDS[command]
    assert run_cli(args, cwd=tmp_path, stdin=stdin).exit_code in (0, 1)  # diff: identical sides
    monkeypatch.setenv("MXJOB_MAX_DOCUMENTS", "3")
    result = run_cli(args, cwd=tmp_path, stdin=stdin)
    assert result.exit_code in (1, 2)
    assert "more than 3 documents in this run" in result.stdout + result.stderr


def test_fewer_documents_in_git_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    init_repo(tmp_path)
    (tmp_path / "in.yaml").write_text(_maps(2), encoding="utf-8")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "two maps")
    (tmp_path / "in.yaml").write_text(CONFIG_MAPS, encoding="utf-8")
    assert run_cli(["diff", "--base", "HEAD", "in.yaml"], cwd=tmp_path).exit_code == 1
    monkeypatch.setenv("MXJOB_MAX_DOCUMENTS", "5")  # 2 on the old side and 4 on the new: one budget for the run
    refusal = run_cli(["diff", "--base", "HEAD", "in.yaml"], cwd=tmp_path)
    assert refusal.exit_code == 2 and re.search(r"in\.yaml:\d+:1: error MXJ008: more than 5 documents", refusal.stderr)


PRINTED = {
    "render": ["render", "m.yaml"],
    "validate": ["validate", "m.yaml"],
    "convert": ["convert", "m.yaml"],
    "diff": ["diff", "m.yaml", "m.yaml"],
}


@pytest.mark.parametrize("command", PRINTED, ids=list(PRINTED))
def test_fewer_or_more_printed_diagnostics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    (tmp_path / "m.yaml").write_text("{}\n---\n" * 12, encoding="utf-8")
    monkeypatch.setenv("MXJOB_MAX_PRINTED_DIAGNOSTICS", "5")
    result = run_cli(PRINTED[command], cwd=tmp_path)
    said = result.stdout if command == "validate" else result.stderr
    assert said.count(": error MXJ004: ") == 5
    assert f"{7 if command != 'diff' else 19} more diagnostics not shown" in said  # diff: both sides, 24
    monkeypatch.setenv("MXJOB_MAX_PRINTED_DIAGNOSTICS", "2000")
    many = run_cli(PRINTED[command], cwd=tmp_path)
    assert (many.stdout if command == "validate" else many.stderr).count(": error MXJ004: ") >= 12


def _deep(root: Path, depth: int) -> Path:
    where = root.joinpath(*["a"] * depth)
    where.mkdir(parents=True)
    (where / "job.yaml").write_text(SPEC, encoding="utf-8")
    return where


DEEP = {
    "render": ["render", "tree"],
    "validate": ["validate", "tree"],
    "diff": ["diff", "tree", "tree"],
}


@pytest.mark.parametrize("command", DEEP, ids=list(DEEP))
def test_a_shallower_or_deeper_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    _deep(tmp_path / "tree", 3)
    monkeypatch.setenv("MXJOB_MAX_DIRECTORY_DEPTH", "2")
    refusal = run_cli(DEEP[command], cwd=tmp_path)
    assert refusal.exit_code == 2 and "directories nest deeper than 2 levels below tree" in refusal.stderr
    monkeypatch.setenv("MXJOB_MAX_DIRECTORY_DEPTH", "3")
    assert run_cli(DEEP[command], cwd=tmp_path).exit_code == 0


def test_a_deeper_walk_than_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _deep(tmp_path / "tree", 101)
    assert run_cli(["render", "tree"], cwd=tmp_path).exit_code == 2
    monkeypatch.setenv("MXJOB_MAX_DIRECTORY_DEPTH", "150")
    assert run_cli(["render", "tree"], cwd=tmp_path).exit_code == 0


def test_a_shallower_walk_in_git_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    init_repo(tmp_path)
    _deep(tmp_path / "tree", 3)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "deep")
    monkeypatch.setenv("MXJOB_MAX_DIRECTORY_DEPTH", "2")
    refusal = run_cli(["diff", "--base", "HEAD", "--head", "HEAD", "tree"], cwd=tmp_path)
    assert refusal.exit_code == 2 and "HEAD:tree/a/a/a/job.yaml: directories nest deeper than 2" in refusal.stderr


def test_fewer_or_more_jobs_converted_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = {**job(Worker=replica(1), Scheduler=replica(1), Server=replica(1)), "apiVersion": "kubeflow.org/v1beta1"}
    text = "".join(f"---\n{json.dumps(old).replace('mxnet-job', f'job-{i}')}\n" for i in range(3))
    (tmp_path / "f.yaml").write_text(text, encoding="utf-8")
    monkeypatch.setenv("MXJOB_MAX_IN_PLACE_JOBS", "2")
    refusal = run_cli(["convert", "--in-place", "f.yaml"], cwd=tmp_path)
    assert refusal.exit_code == 1 and "at most 2 MXJobs per run" in refusal.stderr
    assert (tmp_path / "f.yaml").read_text(encoding="utf-8") == text
    monkeypatch.setenv("MXJOB_MAX_IN_PLACE_JOBS", "3")
    assert run_cli(["convert", "--in-place", "f.yaml"], cwd=tmp_path).exit_code == 0


def test_the_docs_name_every_variable_with_its_default() -> None:
    text = (Path(__file__).parent.parent / "docs" / "limits.md").read_text(encoding="utf-8")
    defaults = RunLimits()
    for attribute, (variable, _lowest, highest, _what) in LIMIT_BOUNDS.items():
        assert f"`{variable}`" in text
        assert f"{getattr(defaults, attribute):,}" in text and f"{highest:,}" in text
