"""The three behaviours a fuller cluster showed, on a real kube-apiserver with the test playing the kubelet: a
status write never drops `restartCounts`; a pod being deleted before it finished (the node lifecycle controller's
eviction from a dead node: the pod stays Terminating, as no kubelet confirms) is handled by its replica's restart
policy; a running job's pod that vanished (pod GC, a force delete) is restarted and counted, with an event.
tests/cluster/ runs the same with kube-scheduler, kube-controller-manager and kwok."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.reconciler.apply import ApplySettings
from mxjob_gitops.reconciler.kube import Cluster
from mxjob_gitops.reconciler.runner import Reconciler, Result, Settings
from tests.realapi.kubelet import Kubelet
from tests.realapi.test_reconciler import WORKER, reconcile, running
from tests.test_reconcile import EXITCODE_JOB, SEED


def step(kubelet: Kubelet, recreate: bool = True) -> Result:
    """One reconcile of the job from what the server holds now (no pass that waits for a deleted pod to go)."""
    reconciler = Reconciler(
        Cluster.connect(str(kubelet.cluster.kubeconfig)),
        Settings(namespaces=(kubelet.namespace,), apply=ApplySettings(recreate=recreate)),
    )
    job = kubelet.job()
    result = reconciler.reconcile(job, reconciler.pods_of(kubelet.namespace, job["metadata"]["name"]))
    assert not result.error, result.error
    return result


def delete_pod(kubelet: Kubelet, name: str, grace: int) -> None:
    options: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": grace}
    code, body = kubelet.cluster.request("DELETE", f"{kubelet.base}/{name}", options)
    assert code == 200, body


def test_restart_counts_survive_the_job_failing_and_the_pass_after(kubelet: Kubelet) -> None:
    running(kubelet)
    kubelet.set_pod(WORKER, "Failed", exit_code=137)
    reconcile(kubelet)
    kubelet.set_pod(WORKER, "Running")
    reconcile(kubelet)
    kubelet.set_pod("mxnet-job-scheduler-0", "Failed", exit_code=1)
    step(kubelet)
    failed = kubelet.job()
    assert failed["status"]["conditions"][-1]["type"] == "Failed"
    assert failed["status"]["restartCounts"] == {"Worker": 1}
    step(kubelet)
    after = kubelet.job()
    assert after["status"]["restartCounts"] == {"Worker": 1}
    assert after["metadata"]["resourceVersion"] == failed["metadata"]["resourceVersion"]  # nothing more written


def test_a_terminating_pod_of_an_exitcode_replica_is_restarted(kubelet: Kubelet) -> None:
    running(kubelet)
    old = kubelet.pods()[WORKER]["metadata"]["uid"]
    delete_pod(kubelet, WORKER, 30)  # bound to a node whose kubelet never confirms: Terminating
    assert kubelet.pods()[WORKER]["metadata"].get("deletionTimestamp")
    step(kubelet)
    status = kubelet.job_status()
    assert status["conditions"][-1]["type"] == "Restarting"
    assert status["restartCounts"] == {"Worker": 1}
    assert any("deleted before it finished" in e["message"] for e in kubelet.events())
    kubelet.sync()  # the pod is finally removed (pod GC, or the node came back)
    step(kubelet)
    assert kubelet.pods()[WORKER]["metadata"]["uid"] != old
    assert kubelet.job_status()["restartCounts"] == {"Worker": 1}


def test_a_terminating_pod_of_a_never_replica_fails_the_job(kubelet: Kubelet) -> None:
    running(kubelet, SEED)
    delete_pod(kubelet, WORKER, 30)
    step(kubelet)
    status = kubelet.job_status()
    assert status["conditions"][-1]["type"] == "Failed"
    assert status["conditions"][-1]["message"] == "mxjob mxnet-job is failed because 1 Worker replica(s) failed."


def test_a_vanished_pod_is_created_again_with_an_event(kubelet: Kubelet) -> None:
    running(kubelet, EXITCODE_JOB)
    delete_pod(kubelet, WORKER, 0)  # force-deleted: gone without any exit
    assert WORKER not in kubelet.pods()
    step(kubelet)
    assert WORKER in kubelet.pods()
    assert kubelet.job_status()["restartCounts"] == {"Worker": 1}
    assert "MXJobPodMissing" in {e["reason"] for e in kubelet.events()}
    kubelet.set_pod(WORKER, "Running")
    step(kubelet)
    assert kubelet.job_status()["restartCounts"] == {"Worker": 1}
    assert kubelet.condition_types()[-1] == ("Running", "True")


def test_a_vanished_pod_in_gitops_mode_is_reported_and_counted(kubelet: Kubelet) -> None:
    running(kubelet, EXITCODE_JOB)
    delete_pod(kubelet, WORKER, 0)
    step(kubelet, recreate=False)
    assert WORKER not in kubelet.pods()
    assert kubelet.job_status()["restartCounts"] == {"Worker": 1}
    assert "MXJobPodMissing" in {e["reason"] for e in kubelet.events()}
