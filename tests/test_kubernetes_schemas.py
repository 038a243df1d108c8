"""Rendered objects are valid Kubernetes objects: strict OpenAPI schemas (kubernetes-validate, offline)."""

from __future__ import annotations

from typing import Any

import pytest

from mxjob_gitops.compiler import RenderOptions, Target
from mxjob_gitops.compiler.validate.kubeschema import schema_errors, validator_for
from tests.conftest import JOB_EXAMPLE_FILES, REPO
from tests.helpers import render

KUBERNETES_VERSION = "1.35"


def errors(manifest: dict[str, Any]) -> list[str]:
    """Strict validation with the validators `mxjob validate` uses (built once per kind)."""
    validator = validator_for(manifest, KUBERNETES_VERSION, strict=True)
    assert validator is not None, f"no schema for {manifest['kind']}"
    return [f"{e.pointer}: {e.message}" for e in schema_errors(manifest, validator)]


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
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "x"},
        "spec": {
            "containers": [{"name": "c", "image": "i", "imagePullPolicyy": "x", "ports": [{"containerPort": "eighty"}]}]
        },
    }
    assert len(errors(pod)) == 2
