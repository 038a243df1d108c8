"""The differential tier of issue "valid means the cluster accepts it": every edit of tests/kube_mutations.py,
judged by Kubernetes 1.36's own validation (core-validate), must be judged the same by `mxjob validate
--kubernetes-version 1.36`: nothing accepted that the server refuses, nothing refused that it accepts."""

from __future__ import annotations

import json
import pathlib
import subprocess
from typing import Any

import pytest
import yaml

from tests.conftest import run_cli
from tests.kube_mutations import Mutation, apply, catalog, version_gated
from tests.realcomp import realcomp_bin

REPO = pathlib.Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "single" / "mx_job_single_worker.yaml"


def _bases() -> dict[str, dict[str, Any]]:
    result = run_cli(["render", str(EXAMPLE)])
    assert result.exit_code == 0, result.stderr
    return {obj["kind"]: obj for obj in yaml.safe_load_all(result.stdout)}


def _stream(objects: list[dict[str, Any]]) -> str:
    """One JSON document per line, so that document i starts on line 2i+1."""
    return "---\n".join(json.dumps(obj) + "\n" for obj in objects)


def mxjob_refuses(path: pathlib.Path, count: int, version: str = "1.36", strict: bool = True) -> list[bool]:
    """Which of the `count` objects of a _stream file `mxjob validate --kubernetes-version VERSION` refuses."""
    mode = "--strict" if strict else "--no-strict"
    result = run_cli(["validate", "--kubernetes-version", version, mode, "--format", "json", str(path)])
    assert result.exit_code in (0, 1), result.stderr
    report = json.loads(result.stdout)
    refused = [False] * count
    for diagnostic in report["diagnostics"]:
        if diagnostic["severity"] == "error":
            refused[(diagnostic["line"] - 1) // 2] = True
    for resource in report["resources"]:
        if resource["status"] == "invalid":
            refused[(resource["origin"]["line"] - 1) // 2] = True
    return refused


def core_validate_errors(path: pathlib.Path) -> list[list[str]]:
    """core-validate's (Kubernetes 1.36.3's own validation) errors for each object of the file."""
    binary = realcomp_bin("core-validate")
    done = subprocess.run([str(binary), str(path)], capture_output=True, text=True, timeout=300, check=False)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return [line.get("errors") or [] for line in lines]


def test_catalog_is_large_enough() -> None:
    names = [name for name, _kind, _edits in catalog()]
    assert len(names) >= 150
    assert len(set(names)) == len(names)


def test_mxjob_validate_agrees_with_kubernetes_136(tmp_path: pathlib.Path) -> None:
    mutations = catalog()
    oracle, disagreements = _judge(mutations, tmp_path)
    assert disagreements == [], "\n".join(disagreements)
    # Both outcomes are well represented: the tier could not pass by accepting or refusing everything.
    assert 100 < sum(map(bool, oracle)) < len(oracle) - 50


def test_version_gated_edits_agree_with_kubernetes_136(tmp_path: pathlib.Path) -> None:
    """Ephemeral containers and pod-level resources (validated at 1.36; tests/realapi/test_kubevalidate_120.py
    has v1.20.2's verdict on the same edits)."""
    oracle, disagreements = _judge(version_gated(), tmp_path)
    assert disagreements == [], "\n".join(disagreements)
    assert 10 < sum(map(bool, oracle)) < len(oracle) - 3


def _judge(mutations: list[Mutation], tmp_path: pathlib.Path) -> tuple[list[list[str]], list[str]]:
    bases = _bases()
    objects = []
    for index, (_name, kind, edits) in enumerate(mutations):
        base = json.loads(json.dumps(bases[kind]))
        base["metadata"]["name"] = f"{base['metadata']['name']}-m{index}"
        objects.append(apply(base, edits))
    path = tmp_path / "mutations.yaml"
    path.write_text(_stream(objects), encoding="utf-8")
    oracle = core_validate_errors(path)
    assert len(oracle) == len(objects)
    ours = mxjob_refuses(path, len(objects))
    disagreements = [
        f"{name}: server {'refuses: ' + '; '.join(errors)[:300] if errors else 'accepts'}, mxjob "
        f"{'refuses' if refused else 'accepts'}"
        for (name, _kind, _edits), errors, refused in zip(mutations, oracle, ours, strict=True)
        if bool(errors) != refused
    ]
    return oracle, disagreements


@pytest.mark.parametrize("value", ["<GPU_LIMIT>", "two", "4GB", "1e999999999"])
def test_render_refuses_bad_quantity(tmp_path: pathlib.Path, value: str) -> None:
    job = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    container = job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    container["resources"] = {"limits": {"nvidia.com/gpu" if value.startswith("<") else "cpu": value}}
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(job), encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli(["render", str(path), "-o", str(out)])
    assert result.exit_code == 1, result.stderr
    assert "not a Kubernetes quantity" in result.stderr and f"{path}:" in result.stderr
    assert not out.exists() or not any(out.iterdir())
    assert run_cli(["validate", str(path)]).exit_code == 1
