"""`mxjob reconcile`'s scope: `--once` acts only while holding the Lease (a cron pass never acts beside a running
reconciler), and the namespaces it watches by default fit a namespace-scoped Role (kubectl's rule)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mxjob_gitops.reconciler.leader import LEASE_NAME
from tests.conftest import run_cli
from tests.fakeapi import FakeServer
from tests.kubelet import condition_types, deploy, set_pod
from tests.test_reconcile import PODS, SEED

LEASE = ("coordination.k8s.io/v1", "leases", "ml", LEASE_NAME)


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[FakeServer, Path]]:
    with FakeServer() as server:
        deploy(server, SEED)
        for name in PODS:
            set_pod(server, name, "Running")
        yield server, server.kubeconfig(tmp_path / "kubeconfig", namespace="ml")


def once(kubeconfig: Path, *flags: str) -> tuple[int, str]:
    result = run_cli(["reconcile", "--once", "--kubeconfig", str(kubeconfig), *flags])
    return result.exit_code, result.stderr


def holder(server: FakeServer) -> str | None:
    lease = server.state.objects.get(LEASE)
    return None if lease is None else str(lease["spec"].get("holderIdentity") or "")


def renew(server: FakeServer, stop: threading.Event) -> None:
    """A running reconciler (another process) holding the Lease: it renews it every 0.5 s."""
    spec = {"holderIdentity": "deployment", "leaseDurationSeconds": 3}
    lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": LEASE_NAME}}
    code, body = server.state.create("coordination.k8s.io/v1", "leases", "ml", {**lease, "spec": spec})
    assert code == 201, body
    while not stop.wait(0.5):
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        current = server.state.objects[LEASE]
        server.state.update(LEASE, {**current, "spec": {**spec, "renewTime": now}}, False, False)


def test_once_takes_the_lease_and_gives_it_back(api: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = api
    code, log = once(kubeconfig)
    assert code == 0, log
    assert condition_types(server)[-1] == ("Running", "True")
    assert holder(server) == ""  # taken for the pass (the Lease exists now), released at its end


def test_once_does_not_act_beside_a_reconciler_that_holds_the_lease(api: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = api
    stop = threading.Event()
    renewing = threading.Thread(target=renew, args=(server, stop), daemon=True)
    renewing.start()
    try:
        code, log = once(kubeconfig, "--leader-election-timings", "3,2,0.5")
    finally:
        stop.set()
        renewing.join()
    assert code == 2, log
    assert "another reconciler holds the Lease ml/mxjob-reconciler" in log
    assert not condition_types(server)  # nothing was written
    code, log = once(kubeconfig, "--no-leader-election")
    assert code == 0, log


def test_the_default_scope_is_the_contexts_namespace(api: tuple[FakeServer, Path], tmp_path: Path) -> None:
    server, _ = api
    elsewhere = server.kubeconfig(tmp_path / "elsewhere", namespace="research")
    code, log = once(elsewhere, "--no-leader-election")
    assert code == 0, log
    assert "watching research" in log
    assert not condition_types(server)  # the job in `ml` is not this context's
    code, log = once(elsewhere, "--no-leader-election", "--all-namespaces")
    assert code == 0, log
    assert condition_types(server)[-1] == ("Running", "True")


def test_a_namespace_and_all_namespaces_together_are_a_usage_error(api: tuple[FakeServer, Path]) -> None:
    _, kubeconfig = api
    code, log = once(kubeconfig, "-n", "ml", "-A")
    assert code == 2 and "not both" in log
