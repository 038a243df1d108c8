"""One report style: every error has an MXJ code, a kubectl-style path, words without Python reprs, and a fix."""

from __future__ import annotations

import json
import re

import pytest

from mxjob_gitops.compiler.base.diagnostics import format_path, pointer_parts
from mxjob_gitops.compiler.compile.documents import compile_documents
from mxjob_gitops.compiler.read.source import parse_text
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.validate.validation import validate_plan
from tests.conftest import run_cli

# Hand-written objects and one MXJob, each with one kind of schema mistake.
BROKEN = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {retries: 3, verbose: true}
---
apiVersion: v1
kind: Pod
metadata: {name: hand}
spec:
  containers:
  - name: c
    image: x
    stdin: "yes"
    ports: [{containerPort: "80"}]
    resources: []
    args: {a: b}
---
apiVersion: kubeflow.org/v1
kind: MXJob
metadata: {name: job}
spec:
  jobMode: MXTrain
  mxReplicaSpecs:
    Scheduler:
      replicas: 1
      restartPolicy: Sometimes
      template: {spec: {containers: [{name: mxnet, image: m, tty: "no"}]}}
    Server:
      replicas: 1
      template: {spec: {containers: [{name: mxnet, image: m}]}}
    Worker:
      replicas: -2
      template: {spec: {containers: [{name: mxnet, image: m, env: [{name: A, value: 1}]}]}}
"""

# file:line:col: error MXJnnn [Kind/name] at a.b[0].c: message (hint)
LINE = re.compile(r"^<stdin>:\d+:\d+: error (MXJ\d{3}) (?:\w+/\S+ )?at ([\w.\[\]\"-]+): (.+) \((.+)\)$")
REPR = re.compile(r"'[^']*' is |True|False|None| is not of type|\[\]|\{\}")


def _errors() -> list[str]:
    result = run_cli(["validate", "-"], stdin=BROKEN)
    assert result.exit_code == 1, result.stdout + result.stderr
    return [line for line in result.stdout.splitlines() if " error " in line]


def test_every_error_line_has_code_path_and_hint_without_python_reprs() -> None:
    lines = _errors()
    assert len(lines) == 10, lines
    for line in lines:
        match = LINE.match(line)
        assert match, line
        assert not match.group(2).startswith("/"), line  # no JSON pointers next to dotted paths
        assert not REPR.search(match.group(3)), line


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        (
            "ConfigMap/settings at data.retries",
            "MXJ102 ConfigMap/settings at data.retries: retries must be a string or "
            'null, got integer 3 (quote it: "3")',
        ),
        (
            "Pod/hand at spec.containers[0].stdin",
            'stdin must be a boolean or null, got string "yes" (write true without quotes)',
        ),
        ("containerPort", 'containerPort must be an integer, got string "80" (write 80 without quotes)'),
        ("resources", "resources must be a mapping or null, got list (write it as key: value lines below the field)"),
        ("args", 'args must be a list or null, got mapping (write it as "- item" lines below the field, or [a, b])'),
        (
            "restartPolicy",
            'restartPolicy is "Sometimes", which is not an allowed value (use one of Always, OnFailure, '
            "Never, ExitCode)",
        ),
        ("tty", 'tty must be a boolean or null, got string "no" (write false without quotes)'),
        ("Worker.replicas", "replicas is -2, less than the minimum 0 (use 0 or more)"),
    ],
)
def test_messages_and_hints(fragment: str, expected: str) -> None:
    line = next((line for line in _errors() if fragment in line), "")
    assert expected in line, (fragment, line)


def test_mxj103_lists_the_allowed_values_once() -> None:
    line = next(line for line in _errors() if "restartPolicy" in line)
    assert line.count("OnFailure") == 1, line


def test_json_report_has_code_path_and_hint_for_object_findings() -> None:
    result = run_cli(["validate", "--format", "json", "-"], stdin=BROKEN)
    report = json.loads(result.stdout)
    findings = [e for r in report["resources"] for e in r["errors"]]
    assert findings and all(re.fullmatch(r"MXJ\d{3}", e["code"]) and e["hint"] for e in findings), findings
    assert {e["path"] for e in findings} >= {"data.retries", "spec.containers[0].ports[0].containerPort"}
    assert all(d["code"] and d["hint"] and not d["path"].startswith("/") for d in report["diagnostics"])


@pytest.mark.parametrize("fmt", ["junit", "tap", "github"])
def test_other_formats_carry_the_code_and_dotted_path(fmt: str) -> None:
    result = run_cli(["validate", "--format", fmt, "-"], stdin=BROKEN)
    assert "MXJ102" in result.stdout and "data.retries" in result.stdout and "/data/retries" not in result.stdout


def test_findings_are_values_with_codes() -> None:
    parsed = parse_text(BROKEN, "broken.yaml")
    plan = compile_documents(parsed.documents, RenderOptions(keep_rendered=True))
    results = list(validate_plan(plan, "1.35", strict=True))
    findings = [f for r in results for f in r.findings]
    assert findings and all(f.code.value.startswith("MXJ1") and f.hint and f.location for f in findings)


@pytest.mark.parametrize(
    ("pointer", "path"),
    [
        ("/spec/containers/0/image", "spec.containers[0].image"),
        ("/metadata/annotations/a~1b", 'metadata.annotations["a/b"]'),
        ("", ""),
    ],
)
def test_pointers_are_shown_as_paths(pointer: str, path: str) -> None:
    assert format_path(pointer_parts(pointer)) == path
