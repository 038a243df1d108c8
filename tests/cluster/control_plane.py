"""A small real cluster on 127.0.0.1: etcd + kube-apiserver (tests/realapi/cluster.py) + kube-controller-manager
+ kube-scheduler, all v1.20.2 built from one Debian source tree by `.ci/envtest.sh`, and kwok (from the shared
realcomp tooling) as the kubelet of fake GPU nodes, with Stages of our own (tests/cluster/stages) that end the
`mxnet` container with the exit code a test asks for. Free ports, one work directory, stopped by pid."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.realapi.cluster import ClusterUnavailable, RealCluster, find_binary, free_port, wait_until

STAGES = Path(__file__).parent / "stages"
# The controllers a batch cluster needs around our pods: owners and cascades, namespaces and their service accounts,
# batch Jobs, Service endpoints, node health (taints, evictions from a dead node) and pod garbage collection.
CONTROLLERS = "garbagecollector,namespace,serviceaccount,serviceaccount-token,job,endpoint,nodelifecycle,podgc"
NODE_LABEL = "mxjob.test/kwok"  # nodes kwok plays the kubelet of; a node without it is a node whose kubelet died
POOL_LABEL = "mxjob.test/pool"
# Short node timings, so that a node that stops answering is noticed, tainted and evicted within seconds.
NODE_LEASE_SECONDS = 8
NODE_GRACE_SECONDS = 12
EVICTION_TOLERATION_SECONDS = 5
# kwok's stock Stages (realcomp copies kwok's kustomize/stage), by path under that directory; its pod-delete Stage
# is replaced by ours (stages/pod-delete.yaml says why).
STOCK_STAGES = (
    "node/fast/node-initialize.yaml",
    "node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
    "pod/fast/pod-ready.yaml",
)


def stock_stages(share: Path) -> list[Path]:
    found = [share / "kwok-stages" / stage for stage in STOCK_STAGES]
    missing = [str(path) for path in found if not path.is_file()]
    if missing:
        raise ClusterUnavailable(f"kwok's stock Stages are missing: {', '.join(missing)}")
    return found


@dataclass
class ControlPlane(RealCluster):
    """`with ControlPlane(kwok, share) as c:` starts everything; `c.add_node(...)` adds a kwok node."""

    kwok: Path = field(default_factory=Path)
    share: Path = field(default_factory=Path)
    components: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def __enter__(self) -> ControlPlane:
        manager, scheduler = find_binary("kube-controller-manager"), find_binary("kube-scheduler")
        super().__enter__()
        try:
            for name, argv in (
                ("kube-controller-manager", [str(manager), *self._manager_args()]),
                ("kube-scheduler", [str(scheduler), *self._scheduler_args()]),
                ("kwok", [str(self.kwok), *self._kwok_args()]),
            ):
                self.components[name] = self._spawn(name, argv)
            probe = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "mxjob-probe"}}
            code, body = self.request("POST", "/api/v1/namespaces", probe)
            assert code in (201, 409), body
            wait_until(self._serving, 60, "the controller-manager to give a new namespace its ServiceAccount", 0.2)
        except BaseException:
            self.stop()
            raise
        return self

    def _apiserver_args(self, etcd_url: str) -> list[str]:
        return [
            *super()._apiserver_args(etcd_url),
            f"--default-not-ready-toleration-seconds={EVICTION_TOLERATION_SECONDS}",
            f"--default-unreachable-toleration-seconds={EVICTION_TOLERATION_SECONDS}",
        ]

    def _manager_args(self) -> list[str]:
        certs = self.workdir / "certs"
        return [
            f"--kubeconfig={self.kubeconfig}",
            f"--controllers={CONTROLLERS}",
            "--leader-elect=false",
            "--port=0",
            "--secure-port=0",
            "--use-service-account-credentials=false",
            f"--service-account-private-key-file={certs / 'sa.key'}",
            f"--root-ca-file={self.ca_file}",
            "--node-monitor-period=1s",
            f"--node-monitor-grace-period={NODE_GRACE_SECONDS}s",
            "--node-startup-grace-period=30s",
            "--concurrent-gc-syncs=4",
        ]

    def _scheduler_args(self) -> list[str]:
        return [f"--kubeconfig={self.kubeconfig}", "--leader-elect=false", "--port=0", "--secure-port=0"]

    def _kwok_args(self) -> list[str]:
        configs = [*stock_stages(self.share), *sorted(STAGES.glob("*.yaml"))]
        return [
            f"--kubeconfig={self.kubeconfig}",
            "--manage-all-nodes=false",
            f"--manage-nodes-with-label-selector={NODE_LABEL}=true",
            "--node-ip=127.0.0.1",
            f"--server-address=127.0.0.1:{free_port()}",
            f"--node-lease-duration-seconds={NODE_LEASE_SECONDS}",
            *(f"--config={path}" for path in configs),
        ]

    def _serving(self) -> bool:
        self.check_running()
        return self.get("/api/v1/namespaces/mxjob-probe/serviceaccounts/default") is not None

    def check_running(self) -> None:
        for name, process in self.components.items():
            if process.poll() is not None:
                raise ClusterUnavailable(f"{name} exited with {process.returncode}:\n{self.log_tail(name)}")

    def add_node(self, name: str, pool: str, gpus: int = 0) -> None:
        """A Ready kwok node in `pool` (label mxjob.test/pool) with `gpus` nvidia.com/gpu."""
        capacity = {"cpu": "32", "memory": "256Gi", "pods": "110", **({"nvidia.com/gpu": str(gpus)} if gpus else {})}
        node: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": name,
                "labels": {NODE_LABEL: "true", POOL_LABEL: pool, "kubernetes.io/hostname": name},
                "annotations": {"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
            },
            "status": {"capacity": capacity, "allocatable": capacity},
        }
        code, body = self.request("POST", "/api/v1/nodes", node)
        assert code in (201, 409), body
        wait_until(lambda: self._ready(name), 60, f"kwok to report node {name} Ready", 0.2)

    def _ready(self, name: str) -> bool:
        node = self.get(f"/api/v1/nodes/{name}") or {}
        conditions = (node.get("status") or {}).get("conditions") or []
        return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)

    def lose_node(self, name: str) -> None:
        """Its kubelet stops answering: kwok lets go of it (no lease renewals, no pod updates)."""
        patch = {"metadata": {"labels": {NODE_LABEL: "false"}}}
        code, body = self.request("PATCH", f"/api/v1/nodes/{name}", patch, "application/merge-patch+json")
        assert code == 200, body

    def revive_node(self, name: str) -> None:
        patch = {"metadata": {"labels": {NODE_LABEL: "true"}}}
        code, body = self.request("PATCH", f"/api/v1/nodes/{name}", patch, "application/merge-patch+json")
        assert code == 200, body
