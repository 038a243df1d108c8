"""The differential tier against the real kube-apiserver v1.20.2 (dryRun=All: the whole create path, admission
included): every edit of tests/kube_mutations.py is judged by the server and by `mxjob validate
--kubernetes-version 1.20` (1.20's own schemas, bundled by schemas/legacy_bundles.py, and the server rules as
they read at 1.20), so the two must agree on every edit."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import yaml

from mxjob_gitops.compiler.rules.kubevalidate import check_object
from tests.conftest import run_cli
from tests.kube_mutations import Mutation, apply, catalog, version_gated
from tests.realapi.cluster import RealCluster
from tests.test_kubevalidate_differential import EXAMPLE, _stream, mxjob_refuses

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


def _server_answers(real_cluster: RealCluster, namespace: str, objects: list[dict[str, Any]]) -> list[str]:
    """The server's refusal of each object ("" when it accepts)."""
    answers = []
    for obj in objects:
        target = obj["metadata"].get("namespace") or namespace
        code, body = real_cluster.request("POST", f"/api/v1/namespaces/{target}/{PLURAL[obj['kind']]}?dryRun=All", obj)
        answers.append("" if code in (200, 201) else f"{code} {body.get('message', '')}"[:300])
    return answers


def _mxjob_refuses(
    objects: list[dict[str, Any]], version: str, tmp_path: pathlib.Path, strict: bool = True
) -> list[bool]:
    """`mxjob validate --kubernetes-version VERSION` of the stream: which objects it refuses."""
    path = tmp_path / f"mutations-{version}.yaml"
    path.write_text(_stream(objects), encoding="utf-8")
    return mxjob_refuses(path, len(objects), version, strict)


def _disagreements(names: list[str], server: list[str], refused: list[bool]) -> list[str]:
    return [
        f"{name}: server {'refuses: ' + answer if answer else 'accepts'}, mxjob {'refuses' if ours else 'accepts'}"
        for name, answer, ours in zip(names, server, refused, strict=True)
        if bool(answer) != ours
    ]


def test_mxjob_validate_agrees_with_kube_apiserver_120(
    real_cluster: RealCluster, namespace: str, tmp_path: pathlib.Path
) -> None:
    names, objects = _objects(namespace)
    server = _server_answers(real_cluster, namespace, objects)
    disagreements = _disagreements(names, server, _mxjob_refuses(objects, "1.20", tmp_path))
    assert disagreements == [], "\n".join(disagreements)
    # Both outcomes are well represented: the tier could not pass by accepting or refusing everything.
    assert 100 < sum(map(bool, server)) < len(server) - 50


def test_version_gated_rules_follow_the_version_on_kube_apiserver_120(
    real_cluster: RealCluster, namespace: str, tmp_path: pathlib.Path
) -> None:
    """v1.20.2 drops ephemeral containers (the EphemeralContainers gate is off) and prunes the unknown field
    spec.resources, so it accepts every version-gated edit. `mxjob validate --kubernetes-version 1.20 --no-strict`
    (unknown fields dropped, as this server's decoder drops them) agrees; strict, it refuses exactly the edits
    carrying spec.resources, an unknown field at 1.20 (as kubectl's schema check against a 1.20 server does); at
    1.36 some are refused by the rules."""
    names, objects = _objects(namespace, version_gated())
    server = _server_answers(real_cluster, namespace, objects)
    disagreements = _disagreements(names, server, _mxjob_refuses(objects, "1.20", tmp_path, strict=False))
    assert disagreements == [], "\n".join(disagreements)
    unknown_field = ["resources" in obj["spec"] for obj in objects]
    assert _mxjob_refuses(objects, "1.20", tmp_path, strict=True) == unknown_field
    assert any(unknown_field) and not all(unknown_field)
    for obj in objects:
        _, body = real_cluster.request("POST", f"/api/v1/namespaces/{namespace}/pods?dryRun=All", obj)
        assert not body.get("spec", {}).get("ephemeralContainers")
        assert "resources" not in body.get("spec", {}), body.get("spec")
    assert sum(bool(check_object(obj, "1.36")) for obj in objects) > 10


def test_kube_apiserver_120_accepts_a_queue_change_as_mxjob_diff_at_120_says(
    mxjob_crd: RealCluster, namespace: str
) -> None:
    """v1.20.2 drops x-kubernetes-validations from the CRD, so the queue is not immutable there: the update is
    accepted, and the transition rule is not checked for --kubernetes-version 1.20 (it is from 1.25)."""
    from mxjob_gitops.compiler.rules.kubevalidate.crdrules import check_update

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
