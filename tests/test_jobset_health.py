"""The JobSet health checks in the real engines: Argo CD's health assessment (argocd-health: gitops-engine + Argo
CD's Lua sandbox, with our script as the argocd-cm override) and Flux's (flux-health: fluxcd/pkg runtime/cel
StatusEvaluator), over JobSet states shaped as the JobSet controller writes them (kubernetes-sigs/jobset
pkg/controllers/jobset_controller.go `setCondition`, pkg/constants reasons and messages).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import run_cli
from tests.realcomp import realcomp_bin, realcomp_share


def _condition(kind: str, reason: str, message: str, status: str = "True") -> dict[str, str]:
    return {
        "type": kind,
        "status": status,
        "reason": reason,
        "message": message,
        "lastTransitionTime": "2026-11-25T08:00:00Z",
    }


def _rjobs(**counts: tuple[int, int, int, int]) -> list[dict[str, Any]]:
    return [
        {"name": name, "ready": r, "active": a, "succeeded": s, "failed": f, "suspended": 0}
        for name, (r, a, s, f) in counts.items()
    ]


RUNNING = _rjobs(scheduler=(1, 1, 0, 0), server=(1, 1, 0, 0), worker=(1, 1, 0, 0))
STATES: list[tuple[str, dict[str, Any] | None, str, str, str]] = [
    ("no status", None, "Progressing", "Waiting for the JobSet controller to report a status", "InProgress"),
    (
        "starting in order",
        {
            "restarts": 0,
            "conditions": [
                _condition(
                    "StartupPolicyInProgress",
                    "InOrderStartupPolicyInProgress",
                    "in order startup policy is in progress",
                )
            ],
            "replicatedJobsStatus": _rjobs(scheduler=(1, 1, 0, 0), server=(0, 1, 0, 0), worker=(0, 0, 0, 0)),
        },
        "Progressing",
        "in order startup policy is in progress (scheduler 1 ready, 1 active; server 0 ready, 1 active; "
        "worker 0 ready, 0 active)",
        "InProgress",
    ),
    (
        "running",
        {
            "restarts": 0,
            "conditions": [
                _condition("StartupPolicyInProgress", "InOrderStartupPolicyInProgress", "x", "False"),
                _condition(
                    "StartupPolicyCompleted", "InOrderStartupPolicyCompleted", "in order startup policy has completed"
                ),
            ],
            "replicatedJobsStatus": RUNNING,
        },
        "Progressing",
        "JobSet is running (scheduler 1 ready, 1 active; server 1 ready, 1 active; worker 1 ready, 1 active)",
        "InProgress",
    ),
    (
        "status without conditions",
        {"restarts": 0},
        "Progressing",
        "JobSet is running",
        "InProgress",
    ),
    (
        "completed",
        {
            "restarts": 0,
            "terminalState": "Completed",
            "conditions": [_condition("Completed", "AllJobsCompleted", "jobset completed successfully")],
            "replicatedJobsStatus": _rjobs(scheduler=(0, 0, 0, 0), server=(0, 0, 0, 0), worker=(0, 0, 1, 0)),
        },
        "Healthy",
        "jobset completed successfully",
        "Current",
    ),
    (
        "failed",
        {
            "restarts": 0,
            "terminalState": "Failed",
            "conditions": [
                _condition(
                    "Failed", "FailedJobs", "jobset failed due to one or more job failures (first failed job: x)"
                )
            ],
            "replicatedJobsStatus": _rjobs(scheduler=(0, 0, 0, 0), server=(0, 0, 0, 0), worker=(0, 0, 0, 1)),
        },
        "Degraded",
        "jobset failed due to one or more job failures (first failed job: x)",
        "Failed",
    ),
    (
        "suspended",
        {
            "restarts": 0,
            "conditions": [_condition("Suspended", "SuspendedJobs", "jobset is suspended")],
            "replicatedJobsStatus": _rjobs(scheduler=(0, 0, 0, 0)),
        },
        "Suspended",
        "jobset is suspended",
        "Current",
    ),
    (
        "resumed",
        {
            "restarts": 0,
            "conditions": [_condition("Suspended", "ResumeJobs", "jobset is resumed", "False")],
            "replicatedJobsStatus": RUNNING,
        },
        "Progressing",
        "JobSet is running (scheduler 1 ready, 1 active; server 1 ready, 1 active; worker 1 ready, 1 active)",
        "InProgress",
    ),
]


def _jobset(status: dict[str, Any] | None) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "mnist", "namespace": "training", "generation": 1},
        "spec": {"replicatedJobs": []},
    }
    # As the API server returns it (compiler/integrations/health.py, STATUS_WRITTEN): applied by the GitOps engine,
    # and with the controller's write through the status subresource once there is a status.
    fields: list[dict[str, str]] = [{"manager": "argocd-controller", "operation": "Apply"}]
    if status is not None:
        obj["status"] = status
        fields.append({"manager": "jobset-controller", "operation": "Update", "subresource": "status"})
    obj["metadata"]["managedFields"] = fields
    return obj


@pytest.fixture(scope="module")
def objects(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("jobset-health") / "objects.yaml"
    path.write_text(yaml.safe_dump_all([_jobset(s[1]) for s in STATES]), encoding="utf-8")
    return path


def _run(command: list[str]) -> list[dict[str, Any]]:
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode in (0, 1), result.stderr
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def test_argocd_health(objects: Path, tmp_path: Path) -> None:
    lua = run_cli(["integrations", "argocd-health", "--engine", "jobset", "--format", "lua"])
    assert lua.exit_code == 0, lua.stderr
    script = tmp_path / "health.lua"
    script.write_text(lua.stdout, encoding="utf-8")
    verdicts = _run(
        [
            str(realcomp_bin("argocd-health")),
            "-customizations",
            str(realcomp_share() / "argocd-resource_customizations"),
            "-override",
            f"jobset.x-k8s.io/JobSet={script}",
            str(objects),
        ]
    )
    got = [(v.get("status"), v.get("message")) for v in verdicts]
    assert got == [(s[2], s[3]) for s in STATES]


def test_flux_health(objects: Path, tmp_path: Path) -> None:
    exprs = run_cli(["integrations", "flux-health", "--engine", "jobset"])
    assert exprs.exit_code == 0, exprs.stderr
    path = tmp_path / "exprs.yaml"
    path.write_text(exprs.stdout, encoding="utf-8")
    verdicts = _run([str(realcomp_bin("flux-health")), "-exprs", str(path), str(objects)])
    assert [v["source"] for v in verdicts] == ["cel"] * len(STATES)
    assert [v["status"] for v in verdicts] == [s[4] for s in STATES]
    assert not any(v.get("error") for v in verdicts), verdicts  # no state is an evaluation error, none Unknown


def test_kstatus_alone_reads_every_jobset_state_as_current(objects: Path) -> None:
    """Why a JobSet needs the expressions under Flux: its controller writes neither kstatus' Stalled/Reconciling nor
    `observedGeneration`, and kstatus has no JobSet rule (cli-utils pkg/kstatus/status/core.go), so Flux's default
    health (`wait: true` alone) reads even a failed JobSet as Current (docs/jobset.md). An MXJob differs: our
    reconciler writes them (tests/modern/test_kstatus.py)."""
    verdicts = _run([str(realcomp_bin("kstatus")), str(objects)])
    assert [v["status"] for v in verdicts] == ["Current"] * len(STATES), verdicts
