"""The client edge against a real kube-apiserver: paged lists (limit/continue) and raw JSON answers."""

from __future__ import annotations

import pytest

from mxjob_gitops.reconciler import kube
from mxjob_gitops.reconciler.kube import Cluster, Writer
from tests.realapi.cluster import RealCluster


def test_a_paged_list_sees_every_item_once_and_can_be_watched_from(
    real_cluster: RealCluster, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster = Cluster.connect(str(real_cluster.kubeconfig))
    writer = Writer(cluster)
    for i in range(7):
        labels = {"page": "yes" if i % 3 else "no"}
        writer.create(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": f"cm-{i}", "namespace": namespace, "labels": labels},
            }
        )
    whole, _ = cluster.list_with_version("v1", "ConfigMap", namespace, "page")
    monkeypatch.setattr(kube, "LIST_PAGE_SIZE", 2)  # the server answers with a continue token after 2 items
    paged, version = cluster.list_with_version(
        "v1", "ConfigMap", namespace, "page", lambda o: {"name": o["metadata"]["name"]}
    )
    assert (
        sorted(x["name"] for x in paged)
        == sorted(x["metadata"]["name"] for x in whole)
        == [f"cm-{i}" for i in range(7)]
    )
    assert [o["metadata"]["name"] for o in cluster.list("v1", "ConfigMap", namespace, "page=yes")] == [
        f"cm-{i}" for i in (1, 2, 4, 5)
    ]
    created = writer.create(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "after", "namespace": namespace}}
    )
    assert type(created) is dict
    events = cluster.watch("v1", "ConfigMap", namespace, "", version, 5)
    first = next(iter(events))
    assert (first["type"], first["object"]["metadata"]["name"]) == ("ADDED", "after")
