"""Kubernetes 1.20 to 1.24 ship as bundles converted from older kubernetes-validate releases
(schemas/legacy_bundles.py, which proves its conversion on four versions before writing): they load, they are in
the current form, and they describe the API of their own version."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from mxjob_gitops.compiler.validate.kubeschema import _by_kind, available_versions
from tests.conftest import REPO, run_cli
from tests.helpers import schema_script

LEGACY = ("1.20", "1.21", "1.22", "1.23", "1.24")


def _module() -> Any:
    return schema_script("legacy_bundles")


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        return {v for k, v in node.items() if k == "$ref" and isinstance(v, str)} | {
            ref for v in node.values() for ref in _refs(v)
        }
    return {ref for v in node for ref in _refs(v)} if isinstance(node, list) else set()


@pytest.mark.parametrize("version", LEGACY)
def test_each_legacy_bundle_is_in_the_current_form(version: str) -> None:
    assert version in available_versions()
    path = REPO / "schemas" / "kubernetes" / f"v{version}-strict.json.gz"
    definitions = json.loads(gzip.decompress(path.read_bytes()))
    assert all(ref.startswith("#/$defs/") and ref[8:] in definitions for ref in _refs(definitions))
    for kind, api in (("Pod", "v1"), ("Service", "v1"), ("ConfigMap", "v1")):
        name = _by_kind(version)[("", api, kind)]
        properties = definitions[name]["properties"]
        assert properties["kind"]["enum"] == [kind] and properties["apiVersion"]["enum"] == [api]
    port = definitions["io.k8s.api.core.v1.ContainerPort"]
    assert port["properties"]["containerPort"]["type"] == "integer"  # required: not nullable
    assert port["properties"]["name"]["type"] == ["string", "null"]  # optional: nullable


def test_the_conversion_on_a_fragment_of_the_older_form() -> None:
    old = {
        "io.k8s.api.core.v1.Thing": {
            "required": ["name"],
            "type": "object",
            "properties": {
                "apiVersion": {"type": "string"},
                "kind": {"type": "string"},
                "name": {"type": "string"},
                "items": {"type": "array", "items": {"$ref": "#/definitions/io.k8s.api.core.v1.Other"}},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "Thing"}],
        },
        "io.k8s.apimachinery.pkg.api.resource.Quantity": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
    }
    new = _module().modernise(old)
    thing = new["io.k8s.api.core.v1.Thing"]
    assert thing["type"] == ["object", "null"]
    assert thing["properties"]["name"] == {"type": "string"}
    assert thing["properties"]["apiVersion"] == {"type": ["string", "null"], "enum": ["v1"]}
    assert thing["properties"]["kind"] == {"type": ["string", "null"], "enum": ["Thing"]}
    assert thing["properties"]["items"]["items"] == {"$ref": "#/$defs/io.k8s.api.core.v1.Other"}
    assert thing["properties"]["tags"] == {"type": ["array", "null"], "items": {"type": ["string", "null"]}}
    quantity = new["io.k8s.apimachinery.pkg.api.resource.Quantity"]["oneOf"]
    assert quantity == [{"type": ["string", "null"]}, {"type": ["number", "null"]}]


@pytest.mark.parametrize(("version", "known"), [("1.20", False), ("1.22", False), ("1.23", True), ("1.24", True)])
def test_a_field_added_in_1_23_is_unknown_before_it(version: str, known: bool, tmp_path: Path) -> None:
    """PodSpec.os arrived in Kubernetes 1.23: strict validation at an older version calls it an unknown field."""
    rendered = run_cli(["render", str(REPO / "examples" / "train" / "mx_job_dist_gpu.yaml")])
    pods = [obj for obj in yaml.safe_load_all(rendered.stdout) if obj["kind"] == "Pod"]
    pods[0]["spec"]["os"] = {"name": "linux"}
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(pods[0]), encoding="utf-8")
    result = run_cli(["validate", "--kubernetes-version", version, str(path)])
    assert (result.exit_code == 0) is known, result.stdout + result.stderr
    if not known:
        assert "MXJ101" in result.stdout and "spec.os" in result.stdout, result.stdout
