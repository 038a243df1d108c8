"""`mxjob diff` reports an update the API server would refuse (a transition rule of the MXJob CRD, the queue's
`self == oldSelf`) as a located finding, for two files and for two Git revisions; the 1.36 server's own verdict on
the same updates is tests/modern/test_cel.py, and `--live` against it is tests/modern/test_crd.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from mxjob_gitops.compiler.base.diagnostics import Code
from tests.conftest import JOB_EXAMPLE_FILES, run_cli
from tests.helpers import git, init_repo

EXAMPLE = JOB_EXAMPLE_FILES[0]


def job_with_queue(queue: str | None, replicas: int | None = None) -> str:
    job: dict[str, Any] = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    if queue is not None:
        job["spec"].setdefault("runPolicy", {})["schedulingPolicy"] = {"queue": queue}
    if replicas is not None:
        job["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] = replicas
    return yaml.safe_dump(job, sort_keys=False)


def _queue_line(text: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if "queue:" in line)


@pytest.mark.parametrize(
    ("old", "new", "refused"),
    [
        ("research", "production", True),
        ("research", "research", False),
        (None, "production", False),  # no old value: the transition rule does not run (adding a queue is allowed)
        ("research", None, False),  # no new value: nothing to validate (removing it is allowed)
    ],
)
def test_a_changed_queue_is_a_refused_update(tmp_path: Path, old: str | None, new: str | None, refused: bool) -> None:
    (tmp_path / "old.yaml").write_text(job_with_queue(old, 1), encoding="utf-8")
    text = job_with_queue(new, 2)
    (tmp_path / "new.yaml").write_text(text, encoding="utf-8")
    result = run_cli(["diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")])
    assert result.exit_code == 1, result.stderr  # a difference either way (the replica count changed)
    assert (Code.K8S_UPDATE.value in result.stderr) is refused, result.stderr
    if refused:
        line = _queue_line(text)
        assert f"new.yaml:{line}:" in result.stderr
        assert "at spec.runPolicy.schedulingPolicy.queue" in result.stderr
        assert 'Invalid value: "production": spec.runPolicy.schedulingPolicy.queue is immutable' in result.stderr
        assert 'delete and recreate the MXJob, or keep "research"' in result.stderr


def test_a_refused_update_fails_even_with_exit_zero(tmp_path: Path) -> None:
    (tmp_path / "old.yaml").write_text(job_with_queue("research"), encoding="utf-8")
    (tmp_path / "new.yaml").write_text(job_with_queue("production"), encoding="utf-8")
    result = run_cli(["diff", "--exit-zero", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")])
    assert result.exit_code == 1 and Code.K8S_UPDATE.value in result.stderr, result.stderr
    same = run_cli(["diff", "--exit-zero", str(tmp_path / "old.yaml"), str(tmp_path / "old.yaml")])
    assert same.exit_code == 0 and same.stderr == "", same.stderr


def test_a_refused_update_between_git_revisions(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    spec = root / "job.yaml"

    init_repo(root)
    spec.write_text(job_with_queue("research"), encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "queue research")
    text = job_with_queue("production")
    spec.write_text(text, encoding="utf-8")
    result = run_cli(["diff", "--base", "HEAD", str(spec)])
    assert result.exit_code == 1, result.stderr
    assert f"job.yaml:{_queue_line(text)}:" in result.stderr and Code.K8S_UPDATE.value in result.stderr


def test_before_kubernetes_125_the_rule_is_not_enforced(tmp_path: Path) -> None:
    """Servers before 1.25 drop x-kubernetes-validations (docs/crd.md; v1.20.2 accepts the change:
    tests/realapi/test_kubevalidate_120.py), so --kubernetes-version 1.24 reports no refused update."""
    (tmp_path / "old.yaml").write_text(job_with_queue("research"), encoding="utf-8")
    (tmp_path / "new.yaml").write_text(job_with_queue("production"), encoding="utf-8")
    old, new = str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")
    assert Code.K8S_UPDATE.value not in run_cli(["diff", "--kubernetes-version", "1.24", old, new]).stderr
    assert Code.K8S_UPDATE.value in run_cli(["diff", "--kubernetes-version", "1.25", old, new]).stderr


def test_the_json_and_markdown_reports_carry_the_refusal(tmp_path: Path) -> None:
    import json

    from jsonschema import Draft202012Validator

    from tests.conftest import REPO

    (tmp_path / "old.yaml").write_text(job_with_queue("research"), encoding="utf-8")
    text = job_with_queue("production")
    (tmp_path / "new.yaml").write_text(text, encoding="utf-8")
    sides = [str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")]
    result = run_cli(["diff", "--format", "json", *sides])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    schema = json.loads((REPO / "schemas" / "diff-v1.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator(schema).validate(report)
    [refused] = report["refused"]
    assert refused["code"] == Code.K8S_UPDATE.value and refused["line"] == _queue_line(text)
    assert refused["path"] == "spec.runPolicy.schedulingPolicy.queue"
    same = json.loads(run_cli(["diff", "--format", "json", sides[0], sides[0]]).stdout)
    assert "refused" not in same
    markdown = run_cli(["diff", "--format", "markdown", *sides]).stdout
    assert "**The API server would refuse 1 update(s) of this change:**" in markdown
    assert "- MXJ410 `" in markdown and "`spec.runPolicy.schedulingPolicy.queue`" in markdown


def test_committed_renderings_are_checked_too(tmp_path: Path) -> None:
    """Two rendered streams (the MXJob object kept as it is): the same finding, located in the new rendering."""
    for side, queue in (("old", "research"), ("new", "production")):
        (tmp_path / f"{side}.yaml").write_text(job_with_queue(queue), encoding="utf-8")
        rendered = run_cli(["render", str(tmp_path / f"{side}.yaml")])
        assert rendered.exit_code == 0, rendered.stderr
        (tmp_path / f"{side}-rendered.yaml").write_text(rendered.stdout, encoding="utf-8")
    result = run_cli(["diff", str(tmp_path / "old-rendered.yaml"), str(tmp_path / "new-rendered.yaml")])
    assert result.exit_code == 1 and Code.K8S_UPDATE.value in result.stderr, result.stderr
    assert "new-rendered.yaml:" in result.stderr
