"""The long-running reconciler against the fake API: watches, faults, restarts and leader election."""

from __future__ import annotations

import functools
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mxjob_gitops.reconciler.controller import Controller, _leading
from mxjob_gitops.reconciler.health import http_server
from mxjob_gitops.reconciler.kube import Cluster, Fenced, Writer
from mxjob_gitops.reconciler.leader import LEASE_NAME, LeaderElector
from mxjob_gitops.reconciler.runner import Reconciler, Settings
from tests.conftest import run_cli
from tests.fakeapi import FakeServer
from tests.kubelet import condition_types, deploy, job_status, set_pod, state_history
from tests.test_reconcile import EXITCODE_JOB, PODS, once


def wait_for(predicate: Callable[[], bool], timeout: float = 15.0) -> None:
    """Poll a condition (never a fixed sleep): the test fails only if it does not come true in time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError("condition not reached in time")


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[FakeServer, Path]]:
    with FakeServer() as server:
        yield server, server.kubeconfig(tmp_path / "kubeconfig", namespace="ml")


@pytest.fixture
def controller(api: tuple[FakeServer, Path]) -> Iterator[Controller]:
    _, kubeconfig = api
    reconciler = Reconciler(Cluster.connect(str(kubeconfig)), Settings(namespaces=("ml",)))
    running = Controller(reconciler)
    _leading(running, True)
    running.start()
    yield running
    running.stop.set()


def _restart_worker(server: FakeServer) -> None:
    old = server.state.objects[("v1", "pods", "ml", "mxnet-job-worker-0")]["metadata"]["uid"]
    set_pod(server, "mxnet-job-worker-0", "Failed", exit_code=137)
    wait_for(
        lambda: (
            (server.state.objects.get(("v1", "pods", "ml", "mxnet-job-worker-0")) or {}).get("metadata", {}).get("uid")
            not in (None, old)
        )
    )
    set_pod(server, "mxnet-job-worker-0", "Running")
    wait_for(lambda: state_history(server)[-2:] == ["Restarting", "Running"])
    assert job_status(server)["restartCounts"] == {"Worker": 1}


def test_watch_driven_restart(api: tuple[FakeServer, Path], controller: Controller) -> None:
    server, _ = api
    deploy(server, EXITCODE_JOB)
    for name in PODS:
        set_pod(server, name, "Running")
    wait_for(lambda: condition_types(server) == [("Created", "True"), ("Running", "True")])
    _restart_worker(server)
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for metric in controller.reconciler.metrics.registry.collect()
        for s in metric.samples
    }
    assert (
        samples[("mxjob_pod_exits_total", (("code", "137"), ("exit_class", "retryable"), ("replica_type", "Worker")))]
        == 1
    )
    assert samples[("mxjob_jobs_restarted_total", (("job_namespace", "ml"),))] == 1


def test_watch_faults_410_5xx_and_a_dropped_stream(api: tuple[FakeServer, Path], controller: Controller) -> None:
    server, _ = api
    deploy(server, EXITCODE_JOB)
    for name in PODS:
        set_pod(server, name, "Running")
    wait_for(lambda: condition_types(server)[-1:] == [("Running", "True")])
    # The pod watch is dropped mid-stream, the next list fails with 500, the history is compacted (410).
    server.drop_next_watch_after(1)
    server.state.fail("GET", r"/pods\?", 500, times=2)
    server.state.compact()
    server.state.fail("GET", r"/pods\?.*watch=", 410, times=1)
    _restart_worker(server)
    restarts = {
        s.labels["reason"]
        for metric in controller.reconciler.metrics.registry.collect()
        for s in metric.samples
        if s.name == "mxjob_watch_restarts_total" and s.value
    }
    assert "error" in restarts


def test_status_conflict_is_read_again_and_decided_again(api: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = api
    deploy(server, EXITCODE_JOB)
    for name in PODS:
        set_pod(server, name, "Running")
    server.state.fail("PUT", r"/mxjobs/mxnet-job/status(\?|$)", 409, times=2)
    log = once(kubeconfig)
    assert "status conflict" in log
    assert condition_types(server) == [("Created", "True"), ("Running", "True")]


def test_a_failed_create_is_retried_within_the_pass_and_by_the_next(api: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = api
    deploy(server, EXITCODE_JOB)
    for name in PODS:
        set_pod(server, name, "Running")
    once(kubeconfig)
    set_pod(server, "mxnet-job-worker-0", "Failed", exit_code=137)
    server.state.fail("POST", r"/pods(\?|$)", 503, times=1)
    once(kubeconfig)  # deleted; the create fails once and is retried within the same pass
    assert ("v1", "pods", "ml", "mxnet-job-worker-0") in server.state.objects
    set_pod(server, "mxnet-job-worker-0", "Failed", exit_code=137, finished_at="2020-01-01T00:00:00Z")
    server.state.fail("POST", r"/pods(\?|$)", 500, times=10_000)  # the create keeps failing: a crash, in effect
    result = run_cli(
        ["reconcile", "--once", "--kubeconfig", str(kubeconfig), "--no-leader-election", "--pass-timeout", "2"]
    )
    assert result.exit_code == 1 and "could not be reconciled" in result.stderr
    assert ("v1", "pods", "ml", "mxnet-job-worker-0") not in server.state.objects
    assert job_status(server)["podRestarts"]["mxnet-job-worker-0"]["pending"] is True
    server.state.faults.clear()
    once(kubeconfig)  # a fresh process reads the status and finishes the restart
    assert ("v1", "pods", "ml", "mxnet-job-worker-0") in server.state.objects
    assert job_status(server)["restartCounts"] == {"Worker": 2}
    deletes = [r for r in server.state.requests if r[0] == "DELETE"]
    assert len(deletes) == 2


def test_two_replicas_exactly_one_leads(api: tuple[FakeServer, Path]) -> None:
    _, kubeconfig = api
    clock = lambda: datetime.now(UTC)  # noqa: E731
    first = LeaderElector(Cluster.connect(str(kubeconfig)), "ml", "first", clock)
    second = LeaderElector(Cluster.connect(str(kubeconfig)), "ml", "second", clock)
    results = {}

    def elect(elector: LeaderElector) -> None:
        results[elector.identity] = elector.try_acquire()

    threads = [threading.Thread(target=elect, args=(e,)) for e in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results.values()) == [False, True]
    leader, follower = (first, second) if results["first"] else (second, first)
    leader._set(True)
    assert follower.try_acquire() is False
    leader.release()
    assert follower.try_acquire() is True
    assert leader.try_acquire() is False


def _short_lease(kubeconfig: Path, identity: str) -> LeaderElector:
    """An elector on the real clock with a 3 s lease, a 2 s renew deadline and a 0.5 s retry period."""
    return LeaderElector(
        Cluster.connect(str(kubeconfig)),
        "ml",
        identity,
        lambda: datetime.now(UTC),
        lease_seconds=3,
        renew_deadline=2,
        retry_period=0.5,
    )


def test_a_follower_with_a_skewed_clock_waits_a_whole_lease_duration(api: tuple[FakeServer, Path]) -> None:
    """Expiry is timed on the follower's own monotonic clock from when it first saw the record (client-go's
    rule): a follower whose wall clock runs an hour ahead neither takes a lease that is being renewed nor one
    whose holder stopped less than leaseDurationSeconds ago."""
    from datetime import timedelta

    _, kubeconfig = api
    leader = _short_lease(kubeconfig, "leader")
    ahead = LeaderElector(
        Cluster.connect(str(kubeconfig)), "ml", "ahead", lambda: datetime.now(UTC) + timedelta(hours=1)
    )
    assert leader.try_acquire()
    assert ahead.try_acquire() is False  # by its own wall clock the renewTime is an hour old
    assert leader.try_acquire()  # renewed: the follower's wait starts again
    last_renewal = time.monotonic()
    assert ahead.try_acquire() is False
    wait_for(ahead.try_acquire, timeout=10)
    assert time.monotonic() - last_renewal >= 3
    assert leader.try_acquire() is False


def test_metrics_health_and_readiness(api: tuple[FakeServer, Path]) -> None:
    _, kubeconfig = api
    controller = Controller(Reconciler(Cluster.connect(str(kubeconfig)), Settings(namespaces=("ml",))))
    server = http_server("127.0.0.1:0", controller.reconciler.metrics.registry, controller.health, controller.readiness)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with pytest.raises(urllib.error.HTTPError) as not_ready:
            urllib.request.urlopen(f"{base}/readyz", timeout=5)
        assert not_ready.value.code == 503
        not_ready.value.close()
        assert _get(f"{base}/healthz")[0] == 200
        _leading(controller, True)
        controller.start()
        wait_for(controller.ready)
        assert _get(f"{base}/readyz")[0] == 200
        metrics = _get(f"{base}/metrics")[1]
        assert "mxjob_is_leader 1.0" in metrics and "mxjob_reconcile_duration_seconds" in metrics
        controller.stale_window = -1  # every cache counts as out of date
        with pytest.raises(urllib.error.HTTPError) as stale:
            urllib.request.urlopen(f"{base}/readyz", timeout=5)
        assert stale.value.code == 503 and b"cache not refreshed" in stale.value.read()
        stale.value.close()
    finally:
        controller.stop.set()
        server.shutdown()
        server.server_close()


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.read().decode()


def test_lease_name() -> None:
    assert LEASE_NAME == "mxjob-reconciler"


def test_two_controllers_exactly_one_acts(api: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = api
    deploy(server, EXITCODE_JOB)
    for name in PODS:
        set_pod(server, name, "Running")
    clock = lambda: datetime.now(UTC)  # noqa: E731
    controllers = []
    for identity in ("replica-a", "replica-b"):
        reconciler = Reconciler(Cluster.connect(str(kubeconfig)), Settings(namespaces=("ml",)))
        controller = Controller(reconciler)
        elector = LeaderElector(
            reconciler.cluster,
            "ml",
            identity,
            clock,
            retry_period=0.2,
            on_change=functools.partial(_leading, controller),
        )
        threading.Thread(target=elector.run, args=(controller.stop,), daemon=True).start()
        controller.start()
        controllers.append((controller, elector))
    try:
        wait_for(lambda: condition_types(server) == [("Created", "True"), ("Running", "True")])

        def reconciled(controller: Controller) -> float:
            return float(controller.reconciler.metrics.reconcile_duration._sum.get())

        wait_for(lambda: any(reconciled(c) > 0 for c, _ in controllers))  # the metric lands after the write
        leaders = [e.identity for _, e in controllers if e.leader]
        assert len(leaders) == 1
        assert sorted(reconciled(c) > 0 for c, _ in controllers) == [False, True]
    finally:
        for controller, elector in controllers:
            controller.stop.set()
            elector.release()


def test_serve_stops_cleanly_and_releases_the_lease(api: tuple[FakeServer, Path]) -> None:
    from mxjob_gitops.reconciler.controller import serve

    server, kubeconfig = api
    stop = threading.Event()
    reconciler = Reconciler(Cluster.connect(str(kubeconfig)), Settings(namespaces=("ml",)))
    elector = LeaderElector(reconciler.cluster, "ml", "serving", reconciler.clock)
    thread = threading.Thread(target=serve, args=(reconciler, "127.0.0.1:0", "127.0.0.1:0", elector, stop), daemon=True)
    thread.start()
    lease_key = ("coordination.k8s.io/v1", "leases", "ml", LEASE_NAME)
    wait_for(lambda: (server.state.objects.get(lease_key) or {}).get("spec", {}).get("holderIdentity", "") != "")
    stop.set()  # what the SIGTERM handler does
    thread.join(timeout=15)
    assert not thread.is_alive()
    assert server.state.objects[lease_key]["spec"]["holderIdentity"] == ""


def test_lease_namespace_in_cluster_file_then_kubeconfig_context(api: tuple[FakeServer, Path], tmp_path: Path) -> None:
    from mxjob_gitops.reconciler.cli import lease_namespace

    _, kubeconfig = api  # its context's namespace is "ml"
    missing = tmp_path / "no-such-file"
    assert lease_namespace(str(kubeconfig), None, str(missing)) == "ml"
    in_cluster = tmp_path / "namespace"
    in_cluster.write_text("mxjob-system\n", encoding="utf-8")
    assert lease_namespace(str(kubeconfig), None, str(in_cluster)) == "mxjob-system"
    assert lease_namespace(str(tmp_path / "none.yaml"), None, str(missing)) == "default"


def test_the_leader_acts_only_within_its_renew_deadline(api: tuple[FakeServer, Path]) -> None:
    _, kubeconfig = api
    now = [time.monotonic()]
    elector = _short_lease(kubeconfig, "solo")
    assert elector.try_acquire() and not elector.may_act()  # not yet told it leads
    elector._set(True)
    assert elector.may_act()
    elector._valid_until = now[0] - 0.001  # as after a freeze longer than the renew deadline
    assert not elector.may_act()
    writer = Writer(elector.cluster, elector.may_act)
    with pytest.raises(Fenced):
        writer.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "ml"}})
    with pytest.raises(ValueError):
        LeaderElector(elector.cluster, "ml", "bad", lambda: datetime.now(UTC), lease_seconds=5, renew_deadline=5)


def test_a_conflict_from_a_spec_change_is_decided_on_the_new_spec(api: tuple[FakeServer, Path]) -> None:
    """The status write conflicts because the spec changed meanwhile (here: suspended, a new generation): the job
    is read again and decided on the new spec, and the status claims the generation that decision saw."""
    server, kubeconfig = api
    deploy(server, EXITCODE_JOB)
    key = ("kubeflow.org/v1", "mxjobs", "ml", "mxnet-job")
    seen = {**server.state.objects[key], "metadata": {**server.state.objects[key]["metadata"], "generation": 1}}
    stored = server.state.objects[key]
    stored["metadata"]["generation"] = 2
    stored["spec"]["runPolicy"] = {**(stored["spec"].get("runPolicy") or {}), "suspend": True}
    server.state.fail("PUT", r"/mxjobs/mxnet-job/status(\?|$)", 409, times=1)
    reconciler = Reconciler(Cluster.connect(str(kubeconfig)), Settings(namespaces=("ml",)))
    result = reconciler.reconcile(seen, reconciler.pods_of("ml", "mxnet-job"))
    assert not result.error, result.error
    assert job_status(server)["observedGeneration"] == 2
    assert ("Suspended", "True") in condition_types(server)
