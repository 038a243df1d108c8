"""spec/canonical.py walks only the parts of the schema where a value can change (a plan per schema node). Held here
to a walk that enters every node the schema describes (the walk before the plans), on every MXJob of the golden
inputs and examples that compiles, and on a job with a quantity in every place a pod spec can hold one; the real API
server holds the canonical form itself (tests/realapi/test_zero_drift.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from mxjob_gitops.compiler import parse_text
from mxjob_gitops.compiler.base.quantity import canonical_quantity
from mxjob_gitops.compiler.compile.job import compile_job
from mxjob_gitops.compiler.rules.schema import mxjob_schema
from mxjob_gitops.compiler.spec.canonical import FIXES, QUANTITY, _changed, _is_resource_list, _resolve, canonicalise
from mxjob_gitops.compiler.spec.convert import is_mxjob, to_v1
from mxjob_gitops.compiler.spec.normalise import normalise

ROOT = Path(__file__).resolve().parent.parent


def _every_node(value: Any, node: dict[str, Any], defs: dict[str, Any], owner: str, resource_list: bool) -> Any:
    """The reference: every map, list and scalar the schema describes is visited."""
    name, node = _resolve(node, defs)
    owner = name or owner
    if name == QUANTITY:
        return canonical_quantity(value, milli=resource_list)
    if isinstance(value, dict):
        properties = node.get("properties") or {}
        extra = node.get("additionalProperties")
        result = value
        for key, item in value.items():
            if key in properties:
                new = _every_node(item, properties[key], defs, owner, False)
            elif isinstance(extra, dict):
                new = _every_node(item, extra, defs, owner, _is_resource_list(owner, extra))
            else:
                continue
            if _changed(item, new):
                result = dict(result) if result is value else result
                result[key] = new
        return FIXES[name](result) if name in FIXES else result
    if isinstance(value, list) and isinstance(node.get("items"), dict):
        items = [_every_node(item, node["items"], defs, owner, False) for item in value]
        return items if any(_changed(a, b) for a, b in zip(value, items, strict=True)) else value
    return value


def _shape(value: Any, original: Any) -> Any:
    """The value as JSON text plus, for every map and list, whether it is the input's own object (shared)."""
    if isinstance(value, dict):
        own = isinstance(original, dict)
        return ["map", value is original, [(k, _shape(v, original.get(k) if own else None)) for k, v in value.items()]]
    if isinstance(value, list):
        own = isinstance(original, list) and len(original) == len(value)
        return ["list", value is original, [_shape(v, original[i] if own else None) for i, v in enumerate(value)]]
    return [type(value).__name__, json.dumps(value)]


def _compiled_jobs() -> list[tuple[str, dict[str, Any]]]:
    texts = [*sorted((ROOT / "tests" / "golden").glob("*/input*.yaml")), *sorted((ROOT / "examples").rglob("*.yaml"))]
    jobs = []
    for path in texts:
        parsed = parse_text(path.read_text(encoding="utf-8"), str(path))
        for document in parsed.documents:
            data = document.data
            if isinstance(data, dict) and is_mxjob(data) and compile_job(data).ok:
                conversion = to_v1(data)
                normalise(conversion)
                jobs.append((f"{path.relative_to(ROOT)}#{document.index}", conversion.data))
    return jobs


def _everywhere_job() -> dict[str, Any]:
    container = {
        "name": "mxnet",
        "image": "mxnet:1.9",
        "command": ["python"],
        "args": ["--a", "b"],
        "env": [{"name": "A", "value": ""}, {"name": "B", "value": "1"}],
        "ports": [{"name": "mxjob-port", "containerPort": 9091}, {"containerPort": 80, "protocol": "UDP"}],
        "resources": {"limits": {"cpu": "1.0001", "memory": "1024Mi"}, "requests": {"cpu": 0.5}},
    }
    spec = {
        "containers": [container],
        "initContainers": [{**container, "name": "init", "ports": []}],
        "overhead": {"cpu": "100m", "memory": "0.5Gi"},
        "volumes": [
            {"name": "scratch", "emptyDir": {"sizeLimit": "2048Mi"}},
            {
                "name": "claim",
                "ephemeral": {
                    "volumeClaimTemplate": {
                        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1.5Gi"}}}
                    }
                },
            },
        ],
    }
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "MXJob",
        "metadata": {"name": "everywhere", "labels": {"a": "b"}},
        "spec": {
            "jobMode": "MXTrain",
            "runPolicy": {"schedulingPolicy": {"minResources": {"cpu": "1.0001"}}},
            "mxReplicaSpecs": {
                "Scheduler": {"replicas": 1, "template": {"spec": copy.deepcopy(spec)}},
                "Worker": {"replicas": 2, "template": {"metadata": {"labels": {"x": "y"}}, "spec": spec}},
            },
        },
    }


CASES = [*_compiled_jobs(), ("a quantity everywhere", _everywhere_job())]


@pytest.mark.parametrize(("name", "data"), CASES, ids=[name for name, _ in CASES])
def test_the_plan_walk_equals_the_walk_of_every_node(name: str, data: dict[str, Any]) -> None:
    schema = mxjob_schema()
    before = copy.deepcopy(data)
    expected = _every_node(data, schema, schema["$defs"], "", False)
    got = canonicalise(data, schema)
    assert _shape(got, data) == _shape(expected, data), name
    assert data == before  # the input is never changed


def test_the_cases_hold_changes_and_shared_parts() -> None:
    """The comparison above can fail: the cases change quantities, env vars and ports, and share the rest."""
    schema = mxjob_schema()
    data = _everywhere_job()
    got = canonicalise(data, schema)
    worker, original = got["spec"]["mxReplicaSpecs"]["Worker"], data["spec"]["mxReplicaSpecs"]["Worker"]
    container = worker["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"] == {"cpu": "1001m", "memory": "1Gi"}
    assert container["resources"]["requests"] == {"cpu": "500m"}
    assert container["env"][0] == {"name": "A"}
    assert container["ports"][0]["protocol"] == "TCP"
    volumes = worker["template"]["spec"]["volumes"]
    assert volumes[0]["emptyDir"]["sizeLimit"] == "2Gi"
    assert volumes[1]["ephemeral"]["volumeClaimTemplate"]["spec"]["resources"]["requests"]["storage"] == "1536Mi"
    assert container["args"] is original["template"]["spec"]["containers"][0]["args"]
    assert worker["template"]["metadata"] is original["template"]["metadata"]
    assert got["metadata"] is data["metadata"]
    assert len(CASES) > 20
