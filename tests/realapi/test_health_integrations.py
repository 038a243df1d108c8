"""The health checks against a real API server: the documented argocd-cm patch, and MXJob statuses as stored."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from mxjob_gitops.compiler.integrations.health import ARGOCD_CM_KEY, argocd_health_lua
from tests import health_fixtures as fx
from tests.conftest import run_cli
from tests.realapi.cluster import RealCluster
from tests.test_health_checks import CASES, FLUX_FOR, run_argocd_health, run_flux_health


def test_the_documented_patch_merges_the_script_into_argocd_cm(real_cluster: RealCluster, namespace: str) -> None:
    """docs/argocd.md: `mxjob integrations argocd-health | kubectl -n argocd patch configmap argocd-cm --type merge
    --patch-file /dev/stdin`, here with the test's namespace; the keys already there stay."""
    real_cluster.kubectl(
        "-n", namespace, "create", "configmap", "argocd-cm", "--from-literal=timeout.reconciliation=180s"
    )
    patch = run_cli(["integrations", "argocd-health", "-n", namespace])
    assert patch.exit_code == 0, patch.stderr
    real_cluster.kubectl(
        "-n",
        namespace,
        "patch",
        "configmap",
        "argocd-cm",
        "--type",
        "merge",
        "--patch-file",
        "/dev/stdin",
        stdin=patch.stdout,
    )
    stored = real_cluster.get(f"/api/v1/namespaces/{namespace}/configmaps/argocd-cm")
    assert stored is not None
    assert stored["data"] == {"timeout.reconciliation": "180s", ARGOCD_CM_KEY: argocd_health_lua()}


def _as_from_1_22(cluster: RealCluster, stored: dict[str, Any]) -> dict[str, Any]:
    """The object as a server from 1.22 on returns it: those record a write through the status subresource with
    `subresource: status` in managedFields, which the Flux expressions read (compiler/integrations/health.py).
    Flux's healthCheckExprs need kustomize-controller 1.5+, which supports Kubernetes 1.30+; an older server of
    this tier (v1.20.2) records the same entry without that field, so it is added here to the entries that own
    `f:status`. On a current server the object is used as stored."""
    if cluster.minor >= 22:
        return stored
    fields = [
        {**entry, "subresource": "status"} if "f:status" in (entry.get("fieldsV1") or {}) else entry
        for entry in stored["metadata"].get("managedFields") or []
    ]
    return {**stored, "metadata": {**stored["metadata"], "managedFields": fields}}


def _stored_with_status(cluster: RealCluster, namespace: str, obj: dict[str, Any]) -> dict[str, Any]:
    """Create the MXJob, write its status through the status subresource, and read back what the server keeps."""
    job = copy.deepcopy(obj)
    status = job.pop("status", None)
    job["metadata"]["namespace"] = namespace
    path = f"/apis/kubeflow.org/v1/namespaces/{namespace}/mxjobs"
    code, created = cluster.request("POST", path, job)
    assert code == 201, created
    path = f"{path}/{job['metadata']['name']}"
    if status is not None:
        code, written = cluster.request("PUT", f"{path}/status", {**created, "status": status})
        assert code == 200, written
    stored = cluster.get(path)
    assert stored is not None
    return stored


@pytest.mark.parametrize(("build", "status", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_checks_judge_statuses_as_the_api_server_stores_them(
    mxjob_crd: RealCluster, namespace: str, build: Callable[[], dict[str, Any]], status: str, message: str
) -> None:
    """Structural pruning and the CRD's types must leave the checks' inputs intact: the verdicts match the ones on
    the reconciler's own output (tests/test_health_checks.py)."""
    stored = _stored_with_status(mxjob_crd, namespace, build())
    assert run_argocd_health(argocd_health_lua(), stored) == {"status": status, "message": message}
    assert run_flux_health(_as_from_1_22(mxjob_crd, stored)) == [FLUX_FOR[status]]


def test_a_job_the_reconciler_has_not_seen(mxjob_crd: RealCluster, namespace: str) -> None:
    stored = _stored_with_status(mxjob_crd, namespace, fx.mxjob())
    assert run_argocd_health(argocd_health_lua(), stored)["status"] == "Progressing"
    assert run_flux_health(_as_from_1_22(mxjob_crd, stored)) == ["InProgress"]  # not an evaluation error
