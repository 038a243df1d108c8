"""`mxjob validate`: offline strict schemas, every error located, five reporters, kubeconform when present."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mxjob_gitops.compiler.validate.kubeschema import (
    _fast_validator,
    _kubernetes_validator,
    available_versions,
    resolve_version,
)
from tests.conftest import EXAMPLES, JOB_EXAMPLE_DIRS, REPO, run_cli

HAND_WRITTEN = """apiVersion: v1
kind: Pod
metadata:
  name: hand
spec:
  containers:
  - name: c
    image: busybox
    imagePullPolicyy: Always
    ports:
    - containerPort: eighty
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
"""
MISSPELT_JOB = (REPO / "tests" / "golden" / "invalid-three-mistakes" / "input.yaml").read_text(encoding="utf-8")


def test_examples_are_valid() -> None:
    result = run_cli(["validate", *map(str, JOB_EXAMPLE_DIRS)])
    assert result.exit_code == 0, result.stdout
    assert "0 invalid" in result.stdout


def test_misspelt_container_field_is_located_at_its_key() -> None:
    result = run_cli(["validate", "-"], stdin=MISSPELT_JOB)
    assert result.exit_code == 1
    assert (
        "<stdin>:21:13: error MXJ101 at spec.mxReplicaSpecs.Server.template.spec.containers[0]."
        "imagePullPolicyy: unknown field 'imagePullPolicyy' (did you mean 'imagePullPolicy'?)"
    ) in result.stdout


def test_hand_written_objects_are_checked_and_located() -> None:
    result = run_cli(["validate", "-"], stdin=HAND_WRITTEN)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "<stdin>:9:5: error MXJ101 Pod/hand at spec.containers[0].imagePullPolicyy: unknown field "
        "'imagePullPolicyy' (did you mean 'imagePullPolicy'?)"
    )
    assert lines[1] == (
        "<stdin>:11:22: error MXJ102 Pod/hand at spec.containers[0].ports[0].containerPort: "
        'containerPort must be an integer, got string "eighty" (write an integer)'
    )
    assert "0 valid, 1 invalid, 1 skipped" in lines[-1]


def test_no_strict_accepts_unknown_fields() -> None:
    result = run_cli(["validate", "--no-strict", "-"], stdin=HAND_WRITTEN.replace("eighty", "80"))
    assert result.exit_code == 0, result.stdout


@pytest.mark.parametrize("version", ["1.19", "2.0", "latest"])
def test_unavailable_kubernetes_version_is_a_usage_error(version: str) -> None:
    result = run_cli(["validate", "--kubernetes-version", version, str(EXAMPLES)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "available" in result.stderr and "Traceback" not in result.stderr


def test_version_resolution() -> None:
    assert resolve_version("v1.30.4") == "1.30"
    assert available_versions()[0] == "1.20"


def test_junit_is_well_formed_xml() -> None:
    result = run_cli(["validate", "--format", "junit", "-"], stdin=HAND_WRITTEN)
    assert result.exit_code == 1
    suite = ET.fromstring(result.stdout.split("\n", 1)[1])
    assert suite.tag == "testsuite"
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "1")
    failure = suite.find("testcase[@name='Pod/hand']/failure")
    assert failure is not None and "imagePullPolicyy" in (failure.text or "")


def test_json_always_has_a_summary() -> None:
    valid = json.loads(run_cli(["validate", "--format", "json", str(EXAMPLES / "train")]).stdout)
    assert valid["summary"]["ok"] is True and valid["summary"]["valid"] == 8
    invalid = json.loads(run_cli(["validate", "--format", "json", "-"], stdin=MISSPELT_JOB).stdout)
    assert invalid["summary"]["inputErrors"] == 3
    assert {d["code"] for d in invalid["diagnostics"]} == {"MXJ101", "MXJ103", "MXJ206"}


def test_tap_and_github() -> None:
    tap = run_cli(["validate", "--format", "tap", "-"], stdin=HAND_WRITTEN).stdout.splitlines()
    assert tap[:3] == ["TAP version 13", "1..2", "not ok 1 - Pod/hand"]
    assert "ok 2 - Widget/w # SKIP no schema for example.com/v1" in tap
    github = run_cli(["validate", "--format", "github", "-"], stdin=MISSPELT_JOB).stdout.splitlines()
    assert github[0].startswith("::error title=mxjob MXJ103::spec.mxReplicaSpecs.Scheduler.restartPolicy")


def test_github_annotations_point_at_files(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(MISSPELT_JOB, encoding="utf-8")
    github = run_cli(["validate", "--format", "github", str(path)]).stdout.splitlines()
    assert github[1].startswith(f"::error file={path},line=21,col=13,title=mxjob MXJ101::")


def test_validators_are_built_once_per_kind() -> None:
    _fast_validator.cache_clear()
    _kubernetes_validator.cache_clear()
    jobs = "\n---\n".join(
        (EXAMPLES / "train" / "mx_job_dist_gpu.yaml").read_text(encoding="utf-8").replace("mxnet-job", f"job-{i}")
        for i in range(20)
    )
    assert run_cli(["validate", "-"], stdin=jobs).exit_code == 0
    fast = _fast_validator.cache_info()
    assert fast.misses == 4 and fast.hits > 100  # ConfigMap, Service, Pod, MXJob
    assert _kubernetes_validator.cache_info().misses == 0  # valid objects never need the explaining validator


def _fake_kubeconform(folder: Path, output: dict[str, object]) -> None:
    script = folder / "kubeconform"
    script.write_text(
        "#!/bin/sh\n"
        'printf "%s\\n" "$@" > "$(dirname "$0")/args"\n'
        f"cat <<'JSON'\n{json.dumps(output)}\nJSON\nexit 1\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def test_kubeconform_findings_are_merged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_kubeconform(
        tmp_path,
        {
            "resources": [
                {
                    "filename": "rendered.yaml",
                    "kind": "Pod",
                    "name": "mnist-single-worker-0",
                    "version": "v1",
                    "status": "statusInvalid",
                    "msg": "",
                    "validationErrors": [{"path": "/spec/x", "msg": "bad x"}],
                },
                {
                    "filename": "rendered.yaml",
                    "kind": "Service",
                    "name": "mnist-single-worker-0",
                    "version": "v1",
                    "status": "statusValid",
                },
            ],
            "summary": {"valid": 1, "invalid": 1},
        },
    )
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    result = run_cli(["validate", "--kubeconform", str(EXAMPLES / "single")])
    assert result.exit_code == 1
    assert (
        "error MXJ109 Pod/training/mnist-single-worker-0 at spec.x: bad x (kubeconform's finding against its "
        "schema location) [kubeconform]"
    ) in result.stdout
    args = (tmp_path / "args").read_text(encoding="utf-8").splitlines()
    assert "-strict" in args and "1.35.0" in args
    assert args[args.index("-schema-location", args.index("-schema-location") + 1) + 1].endswith(
        "kubeconform/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json"
    )


def test_kubeconform_missing_is_a_clear_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    result = run_cli(["validate", "--kubeconform", str(EXAMPLES / "single")])
    assert result.exit_code == 2
    assert "no kubeconform binary on PATH" in result.stderr


def test_rendered_stream_piped_into_validate_is_valid() -> None:
    """`mxjob render job.yaml | mxjob validate -`: the rendered MXJob is checked, not expanded a second time."""
    env = {**os.environ, "NO_COLOR": "1"}
    mxjob = str(Path(sys.executable).with_name("mxjob"))
    job = str(EXAMPLES / "train" / "mx_job_dist_gpu.yaml")
    rendered = subprocess.run([mxjob, "render", job], capture_output=True, text=True, env=env, check=True).stdout
    result = subprocess.run([mxjob, "validate", "-"], input=rendered, capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "MXJ210" not in result.stdout + result.stderr
    assert "0 invalid" in result.stdout


def test_render_output_directory_is_valid(tmp_path: Path) -> None:
    """The Flux pattern: a committed `render -o` directory validates as it is."""
    out = tmp_path / "rendered"
    assert run_cli(["render", "-o", str(out), *map(str, JOB_EXAMPLE_DIRS)]).exit_code == 0
    result = run_cli(["validate", str(out)])
    assert result.exit_code == 0, result.stdout
    assert "0 invalid" in result.stdout and "MXJ210" not in result.stdout
