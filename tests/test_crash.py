"""SIGKILL at any write of a restart: 50 trials, and never a duplicate nor a lost restart, nor a doubled event."""

from __future__ import annotations

import copy
import functools
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from mxjob_gitops.reconciler.kube import Cluster
from mxjob_gitops.reconciler.runner import Reconciler, Settings
from tests.conftest import REPO, run_cli
from tests.fakeapi import FakeServer, free_port
from tests.kubelet import PLURALS, set_pod
from tests.processes import reconciler_command
from tests.test_controller import wait_for

TRIALS = 50
SPEC = """apiVersion: kubeflow.org/v1
kind: MXJob
metadata: {name: job}
spec:
  jobMode: MXTrain
  mxReplicaSpecs:
    Scheduler: {replicas: 1, template: {spec: {containers: [{name: mxnet, image: mxnet:1.9}]}}}
    Server: {replicas: 1, template: {spec: {containers: [{name: mxnet, image: mxnet:1.9}]}}}
    Worker: {replicas: 2, restartPolicy: ExitCode, template: {spec: {containers: [{name: mxnet, image: mxnet:1.9}]}}}
"""
WORKER = "job-worker-0"


@functools.cache
def _manifests() -> tuple[dict[str, object], ...]:
    result = run_cli(["render", "-n", "ml", "-"], stdin=SPEC)
    assert result.exit_code == 0, result.stderr
    return tuple(m for m in yaml.safe_load_all(result.stdout) if m)


class ForkServer:
    """tests/forkserver.py in its own process: start a pass, learn its pid, wait for its end."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.forkserver"],
            cwd=REPO,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        assert self.lines.get(timeout=60) == "ready"

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.strip())

    def start(self, kubeconfig: Path, namespace: str) -> int:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{kubeconfig} {namespace}\n")
        self.process.stdin.flush()
        return int(self.lines.get(timeout=30))

    def close(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)
        self.process.stdout.close()


@pytest.fixture
def forkserver() -> Iterator[ForkServer]:
    server = ForkServer()
    yield server
    server.close()


def deploy(server: FakeServer, namespace: str) -> str:
    """The job with every pod Running and worker-0 failed with 137 long ago; returns the failed pod's uid."""
    for manifest in _manifests():
        body = copy.deepcopy(manifest)
        body["metadata"]["namespace"] = namespace  # type: ignore[index]
        code, created = server.state.create(str(body["apiVersion"]), PLURALS[str(body["kind"])], namespace, body)
        assert code == 201, created
    for name in ("job-scheduler-0", "job-server-0", "job-worker-0", "job-worker-1"):
        set_pod(server, name, "Running", namespace=namespace)
    set_pod(server, WORKER, "Failed", exit_code=137, namespace=namespace, finished_at="2020-01-01T00:00:00Z")
    return str(server.state.objects[("v1", "pods", namespace, WORKER)]["metadata"]["uid"])


def _parked_or_done(parked: threading.Event, forkserver: ForkServer) -> bool:
    return parked.is_set() or not forkserver.lines.empty()


def history(server: FakeServer, namespace: str, name: str) -> list[str]:
    with server.state.lock:
        return [
            kind
            for _, kind, _, plural, ns, obj in server.state.events
            if plural == "pods" and ns == namespace and obj["metadata"]["name"] == name
        ]


def test_sigkill_at_any_write_never_loses_nor_doubles_a_restart(tmp_path: Path, forkserver: ForkServer) -> None:
    rng = random.Random(20261122)
    killed = 0
    with FakeServer() as server:
        kubeconfig = server.kubeconfig(tmp_path / "kubeconfig", namespace="ml")
        for trial in range(TRIALS):
            namespace = f"trial-{trial}"
            old_uid = deploy(server, namespace)
            # Kill at the k-th write of the pass (events, status, delete, create, status again), the write
            # either applied with its answer lost, or never applied; a k past the last write kills nothing.
            hold = server.state.hold(rng.randint(1, 7), apply_first=rng.random() < 0.5)
            pid = forkserver.start(kubeconfig, namespace)
            wait_for(functools.partial(_parked_or_done, hold.parked, forkserver), timeout=30)
            if hold.parked.is_set():
                os.kill(pid, signal.SIGKILL)
                killed += 1
            hold.release.set()
            status = int(forkserver.lines.get(timeout=30))
            server.state.held = None
            assert os.WIFSIGNALED(status) or os.WEXITSTATUS(status) == 0, (trial, status)
            # A fresh reconciler (no state shared with the killed one) finishes what it started.
            assert Reconciler(Cluster.connect(str(kubeconfig)), Settings(namespaces=(namespace,))).run_once(5) == {}
            job = server.state.objects[("kubeflow.org/v1", "mxjobs", namespace, "job")]
            record = job["status"]["podRestarts"][WORKER]
            assert job["status"]["restartCounts"] == {"Worker": 1}, trial
            assert "pending" not in record, trial
            pod = server.state.objects[("v1", "pods", namespace, WORKER)]
            assert pod["metadata"]["uid"] != old_uid, trial
            # Exactly one deletion of the failed pod and one creation of its successor after the deploy.
            changes = [kind for kind in history(server, namespace, WORKER) if kind != "MODIFIED"]
            assert changes == ["ADDED", "DELETED", "ADDED"], (trial, changes)
            reasons = [
                e["reason"]
                for (_, plural, ns, _), e in server.state.objects.items()
                if plural == "events" and ns == namespace
            ]
            assert sorted(reasons) == ["ExitedWithCode", "MXJobRestarting"], (trial, reasons)
    assert killed >= TRIALS // 2  # most trials really died mid-pass


def _lease_holder(server: FakeServer) -> str:
    lease = server.state.objects.get(("coordination.k8s.io/v1", "leases", "ml", "mxjob-reconciler")) or {}
    return str((lease.get("spec") or {}).get("holderIdentity") or "")


def _metric(port: int, name: str) -> float:
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        for line in response.read().decode().splitlines():
            if line.startswith(name):
                return float(line.split()[-1])
    return 0.0


def _controller(kubeconfig: Path, identity: str, port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        reconciler_command(
            kubeconfig, "ml", port, "--leader-election-namespace", "ml", "--leader-election-timings", "2,1.5,0.2"
        ),
        cwd=REPO,
        env={**os.environ, "POD_NAME": identity},
        stderr=subprocess.DEVNULL,
    )


def _job_running(server: FakeServer) -> bool:
    job = server.state.objects.get(("kubeflow.org/v1", "mxjobs", "ml", "job")) or {}
    return any(c.get("type") == "Running" for c in (job.get("status") or {}).get("conditions") or [])


def _quiet(server: FakeServer, identity: str, seconds: float) -> bool:
    """No request but lease renewals from that replica for `seconds`."""
    since = time.monotonic() - seconds
    with server.state.lock:
        recent = [x for x in server.state.user_agents if x[0] > since]
    return not any(agent.endswith(f"/{identity}") and "/leases/" not in path for _, _, path, agent in recent)


def _pod_uid(server: FakeServer, name: str) -> str | None:
    pod = server.state.objects.get(("v1", "pods", "ml", name))
    return None if pod is None else str(pod["metadata"]["uid"])


def test_a_frozen_leader_that_lost_the_lease_never_writes(tmp_path: Path) -> None:
    from tests.test_controller import _get

    with FakeServer() as server:
        kubeconfig = server.kubeconfig(tmp_path / "kubeconfig", namespace="ml")
        deploy(server, "ml")
        set_pod(server, WORKER, "Running", namespace="ml")
        ports = free_port(), free_port()
        first = _controller(kubeconfig, "replica-a", ports[0])
        second = None
        try:
            wait_for(lambda: _lease_holder(server) == "replica-a", timeout=60)
            second = _controller(kubeconfig, "replica-b", ports[1])
            wait_for(lambda: _ready(ports[1]), timeout=60)
            # Frozen only once it is idle: a write that passed its fence before the freeze (its first
            # reconcile, slow on a loaded machine) may still reach the server after it; what must never
            # happen is a write begun after the freeze.
            wait_for(lambda: _job_running(server) and _quiet(server, "replica-a", 1.0), timeout=60)
            first.send_signal(signal.SIGSTOP)  # frozen while leading; its lease runs out
            frozen_at = time.monotonic()
            old = _pod_uid(server, WORKER)
            set_pod(server, WORKER, "Failed", exit_code=137, finished_at="2020-01-01T00:00:00Z")
            wait_for(
                lambda: _lease_holder(server) == "replica-b" and _pod_uid(server, WORKER) not in (None, old), timeout=30
            )
            second_old = _pod_uid(server, "job-worker-1")
            set_pod(server, "job-worker-1", "Failed", exit_code=137, finished_at="2020-01-01T00:00:00Z")
            first.send_signal(signal.SIGCONT)  # wakes with a backlog: two failed pods it has not acted on
            wait_for(
                lambda: (
                    _metric(ports[0], "mxjob_is_leader") == 0.0
                    and _metric(ports[0], "mxjob_reconcile_skipped_total") > 0
                ),
                timeout=30,
            )
            wait_for(lambda: _pod_uid(server, "job-worker-1") not in (None, second_old), timeout=30)
            writes = [
                (method, path)
                for when, method, path, agent in list(server.state.user_agents)
                if when > frozen_at
                and agent.endswith("/replica-a")
                and "/leases/" not in path
                and method in ("POST", "PUT", "PATCH", "DELETE")
            ]
            assert writes == []
            assert _get(f"http://127.0.0.1:{ports[0]}/healthz")[0] == 200
        finally:
            for process in (first, second):
                if process is not None:
                    process.send_signal(signal.SIGCONT)
                    process.terminate()
                    process.wait(timeout=30)


def _ready(port: int) -> bool:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False
