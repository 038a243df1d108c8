"""Hostile names cannot reach a file name or a schema path: namespaces, names, kinds and a tampered index."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mxjob_gitops.compiler.rules.names import (
    dns1035_label,
    dns1123_label,
    dns1123_subdomain,
    name_problem,
    path_segment,
)
from tests.conftest import EXAMPLES, run_cli
from tests.helpers import job, replica


def _tree(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def _config_map(**metadata: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", **metadata}, "data": {"a": "b"}}


HOSTILE = {
    "pass-through namespace": _config_map(namespace="../../outside"),
    "job namespace": {**job(name="j", Worker=replica(1)), "metadata": {"name": "j", "namespace": "../../outside"}},
    "name with a slash": _config_map(name="../../outside"),
    "name with NUL": _config_map(name="a\0b"),
    "very long name": _config_map(name="a" * 5000),
    "absolute kind": {"apiVersion": "v1", "kind": "/etc/passwd", "metadata": {"name": "x"}},
    "very long kind": {"apiVersion": "v1", "kind": "K" * 5000, "metadata": {"name": "x"}},
    "apiVersion with dots": {"apiVersion": "../../v1", "kind": "ConfigMap", "metadata": {"name": "x"}},
    "namespace not a string": _config_map(namespace=["a"]),
    "generateName with a slash": {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "a/../"}},
}


@pytest.mark.parametrize("document", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_identities_are_located_errors_and_nothing_is_written(tmp_path: Path, document: dict[str, Any]) -> None:
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    (work / "in.json").write_text(json.dumps(document), encoding="utf-8")
    result = run_cli(["render", "-o", "out", "in.json"], cwd=work)
    assert result.exit_code == 1, result.stderr
    assert result.stdout == ""
    assert "MXJ007" in result.stderr or "MXJ201" in result.stderr
    assert "in.json:1:" in result.stderr
    assert _tree(tmp_path) == ["a", "a/b", "a/b/in.json"]
    checked = run_cli(["validate", "--format", "json", "in.json"], cwd=work)
    assert checked.exit_code == 1
    assert "root:" not in checked.stdout  # no schema file named by the input was opened


def test_validate_never_opens_a_schema_named_by_kind(tmp_path: Path) -> None:
    secret = tmp_path / "secret-v1.json"
    secret.write_text(json.dumps({"enum": ["TOP-SECRET-VALUE"]}), encoding="utf-8")
    document = {"apiVersion": "v1", "kind": str(tmp_path / "secret"), "metadata": {"name": "x"}}
    (tmp_path / "in.json").write_text(json.dumps(document), encoding="utf-8")
    result = run_cli(["validate", str(tmp_path / "in.json")])
    assert result.exit_code == 1
    assert "TOP-SECRET-VALUE" not in result.stdout + result.stderr


def test_rbac_names_with_colons_pass_through(tmp_path: Path) -> None:
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "system:aggregate-to-edit"},
        "rules": [],
    }
    (tmp_path / "in.json").write_text(json.dumps(role), encoding="utf-8")
    result = run_cli(["render", "-o", str(tmp_path / "out"), str(tmp_path / "in.json")])
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "out" / "clusterrole-system:aggregate-to-edit.yaml").is_file()


def test_a_tampered_index_cannot_remove_files_outside(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_cli(["render", "-o", str(out), str(EXAMPLES / "single")]).exit_code == 0
    victim = tmp_path / "victim.yaml"
    victim.write_text("keep me", encoding="utf-8")
    with (out / ".mxjob-render.index").open("a", encoding="utf-8") as index:
        index.write("../victim.yaml\n/etc/hostname\n..\n")
    assert run_cli(["render", "-o", str(out), str(EXAMPLES / "single")]).exit_code == 0
    assert victim.read_text(encoding="utf-8") == "keep me"


def test_the_namespace_flag_is_a_dns_label() -> None:
    result = run_cli(["render", "-n", "../../x", str(EXAMPLES / "single")])
    assert result.exit_code == 2 and result.stdout == ""


@pytest.mark.parametrize(
    ("rule", "good", "bad"),
    [
        (dns1123_label, ["a", "a-1", "9" * 63], ["", "A", "-a", "a-", "a.b", "a" * 64, "a\0"]),
        (dns1123_subdomain, ["a.b-c.d", "a" * 253], ["", "a..b", ".a", "a.", "A", "a/b", "a" * 254]),
        (dns1035_label, ["a", "a-1"], ["1a", "a_", "a.b", "a" * 64]),
        (path_segment, ["system:controller:x", "A_b"], [".", "..", "a/b", "a%2f", "a\0"]),
    ],
)
def test_name_rules(rule: Any, good: list[str], bad: list[str]) -> None:
    assert [g for g in good if rule(g)] == []
    assert [b for b in bad if not rule(b)] == []


def test_generate_name_may_end_with_a_dash() -> None:
    assert name_problem("Pod", "worker-", prefix=True) == ""
    assert name_problem("Pod", "worker-") != ""


def test_floats_in_integer_fields_are_located_errors_with_a_hint(tmp_path: Path) -> None:
    spec = job(
        name="f",
        Worker=replica(
            1, containers=[{"name": "mxnet", "image": "x", "ports": [{"name": "mxjob-port", "containerPort": 9091.0}]}]
        ),
    )
    spec["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] = 1.0
    (tmp_path / "in.yaml").write_text(json.dumps(spec, indent=1), encoding="utf-8")
    result = run_cli(["render", str(tmp_path / "in.yaml")])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.count("MXJ102") == 2
    assert "write 1:" in result.stderr and "write 9091:" in result.stderr
