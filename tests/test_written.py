"""Read your own writes (reconciler.written): a reconcile right after a status write, on a cached job still at the
version that write replaced, decides on the written job and does not conflict; a version written by someone else
in between is still a 409, read again and decided again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mxjob_gitops.reconciler.kube import Cluster
from mxjob_gitops.reconciler.runner import Reconciler, Settings
from mxjob_gitops.reconciler.written import Written
from tests.fakeapi import FakeServer
from tests.kubelet import deploy, job_status, set_pod
from tests.test_reconcile import EXITCODE_JOB, PODS

JOB = ("kubeflow.org/v1", "mxjobs", "ml", "mxnet-job")


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[FakeServer, Reconciler]]:
    with FakeServer() as server:
        deploy(server, EXITCODE_JOB)
        for name in PODS:
            set_pod(server, name, "Running")
        cluster = Cluster.connect(str(server.kubeconfig(tmp_path / "kubeconfig", namespace="ml")))
        yield server, Reconciler(cluster, Settings(namespaces=("ml",)))


def pods(reconciler: Reconciler) -> list[dict[str, Any]]:
    return reconciler.pods_of("ml", "mxnet-job")


STATUS = "/apis/kubeflow.org/v1/namespaces/ml/mxjobs/mxnet-job/status"


def status_writes(server: FakeServer, since: int) -> int:
    return sum(1 for method, path in server.state.requests[since:] if method == "PUT" and path == STATUS)


def conflicts(reconciler: Reconciler) -> float:
    return reconciler.metrics.registry.get_sample_value("mxjob_status_conflicts_total") or 0.0


def test_a_stale_cached_job_after_our_own_write_does_not_conflict(api: tuple[FakeServer, Reconciler]) -> None:
    server, reconciler = api
    cached = dict(server.state.objects[JOB])  # what a watch cache holds before our write's event arrives
    assert not reconciler.reconcile(cached, pods(reconciler)).error
    set_pod(server, "mxnet-job-worker-0", "Failed", exit_code=137)
    since = len(server.state.requests)
    assert not reconciler.reconcile(cached, pods(reconciler)).error
    assert status_writes(server, since) == 1  # no 409 first
    assert conflicts(reconciler) == 0
    assert job_status(server)["restartCounts"] == {"Worker": 1}


def test_a_version_someone_else_wrote_still_conflicts(api: tuple[FakeServer, Reconciler]) -> None:
    server, reconciler = api
    cached = dict(server.state.objects[JOB])
    assert not reconciler.reconcile(cached, pods(reconciler)).error
    current = server.state.objects[JOB]
    server.state.update(JOB, {**current, "metadata": {**current["metadata"], "labels": {"x": "y"}}}, False, False)
    set_pod(server, "mxnet-job-worker-0", "Failed", exit_code=137)
    since = len(server.state.requests)
    assert not reconciler.reconcile(cached, pods(reconciler)).error
    assert status_writes(server, since) == 2
    assert conflicts(reconciler) == 1  # read again, decided again on the other writer's version
    assert server.state.objects[JOB]["metadata"]["labels"] == {"x": "y"}
    assert job_status(server)["restartCounts"] == {"Worker": 1}


def test_the_cache_is_trusted_again_once_it_moved() -> None:
    written = Written()
    old = {"metadata": {"namespace": "ml", "name": "j", "resourceVersion": "1"}}
    ours = {"metadata": {"namespace": "ml", "name": "j", "resourceVersion": "2"}, "status": {"a": 1}}
    written.remember(old, ours)
    assert written.latest(old) == ours
    assert written.latest(ours) == ours and len(written) == 0
    assert written.latest(old) == old
