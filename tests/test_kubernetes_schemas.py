"""Rendered objects are valid Kubernetes objects: strict OpenAPI schemas (kubernetes-validate, offline)."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from compiler import RenderOptions, Target
from compiler.schema import mxjob_schema
from tests.conftest import JOB_EXAMPLE_FILES, REPO
from tests.helpers import render

KUBERNETES_VERSION = "1.35.0"
SCHEMAS = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema" / f"v{KUBERNETES_VERSION}-local-strict"


@functools.cache
def _registry() -> Registry:
    definitions = json.loads((SCHEMAS / "_definitions.json").read_text(encoding="utf-8"))
    return Resource.from_contents(definitions) @ Registry()


@functools.cache
def validator(kind: str, api_version: str) -> Draft202012Validator:
    """One validator per kind, built once: kubernetes_validate.validate() re-reads 1.8 MB per call."""
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    schema = json.loads((SCHEMAS / f"{kind.lower()}-{group_version}.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema, registry=_registry())


def errors(manifest: dict[str, Any]) -> list[str]:
    if manifest["kind"] == "MXJob":
        found = Draft202012Validator(mxjob_schema()).iter_errors(manifest)
    else:
        found = validator(manifest["kind"], manifest["apiVersion"]).iter_errors(manifest)
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in found]


def _example_documents() -> list[dict[str, Any]]:
    import yaml

    docs = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in JOB_EXAMPLE_FILES]
    golden = REPO / "tests" / "golden"
    for case in ("custom-ports", "env-collision", "target-flux"):
        docs.append(yaml.safe_load((golden / case / "input.yaml").read_text(encoding="utf-8")))
    return docs


@pytest.mark.parametrize("target", list(Target))
def test_every_rendered_object_is_valid_in_strict_mode(target: Target) -> None:
    manifests = render(*_example_documents(), options=RenderOptions(namespace="ml", target=target))
    assert {m["kind"] for m in manifests} == {"ConfigMap", "Service", "Pod", "MXJob"}
    problems = {f"{m['kind']}/{m['metadata']['name']}": errors(m) for m in manifests}
    assert {name: found for name, found in problems.items() if found} == {}


def test_the_validator_catches_a_bad_pod() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
           "spec": {"containers": [{"name": "c", "image": "i", "imagePullPolicyy": "x",
                                    "ports": [{"containerPort": "eighty"}]}]}}
    assert len(errors(pod)) == 2
