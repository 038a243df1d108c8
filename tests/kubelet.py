"""Play the kubelet against the fake API (tests/realapi/kubelet.py on a real server): pod phases and exit codes."""

from __future__ import annotations

import time
from typing import Any

import yaml

from tests.conftest import run_cli
from tests.fakeapi import FakeServer

PLURALS = {"Pod": "pods", "Service": "services", "ConfigMap": "configmaps", "MXJob": "mxjobs", "PodGroup": "podgroups"}


def deploy(server: FakeServer, spec: str, namespace: str = "ml", *flags: str) -> list[dict[str, Any]]:
    """What Argo CD or Flux would do: render and create every object."""
    result = run_cli(["render", "-n", namespace, *flags, "-"], stdin=spec)
    assert result.exit_code == 0, result.stderr
    manifests = [m for m in yaml.safe_load_all(result.stdout) if m]
    for manifest in manifests:
        code, body = server.state.create(manifest["apiVersion"], PLURALS[manifest["kind"]], namespace, manifest)
        assert code == 201, body
    return manifests


def pod_status(
    phase: str, exit_code: int | None = None, reason: str = "", restarts: int = 0, finished_at: str | None = None
) -> dict[str, Any]:
    """The status a kubelet reports for the `mxnet` container in `phase` (terminated when exit_code is set)."""
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    state: dict[str, Any] = {"running": {"startedAt": now}}
    if exit_code is not None:
        state = {
            "terminated": {
                "exitCode": exit_code,
                "reason": reason or ("Completed" if exit_code == 0 else "Error"),
                "finishedAt": finished_at or now,
            }
        }
    return {
        "phase": phase,
        "containerStatuses": [{"name": "mxnet", "ready": phase == "Running", "restartCount": restarts, "state": state}],
    }


def set_pod(
    server: FakeServer,
    name: str,
    phase: str,
    exit_code: int | None = None,
    reason: str = "",
    namespace: str = "ml",
    restarts: int = 0,
    finished_at: str | None = None,
) -> None:
    key = ("v1", "pods", namespace, name)
    pod = server.state.objects[key]
    status = pod_status(phase, exit_code, reason, restarts, finished_at)
    code, body = server.state.update(key, {**pod, "status": status}, status_only=True, check_version=False)
    assert code == 200, body


def job_status(server: FakeServer, name: str = "mxnet-job", namespace: str = "ml") -> dict[str, Any]:
    status: dict[str, Any] = server.state.objects[("kubeflow.org/v1", "mxjobs", namespace, name)].get("status") or {}
    return status


def state_history(server: FakeServer, name: str = "mxnet-job", namespace: str = "ml") -> list[str]:
    """The newest condition of every status the job went through, from the API's event log."""
    states: list[str] = []
    with server.state.lock:
        events = list(server.state.events)
    for _, _, _, plural, ns, obj in events:
        if plural == "mxjobs" and ns == namespace and obj["metadata"]["name"] == name:
            conditions = (obj.get("status") or {}).get("conditions") or []
            if conditions and (not states or states[-1] != conditions[-1]["type"]):
                states.append(conditions[-1]["type"])
    return states


def condition_types(server: FakeServer, name: str = "mxnet-job") -> list[tuple[str, str]]:
    return [(c["type"], c["status"]) for c in job_status(server, name).get("conditions", [])]
