"""The MultiKueue note (MXJ321): a job rendered as a Kueue pod group by the pods engine is told, at the job, that
MultiKueue would copy only its Pods to a worker cluster (kubernetes-sigs/kueue
pkg/controller/jobs/pod/pod_multikueue_adapter.go), and pointed to `--engine jobset`; `render` says it on stderr,
`validate` in its report; -q (errors only) leaves it out; the jobset engine and other gang schedulers never say it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES, run_cli

TRAIN = EXAMPLES / "train" / "mx_job_dist_gpu.yaml"
CODE = "MXJ321"


@pytest.fixture
def job(tmp_path: Path) -> Path:
    shutil.copy(TRAIN, tmp_path / "job.yaml")
    return tmp_path / "job.yaml"


def _name_line(path: Path) -> str:
    """`file:line:col` of the job's metadata.name value, where the note points."""
    lines = path.read_text(encoding="utf-8").splitlines()
    number = next(i for i, line in enumerate(lines, 1) if line.strip().startswith("name:"))
    return f"{path.name}:{number}:{lines[number - 1].index('name:') + len('name: ') + 1}"


def test_render_notes_it_at_the_job_on_stderr(job: Path) -> None:
    result = run_cli(["render", "--gang-scheduler", "kueue=team-a", job.name], cwd=job.parent)
    assert result.exit_code == 0, result.stderr
    (line,) = [line for line in result.stderr.splitlines() if CODE in line]
    assert line.startswith(f"{_name_line(job)}: info {CODE} at metadata.name: ")
    assert "MultiKueue" in line and "Services" in line and "--engine jobset" in line
    assert CODE not in result.stdout
    assert [d["kind"] for d in yaml.safe_load_all(result.stdout) if d][:1] == ["ConfigMap"]  # rendered all the same


def test_the_job_annotation_asks_for_kueue_too(job: Path) -> None:
    spec = yaml.safe_load(job.read_text(encoding="utf-8"))
    spec["metadata"]["annotations"] = {"mxjob.kubeflow.org/gang-scheduler": "kueue=team-a"}
    job.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    result = run_cli(["render", job.name], cwd=job.parent)
    assert result.exit_code == 0 and f"info {CODE}" in result.stderr, result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["-q", "--gang-scheduler", "kueue=team-a"],  # errors only
        ["--engine", "jobset", "--gang-scheduler", "kueue=team-a"],  # MultiKueue copies a JobSet whole
        ["--gang-scheduler", "volcano"],
        [],
    ],
    ids=["quiet", "jobset", "volcano", "no-gang"],
)
def test_render_does_not_say_it(job: Path, args: list[str]) -> None:
    result = run_cli(["render", *args, job.name], cwd=job.parent)
    assert result.exit_code == 0, result.stderr
    assert CODE not in result.stderr + result.stdout


def test_validate_reports_it_as_a_note(job: Path) -> None:
    text = run_cli(["validate", "--gang-scheduler", "kueue=team-a", job.name], cwd=job.parent)
    assert text.exit_code == 0, text.stdout + text.stderr
    assert f"{_name_line(job)}: info {CODE} at metadata.name" in text.stdout
    found = run_cli(["validate", "--format", "json", "--gang-scheduler", "kueue=team-a", job.name], cwd=job.parent)
    assert found.exit_code == 0
    notes = [d for d in _diagnostics(json.loads(found.stdout)) if d.get("code") == CODE]
    assert len(notes) == 1 and notes[0]["severity"] == "info" and notes[0]["path"] == "metadata.name", notes


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_quiet_validate_leaves_it_out(job: Path, fmt: str) -> None:
    result = run_cli(["validate", "-q", "--format", fmt, "--gang-scheduler", "kueue=team-a", job.name], cwd=job.parent)
    assert result.exit_code == 0 and CODE not in result.stdout + result.stderr, result.stdout


def test_validate_of_the_jobset_engine_does_not_say_it(job: Path) -> None:
    args = ["validate", "--engine", "jobset", "--gang-scheduler", "kueue=team-a", job.name]
    result = run_cli(args, cwd=job.parent)
    assert result.exit_code == 0 and CODE not in result.stdout + result.stderr, result.stdout


def _diagnostics(report: object) -> list[dict[str, object]]:
    """Every object with a `code` anywhere in the JSON report."""
    found: list[dict[str, object]] = []
    if isinstance(report, dict):
        if "code" in report:
            found.append(report)
        for value in report.values():
            found.extend(_diagnostics(value))
    elif isinstance(report, list):
        for value in report:
            found.extend(_diagnostics(value))
    return found
