"""The reconciler's pure core: exit-code classification and status transitions, as named table cases."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from mxjob_gitops.compiler.spec.exitcodes import ExitClass, ExitTable
from mxjob_gitops.reconciler.decide import CreatePod, DeletePod, Event, Nudge, Plan, decide, refuse
from mxjob_gitops.reconciler.jobs import JobCache
from mxjob_gitops.reconciler.state import JobView, PodView, ReplicaPolicy
from mxjob_gitops.reconciler.vocabulary import CleanPodPolicy, DeleteReason, EventType, PodPhase, Reason, RestartPolicy

NOW = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("code", "reason", "expected"),
    [
        (0, "", ExitClass.SUCCESS),
        (1, "", ExitClass.PERMANENT),
        (2, "", ExitClass.PERMANENT),
        (126, "", ExitClass.PERMANENT),
        (127, "", ExitClass.PERMANENT),
        (128, "", ExitClass.PERMANENT),
        (139, "", ExitClass.PERMANENT),
        (130, "", ExitClass.RETRYABLE),
        (137, "", ExitClass.RETRYABLE),
        (138, "", ExitClass.RETRYABLE),
        (143, "", ExitClass.RETRYABLE),
        (3, "", ExitClass.PERMANENT),
        (255, "", ExitClass.RETRYABLE),
        (137, "OOMKilled", ExitClass.PERMANENT),
        (None, "Evicted", ExitClass.RETRYABLE),
        (None, "", ExitClass.RETRYABLE),
    ],
)
def test_exit_code_table(code: int | None, reason: str, expected: ExitClass) -> None:
    assert ExitTable().classify(code, reason) is expected


def test_exit_code_overrides() -> None:
    table = ExitTable.parse("137=permanent, 3=retryable,OOMKilled=retryable")
    assert table.classify(137) is ExitClass.PERMANENT
    assert table.classify(3) is ExitClass.RETRYABLE
    assert table.classify(137, "OOMKilled") is ExitClass.RETRYABLE
    with pytest.raises(ValueError):
        ExitTable.parse("x=permanent")


class Rendering:
    """A stand-in for the job's rendering: every pod of the job, with only its name."""

    def pod(self, name: str) -> dict[str, Any] | None:
        return (
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}} if name.startswith("mxnet-job-") else None
        )


def train(worker_policy: str = "ExitCode", **changes: Any) -> JobView:
    job = JobView(
        "ml",
        "mxnet-job",
        "MXTrain",
        {
            "Scheduler": ReplicaPolicy(1, RestartPolicy("Never")),
            "Server": ReplicaPolicy(1, RestartPolicy("ExitCode")),
            "Worker": ReplicaPolicy(2, RestartPolicy(worker_policy)),
        },
    )
    return replace(job, **changes)


def pod(replica_type: str, index: int, phase: str = "Running", uid: str = "", **changes: Any) -> PodView:
    name = f"mxnet-job-{replica_type.lower()}-{index}"
    return replace(PodView(name, uid or f"{name}-uid", replica_type, index, PodPhase(phase)), **changes)


def running(job: JobView) -> list[PodView]:
    return [pod(t, i) for t, spec in job.replicas.items() for i in range(spec.replicas)]


def conditions(plan: Plan) -> list[tuple[str, str, str]]:
    return [(c["type"], c["status"], c["reason"]) for c in plan.status["conditions"]]


def with_pod(pods: list[PodView], new: PodView) -> list[PodView]:
    return [new if p.name == new.name else p for p in pods]


def test_a_new_job_is_created_then_running() -> None:
    job = train()
    first = decide(job, [], NOW, {})
    assert conditions(first) == [("Created", "True", "MXJobCreated")]
    assert first.status["startTime"] == "2026-11-22T12:00:00Z"
    second = decide(job, running(job), NOW, first.status)
    assert conditions(second) == [("Created", "True", "MXJobCreated"), ("Running", "True", "MXJobRunning")]
    assert second.status["replicaStatuses"] == {
        "Scheduler": {"active": 1},
        "Server": {"active": 1},
        "Worker": {"active": 2},
    }


def test_retryable_exit_restarts_and_is_counted_once() -> None:
    job = train()
    status = decide(job, running(job), NOW, decide(job, [], NOW, {}).status).status
    failed = pod("Worker", 1, "Failed", exit_code=137, finished_at=NOW)
    plan = decide(job, with_pod(running(job), failed), NOW, status)
    assert DeletePod(failed.name, failed.uid, DeleteReason.RESTART) in plan.actions
    assert Nudge(failed.name) not in plan.actions  # recreate mode brings the pod back itself
    gitops = decide(job, with_pod(running(job), failed), NOW, status, recreate=False)
    assert Nudge(failed.name) in gitops.actions
    assert conditions(plan)[-1] == ("Restarting", "True", "MXJobRestarting")
    assert plan.status["restartCounts"] == {"Worker": 1}
    assert plan.exits == (("Worker", 137, "retryable"),)
    # The reconciler died after writing status, before deleting: the next pass deletes, counts nothing new.
    again = decide(job, with_pod(running(job), failed), NOW, plan.status)
    assert [a for a in again.actions if isinstance(a, DeletePod)] == [
        DeletePod(failed.name, failed.uid, DeleteReason.RESTART_RECORDED)
    ]
    assert again.status["restartCounts"] == {"Worker": 1}
    # Deleted: recreate mode creates it again, gitops mode leaves that to Argo CD or Flux.
    gone = [p for p in running(job) if p.name != failed.name]
    assert CreatePod(failed.name) in decide(job, gone, NOW, plan.status, rendering=Rendering()).actions
    assert not [a for a in decide(job, gone, NOW, plan.status, recreate=False).actions if isinstance(a, CreatePod)]
    # Back and running: Running replaces Restarting, the pending recreation is done.
    back = decide(job, with_pod(running(job), replace(failed, phase=PodPhase.RUNNING, uid="new")), NOW, plan.status)
    assert conditions(back)[-1] == ("Running", "True", "MXJobRunning")
    assert "Restarting" not in [c[0] for c in conditions(back)]
    assert "pending" not in back.status["podRestarts"][failed.name]
    assert not [a for a in back.actions if isinstance(a, CreatePod | DeletePod)]


@pytest.mark.parametrize(
    ("policy", "code", "outcome"),
    [
        ("ExitCode", 1, "failed"),
        ("ExitCode", 139, "failed"),
        ("ExitCode", 143, "restart"),
        ("Never", 137, "failed"),
        ("Never", 0, "failed"),
        ("OnFailure", 1, "restart"),
        ("Always", 2, "restart"),
    ],
)
def test_restart_policies(policy: str, code: int, outcome: str) -> None:
    job = train(worker_policy=policy)
    status = decide(job, running(job), NOW, {}).status
    failed = pod("Worker", 0, "Failed", exit_code=code, finished_at=NOW)
    plan = decide(job, with_pod(running(job), failed), NOW, status)
    if outcome == "failed":
        assert conditions(plan)[-1] == ("Failed", "True", "MXJobFailed")
        message = plan.status["conditions"][-1]["message"]
        assert message == "mxjob mxnet-job is failed because 1 Worker replica(s) failed."
        assert plan.status["completionTime"] == "2026-11-22T12:00:00Z"
        assert not [a for a in plan.actions if isinstance(a, DeletePod)]  # cleanPodPolicy None keeps them
    else:
        assert DeletePod(failed.name, failed.uid, DeleteReason.RESTART) in plan.actions
        assert not [c for c in conditions(plan) if c[0] == "Failed"]


@pytest.mark.parametrize(
    ("job", "deciding"),
    [
        (train(), "Scheduler"),
        (JobView("ml", "mxnet-job", "MXTrain", {"Worker": ReplicaPolicy(1, RestartPolicy("Never"))}), "Worker"),
        (
            JobView(
                "ml",
                "mxnet-job",
                "MXTune",
                {
                    "TunerTracker": ReplicaPolicy(1, RestartPolicy("Never")),
                    "TunerServer": ReplicaPolicy(1, RestartPolicy("Never")),
                    "Tuner": ReplicaPolicy(1, RestartPolicy("Never")),
                },
            ),
            "Tuner",
        ),
    ],
)
def test_success_is_decided_by_one_replica_type(job: JobView, deciding: str) -> None:
    status = decide(job, running(job), NOW, {}).status
    done = with_pod(running(job), pod(deciding, 0, "Succeeded"))
    plan = decide(job, done, NOW + timedelta(minutes=5), status)
    assert conditions(plan)[-1] == ("Succeeded", "True", "MXJobSucceeded")
    assert ("Running", "False", "MXJobRunning") in conditions(plan)
    assert plan.status["completionTime"] == "2026-11-22T12:05:00Z"
    assert Event(EventType.NORMAL, Reason.SUCCEEDED, "MXJob mxnet-job is successfully completed.") in plan.actions
    if deciding != "Worker":
        others = with_pod(running(job), pod(next(t for t in job.replicas if t != deciding), 0, "Succeeded"))
        assert not [c for c in conditions(decide(job, others, NOW, status)) if c[0] == "Succeeded"]


def test_backoff_limit_counts_restarts_exactly() -> None:
    job = train(backoff_limit=2)
    status = decide(job, running(job), NOW, {}).status
    first = pod("Worker", 0, "Failed", exit_code=137, finished_at=NOW)
    restarted = decide(job, with_pod(running(job), first), NOW, status)
    assert DeletePod(first.name, first.uid, DeleteReason.RESTART) in restarted.actions  # restart 1 of 2
    second = pod("Worker", 0, "Failed", uid="second", exit_code=137, finished_at=NOW + timedelta(minutes=1))
    plan = decide(job, with_pod(running(job), second), NOW + timedelta(minutes=2), restarted.status)
    assert conditions(plan)[-1] == ("Failed", "True", "MXJobFailed")  # the 2nd would reach the limit
    assert (
        plan.status["conditions"][-1]["message"]
        == "Job mxnet-job has failed because it has reached the specified backoff limit"
    )
    assert len([a for a in plan.actions if isinstance(a, DeletePod)]) == 4


def on_failure_job(limit: int | None, **policies: str) -> JobView:
    replicas = {t: ReplicaPolicy(1, RestartPolicy(p)) for t, p in policies.items()}
    replicas["Worker"] = ReplicaPolicy(4, RestartPolicy(policies.get("Worker", "OnFailure")))
    return JobView("ml", "mxnet-job", "MXTrain", replicas, backoff_limit=limit)


# The Go operators' own cases. training-operator pkg/controller.v1/common/job_test.go TestPastBackoffLimit
# (replica policy OnFailure): a Running and a Succeeded pod without restarts, limit 0 → not past; plus a
# Running pod with restartCount 3, limit 3 → past. mxnet-operator v1.0.0 pkg/controller.v1/mxnet/job_test.go
# TestBackoffForOnFailure: 4 Running workers with restartCount 1 (OnFailure) and 2 servers, limit 4 → the job
# fails and every pod is deleted. The case: restart counts 1,1,1,2 with limit 4. The rule itself is
# PastBackoffLimit in pkg/core/job.go: only Running pods, init and regular containers, OnFailure/Always/ExitCode.
@pytest.mark.parametrize(
    ("name", "limit", "workers", "extra", "past"),
    [
        ("TestPastBackoffLimit: backOffLimit is 0", 0, [("Running", 0), ("Succeeded", 0)], [], False),
        ("TestPastBackoffLimit: backOffLimit is 3", 3, [("Running", 0), ("Succeeded", 0), ("Running", 3)], [], True),
        ("TestBackoffForOnFailure", 4, [("Running", 1)] * 4, [("Server", "Running", 0)] * 2, True),
        ("restart counts 1,1,1,2 with limit 4", 4, [("Running", 1)] * 3 + [("Running", 2)], [], True),
        ("one restart under limit 2", 2, [("Running", 1), ("Running", 0)], [], False),
        ("limit 0: one restart is past", 0, [("Running", 1)], [], True),
        ("Pending pods are not counted", 1, [("Pending", 5)], [], False),
        ("Never replicas are not counted", 1, [("Running", 0)], [("Scheduler", "Running", 7)], False),
        ("no limit: never past", None, [("Running", 99)], [], False),
    ],
)
def test_go_backoff_cases(
    name: str, limit: int | None, workers: list[tuple[str, int]], extra: list[tuple[str, str, int]], past: bool
) -> None:
    job = on_failure_job(limit, Scheduler="Never", Server="OnFailure")
    pods = [pod("Worker", i, phase, restart_count=n) for i, (phase, n) in enumerate(workers)]
    pods += [pod(t, i, phase, restart_count=n) for i, (t, phase, n) in enumerate(extra)]
    plan = decide(job, pods, NOW, decide(job, [], NOW, {}).status)
    failed = conditions(plan)[-1] == ("Failed", "True", "MXJobFailed")
    assert failed is past, name
    if past:
        assert (
            plan.status["conditions"][-1]["message"]
            == "Job mxnet-job has failed because it has reached the specified backoff limit"
        )
        assert {a.name for a in plan.actions if isinstance(a, DeletePod)} == {p.name for p in pods}


def test_init_container_restarts_count_too() -> None:
    raw = {
        "metadata": {
            "name": "mxnet-job-worker-0",
            "uid": "u",
            "labels": {"training.kubeflow.org/replica-type": "worker", "training.kubeflow.org/replica-index": "0"},
        },
        "status": {
            "phase": "Running",
            "initContainerStatuses": [{"name": "init", "restartCount": 2}],
            "containerStatuses": [{"name": "mxnet", "restartCount": 1}],
        },
    }
    view = PodView.from_object(raw, {"worker": "Worker"})
    assert view is not None and view.restart_count == 3


def test_a_job_created_suspended_shows_created_then_suspended() -> None:
    plan = decide(train(suspend=True), [], NOW, {})
    assert conditions(plan) == [("Created", "True", "MXJobCreated"), ("Suspended", "True", "MXJobSuspended")]
    assert "startTime" not in plan.status  # mxjob_controller_test.go: suspended from the start, never started


def test_restart_back_off_grows_per_pod() -> None:
    job = train()
    status = decide(job, running(job), NOW, {}).status
    status = decide(
        job, with_pod(running(job), pod("Worker", 0, "Failed", exit_code=137, finished_at=NOW)), NOW, status
    ).status
    again = pod("Worker", 0, "Failed", uid="second", exit_code=137, finished_at=NOW)
    waiting = decide(job, with_pod(running(job), again), NOW + timedelta(seconds=4), status)
    assert not [a for a in waiting.actions if isinstance(a, DeletePod)]
    assert waiting.requeue_after == pytest.approx(6)
    ready = decide(job, with_pod(running(job), again), NOW + timedelta(seconds=10), status)
    assert DeletePod(again.name, again.uid, DeleteReason.RESTART) in ready.actions
    assert ready.status["restartCounts"] == {"Worker": 2}


def test_active_deadline() -> None:
    job = train(active_deadline_seconds=60)
    status = decide(job, running(job), NOW, {}).status
    assert decide(job, running(job), NOW + timedelta(seconds=45), status).requeue_after == pytest.approx(15)
    plan = decide(job, running(job), NOW + timedelta(seconds=61), status)
    assert (
        plan.status["conditions"][-1]["message"]
        == "Job mxnet-job has failed because it was active longer than specified deadline"
    )
    assert len([a for a in plan.actions if isinstance(a, DeletePod)]) == 4


def test_suspend_and_resume() -> None:
    job = train()
    status = decide(job, running(job), NOW, {}).status
    suspended = decide(replace(job, suspend=True), running(job), NOW + timedelta(minutes=1), status)
    assert conditions(suspended)[1:] == [
        ("Running", "False", "MXJobSuspended"),
        ("Suspended", "True", "MXJobSuspended"),
    ]
    assert len([a for a in suspended.actions if isinstance(a, DeletePod)]) == 4
    resumed = decide(job, [], NOW + timedelta(minutes=2), suspended.status)
    assert ("Suspended", "False", "MXJobResumed") in conditions(resumed)
    assert resumed.status["startTime"] == "2026-11-22T12:02:00Z"


@pytest.mark.parametrize(("policy", "deleted"), [("All", 4), ("Running", 3), ("None", 0)])
def test_clean_pod_policy_on_completion(policy: str, deleted: int) -> None:
    job = train(clean_pod_policy=CleanPodPolicy(policy))
    status = decide(job, running(job), NOW, {}).status
    done = with_pod(running(job), pod("Scheduler", 0, "Succeeded"))
    finished = decide(job, done, NOW, status).status
    plan = decide(job, done, NOW, finished)
    assert len([a for a in plan.actions if isinstance(a, DeletePod)]) == deleted


def test_terminal_states_never_regress() -> None:
    job = train()
    status = decide(job, running(job), NOW, {}).status
    failed = decide(job, with_pod(running(job), pod("Worker", 0, "Failed", exit_code=1)), NOW, status).status
    later = decide(job, running(job), NOW + timedelta(hours=1), failed)
    assert conditions(later) == conditions(decide(job, running(job), NOW, failed))
    assert conditions(later)[-1] == ("Failed", "True", "MXJobFailed")


def test_job_annotation_overrides_the_table() -> None:
    job = train(annotations={"mxjob.kubeflow.org/exit-codes": "1=retryable"})
    status = decide(job, running(job), NOW, {}).status
    failed = pod("Worker", 0, "Failed", exit_code=1, finished_at=NOW)
    assert (
        DeletePod(failed.name, failed.uid, DeleteReason.RESTART)
        in decide(job, with_pod(running(job), failed), NOW, status).actions
    )


def test_the_pod_cache_keeps_what_decisions_need_and_no_spec() -> None:
    from mxjob_gitops.reconciler.state import trim_pod

    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "j-worker-0",
            "namespace": "ml",
            "uid": "u1",
            "resourceVersion": "7",
            "labels": {"training.kubeflow.org/replica-type": "worker", "training.kubeflow.org/replica-index": "0"},
            "annotations": {"argocd.argoproj.io/tracking-id": "app:/Pod:ml/j-worker-0", "big": "x" * 99},
            "managedFields": [{"manager": "kubectl"}],
        },
        "spec": {"containers": [{"name": "mxnet", "env": [{"name": "MX_CONFIG", "value": "{" * 10_000}]}]},
        "status": {
            "phase": "Failed",
            "podIP": "10.0.0.1",
            "containerStatuses": [
                {"name": "mxnet", "restartCount": 2, "image": "i", "state": {"terminated": {"exitCode": 137}}}
            ],
        },
    }
    trimmed = trim_pod(pod)
    assert "spec" not in trimmed and "managedFields" not in trimmed["metadata"]
    assert trimmed["metadata"]["annotations"] == {"argocd.argoproj.io/tracking-id": "app:/Pod:ml/j-worker-0"}
    types = {"worker": "Worker"}
    assert PodView.from_object(trimmed, types) == PodView.from_object(pod, types)


def test_backoff_limit_counts_in_place_restarts_of_other_pods() -> None:
    job = train(backoff_limit=2)
    pods = with_pod(running(job), pod("Server", 0, restart_count=2))  # the kubelet restarted it twice
    status = decide(job, pods, NOW, {}).status
    plan = decide(job, with_pod(pods, pod("Worker", 0, "Failed", exit_code=137, finished_at=NOW)), NOW, status)
    assert conditions(plan)[-1] == ("Failed", "True", "MXJobFailed")
    assert not [a for a in plan.actions if isinstance(a, DeletePod) and a.reason == "restart"]


def test_the_status_carries_the_kstatus_conditions_and_the_observed_generation() -> None:
    """Flux's default health (kstatus) reads Stalled and observedGeneration only (reconciler/standard.py): a failed
    job gets Stalled=True first, with the Failed reason and message, and the Kubeflow conditions stay as they were,
    the newest last; a job that did not fail has none; the status is stable, so a second pass writes nothing."""
    job = replace(train("Never"), generation=4)
    created = decide(job, [], NOW, {})
    assert created.status["observedGeneration"] == 4
    assert conditions(created) == [("Created", "True", "MXJobCreated")]
    status = decide(job, running(job), NOW, created.status).status
    assert not [c for c in status["conditions"] if c["type"] == "Stalled"]
    pods = with_pod(running(job), pod("Worker", 0, "Failed", exit_code=1))
    failed = decide(job, pods, NOW, status)
    stalled, *kubeflow = failed.status["conditions"]
    assert (stalled["type"], stalled["status"], stalled["reason"]) == ("Stalled", "True", "MXJobFailed")
    assert stalled["message"] == kubeflow[-1]["message"] and kubeflow[-1]["type"] == "Failed"
    assert [c["type"] for c in kubeflow] == ["Created", "Running", "Failed"]
    later = NOW + timedelta(hours=1)
    assert decide(job, pods, later, failed.status).status == failed.status
    assert "observedGeneration" not in decide(train(), [], NOW, {}).status  # no generation known, none claimed


def test_a_refused_job_is_stalled_until_it_is_within_bounds() -> None:
    refused = refuse("mxnet-job", {}, NOW, Reason.TOO_LARGE, "the job has 20 pods", generation=2)
    assert [(c["type"], c["status"]) for c in refused.status["conditions"]] == [
        ("Stalled", "True"),
        ("Created", "True"),
        ("Refused", "True"),
    ]
    assert refused.status["observedGeneration"] == 2
    within = decide(replace(train(), generation=3), [], NOW, refused.status)
    assert [c["type"] for c in within.status["conditions"] if c["status"] == "True"] == ["Created"]


def test_a_spec_changed_back_is_a_new_generation_to_the_view() -> None:
    """The reconciler's view cache is keyed by the spec and the generation: a spec changed and changed back is the
    old spec at a later generation, and the observedGeneration written must be the later one."""
    cache = JobCache()
    job: dict[str, Any] = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "MXJob",
        "metadata": {"name": "mxnet-job", "namespace": "ml", "uid": "u", "generation": 1},
        "spec": {
            "jobMode": "MXTrain",
            "mxReplicaSpecs": {
                "Worker": {"replicas": 1, "template": {"spec": {"containers": [{"name": "mxnet", "image": "m"}]}}}
            },
        },
    }
    assert cache.view(job).generation == 1
    job["metadata"]["generation"] = 3
    assert cache.view(job).generation == 3
