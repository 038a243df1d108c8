"""The client edge (reconciler.kube): paged lists, raw JSON answers as plain dicts, the expired-token fallback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mxjob_gitops.reconciler import kube
from mxjob_gitops.reconciler.kube import Cluster, Writer
from tests.fakeapi import FakeServer

COUNT = 1_203  # three pages of 500


@pytest.fixture
def filled(tmp_path: Path) -> Iterator[tuple[FakeServer, Cluster]]:
    with FakeServer() as server:
        for i in range(COUNT):
            labels = {"app": "even" if i % 2 == 0 else "odd"}
            body = {"metadata": {"name": f"cm-{i:04d}", "labels": labels}, "data": {"i": str(i)}}
            server.state.create("v1", "configmaps", "ml", body)
        server.state.create("v1", "configmaps", "other", {"metadata": {"name": "elsewhere"}})
        yield server, Cluster.connect(str(server.kubeconfig(tmp_path / "kubeconfig")))


def list_requests(server: FakeServer) -> list[str]:
    return [path for method, path in server.state.requests if method == "GET" and path.endswith("/configmaps")]


def test_a_list_is_read_in_pages_and_trimmed_page_by_page(filled: tuple[FakeServer, Cluster]) -> None:
    server, cluster = filled
    version = server.state.version
    kept: list[str] = []

    def keep(obj: dict[str, Any]) -> dict[str, Any]:
        kept.append(obj["metadata"]["name"])
        return {"metadata": {"name": obj["metadata"]["name"]}}

    items, listed_at = cluster.list_with_version("v1", "ConfigMap", "ml", "", keep)
    assert [x["metadata"]["name"] for x in items] == [f"cm-{i:04d}" for i in range(COUNT)] == kept
    assert items[0] == {"metadata": {"name": "cm-0000"}}
    assert listed_at == str(version)
    assert len(list_requests(server)) == 3  # 500 + 500 + 203


def test_pages_follow_the_label_selector(filled: tuple[FakeServer, Cluster]) -> None:
    server, cluster = filled
    items = cluster.list("v1", "ConfigMap", "ml", "app=odd")
    assert [x["data"]["i"] for x in items] == [str(i) for i in range(1, COUNT, 2)]
    assert all(x["kind"] == "ConfigMap" and x["apiVersion"] == "v1" for x in items)
    assert len(list_requests(server)) == 2  # 601 items


def test_an_expired_continue_token_falls_back_to_one_whole_list(filled: tuple[FakeServer, Cluster]) -> None:
    server, cluster = filled
    server.state.fail("GET", r"/configmaps\?.*continue=", 410, reason="Expired")
    items, _ = cluster.list_with_version("v1", "ConfigMap", None, "", lambda obj: obj)
    assert len(items) == COUNT + 1
    assert len(list_requests(server)) == 3  # page 1, page 2 refused with 410, then everything at once


def test_a_token_older_than_the_compacted_history_is_expired(filled: tuple[FakeServer, Cluster]) -> None:
    server, _ = filled
    code, first = server.state.list("v1", "configmaps", "ml", "", limit=10)
    assert code == 200 and len(first["items"]) == 10
    server.state.create("v1", "configmaps", "ml", {"metadata": {"name": "later"}})
    server.state.compact()
    code, answer = server.state.list("v1", "configmaps", "ml", "", limit=10, token=first["metadata"]["continue"])
    assert (code, answer["reason"]) == (410, "Expired")


def test_answers_are_plain_dicts(filled: tuple[FakeServer, Cluster], monkeypatch: pytest.MonkeyPatch) -> None:
    _, cluster = filled
    monkeypatch.setattr(kube, "LIST_PAGE_SIZE", 2)
    writer = Writer(cluster)
    created = writer.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "new", "namespace": "ml"}})
    fetched = cluster.get("v1", "ConfigMap", "ml", "new")
    assert type(created) is dict and type(fetched) is dict and fetched == created
    replaced = writer.replace({**created, "data": {"k": "v"}})
    assert type(replaced) is dict and replaced["data"] == {"k": "v"}
    assert cluster.get("v1", "ConfigMap", "ml", "missing") is None
    assert writer.delete("v1", "ConfigMap", "ml", "new", uid=created["metadata"]["uid"]) is True
    assert writer.delete("v1", "ConfigMap", "ml", "new") is False
    assert [x["metadata"]["name"] for x in cluster.list("v1", "ConfigMap", "other", "")] == ["elsewhere"]


def test_an_unreachable_server_during_discovery_is_a_cluster_error(
    filled: tuple[FakeServer, Cluster], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The dynamic client's discovery is cached in a file per server address; a kind missing from that cache is
    # looked up again, and a server gone by then raised urllib3's MaxRetryError straight through (exit 3).
    import urllib3

    _, cluster = filled

    def unreachable(**_: Any) -> Any:
        raise urllib3.exceptions.MaxRetryError(None, "/apis", "Connection refused")  # type: ignore[arg-type]

    monkeypatch.setattr(cluster._dynamic.resources, "get", unreachable)
    with pytest.raises(kube.Transient, match=r"discover kubeflow\.org/v1 MXJob"):
        cluster.list("kubeflow.org/v1", "MXJob", "ml", "")
