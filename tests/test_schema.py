"""schemas/ is exactly what schemas/generate.py produces; the CRD's schema agrees with the input schema."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import yaml
from jsonschema import Draft202012Validator

from mxjob_gitops.compiler.rules.schema import mxjob_schema
from tests.conftest import REPO
from tests.helpers import schema_script

SCHEMAS = REPO / "schemas"


def _load(name: str) -> ModuleType:
    return schema_script(name)


def test_committed_schemas_match_the_generator() -> None:
    generated = _load("generate").build_files()
    assert len(generated) == 5
    for relative, text in generated.items():
        committed = (SCHEMAS / relative).read_text(encoding="utf-8")
        assert committed == text, f"schemas/{relative} is stale: run `python schemas/generate.py`"


def test_schemas_are_valid_and_strict() -> None:
    schema = mxjob_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["additionalProperties"] is False
    assert schema["$defs"]["ReplicaSpec"]["additionalProperties"] is False
    assert schema["$defs"]["io.k8s.api.core.v1.Container"]["additionalProperties"] is False
    for path in (SCHEMAS / "kubeconform").rglob("*.json"):
        Draft202012Validator.check_schema(yaml.safe_load(path.read_text(encoding="utf-8")))


def _crd_schema() -> dict[str, Any]:
    crd = yaml.safe_load((SCHEMAS / "crd" / "kubeflow.org_mxjobs.yaml").read_text(encoding="utf-8"))
    version = crd["spec"]["versions"][0]
    assert version["subresources"] == {"status": {}}
    assert [c["name"] for c in version["additionalPrinterColumns"]] == ["State", "Mode", "Age"]
    schema: dict[str, Any] = version["schema"]["openAPIV3Schema"]
    return schema


def _resolve(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = {**defs[node["$ref"].rsplit("/", 1)[-1]], **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _compare(ours: dict[str, Any], crd: dict[str, Any], defs: dict[str, Any], path: str, seen: list[str]) -> None:
    ours = _resolve(ours, defs)
    seen.append(path)
    if "enum" in ours or "const" in ours:
        assert crd.get("enum") == ours.get("enum", [ours.get("const")]), path
    if isinstance(ours.get("type"), str):
        assert crd.get("type") == ours["type"], path
    assert sorted(crd.get("required", [])) == sorted(ours.get("required", [])), path
    assert set(crd.get("properties", {})) == set(ours.get("properties", {})), path
    for name, sub in ours.get("properties", {}).items():
        _compare(sub, crd["properties"][name], defs, f"{path}.{name}", seen)
    if isinstance(ours.get("additionalProperties"), dict):
        _compare(ours["additionalProperties"], crd["additionalProperties"], defs, f"{path}.*", seen)
    if isinstance(ours.get("items"), dict):
        _compare(ours["items"], crd["items"], defs, f"{path}[]", seen)


def test_crd_schema_agrees_with_the_input_schema() -> None:
    ours = mxjob_schema()
    crd = _crd_schema()
    seen: list[str] = []
    _compare(ours["properties"]["spec"], crd["properties"]["spec"], ours["$defs"], "spec", seen)
    _compare(ours["properties"]["status"], crd["properties"]["status"], ours["$defs"], "status", seen)
    assert "spec.mxReplicaSpecs.*.template.spec.containers[].ports[].containerPort" in seen
    assert len(seen) > 500


def test_crd_schema_accepts_every_example() -> None:
    from tests.conftest import JOB_EXAMPLE_FILES

    validator = Draft202012Validator(_crd_schema())
    for path in JOB_EXAMPLE_FILES:
        for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if document and document.get("kind") == "MXJob":
                assert list(validator.iter_errors(document)) == [], path
