"""compiler.kubevalidate: the issue's examples refused with located errors in render and validate, rules that
follow --kubernetes-version, and a hypothesis strategy of names and values judged by Kubernetes 1.36 itself."""

from __future__ import annotations

import json
import pathlib
import subprocess

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.rules.kubevalidate import check_object
from tests.conftest import run_cli
from tests.realcomp import realcomp_bin
from tests.test_kubevalidate_differential import EXAMPLE, _bases

JOB = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))


def _job_with(tmp_path: pathlib.Path, **template_spec: object) -> pathlib.Path:
    job = json.loads(json.dumps(JOB))
    job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"].update(template_spec)
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(job, sort_keys=False), encoding="utf-8")
    return path


def test_ephemeral_volume_storage_is_a_located_error(tmp_path: pathlib.Path) -> None:
    claim = {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "lots"}}}}
    path = _job_with(tmp_path, volumes=[{"name": "scratch", "ephemeral": {"volumeClaimTemplate": claim}}])
    result = run_cli(["render", str(path)])
    assert result.exit_code == 1 and result.stdout == ""
    assert "not a Kubernetes quantity" in result.stderr and "requests.storage" in result.stderr
    assert f"{path}:" in result.stderr


@pytest.mark.parametrize(("version", "refused"), [("1.25", True), ("1.31", True), ("1.32", False), ("1.36", False)])
def test_env_var_names_follow_the_version(tmp_path: pathlib.Path, version: str, refused: bool) -> None:
    job = json.loads(json.dumps(JOB))
    container = job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    container["env"] = [{"name": "1-LEADING-DIGIT", "value": "x"}]
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(job), encoding="utf-8")
    result = run_cli(["validate", "--kubernetes-version", version, str(path)])
    assert ("MXJ403" in result.stdout + result.stderr) is refused
    assert result.exit_code == (1 if refused else 0)


def test_service_names_follow_the_version() -> None:
    service = _bases()["Service"]
    service["metadata"]["name"] = "1abc"
    assert check_object(service, "1.36") == []
    assert [d.path for d in check_object(service, "1.35")] == [("metadata", "name")]


_TEXT = st.text(alphabet='aZ0-_./= "é', min_size=0, max_size=70)


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["label", "port", "volume", "env", "annotation", "cm"]), _TEXT), min_size=40))
def test_random_names_are_judged_as_kubernetes_136_judges_them(edits: list[tuple[str, str]]) -> None:
    bases = _bases()
    objects = []
    for index, (where, text) in enumerate(edits):
        kind = "ConfigMap" if where == "cm" else "Pod"
        obj = json.loads(json.dumps(bases[kind]))
        obj["metadata"]["name"] = f"h{index}"
        container = obj["spec"]["containers"][0] if kind == "Pod" else {}
        if where == "label":
            obj["metadata"]["labels"] = {text or "k": text}
        elif where == "annotation":
            obj["metadata"]["annotations"] = {text: "v"}
        elif where == "port":
            container["ports"] = [{"name": text, "containerPort": 80}] if text else []
        elif where == "volume":
            obj["spec"]["volumes"] = [{"name": text, "emptyDir": {}}]
        elif where == "env":
            container["env"] = [{"name": text, "value": "v"}]
        else:
            obj["data"] = {text: "v"}
        objects.append(obj)
    stream = "---\n".join(json.dumps(obj) + "\n" for obj in objects)
    done = subprocess.run(
        [str(realcomp_bin("core-validate"))], input=stream, capture_output=True, text=True, timeout=120, check=False
    )
    oracle = [bool(json.loads(line).get("errors")) for line in done.stdout.splitlines() if line.strip()]
    ours = [bool(check_object(obj, "1.36")) for obj in objects]
    assert len(oracle) == len(objects)
    wrong = [(edit, o) for edit, o, m in zip(edits, oracle, ours, strict=True) if o != m]
    assert wrong == []
