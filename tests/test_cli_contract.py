"""Exit codes, stdout/stderr discipline and located errors for the CLI, as a table of named cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, run_cli
from tests.helpers import job, replica

VALID = json.dumps(job(name="ok", Worker=replica()))


@pytest.mark.parametrize(
    ("name", "args", "stdin", "code"),
    [
        ("valid file", ["render", str(EXAMPLES / "train" / "mx_job_dist_gpu.yaml")], None, 0),
        ("valid directory", ["render", str(EXAMPLES / "train")], None, 0),
        ("valid stdin", ["render", "-"], VALID, 0),
        ("invalid spec", ["render", "-"], VALID.replace('"Worker"', '"Workers"'), 1),
        ("yaml syntax error", ["render", "-"], "a: [", 1),
        ("not utf-8", ["render", "-"], b"\xff\xfe\x00", 1),
        ("missing path", ["render", "does-not-exist.yaml"], None, 2),
        ("no paths", ["render"], None, 2),
        ("empty stream", ["render", "-"], "---\n", 2),
        ("unknown flag", ["render", "--frobnicate", "-"], VALID, 2),
        ("bad format", ["render", "--format", "xml", "-"], VALID, 2),
        ("bad namespace", ["render", "-n", "Not_Valid", "-"], VALID, 2),
        ("stdin twice", ["render", "-", "-"], VALID, 2),
        ("convert valid", ["convert", "-"], VALID, 0),
        ("unknown command", ["frobnicate"], None, 2),
    ],
)
def test_exit_codes(name: str, args: list[str], stdin: str | None, code: int) -> None:
    result = run_cli(args, stdin=stdin)
    assert result.exit_code == code, (name, result.stderr)
    if code != 0:
        assert result.stdout == "", f"{name}: nothing may be printed on stdout on failure"
    assert "Traceback" not in result.stderr


def test_three_mistakes_three_located_errors() -> None:
    spec = """apiVersion: kubeflow.org/v1
kind: MXJob
metadata:
  name: m
spec:
  jobMode: MXTrain
  mxReplicaSpecs:
    Worker:
      replicas: -1
      restartPolicy: Nevr
      template:
        spec:
          containers:
          - name: mxnet
            image: ""
"""
    result = run_cli(["render", "-"], stdin=spec)
    assert result.exit_code == 1
    assert result.stdout == ""
    errors = [line for line in result.stderr.splitlines() if " error " in line]
    assert errors == [
        "<stdin>:9:17: error MXJ105 at spec.mxReplicaSpecs.Worker.replicas: replicas is -1, less than the minimum 0 "
        "(use 0 or more)",
        '<stdin>:10:22: error MXJ103 at spec.mxReplicaSpecs.Worker.restartPolicy: restartPolicy is "Nevr", which is '
        "not an allowed value (did you mean 'Never'?)",
        "<stdin>:15:20: error MXJ207 at spec.mxReplicaSpecs.Worker.template.spec.containers[0].image: container "
        "'mxnet' has no image (set image)",
    ]


def test_errors_in_several_files_are_all_reported(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(VALID.replace('"ok"', '"Bad"'), encoding="utf-8")
    (tmp_path / "b.yaml").write_text("x: [", encoding="utf-8")
    (tmp_path / "c.yaml").write_text(VALID, encoding="utf-8")
    result = run_cli(["render", str(tmp_path)])
    assert result.exit_code == 1
    assert "a.yaml:1:" in result.stderr and "MXJ201" in result.stderr
    assert "b.yaml:1:5: error MXJ001" in result.stderr  # the end of its one line, not a line after it


def test_warnings_go_to_stderr_and_quiet_hides_them() -> None:
    flat = VALID.replace('"jobMode"', '"backoffLimit": 2, "jobMode"')
    loud = run_cli(["render", "-"], stdin=flat)
    assert loud.exit_code == 0 and "warning MXJ304" in loud.stderr
    quiet = run_cli(["render", "-q", "-"], stdin=flat)
    assert quiet.exit_code == 0 and quiet.stderr == "" and quiet.stdout == loud.stdout


def test_duplicate_objects_are_errors() -> None:
    result = run_cli(["render", "-"], stdin=VALID + "\n---\n" + VALID)
    assert result.exit_code == 1
    assert "MXJ210" in result.stderr


def test_unsupported_version_is_located() -> None:
    result = run_cli(["render", "-"], stdin=VALID.replace("kubeflow.org/v1", "kubeflow.org/v2"))
    assert result.exit_code == 1
    assert "<stdin>:1:16: error MXJ006 at apiVersion" in result.stderr


def test_help_lists_the_commands() -> None:
    result = run_cli(["--help"])
    assert result.exit_code == 0
    assert "render" in result.stdout and "convert" in result.stdout


def test_every_code_is_documented() -> None:
    from mxjob_gitops.compiler.base.diagnostics import Code
    from tests.conftest import REPO

    documented = (REPO / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    assert [c.value for c in Code if f"| {c.value} |" not in documented] == []


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("name: workflow\non: push\n", "not a Kubernetes object: no apiVersion, kind, metadata.name"),
        ("apiVersion: v1\nkind: List\nitems: [3]\n", "at items[0]: a int where a Kubernetes object belongs"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n", "not a Kubernetes object: no metadata.name"),
    ],
)
def test_documents_that_are_not_objects_are_errors(stdin: str, message: str) -> None:
    result = run_cli(["render", "-"], stdin=stdin)
    assert result.exit_code == 1 and result.stdout == ""
    assert "error MXJ004" in result.stderr and message in result.stderr
