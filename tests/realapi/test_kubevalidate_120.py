"""The differential tier against the real kube-apiserver v1.20.2 (dryRun=All: the whole create path, admission
included): every edit of tests/kube_mutations.py is judged by the server and by `mxjob validate` at the oldest
version whose schemas ship (1.25); the rules that changed since 1.20 (relaxed env var names in 1.32, relaxed
Service names in 1.36) read the same at 1.20 and 1.25, so the two must agree on every edit."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import yaml

from mxjob_gitops.compiler.kubevalidate import check_object
from tests.conftest import run_cli
from tests.kube_mutations import Mutation, apply, catalog, version_gated
from tests.realapi.cluster import RealCluster
from tests.test_kubevalidate_differential import EXAMPLE, _stream

PLURAL = {"Pod": "pods", "Service": "services", "ConfigMap": "configmaps"}


def _objects(namespace: str, mutations: list[Mutation] | None = None) -> tuple[list[str], list[dict[str, Any]]]:
    result = run_cli(["render", str(EXAMPLE)])
    assert result.exit_code == 0, result.stderr
    bases = {obj["kind"]: obj for obj in yaml.safe_load_all(result.stdout)}
    names, objects = [], []
    for index, (name, kind, edits) in enumerate(catalog() if mutations is None else mutations):
        base = json.loads(json.dumps(bases[kind]))
        base["metadata"]["name"] = f"{base['metadata']['name']}-m{index}"
        base["metadata"]["namespace"] = namespace
        names.append(name)
        objects.append(apply(base, edits))
    return names, objects


def test_mxjob_validate_agrees_with_kube_apiserver_120(
    real_cluster: RealCluster, namespace: str, tmp_path: pathlib.Path
) -> None:
    names, objects = _objects(namespace)
    server: list[str] = []
    for obj in objects:
        target = obj["metadata"].get("namespace") or namespace
        code, body = real_cluster.request("POST", f"/api/v1/namespaces/{target}/{PLURAL[obj['kind']]}?dryRun=All", obj)
        server.append("" if code in (200, 201) else f"{code} {body.get('message', '')}"[:300])
    path = tmp_path / "mutations.yaml"
    path.write_text(_stream(objects), encoding="utf-8")
    result = run_cli(["validate", "--kubernetes-version", "1.25", "--format", "json", str(path)])
    report = json.loads(result.stdout)
    refused = [False] * len(objects)
    for diagnostic in report["diagnostics"]:
        if diagnostic["severity"] == "error":
            refused[(diagnostic["line"] - 1) // 2] = True
    for resource in report["resources"]:
        if resource["status"] == "invalid":
            refused[(resource["origin"]["line"] - 1) // 2] = True
    disagreements = [
        f"{name}: server {'refuses: ' + answer if answer else 'accepts'}, mxjob {'refuses' if ours else 'accepts'}"
        for name, answer, ours in zip(names, server, refused, strict=True)
        if bool(answer) != ours
    ]
    assert disagreements == [], "\n".join(disagreements)
    # Both outcomes are well represented: the tier could not pass by accepting or refusing everything.
    assert 100 < sum(map(bool, server)) < len(server) - 50


def test_version_gated_rules_follow_the_version_on_kube_apiserver_120(
    real_cluster: RealCluster, namespace: str
) -> None:
    """v1.20.2 drops ephemeral containers (the EphemeralContainers gate is off) and prunes the unknown
    spec.resources, so it accepts every version-gated edit; the server rules at --kubernetes-version 1.20 agree
    (the schemas start at 1.25, so the rules are called directly), and at 1.36 some are refused."""
    names, objects = _objects(namespace, version_gated())
    disagreements = []
    for name, obj in zip(names, objects, strict=True):
        code, body = real_cluster.request("POST", f"/api/v1/namespaces/{namespace}/pods?dryRun=All", obj)
        server = "" if code in (200, 201) else f"{code} {body.get('message', '')}"[:300]
        ours = [d.render() for d in check_object(obj, "1.20")]
        if bool(server) != bool(ours):
            disagreements.append(f"{name}: server {server or 'accepts'}, mxjob {ours or 'accepts'}")
        assert "ephemeralContainers" not in body.get("spec", {}) or not body["spec"]["ephemeralContainers"]
        assert "resources" not in body.get("spec", {}), body.get("spec")
    assert disagreements == [], "\n".join(disagreements)
    assert sum(bool(check_object(obj, "1.36")) for obj in objects) > 10


def test_kube_apiserver_120_accepts_a_queue_change_as_mxjob_diff_at_120_says(
    mxjob_crd: RealCluster, namespace: str
) -> None:
    """v1.20.2 drops x-kubernetes-validations from the CRD, so the queue is not immutable there: the update is
    accepted, and the transition rule is not checked for --kubernetes-version 1.20 (it is from 1.25)."""
    from mxjob_gitops.compiler.kubevalidate.crdrules import check_update

    job = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    job["metadata"]["namespace"] = namespace
    job["spec"].setdefault("runPolicy", {})["schedulingPolicy"] = {"queue": "research"}
    base = f"/apis/kubeflow.org/v1/namespaces/{namespace}/mxjobs"
    code, stored = mxjob_crd.request("POST", base, job)
    assert code == 201, stored
    changed = json.loads(json.dumps(stored))
    changed["spec"]["runPolicy"]["schedulingPolicy"]["queue"] = "production"
    code, body = mxjob_crd.request("PUT", f"{base}/{job['metadata']['name']}", changed)
    assert code == 200, body
    assert check_update(changed, stored, "1.20") == []
    assert [d.code.value for d in check_update(changed, stored, "1.25")] == ["MXJ410"]
