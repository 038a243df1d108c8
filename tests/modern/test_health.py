"""Our health checks in the engines' own code: the Lua script in argocd-health (gitops-engine + Argo CD's Lua
environment) and the Flux expressions in flux-health (fluxcd/pkg runtime/cel StatusEvaluator), over MXJob states."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from mxjob_gitops.compiler.integrations.health import argocd_health_lua, flux_health_check
from tests.conftest import JOB_EXAMPLE_FILES
from tests.modern.server import ModernServer
from tests.modern.test_crd import apply, rendered_mxjob
from tests.realcomp import realcomp_bin, realcomp_share


def _cond(kind: str, status: str = "True", message: str = "") -> dict[str, str]:
    return {"type": kind, "status": status, "reason": kind, "message": message}


# state -> (status, Argo CD health, Flux health); None = no `status` key at all.
STATES: dict[str, tuple[dict[str, Any] | None, str, str]] = {
    "created": ({"conditions": [_cond("Created")]}, "Progressing", "InProgress"),
    "running": ({"conditions": [_cond("Created"), _cond("Running")]}, "Progressing", "InProgress"),
    "restarting": ({"conditions": [_cond("Created"), _cond("Restarting")]}, "Progressing", "InProgress"),
    "succeeded": ({"conditions": [_cond("Running", "False"), _cond("Succeeded")]}, "Healthy", "Current"),
    "failed": ({"conditions": [_cond("Running", "False"), _cond("Failed", message="worker-0 exited 1")]},
               "Degraded", "Failed"),
    "suspended": ({"conditions": [_cond("Created"), _cond("Suspended")]}, "Suspended", "Current"),
    "status-empty": ({}, "Progressing", "InProgress"),
    "generation-behind": ({"observedGeneration": 1, "conditions": [_cond("Succeeded")]}, "Progressing", "InProgress"),
}  # fmt: skip


def mxjob(state: str) -> dict[str, Any]:
    job = rendered_mxjob(str(JOB_EXAMPLE_FILES[0]), state)
    job["metadata"].update(namespace="health", generation=2)
    status = STATES[state][0]
    if status is not None:
        job["status"] = status
    return job


def run_jsonl(argv: list[str]) -> list[dict[str, Any]]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.stderr.strip() == "", done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def argocd(objects: list[dict[str, Any]], tmp_path: Path) -> list[dict[str, Any]]:
    lua = tmp_path / "health.lua"
    lua.write_text(argocd_health_lua(), encoding="utf-8")
    docs = tmp_path / "objects.yaml"
    docs.write_text(yaml.safe_dump_all(objects), encoding="utf-8")
    argv = [
        str(realcomp_bin("argocd-health")),
        "-customizations",
        str(realcomp_share() / "argocd-resource_customizations"),
    ]
    return run_jsonl([*argv, "-override", f"kubeflow.org/MXJob={lua}", str(docs)])


def flux(objects: list[dict[str, Any]], tmp_path: Path) -> list[dict[str, Any]]:
    exprs = tmp_path / "exprs.yaml"
    exprs.write_text(yaml.safe_dump({"healthCheckExprs": [flux_health_check()]}), encoding="utf-8")
    docs = tmp_path / "objects.yaml"
    docs.write_text(yaml.safe_dump_all(objects), encoding="utf-8")
    return run_jsonl([str(realcomp_bin("flux-health")), "-exprs", str(exprs), str(docs)])


@pytest.mark.parametrize("state", sorted(STATES))
def test_each_state_reads_as_a_user_expects_in_argo_cd_and_flux(state: str, tmp_path: Path) -> None:
    _, want_argocd, want_flux = STATES[state]
    [argo] = argocd([mxjob(state)], tmp_path)
    [fl] = flux([mxjob(state)], tmp_path)
    assert (argo["status"], fl["status"]) == (want_argocd, want_flux), (argo, fl)
    assert "error" not in fl, fl


def test_deleting_reads_pending_deletion_in_argo_cd(tmp_path: Path) -> None:
    job = mxjob("running")
    job["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    [argo] = argocd([job], tmp_path)
    assert argo["status"] == "Progressing", argo


def test_an_mxjob_not_yet_reconciled_reads_in_progress_as_the_server_returns_it(
    modern_crd: ModernServer, tmp_path: Path
) -> None:
    """The Flux no-status error: the CRD's `status` default makes the server return a `status` (holding only the
    default `observedGeneration: 0`) for an MXJob the reconciler has not reached, so `has(status.conditions)` is
    false instead of an evaluation error."""
    job = rendered_mxjob(str(JOB_EXAMPLE_FILES[0]), "fresh")
    job["metadata"]["namespace"] = "health"
    code, _, err = apply(modern_crd, job)
    assert code == 0, err
    live = json.loads(modern_crd.kubectl("get", "mxjob", "fresh", "-n", "health", "-o", "json"))
    assert live.get("status") == {"observedGeneration": 0}, live.get("status")
    [fl] = flux([live], tmp_path)
    assert fl["status"] == "InProgress" and "error" not in fl, fl
    [argo] = argocd([live], tmp_path)
    assert argo["status"] == "Progressing", argo
