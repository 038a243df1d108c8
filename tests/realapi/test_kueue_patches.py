"""The reconciler's Kueue patches (reconciler/kueue.py) as a real kube-apiserver applies them to a pod Kueue holds."""

from __future__ import annotations

from typing import Any

import pytest

from mxjob_gitops.reconciler.kube import Cluster, ClusterError, Writer
from mxjob_gitops.reconciler.kueue import FINALIZER, MarkUnretriable, ReleasePod
from tests.realapi.cluster import RealCluster

OTHER = "example.com/keep"
TOTAL = "kueue.x-k8s.io/pod-group-total-count"


def _held_pod(cluster: RealCluster, namespace: str, name: str, finalizers: list[str]) -> dict[str, Any]:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "labels": {"kueue.x-k8s.io/pod-group-name": "g"},
            "finalizers": finalizers,
            # Kueue refuses a group's pod without it, so the annotations map is always there.
            "annotations": {TOTAL: "3"},
        },
        "spec": {"containers": [{"name": "mxnet", "image": "mxnet:1.9"}]},
    }
    code, body = cluster.request("POST", f"/api/v1/namespaces/{namespace}/pods", pod)
    assert code == 201, body
    return body


def _pod(cluster: RealCluster, namespace: str, name: str) -> dict[str, Any] | None:
    return cluster.get(f"/api/v1/namespaces/{namespace}/pods/{name}")


def test_release_frees_the_name_of_a_deleted_pod(real_cluster: RealCluster, namespace: str) -> None:
    created = _held_pod(real_cluster, namespace, "w-0", [FINALIZER])
    code, _ = real_cluster.request("DELETE", f"/api/v1/namespaces/{namespace}/pods/w-0")
    assert code == 200
    held = _pod(real_cluster, namespace, "w-0")
    assert held is not None and held["metadata"].get("deletionTimestamp")  # the finalizer keeps the name taken
    writer = Writer(Cluster.connect(str(real_cluster.kubeconfig)))
    release = ReleasePod("w-0", created["metadata"]["uid"], (FINALIZER,))
    writer.merge_patch("v1", "Pod", namespace, "w-0", release.patch(), missing_ok=True)
    assert _pod(real_cluster, namespace, "w-0") is None
    _held_pod(real_cluster, namespace, "w-0", [FINALIZER])  # the replacement, under the same name
    writer.merge_patch("v1", "Pod", namespace, "gone", release.patch(), missing_ok=True)  # no such pod: fine


def test_release_refuses_a_changed_pod(real_cluster: RealCluster, namespace: str) -> None:
    created = _held_pod(real_cluster, namespace, "w-1", [FINALIZER, OTHER])
    writer = Writer(Cluster.connect(str(real_cluster.kubeconfig)))
    stale = ReleasePod("w-1", created["metadata"]["uid"], (FINALIZER,))  # observed before OTHER was added
    with pytest.raises(ClusterError):
        writer.merge_patch("v1", "Pod", namespace, "w-1", stale.patch(), missing_ok=True)
    other_pod = ReleasePod("w-1", "another-uid", (FINALIZER, OTHER))
    with pytest.raises(ClusterError):
        writer.merge_patch("v1", "Pod", namespace, "w-1", other_pod.patch(), missing_ok=True)
    current = ReleasePod("w-1", created["metadata"]["uid"], (FINALIZER, OTHER))
    writer.merge_patch("v1", "Pod", namespace, "w-1", current.patch(), missing_ok=True)
    after = _pod(real_cluster, namespace, "w-1")
    assert after is not None and after["metadata"]["finalizers"] == [OTHER]  # only Kueue's is removed


def test_mark_unretriable_adds_the_annotation(real_cluster: RealCluster, namespace: str) -> None:
    created = _held_pod(real_cluster, namespace, "w-2", [FINALIZER])
    writer = Writer(Cluster.connect(str(real_cluster.kubeconfig)))
    writer.merge_patch("v1", "Pod", namespace, "w-2", MarkUnretriable("w-2", created["metadata"]["uid"]).patch())
    after = _pod(real_cluster, namespace, "w-2")
    assert after is not None
    assert after["metadata"]["annotations"] == {TOTAL: "3", "kueue.x-k8s.io/retriable-in-group": "false"}
    stale = MarkUnretriable("w-2", "another-uid")  # a pod of that name, but not the one observed
    with pytest.raises(ClusterError):
        writer.merge_patch("v1", "Pod", namespace, "w-2", stale.patch())
    writer.merge_patch(
        "v1", "Pod", namespace, "w-2", ReleasePod("w-2", created["metadata"]["uid"], (FINALIZER,)).patch()
    )
