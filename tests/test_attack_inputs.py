"""Malformed shapes that once ended in an internal error: every command answers with a located error instead."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import run_cli
from tests.helpers import container, job, replica


def _worker(**port: Any) -> dict[str, Any]:
    return job(name="j", Worker=replica(1, containers=[container(ports=[{"containerPort": 9091, **port}])]))


def _replicas(value: Any) -> dict[str, Any]:
    spec = job(name="j", Worker=replica(1))
    spec["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] = value
    return spec


_ALPHA1 = {
    "apiVersion": "kubeflow.org/v1alpha1",
    "kind": "MXJob",
    "metadata": {"name": "j"},
    "spec": {
        "jobMode": "dist",
        "replicaSpecs": [{"replicas": 1, "mxReplicaType": "SCHEDULER", "template": {"spec": {"containers": 63}}}],
    },
}
_GANG = job(name="j", Scheduler=replica(1), Server=replica(1), Worker=replica(1))
_GANG["spec"]["runPolicy"] = {"schedulingPolicy": {"minAvailable": 2.0}}

# Each document, written as indented JSON (one field per line), must be refused with a located error whose
# line is the given one: the field at fault, not the top of the file (None: any line; a converted v1alpha1
# field is located at its job's spec).
SHAPES: dict[str, tuple[Any, int | None]] = {
    "port name is a list": (_worker(name=["a", "b"]), 20),
    "port name is a mapping": (_worker(name={"a": "b"}), 20),
    "containerPort 9091.0": (_worker(name="mxjob-port", containerPort=9091.0), 19),
    "replicas 1.0": (_replicas(1.0), 21),
    "replicas 1e3": (_replicas(1e3), 21),
    "replicas true": (_replicas(True), 21),
    "minAvailable 2.0": (_GANG, 52),
    "v1alpha1 containers: 63": (_ALPHA1, None),
    "metadata is a list": ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": ["a"]}, 4),
    "metadata is text": ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": "x"}, 4),
    "a kind 100,000 long": ({"apiVersion": "v1", "kind": "K" * 100_000, "metadata": {"name": "x"}}, 3),
    "a name 100,000 long": ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a" * 100_000}}, 5),
    "a name with NUL": ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a\0b"}}, 5),
    "an MXJob name with NUL": (job(name="a\0b", Worker=replica(1)), 5),
    "a namespace with NUL": (
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "a\0b"}},
        6,
    ),
}


@pytest.mark.parametrize("command", ["render", "render-o", "validate", "convert", "diff"])
@pytest.mark.parametrize(("document", "line"), SHAPES.values(), ids=SHAPES.keys())
def test_malformed_shapes_are_located_errors(tmp_path: Path, command: str, document: Any, line: int | None) -> None:
    source = tmp_path / "in.yaml"
    source.write_text(json.dumps(document, indent=1), encoding="utf-8")
    args = {
        "render": ["render"],
        "render-o": ["render", "-o", str(tmp_path / "out")],
        "validate": ["validate"],
        "convert": ["convert"],
        "diff": ["diff", str(source)],
    }[command]
    result = run_cli([*args, str(source)])
    if command == "convert" and document.get("kind") == "MXJob" and result.exit_code == 0:
        return  # convert rewrites a spec without judging what the schema would refuse in it after conversion
    assert result.exit_code == (2 if command == "diff" else 1), result.stderr
    assert "internal error" not in result.stderr
    output = result.stdout + result.stderr
    assert re.search(rf"in\.yaml:{line or '[1-9][0-9]*'}:\d+: error MXJ", output), output[-2000:]
    if command == "diff":  # the report of what could be compared, the invalid file named in it
        assert "# not compared (errors in it, on stderr): " in result.stdout
    elif command != "validate":
        assert result.stdout == ""
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


@pytest.mark.parametrize(("document", "line"), SHAPES.values(), ids=SHAPES.keys())
def test_malformed_items_are_krm_error_results(document: Any, line: int | None) -> None:
    resource_list = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [document]}
    result = run_cli(["krm"], stdin=json.dumps(resource_list))
    assert result.exit_code == 1, result.stderr
    output = yaml.safe_load(result.stdout)
    assert output["items"] == [document]
    assert any(r["severity"] == "error" and r["message"].startswith("MXJ") for r in output["results"])


_CONTROLS = "".join(map(chr, [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), 0x2028, 0x2029, 0xFEFF, 0xFFFE]))


@pytest.mark.parametrize(
    "args", [["render", "--format", "json"], ["validate", "--format", "json"], ["convert", "--format", "json"]]
)
def test_json_output_escapes_every_control_character(tmp_path: Path, args: list[str]) -> None:
    """Raw C1 controls are valid JSON, but a YAML reader refuses the stream (JSON is read as YAML everywhere)."""
    document = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "x", "namespace": "bad\u0085ns" if "validate" in args else "ns"},
        "data": {"k": _CONTROLS},
    }
    source = tmp_path / "in.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    result = run_cli([*args, str(source)])
    assert result.exit_code == (1 if "validate" in args else 0), result.stderr
    assert not any(ch in result.stdout for ch in _CONTROLS.replace("\n", "")), "a raw control character"
    parsed = yaml.safe_load(result.stdout)  # the YAML reader accepts it and reads the same text back
    if "validate" not in args:
        assert parsed["items"][0]["data"]["k"] == _CONTROLS


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("a: 1\r\r\nb: [\r\n", 3),  # CR, then CR LF: two line breaks (YAML 1.2, production b-break)
        ("a: 1\r\nb: [\r\n", 2),
        ("a: 1\rb: [\r", 2),
        ('a: "x\u2028y"\nb: [\n', 2),  # LS, PS and NEL are no line breaks in YAML 1.2
        ('a: "x\u2029y\u0085z"\nb: [\n', 2),
    ],
)
def test_lines_are_counted_at_yaml_line_breaks_only(tmp_path: Path, text: str, line: int) -> None:
    (tmp_path / "in.yaml").write_bytes(text.encode("utf-8"))
    result = run_cli(["render", str(tmp_path / "in.yaml")])
    assert result.exit_code == 1
    assert re.search(rf"in\.yaml:{line + 1}:1: error MXJ001", result.stderr), result.stderr


def test_diff_base_reads_paths_that_hold_a_newline(tmp_path: Path) -> None:
    """`git cat-file --batch` reads one request per line: blobs are asked for by object id, never by path."""

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci", *args],
            cwd=tmp_path,
            check=True,
            capture_output=True,
        )

    def config_map(name: str, value: str) -> str:
        return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"v": value}})

    git("init", "-q", "-b", "main")
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "a").write_text(config_map("decoy", "1"), encoding="utf-8")
    (tmp_path / "jobs" / "a\nb.yaml").write_text(config_map("odd", "1"), encoding="utf-8")
    git("add", "-A")
    git("commit", "-qm", "one")
    (tmp_path / "jobs" / "a\nb.yaml").write_text(config_map("odd", "2"), encoding="utf-8")
    result = run_cli(["diff", "--base", "HEAD", "--format", "brief", "jobs"], cwd=tmp_path)
    assert (result.exit_code, result.stdout) == (1, "~ ConfigMap odd modified\n"), result.stderr
