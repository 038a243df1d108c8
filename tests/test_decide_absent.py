"""decide() on the three behaviours a fuller cluster showed (kube-scheduler, kube-controller-manager, kwok): a status
write never drops a field it did not mean to drop; a pod deleted before it finished (evicted, lost with its node) is
handled by its replica's restart policy; a running job's pod that is gone without an exit is restarted and counted.
Each previous status goes through clean_status, as the runner reads it back from the server."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from mxjob_gitops.reconciler.decide import CreatePod, DeletePod, Event, Plan, decide, refuse
from mxjob_gitops.reconciler.state import JobView, PodView
from mxjob_gitops.reconciler.trust import clean_status
from mxjob_gitops.reconciler.vocabulary import DeleteReason, PodPhase, Reason
from tests.test_decide import NOW, Rendering, conditions, pod, running, train, with_pod


def read_back(plan: Plan) -> dict[str, Any]:
    return clean_status(plan.status)


def restarted_once(job: JobView) -> dict[str, Any]:
    """A running job whose Worker 1 was restarted once (exit 137) and is running again."""
    status = decide(job, running(job), NOW, decide(job, [], NOW, {}).status).status
    failed = pod("Worker", 1, "Failed", exit_code=137, finished_at=NOW)
    status = decide(job, with_pod(running(job), failed), NOW, clean_status(status)).status
    back = with_pod(running(job), replace(failed, phase=PodPhase.RUNNING, uid="new"))
    status = decide(job, back, NOW, clean_status(status)).status
    assert status["restartCounts"] == {"Worker": 1}
    return status


def _pods_after(job: JobView, path: str) -> tuple[JobView, list[PodView]]:
    pods = with_pod(running(job), replace(pod("Worker", 1), uid="new"))
    if path == "failed":
        return job, with_pod(pods, pod("Scheduler", 0, "Failed", exit_code=1, finished_at=NOW))
    if path == "succeeded":
        return job, with_pod(pods, pod("Scheduler", 0, "Succeeded", exit_code=0, finished_at=NOW))
    return replace(job, suspend=True), pods


@pytest.mark.parametrize("path", ["failed", "succeeded", "suspended"])
def test_restart_counts_survive_every_later_write(path: str) -> None:
    job = train()
    status = restarted_once(job)
    later_job, pods = _pods_after(job, path)
    first = decide(later_job, pods, NOW + timedelta(minutes=1), clean_status(status))
    second = decide(later_job, pods, NOW + timedelta(minutes=2), read_back(first))
    third = decide(later_job, [], NOW + timedelta(minutes=3), read_back(second))
    for plan in (first, second, third):
        assert plan.status["restartCounts"] == {"Worker": 1}, path
        assert plan.status["podRestarts"] == status["podRestarts"]
    assert second.status == first.status  # the pass after the finishing one writes nothing
    assert set(third.status) >= set(first.status) - {"replicaStatuses"}


def test_a_job_never_restarted_writes_nothing_after_it_finished() -> None:
    job = train()
    status = decide(job, running(job), NOW, decide(job, [], NOW, {}).status).status
    done = with_pod(running(job), pod("Scheduler", 0, "Succeeded", exit_code=0, finished_at=NOW))
    finished = decide(job, done, NOW, clean_status(status))
    assert decide(job, done, NOW + timedelta(minutes=1), read_back(finished)).status == finished.status


def test_refusing_a_job_keeps_its_counts() -> None:
    job = train()
    status = restarted_once(job)
    refused = refuse(job.name, clean_status(status), NOW, Reason.TOO_LARGE, "too large")
    assert refused.status["restartCounts"] == {"Worker": 1}
    assert refused.status["replicaStatuses"] == status["replicaStatuses"]


def lost(replica_type: str, index: int, phase: str = "Running", seconds: int = 0) -> PodView:
    """Deleted by the node lifecycle controller (its node stopped answering): the kubelet never reports again."""
    return pod(replica_type, index, phase, deleting=True, deleted_at=NOW + timedelta(seconds=seconds))


def running_status(job: JobView) -> dict[str, Any]:
    return clean_status(decide(job, running(job), NOW, decide(job, [], NOW, {}).status).status)


def test_a_lost_pod_of_a_never_replica_fails_the_job() -> None:
    job = train()
    plan = decide(job, with_pod(running(job), lost("Scheduler", 0)), NOW, running_status(job))
    assert conditions(plan)[-1] == ("Failed", "True", "MXJobFailed")
    assert plan.status["replicaStatuses"]["Scheduler"] == {"failed": 1}
    assert any(isinstance(a, Event) and "deleted before it finished" in a.message for a in plan.actions)


@pytest.mark.parametrize("policy", ["ExitCode", "OnFailure"])
def test_a_lost_pod_of_a_restarting_replica_is_restarted_and_counted_once(policy: str) -> None:
    job = train(policy)
    gone = lost("Worker", 0)
    plan = decide(job, with_pod(running(job), gone), NOW, running_status(job))
    assert conditions(plan)[-1] == ("Restarting", "True", "MXJobRestarting")
    assert plan.status["restartCounts"] == {"Worker": 1}
    assert DeletePod(gone.name, gone.uid, DeleteReason.RESTART) in plan.actions
    again = decide(job, with_pod(running(job), gone), NOW, read_back(plan))
    assert again.status["restartCounts"] == {"Worker": 1}
    assert not [a for a in again.actions if isinstance(a, DeletePod)]  # already terminating: no second delete
    collected = [p for p in running(job) if p.name != gone.name]  # pod GC removed it
    back = decide(job, collected, NOW, read_back(again), rendering=Rendering())
    assert CreatePod(gone.name) in back.actions
    assert back.status["restartCounts"] == {"Worker": 1}


def test_a_failed_pod_someone_deleted_is_still_acted_on() -> None:
    job = train()
    evicted = lost("Worker", 0, "Failed")
    plan = decide(job, with_pod(running(job), replace(evicted, exit_code=137)), NOW, running_status(job))
    assert plan.status["restartCounts"] == {"Worker": 1}


def test_pods_deleted_while_suspended_are_not_lost_after_the_resume() -> None:
    job = train("Never")
    status = running_status(job)
    suspended = decide(replace(job, suspend=True), running(job), NOW, status)
    resumed = decide(job, [], NOW + timedelta(minutes=5), read_back(suspended))
    # The GitOps engine brought back all but one pod; that one was deleted at the suspension, still terminating.
    pods = with_pod(running(job), lost("Worker", 0, seconds=30))
    plan = decide(job, pods, NOW + timedelta(minutes=6), read_back(resumed))
    assert not any(c[0] == "Failed" for c in conditions(plan))
    assert conditions(plan)[-1][0] == "Running"


def test_a_missing_pod_of_a_running_job_is_recreated_once_with_an_event() -> None:
    job = train()
    gone = [p for p in running(job) if p.name != "mxnet-job-worker-1"]
    plan = decide(job, gone, NOW, running_status(job), rendering=Rendering())
    assert CreatePod("mxnet-job-worker-1") in plan.actions
    assert [a.reason for a in plan.actions if isinstance(a, Event)] == [Reason.POD_MISSING]
    assert plan.status["restartCounts"] == {"Worker": 1}
    assert conditions(plan)[-1] == ("Restarting", "True", "MXJobRestarting")
    again = decide(job, gone, NOW, read_back(plan), rendering=Rendering())  # not created yet: asked again, not counted
    assert CreatePod("mxnet-job-worker-1") in again.actions
    assert again.status["restartCounts"] == {"Worker": 1}
    assert not [a for a in again.actions if isinstance(a, Event)]
    back = decide(job, running(job), NOW, read_back(again))
    assert "pending" not in back.status["podRestarts"]["mxnet-job-worker-1"]
    assert conditions(back)[-1] == ("Running", "True", "MXJobRunning")


def test_a_missing_pod_in_gitops_mode_is_reported_and_counted() -> None:
    job = train()
    gone = [p for p in running(job) if p.name != "mxnet-job-server-0"]
    plan = decide(job, gone, NOW, running_status(job), recreate=False)
    assert not [a for a in plan.actions if isinstance(a, CreatePod)]
    events = [a for a in plan.actions if isinstance(a, Event)]
    assert [e.reason for e in events] == [Reason.POD_MISSING] and "GitOps engine" in events[0].message
    assert plan.status["restartCounts"] == {"Server": 1}


def test_a_missing_pod_past_the_backoff_limit_fails_the_job_and_creates_nothing() -> None:
    job = train(backoff_limit=1)
    gone = [p for p in running(job) if p.name != "mxnet-job-worker-1"]
    plan = decide(job, gone, NOW, running_status(job), rendering=Rendering())
    assert conditions(plan)[-1] == ("Failed", "True", "MXJobFailed")
    assert not [a for a in plan.actions if isinstance(a, CreatePod)]


def test_pods_not_applied_yet_are_not_missing() -> None:
    job = train()
    plan = decide(job, running(job)[:1], NOW, clean_status(decide(job, [], NOW, {}).status))
    assert not [a for a in plan.actions if isinstance(a, CreatePod | Event)]
    assert plan.status["restartCounts"] == {}


def test_a_missing_pod_the_rendering_cannot_give_is_reported_not_counted() -> None:
    job = train()
    gone = [p for p in running(job) if p.name != "mxnet-job-worker-1"]
    status = running_status(job)
    for _ in range(2):  # the same on every pass: no count growing with each
        plan = decide(job, gone, NOW, status, rendering=None)
        status = read_back(plan)
        assert plan.status["restartCounts"] == {}
        assert [a.reason for a in plan.actions if isinstance(a, Event)] == [Reason.NOT_RECREATED]
        assert not [a for a in plan.actions if isinstance(a, CreatePod)]


def test_nothing_is_lost_or_missing_while_the_job_itself_is_deleted() -> None:
    job = replace(train(), deleting=True)
    pods = with_pod([p for p in running(job) if p.name != "mxnet-job-worker-1"], lost("Worker", 0))
    plan = decide(job, pods, NOW, running_status(train()), rendering=Rendering())
    assert plan.status["restartCounts"] == {}
    assert not [a for a in plan.actions if isinstance(a, CreatePod | DeletePod)]


def test_a_deleted_pod_beyond_the_replicas_is_not_lost() -> None:
    job = train()
    pruned = lost("Worker", 2)  # the job had three workers; the GitOps engine prunes the third
    plan = decide(job, [*running(job), pruned], NOW, running_status(job))
    assert plan.status["restartCounts"] == {}
