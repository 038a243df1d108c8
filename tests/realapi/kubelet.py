"""Play the kubelet on a real kube-apiserver: bind pods to a fake node, report status, finish graceful deletes."""

from __future__ import annotations

from typing import Any

import yaml

from tests.conftest import run_cli
from tests.kubelet import pod_status
from tests.realapi.cluster import RealCluster

NODE = "envtest-node"


def ensure_node(cluster: RealCluster) -> None:
    """A Ready node for pods to be bound to (nothing runs on it: the tests report every status)."""
    code, body = cluster.request(
        "POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": NODE}}
    )
    assert code in (201, 409), body
    status = {
        "status": {
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "envtest stand-in"}]
        }
    }
    code, body = cluster.request("PATCH", f"/api/v1/nodes/{NODE}/status", status, "application/merge-patch+json")
    assert code == 200, body


class Kubelet:
    """The kubelet's side of the pod lifecycle in one namespace, through the binding and status subresources."""

    def __init__(self, cluster: RealCluster, namespace: str) -> None:
        self.cluster = cluster
        self.namespace = namespace
        self.base = f"/api/v1/namespaces/{namespace}/pods"

    def deploy(self, spec: str, *flags: str) -> list[dict[str, Any]]:
        """What Argo CD or Flux does: render, then `kubectl apply` every object (no warnings allowed)."""
        result = run_cli(["render", "-n", self.namespace, *flags, "-"], stdin=spec)
        assert result.exit_code == 0, result.stderr
        applied = self.cluster.kubectl("apply", "-n", self.namespace, "-f", "-", stdin=result.stdout)
        assert applied.stderr == "", applied.stderr
        self.sync()
        return [m for m in yaml.safe_load_all(result.stdout) if m]

    def pods(self) -> dict[str, dict[str, Any]]:
        listing = self.cluster.get(self.base)
        assert listing is not None
        return {pod["metadata"]["name"]: pod for pod in listing["items"]}

    def pod(self, name: str) -> dict[str, Any] | None:
        return self.cluster.get(f"{self.base}/{name}")

    def sync(self) -> None:
        """Bind every unscheduled pod to the node; confirm the deletion of every terminating pod."""
        for name, pod in self.pods().items():
            if pod["metadata"].get("deletionTimestamp"):
                code, body = self.cluster.request(
                    "DELETE",
                    f"{self.base}/{name}",
                    {
                        "kind": "DeleteOptions",
                        "apiVersion": "v1",
                        "gracePeriodSeconds": 0,
                        "preconditions": {"uid": pod["metadata"]["uid"]},
                    },
                )
                assert code in (200, 404, 409), body
            elif not pod["spec"].get("nodeName"):
                binding = {
                    "apiVersion": "v1",
                    "kind": "Binding",
                    "metadata": {"name": name},
                    "target": {"apiVersion": "v1", "kind": "Node", "name": NODE},
                }
                code, body = self.cluster.request("POST", f"{self.base}/{name}/binding", binding)
                assert code in (201, 409), body

    def set_pod(self, name: str, phase: str, exit_code: int | None = None, reason: str = "", restarts: int = 0) -> None:
        """Report `phase` (and the container's exit code) through the status subresource."""
        self.sync()
        patch = {"status": pod_status(phase, exit_code, reason, restarts)}
        code, body = self.cluster.request("PATCH", f"{self.base}/{name}/status", patch, "application/merge-patch+json")
        assert code == 200, body

    def job(self, name: str = "mxnet-job") -> dict[str, Any]:
        job = self.cluster.get(f"/apis/kubeflow.org/v1/namespaces/{self.namespace}/mxjobs/{name}")
        assert job is not None, f"no MXJob {name}"
        return job

    def job_status(self, name: str = "mxnet-job") -> dict[str, Any]:
        status: dict[str, Any] = self.job(name).get("status") or {}
        return status

    def condition_types(self, name: str = "mxnet-job") -> list[tuple[str, str]]:
        return [(c["type"], c["status"]) for c in self.job_status(name).get("conditions", [])]

    def state_history(self, since: str, name: str = "mxnet-job") -> list[str]:
        """The newest condition of every version of the job stored after resourceVersion `since`."""
        events = self.cluster.replay(
            f"/apis/kubeflow.org/v1/namespaces/{self.namespace}/mxjobs"
            f"?fieldSelector=metadata.name%3D{name}&resourceVersion={since}"
        )
        states: list[str] = []
        for event in events:
            assert event["type"] != "ERROR", event
            conditions = (event["object"].get("status") or {}).get("conditions") or []
            if conditions and (not states or states[-1] != conditions[-1]["type"]):
                states.append(conditions[-1]["type"])
        return states

    def patch_job(self, patch: dict[str, Any], name: str = "mxnet-job", subresource: str = "") -> None:
        path = f"/apis/kubeflow.org/v1/namespaces/{self.namespace}/mxjobs/{name}{subresource}"
        code, body = self.cluster.request("PATCH", path, patch, "application/merge-patch+json")
        assert code == 200, body

    def events(self) -> list[dict[str, Any]]:
        listing = self.cluster.get(f"/api/v1/namespaces/{self.namespace}/events")
        assert listing is not None
        items: list[dict[str, Any]] = listing["items"]
        return items
