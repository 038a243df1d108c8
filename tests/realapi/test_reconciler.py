"""The reconciler scenarios of tests/test_reconcile.py and tests/test_controller.py, on a real kube-apiserver."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from datetime import UTC, datetime
from typing import Any

import pytest

from mxjob_gitops.reconciler.kube import Cluster
from mxjob_gitops.reconciler.leader import LEASE_NAME, LeaderElector
from mxjob_gitops.reconciler.runner import Reconciler, Settings
from tests.conftest import REPO
from tests.realapi.cluster import wait_until
from tests.realapi.kubelet import Kubelet
from tests.test_reconcile import EXITCODE_JOB, PODS, SEED, once

WORKER = "mxnet-job-worker-0"


def reconcile(kubelet: Kubelet, *flags: str) -> str:
    """One `mxjob reconcile --once` pass over the test's namespace, then the kubelet catches up."""
    log = once(kubelet.cluster.kubeconfig, "-n", kubelet.namespace, *flags)
    kubelet.sync()
    return log


def without_token_mounts(pod: dict[str, Any]) -> list[dict[str, Any]]:
    """The containers without the service-account token mount admission adds (a random name per pod)."""

    def kept(mount: dict[str, Any]) -> bool:
        return not str(mount["name"]).startswith("kube-api-access-")

    return [{**c, "volumeMounts": [m for m in c.get("volumeMounts", []) if kept(m)]} for c in pod["spec"]["containers"]]


def running(kubelet: Kubelet, spec: str = EXITCODE_JOB) -> None:
    kubelet.deploy(spec)
    for name in PODS:
        kubelet.set_pod(name, "Running")
    reconcile(kubelet)
    assert kubelet.condition_types() == [("Created", "True"), ("Running", "True")]


def test_running_then_137_restarts_the_worker(kubelet: Kubelet) -> None:
    running(kubelet)
    old = kubelet.pods()[WORKER]
    before = kubelet.job()["metadata"]["resourceVersion"]
    kubelet.set_pod(WORKER, "Failed", exit_code=137)
    reconcile(kubelet)  # one pass: deleted, gone, created again from the rendering of the live MXJob
    assert kubelet.state_history(before)[-2:] == ["Restarting", "Running"]
    status = kubelet.job_status()
    assert status["restartCounts"] == {"Worker": 1}
    assert "pending" not in status["podRestarts"][WORKER]
    assert {"ExitedWithCode", "MXJobRestarting"} <= {event["reason"] for event in kubelet.events()}
    recreated = kubelet.pods()[WORKER]
    assert recreated["metadata"]["uid"] != old["metadata"]["uid"]
    assert recreated["metadata"]["labels"] == old["metadata"]["labels"]
    assert without_token_mounts(recreated) == without_token_mounts(old)
    kubelet.set_pod(WORKER, "Running")
    reconcile(kubelet)
    assert kubelet.condition_types()[-1] == ("Running", "True")
    assert ("Restarting", "True") not in kubelet.condition_types()


class Crash(BaseException):
    """The process dies here (not an Exception: nothing in the reconciler may catch it)."""


def test_a_crash_between_the_events_and_the_status_neither_loses_nor_doubles_an_event(
    kubelet: Kubelet, monkeypatch: pytest.MonkeyPatch
) -> None:
    running(kubelet)
    kubelet.set_pod(WORKER, "Failed", exit_code=137)
    crashing = Reconciler(Cluster.connect(str(kubelet.cluster.kubeconfig)), Settings(namespaces=(kubelet.namespace,)))
    assert crashing.applier.writer is not None

    def crash(obj: dict[str, Any]) -> dict[str, Any]:
        raise Crash

    monkeypatch.setattr(crashing.applier.writer, "replace_status", crash)
    with pytest.raises(Crash):
        crashing.run_once(timeout=10)
    restarts = {"ExitedWithCode", "MXJobRestarting"}
    written = sorted(e["metadata"]["name"] for e in kubelet.events() if e["reason"] in restarts)
    assert len(written) == 2 and not kubelet.job_status().get("restartCounts")
    reconcile(kubelet)  # a fresh process decides the same events: the server answers 409, nothing doubles
    assert sorted(e["metadata"]["name"] for e in kubelet.events() if e["reason"] in restarts) == written
    assert kubelet.job_status()["restartCounts"] == {"Worker": 1}


def test_exit_1_fails_the_job(kubelet: Kubelet) -> None:
    running(kubelet)
    kubelet.set_pod(WORKER, "Failed", exit_code=1)
    reconcile(kubelet)
    status = kubelet.job_status()
    assert status["conditions"][-1]["type"] == "Failed"
    assert status["conditions"][-1]["message"] == "mxjob mxnet-job is failed because 1 Worker replica(s) failed."
    assert status["completionTime"]


def test_scheduler_exit_0_succeeds_with_a_completion_time(kubelet: Kubelet) -> None:
    running(kubelet, SEED)
    kubelet.set_pod("mxnet-job-scheduler-0", "Succeeded", exit_code=0)
    reconcile(kubelet)
    assert kubelet.condition_types()[-1] == ("Succeeded", "True")
    assert kubelet.job_status()["completionTime"]


def test_backoff_limit_fails_the_job_and_removes_its_pods(kubelet: Kubelet) -> None:
    running(kubelet, EXITCODE_JOB.replace("    cleanPodPolicy: None", "    cleanPodPolicy: None\n    backoffLimit: 0"))
    kubelet.set_pod(WORKER, "Failed", exit_code=137)
    reconcile(kubelet)
    assert (
        kubelet.job_status()["conditions"][-1]["message"]
        == "Job mxnet-job has failed because it has reached the specified backoff limit"
    )
    assert kubelet.pods() == {}


def test_in_place_restarts_reach_the_backoff_limit(kubelet: Kubelet) -> None:
    # The case: 4 OnFailure workers that the kubelet restarted 1, 1, 1 and 2 times, backoffLimit 4. The
    # sum (5) is past the limit: the job fails as the Go operator's PastBackoffLimit has it, its pods go.
    workers = SEED.replace(
        """    Worker:
      replicas: 1
      restartPolicy: Never""",
        """    Worker:
      replicas: 4
      restartPolicy: OnFailure""",
    )
    kubelet.deploy(workers.replace("    cleanPodPolicy: None", "    cleanPodPolicy: None\n    backoffLimit: 4"))
    for name in PODS[:2]:
        kubelet.set_pod(name, "Running")
    for index, restarts in enumerate((1, 1, 1, 2)):
        kubelet.set_pod(f"mxnet-job-worker-{index}", "Running", restarts=restarts)
    reconcile(kubelet)
    last = kubelet.job_status()["conditions"][-1]
    assert (last["type"], last["status"], last["reason"]) == ("Failed", "True", "MXJobFailed")
    assert last["message"] == "Job mxnet-job has failed because it has reached the specified backoff limit"
    assert kubelet.pods() == {}


def test_a_job_created_suspended_shows_created_then_suspended(kubelet: Kubelet) -> None:
    kubelet.deploy(SEED.replace("    cleanPodPolicy: None", "    cleanPodPolicy: None\n    suspend: true"))
    reconcile(kubelet)
    assert kubelet.condition_types() == [("Created", "True"), ("Suspended", "True")]
    assert "startTime" not in kubelet.job_status()
    assert kubelet.pods() == {}


def test_active_deadline_fails_the_job(kubelet: Kubelet) -> None:
    deadline = "    cleanPodPolicy: None\n    activeDeadlineSeconds: 600"
    running(kubelet, SEED.replace("    cleanPodPolicy: None", deadline))
    kubelet.patch_job({"status": {"startTime": "2026-01-01T00:00:00Z"}}, subresource="/status")
    reconcile(kubelet)
    assert (
        kubelet.job_status()["conditions"][-1]["message"]
        == "Job mxnet-job has failed because it was active longer than specified deadline"
    )
    assert kubelet.pods() == {}


def test_suspend_then_resume(kubelet: Kubelet) -> None:
    running(kubelet, SEED)
    kubelet.patch_job({"spec": {"runPolicy": {"suspend": True}}})
    reconcile(kubelet)
    assert kubelet.condition_types()[-1] == ("Suspended", "True")
    assert kubelet.pods() == {}
    kubelet.patch_job({"spec": {"runPolicy": {"suspend": False}}})
    kubelet.deploy(SEED)  # the GitOps engine puts the pods back
    for name in PODS:
        kubelet.set_pod(name, "Running")
    reconcile(kubelet)
    conditions = {c["type"]: (c["status"], c["reason"]) for c in kubelet.job_status()["conditions"]}
    assert conditions["Suspended"] == ("False", "MXJobResumed")
    assert conditions["Running"][0] == "True"


def test_clean_pod_policy_all_removes_every_pod_when_finished(kubelet: Kubelet) -> None:
    running(kubelet, SEED.replace("cleanPodPolicy: None", "cleanPodPolicy: All"))
    kubelet.set_pod("mxnet-job-scheduler-0", "Succeeded", exit_code=0)
    reconcile(kubelet)
    reconcile(kubelet)
    assert kubelet.pods() == {}
    assert kubelet.condition_types()[-1] == ("Succeeded", "True")


def test_two_replicas_exactly_one_leads(kubelet: Kubelet) -> None:
    clock = lambda: datetime.now(UTC)  # noqa: E731
    electors = [
        LeaderElector(Cluster.connect(str(kubelet.cluster.kubeconfig)), kubelet.namespace, name, clock)
        for name in ("first", "second")
    ]
    results: dict[str, bool] = {}
    threads = [threading.Thread(target=lambda e=e: results.__setitem__(e.identity, e.try_acquire())) for e in electors]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results.values()) == [False, True]
    leader, follower = electors if results["first"] else electors[::-1]
    leader.release()
    assert follower.try_acquire() is True
    assert leader.try_acquire() is False


def test_sigterm_releases_the_lease(kubelet: Kubelet) -> None:
    lease_path = f"/apis/coordination.k8s.io/v1/namespaces/{kubelet.namespace}/leases/{LEASE_NAME}"

    def holder() -> str:
        lease = kubelet.cluster.get(lease_path)
        return str(((lease or {}).get("spec") or {}).get("holderIdentity") or "")

    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mxjob_gitops",
            "reconcile",
            "--kubeconfig",
            str(kubelet.cluster.kubeconfig),
            "-n",
            kubelet.namespace,
            "--leader-election-namespace",
            kubelet.namespace,
            "--metrics-address",
            "127.0.0.1:0",
            "--health-address",
            "127.0.0.1:0",
        ],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "POD_NAME": "sigterm"},
    )
    try:
        wait_until(lambda: holder() != "", 60, "the reconciler to take the Lease")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0, process.stderr.read().decode() if process.stderr else ""
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stderr:
            process.stderr.close()
    assert holder() == ""
