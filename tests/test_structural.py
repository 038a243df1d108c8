"""The API server's structural-schema rules (schemas/structural.py): our CRD passes, and each rule rejects a breach."""

from __future__ import annotations

import copy
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
import yaml

from tests.conftest import REPO
from tests.helpers import schema_script

SCHEMAS = REPO / "schemas"
CRD = SCHEMAS / "crd" / "kubeflow.org_mxjobs.yaml"


def _module() -> ModuleType:
    return schema_script("structural")


structural = _module()


def _crd_schema() -> dict[str, Any]:
    crd = yaml.safe_load(CRD.read_text(encoding="utf-8"))
    schema: dict[str, Any] = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    return schema


def _rules(schema: dict[str, Any]) -> set[str]:
    return {violation.rule for violation in structural.check(schema)}


def _obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def _ports(item_extra: dict[str, Any] | None = None, **port: Any) -> dict[str, Any]:
    """A root schema with one list-map `ports` keyed by containerPort and protocol (the Pod's shape)."""
    item = {
        "type": "object",
        "required": ["containerPort"],
        "properties": {"containerPort": {"type": "integer"}, "protocol": {"type": "string", **port}},
        **(item_extra or {}),
    }
    return _obj(
        spec=_obj(
            ports={
                "type": "array",
                "items": item,
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
            }
        )
    )


def test_the_shipped_crd_obeys_every_rule() -> None:
    assert structural.check(_crd_schema()) == []


def test_the_shipped_crd_keeps_printer_columns_status_and_the_training_operator_rules() -> None:
    version = yaml.safe_load(CRD.read_text(encoding="utf-8"))["spec"]["versions"][0]
    assert version["subresources"] == {"status": {}}
    assert [c["name"] for c in version["additionalPrinterColumns"]] == ["State", "Mode", "Age"]
    run_policy = version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["runPolicy"]["properties"]
    assert run_policy["suspend"]["default"] is False
    assert run_policy["activeDeadlineSeconds"] == {
        "type": "integer",
        "format": "int64",
        "minimum": 0,
        "description": "Seconds the job may run before it is failed.",
    }
    queue = run_policy["schedulingPolicy"]["properties"]["queue"]
    assert queue["x-kubernetes-validations"] == [
        {"rule": "self == oldSelf", "message": "spec.runPolicy.schedulingPolicy.queue is immutable"}
    ]


def _broken(edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    schema = _ports(default="TCP")
    edit(schema)
    return schema


def _ports_node(schema: dict[str, Any]) -> dict[str, Any]:
    node: dict[str, Any] = schema["properties"]["spec"]["properties"]["ports"]
    return node


BREACHES: dict[str, Callable[[dict[str, Any]], None]] = {
    "root-object": lambda s: s.update(type="array"),
    "status-root": lambda s: s.update(anyOf=[{"required": ["spec"]}]),
    "root-metadata": lambda s: s["properties"].update(metadata=_obj(labels={"type": "object"})),
    "nullable": lambda s: s.update(nullable=True),
    "stored-keys": lambda s: _ports_node(s).update({"x-kubernetes-patch-merge-key": "containerPort"}),
    "unsupported-keyword": lambda s: s["properties"].update(ref={"$ref": "#/definitions/x"}),
    "preserve-unknown-fields": lambda s: s["properties"].update(
        blob={"type": "object", "x-kubernetes-preserve-unknown-fields": False}
    ),
    "properties-exclusive": lambda s: s["properties"]["spec"].update(additionalProperties=False),
    "type-required": lambda s: s["properties"].update(untyped={"description": "no type"}),
    "items-required": lambda s: s["properties"].update(args={"type": "array"}),
    "int-or-string": lambda s: s["properties"].update(
        port={"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "number"}]}
    ),
    "embedded-resource": lambda s: s["properties"].update(
        inner={"type": "object", "x-kubernetes-embedded-resource": True}
    ),
    "value-validation-only": lambda s: s["properties"].update(
        either={"type": "string", "anyOf": [{"type": "string", "description": "typed"}]}
    ),
    "list-type": lambda s: _ports_node(s).update({"x-kubernetes-list-map-keys": ["containerPort", "missing"]}),
    "map-type": lambda s: s["properties"].update(tags={"type": "string", "x-kubernetes-map-type": "atomic"}),
    "list-items-not-nullable": lambda s: _ports_node(s)["items"].update(nullable=True),
    "set-items-atomic": lambda s: s["properties"].update(
        refs={"type": "array", "x-kubernetes-list-type": "set", "items": _obj(name={"type": "string"})}
    ),
    "map-keys-required-or-defaulted": lambda s: _ports_node(s)["items"]["properties"]["protocol"].pop("default"),
    "map-keys-not-nullable": lambda s: _ports_node(s)["items"]["properties"]["protocol"].update(nullable=True),
    "defaults-valid": lambda s: _ports_node(s)["items"]["properties"]["protocol"].update(
        default=6, enum=["TCP", "UDP"]
    ),
    "defaults-pruned": lambda s: s["properties"].update(
        limits=dict(_obj(cpu={"type": "string"}), default={"cpu": "1", "gpu": "1"})
    ),
    "bounds-float64": lambda s: s["properties"].update(deadline={"type": "integer", "maximum": 2**63 - 1}),
}


def test_every_rule_has_a_breach() -> None:
    assert set(BREACHES) == {
        "root-object",
        "status-root",
        "root-metadata",
        "nullable",
        "stored-keys",
        "unsupported-keyword",
        "preserve-unknown-fields",
        "properties-exclusive",
        "type-required",
        "items-required",
        "int-or-string",
        "embedded-resource",
        "value-validation-only",
        "list-type",
        "map-type",
        "list-items-not-nullable",
        "set-items-atomic",
        "map-keys-required-or-defaulted",
        "map-keys-not-nullable",
        "defaults-valid",
        "defaults-pruned",
        "bounds-float64",
    }


def test_the_unbroken_example_passes() -> None:
    assert structural.check(_ports(default="TCP")) == []


@pytest.mark.parametrize("rule", sorted(BREACHES))
def test_each_rule_rejects_its_breach(rule: str) -> None:
    assert rule in _rules(_broken(BREACHES[rule]))


@pytest.mark.parametrize(
    "path",
    [
        ("spec", "mxReplicaSpecs", "*", "template", "spec", "containers", "[]", "ports"),
        ("spec", "mxReplicaSpecs", "*", "template", "spec", "imagePullSecrets"),
    ],
)
def test_breaking_the_shipped_crd_is_caught(path: tuple[str, ...]) -> None:
    """The regression that kept the CRD out of every cluster: nullable items of a map list."""
    schema = copy.deepcopy(_crd_schema())
    node = schema
    for part in path:
        node = (
            node["additionalProperties"] if part == "*" else node["items"] if part == "[]" else node["properties"][part]
        )
    node["items"]["nullable"] = True
    assert "list-items-not-nullable" in _rules(schema)
