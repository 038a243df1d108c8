"""The reconciler's pod lifecycle on a real control plane: kube-scheduler places the rendered pods (honouring GPU
capacity and node selectors), kwok runs them on fake nodes and ends the `mxnet` container with the exit code a test
asks for, kube-controller-manager evicts pods from a node that stops answering and garbage-collects; `mxjob
reconcile` runs as its own process against all of it. Nothing here plays the kubelet by hand; in-place container
restarts of OnFailure pods (which kwok cannot do) stay with tests/realapi's player."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import yaml

from tests.cluster.control_plane import POOL_LABEL, ControlPlane
from tests.conftest import REPO, run_cli
from tests.processes import die_with_parent, reconciler_command, stop_processes
from tests.realapi.cluster import free_port

JOB = "mxjob-lifecycle"
WAIT = 90.0


def spec(pool: str, worker_policy: str = "ExitCode") -> str:
    def replica(replicas: int, policy: str, node_pool: str, gpus: int = 0) -> dict[str, Any]:
        container: dict[str, Any] = {"name": "mxnet", "image": "mxjob/mxnet:gpu"}
        if gpus:
            container["resources"] = {"limits": {"nvidia.com/gpu": gpus}}
        template = {"spec": {"nodeSelector": {POOL_LABEL: node_pool}, "containers": [container]}}
        return {"replicas": replicas, "restartPolicy": policy, "template": template}

    job = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "MXJob",
        "metadata": {"name": JOB},
        "spec": {
            "jobMode": "MXTrain",
            "runPolicy": {"cleanPodPolicy": "None", "backoffLimit": 5},
            "mxReplicaSpecs": {
                "Scheduler": replica(1, "Never", pool),
                "Server": replica(1, "Never", pool),
                "Worker": replica(2, worker_policy, f"{pool}-gpu", gpus=1),
            },
        },
    }
    return yaml.safe_dump(job)


class Job:
    """One rendered job in the test's namespace, applied as Argo CD or Flux would, and what the cluster made of it."""

    def __init__(self, plane: ControlPlane, namespace: str) -> None:
        self.plane, self.namespace = plane, namespace
        self.pods_path = f"/api/v1/namespaces/{namespace}/pods"

    def deploy(self, text: str) -> None:
        rendered = run_cli(["render", "-n", self.namespace, "-"], stdin=text)
        assert rendered.exit_code == 0, rendered.stderr
        self.plane.kubectl("apply", "-n", self.namespace, "-f", "-", stdin=rendered.stdout)

    def pods(self) -> dict[str, dict[str, Any]]:
        listing = self.plane.get(self.pods_path) or {}
        return {p["metadata"]["name"]: p for p in listing.get("items") or []}

    def status(self) -> dict[str, Any]:
        job = self.plane.get(f"/apis/kubeflow.org/v1/namespaces/{self.namespace}/mxjobs/{JOB}") or {}
        found: dict[str, Any] = job.get("status") or {}
        return found

    def state(self) -> str:
        conditions = self.status().get("conditions") or []
        kubeflow = [c for c in conditions if c["type"] not in ("Stalled", "Ready", "Reconciling")]
        return str(kubeflow[-1]["type"]) if kubeflow else ""

    def events(self) -> set[str]:
        return {reason for reason, _ in self.event_messages()}

    def event_messages(self) -> list[tuple[str, str]]:
        listing = self.plane.get(f"/api/v1/namespaces/{self.namespace}/events") or {}
        return [(str(e.get("reason")), str(e.get("message"))) for e in listing.get("items") or []]

    def exit(self, pod: str, code: int, reason: str = "") -> None:
        """The container ends with `code` (kwok's mxjob-pod-exit Stage reads these annotations)."""
        annotations = {"mxjob.test/exit-code": str(code), **({"mxjob.test/exit-reason": reason} if reason else {})}
        patch = {"metadata": {"annotations": annotations}}
        code_, body = self.plane.request("PATCH", f"{self.pods_path}/{pod}", patch, "application/merge-patch+json")
        assert code_ == 200, body

    def wait(self, what: str, predicate: Callable[[], bool], timeout: float = WAIT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.plane.check_running()
            if predicate():
                return
            time.sleep(0.2)
        pods = {n: (p["status"].get("phase"), p["metadata"].get("deletionTimestamp")) for n, p in self.pods().items()}
        raise AssertionError(f"timed out waiting for {what}: state {self.state()!r}, {self.status()}, pods {pods}")

    def all_running(self) -> bool:
        pods = self.pods()
        return len(pods) == 4 and all(p["status"].get("phase") == "Running" for p in pods.values())


class Reconciler:
    """`mxjob reconcile` in controller mode, its own process, watching the test's namespace."""

    def __init__(self, plane: ControlPlane, namespace: str) -> None:
        self.plane, self.namespace = plane, namespace
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = (self.plane.workdir / f"reconcile-{self.namespace}.log").open("ab")
        command = reconciler_command(self.plane.kubeconfig, self.namespace, free_port(), "--no-leader-election")
        self.process = subprocess.Popen(
            command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, preexec_fn=die_with_parent
        )
        log.close()

    def stop(self) -> None:
        if self.process is not None:
            stop_processes([self.process], timeout=20)
            self.process = None


@pytest.fixture
def reconciler(control_plane: ControlPlane, pool: str) -> Iterator[Reconciler]:
    running = Reconciler(control_plane, pool)
    running.start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def job(control_plane: ControlPlane, pool: str, reconciler: Reconciler) -> Job:
    """The test's job, with the reconciler watching its namespace."""
    return Job(control_plane, pool)


def running(job: Job, worker_policy: str = "ExitCode") -> None:
    job.deploy(spec(job.namespace, worker_policy))
    job.wait("every pod scheduled and Running", job.all_running)
    job.wait("the job Running", lambda: job.state() == "Running")
    placed = {n: p["spec"].get("nodeName", "") for n, p in job.pods().items()}
    workers = sorted(placed[n] for n in placed if "-worker-" in n)
    assert workers == [f"{job.namespace}-gpu-0", f"{job.namespace}-gpu-1"], placed  # one GPU each: one worker each


def test_exit_137_restarts_the_worker_and_it_runs_again(job: Job) -> None:
    running(job)
    worker = f"{JOB}-worker-0"
    old = job.pods()[worker]["metadata"]["uid"]
    job.exit(worker, 137)
    job.wait("the worker recreated and Running", lambda: _replaced_and_running(job, worker, old))
    job.wait("the job Running again", lambda: job.state() == "Running")
    assert job.status()["restartCounts"] == {"Worker": 1}
    assert {"ExitedWithCode", "MXJobRestarting"} <= job.events()


def test_exit_1_fails_the_job(job: Job) -> None:
    running(job)
    job.exit(f"{JOB}-worker-1", 1)
    job.wait("the job Failed", lambda: job.state() == "Failed")
    assert job.status()["conditions"][-1]["message"].endswith("because 1 Worker replica(s) failed.")


def test_oom_killed_is_permanent(job: Job) -> None:
    running(job)
    job.exit(f"{JOB}-worker-0", 137, "OOMKilled")
    job.wait("the job Failed", lambda: job.state() == "Failed")


def test_scheduler_exit_0_succeeds_and_the_counts_stay(job: Job) -> None:
    running(job)
    worker = f"{JOB}-worker-1"
    old = job.pods()[worker]["metadata"]["uid"]
    job.exit(worker, 137)
    job.wait("the worker recreated and Running", lambda: _replaced_and_running(job, worker, old))
    job.exit(f"{JOB}-scheduler-0", 0)
    job.wait("the job Succeeded", lambda: job.state() == "Succeeded")
    time.sleep(3)  # passes after the finishing one must not drop the ledger
    assert job.status()["restartCounts"] == {"Worker": 1}


def test_a_pod_evicted_from_a_lost_node_is_restarted(job: Job) -> None:
    running(job)
    node = f"{job.namespace}-gpu-0"
    worker = next(n for n, p in job.pods().items() if p["spec"].get("nodeName") == node)
    old = job.pods()[worker]["metadata"]["uid"]
    job.plane.lose_node(node)
    # The node lifecycle controller marks the node unreachable, taints it, and evicts the pod: Terminating for good.
    job.wait("the evicted worker counted as a restart", lambda: job.status().get("restartCounts") == {"Worker": 1})
    assert job.state() == "Restarting"
    assert job.pods()[worker]["metadata"].get("deletionTimestamp")
    job.plane.revive_node(node)  # the kubelet comes back and finishes the deletion; the pod is created again
    job.wait("the worker recreated and Running", lambda: _replaced_and_running(job, worker, old))
    job.wait("the job Running again", lambda: job.state() == "Running")
    assert job.status()["restartCounts"] == {"Worker": 1}


def test_a_pod_evicted_from_a_lost_node_fails_a_never_job(job: Job) -> None:
    running(job, worker_policy="Never")
    job.plane.lose_node(f"{job.namespace}-gpu-1")
    job.wait("the job Failed", lambda: job.state() == "Failed")


def test_a_pod_that_vanished_while_the_reconciler_was_down_is_created_again(job: Job, reconciler: Reconciler) -> None:
    """The reconciler never saw it go (a watch sees a force-deleted pod go Terminating first, which is the lost
    pod's path): it finds the job running with a pod missing."""
    running(job)
    worker = f"{JOB}-worker-0"
    old = job.pods()[worker]["metadata"]["uid"]
    reconciler.stop()
    options = {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0}
    code, body = job.plane.request("DELETE", f"{job.pods_path}/{worker}", options)
    assert code == 200, body
    job.wait("the pod gone", lambda: worker not in job.pods())
    reconciler.start()
    job.wait("the vanished worker recreated and Running", lambda: _replaced_and_running(job, worker, old))
    job.wait("the job Running again", lambda: job.state() == "Running")
    assert job.status()["restartCounts"] == {"Worker": 1}
    assert "MXJobPodMissing" in job.events(), [m for m in job.event_messages() if m[0] != "Scheduled"]


def _replaced_and_running(job: Job, name: str, old_uid: str) -> bool:
    pod = job.pods().get(name)
    return (
        pod is not None
        and pod["metadata"]["uid"] != old_uid
        and pod["status"].get("phase") == "Running"
        and not pod["metadata"].get("deletionTimestamp")
    )


@pytest.mark.usefixtures("control_plane")  # the same binaries (skipped without them, failed under CI=true)
def test_the_cluster_benchmark_prints_its_figures() -> None:
    """bench/cluster_bench.py at its smallest: the figures `make bench` reports for the cluster tier."""
    result = subprocess.run(
        [sys.executable, str(REPO / "bench" / "cluster_bench.py"), "--jobs", "3"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for figure in (
        r"deployed until every job Running\s+\d+\.\d+ s",
        r"burst of 3 exits -> status\s+p50 \d+\.\d+ s, p99 \d+\.\d+ s, max \d+\.\d+ s \(3/3 recorded",
        r"status writes answered 409 in the burst\s+\d+",
        r"reconciler peak RSS\s+\d+ MiB",
    ):
        assert re.search(figure, result.stdout), (figure, result.stdout)
