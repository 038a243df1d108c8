"""The reconciler with Kueue's plain-pod groups, against the fake API with Kueue played (tests/kueue_player.py).

A restarted pod keeps its name, which Kueue's finalizer would hold forever (Kueue releases a Failed pod only for
a replacement that cannot be created under the same name while it exists): the reconciler releases the pods it
replaces. A permanent failure marks the group unretriable so that Kueue ends it; a preempted group comes back
whole and queued, and is not counted against backoffLimit. docs/gang-scheduling.md has the design.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, run_cli
from tests.fakeapi import FakeServer
from tests.kubelet import condition_types, deploy, job_status, pod_status, set_pod
from tests.kueue_player import FINALIZER, GATE, KueuePlayer

SEED = (EXAMPLES / "train" / "mx_job_dist_gpu.yaml").read_text(encoding="utf-8")
JOB = SEED.replace(
    """    Worker:
      replicas: 1
      restartPolicy: Never""",
    """    Worker:
      replicas: 1
      restartPolicy: ExitCode""",
).replace("  runPolicy:\n", "  runPolicy:\n    backoffLimit: 2\n")
PODS = ("mxnet-job-scheduler-0", "mxnet-job-server-0", "mxnet-job-worker-0")
KUEUE = ("--gang-scheduler", "kueue=research")


@pytest.fixture
def api(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[FakeServer, Path, KueuePlayer]]:
    assert "backoffLimit: 2" in JOB and "restartPolicy: ExitCode" in JOB and "cleanPodPolicy: None" in JOB
    clean_pod_policy = getattr(request, "param", "None")
    with FakeServer() as server:
        player = KueuePlayer(server)
        deploy(server, JOB.replace("cleanPodPolicy: None", f"cleanPodPolicy: {clean_pod_policy}"), "ml", *KUEUE)
        yield server, server.kubeconfig(tmp_path / "kubeconfig", namespace="ml"), player


def once(kubeconfig: Path) -> None:
    result = run_cli(["reconcile", "--once", "--kubeconfig", str(kubeconfig), "--no-leader-election"])
    assert result.exit_code == 0, result.stderr


def pod(server: FakeServer, name: str) -> dict[str, Any] | None:
    return server.state.objects.get(("v1", "pods", "ml", name))


def gated(server: FakeServer, name: str) -> bool:
    found = pod(server, name)
    assert found is not None
    return any(g["name"] == GATE for g in found["spec"].get("schedulingGates") or [])


def start(server: FakeServer, kubeconfig: Path, player: KueuePlayer) -> None:
    assert all(gated(server, name) for name in PODS)
    once(kubeconfig)  # gated pods are Pending: the job is created, not failed and not running
    assert condition_types(server) == [("Created", "True")]
    assert not any(counts.get("failed") for counts in job_status(server)["replicaStatuses"].values())
    player.admit()
    assert not any(gated(server, name) for name in PODS)
    for name in PODS:
        set_pod(server, name, "Running")
    once(kubeconfig)
    assert condition_types(server)[-1] == ("Running", "True")


@pytest.mark.parametrize("deleted_by_someone", [False, True])
def test_restart_completes_although_kueue_holds_the_failed_pod(
    api: tuple[FakeServer, Path, KueuePlayer], deleted_by_someone: bool
) -> None:
    server, kubeconfig, player = api
    start(server, kubeconfig, player)
    old = pod(server, "mxnet-job-worker-0")
    assert old is not None and FINALIZER in old["metadata"]["finalizers"]
    set_pod(server, "mxnet-job-worker-0", "Failed", exit_code=137)
    if deleted_by_someone:
        # The deadlock to break: a deleted Failed pod stays, held by Kueue, which releases it only once a
        # replacement of its role exists; and the replacement needs the held pod's name.
        code, _ = server.state.delete(("v1", "pods", "ml", "mxnet-job-worker-0"))
        assert code == 200 and pod(server, "mxnet-job-worker-0") is not None
        player.step()
        held = pod(server, "mxnet-job-worker-0")
        assert held is not None and held["metadata"]["uid"] == old["metadata"]["uid"]
        assert server.state.create("v1", "pods", "ml", {"metadata": {"name": "mxnet-job-worker-0"}})[0] == 409

    once(kubeconfig)  # one pass: the restart is recorded, the held pod released, the pod created again
    new = pod(server, "mxnet-job-worker-0")
    assert new is not None and new["metadata"]["uid"] != old["metadata"]["uid"]
    assert old["metadata"]["uid"] not in player.finalized_by_kueue  # the reconciler released it, not Kueue
    assert FINALIZER in new["metadata"]["finalizers"] and gated(server, "mxnet-job-worker-0")  # Kueue's again
    assert new["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"] == "mxnet-job"
    assert new["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-total-count"] == "3"
    assert job_status(server)["restartCounts"] == {"Worker": 1}
    assert "pending" not in job_status(server)["podRestarts"]["mxnet-job-worker-0"]

    player.step()  # the admitted Workload ungates the replacement
    assert not gated(server, "mxnet-job-worker-0")
    set_pod(server, "mxnet-job-worker-0", "Running")
    once(kubeconfig)
    assert condition_types(server)[-1] == ("Running", "True")
    set_pod(server, "mxnet-job-scheduler-0", "Succeeded", exit_code=0)
    once(kubeconfig)
    assert condition_types(server)[-1] == ("Succeeded", "True")


def test_permanent_failure_marks_the_group_unretriable(api: tuple[FakeServer, Path, KueuePlayer]) -> None:
    server, kubeconfig, player = api
    start(server, kubeconfig, player)
    set_pod(server, "mxnet-job-worker-0", "Failed", exit_code=1)  # permanent under ExitCode
    once(kubeconfig)
    assert condition_types(server)[-1] == ("Failed", "True")
    marked = [
        name
        for name in PODS
        if (pod(server, name) or {}).get("metadata", {}).get("annotations", {}).get("kueue.x-k8s.io/retriable-in-group")
        == "false"
    ]
    assert marked == ["mxnet-job-worker-0"]  # the failed pod, once
    player.step()
    assert not player.finished  # the scheduler and server still run: Kueue waits for them
    for name in ("mxnet-job-scheduler-0", "mxnet-job-server-0"):
        set_pod(server, name, "Failed", exit_code=143)
    player.step()
    assert player.finished
    assert all(FINALIZER not in (pod(server, name) or {}).get("metadata", {}).get("finalizers", []) for name in PODS)
    once(kubeconfig)  # the failed job's later passes neither restart nor mark again
    assert [name for name in PODS if pod(server, name) is None] == []
    assert job_status(server).get("restartCounts", {}) == {}


def test_preempted_group_comes_back_whole_and_queued(api: tuple[FakeServer, Path, KueuePlayer]) -> None:
    server, kubeconfig, player = api
    start(server, kubeconfig, player)
    before = {name: (pod(server, name) or {})["metadata"]["uid"] for name in PODS}
    player.preempt()
    for name in PODS:  # the kubelet stops the containers of the deleted pods; Kueue's condition stays
        key = ("v1", "pods", "ml", name)
        current = server.state.objects[key]
        # A process that handles SIGTERM may exit 0: a stopped pod is no success either.
        stopped = pod_status("Failed", exit_code=137) if "server" in name else pod_status("Succeeded", exit_code=0)
        status = {**stopped, "conditions": current["status"]["conditions"]}
        assert server.state.update(key, {**current, "status": status}, status_only=True, check_version=False)[0] == 200
    # backoffLimit is 2: were the three pods counted as failures, the job would fail now.
    once(kubeconfig)
    status = job_status(server)
    assert ("Failed", "True") not in condition_types(server) and ("Succeeded", "True") not in condition_types(server)
    assert set(status["restartCounts"].values()) == {0}  # recreated, none of them counted as a restart
    for name in PODS:
        recreated = pod(server, name)
        assert recreated is not None and recreated["metadata"]["uid"] != before[name]
        assert gated(server, name) and FINALIZER in recreated["metadata"]["finalizers"]  # queued again
    player.admit()  # admitted again: the group starts whole
    assert not any(gated(server, name) for name in PODS)
    for name in PODS:
        set_pod(server, name, "Running")
    once(kubeconfig)
    assert condition_types(server)[-1] == ("Running", "True")
    assert set(job_status(server)["restartCounts"].values()) == {0}


@pytest.mark.parametrize("api", ["Running"], indirect=True)
def test_a_succeeded_job_frees_its_quota(api: tuple[FakeServer, Path, KueuePlayer]) -> None:
    """cleanPodPolicy Running stops the server and worker of a succeeded job: they fail, and Kueue finishes a group
    with failed pods only when it is marked unretriable; unmarked, the Workload would hold its quota for good."""
    server, kubeconfig, player = api
    start(server, kubeconfig, player)
    set_pod(server, "mxnet-job-scheduler-0", "Succeeded", exit_code=0)
    once(kubeconfig)
    assert condition_types(server)[-1] == ("Succeeded", "True")
    marked = [
        name
        for name in PODS
        if (pod(server, name) or {}).get("metadata", {}).get("annotations", {}).get("kueue.x-k8s.io/retriable-in-group")
        == "false"
    ]
    assert len(marked) == 1
    once(kubeconfig)  # the finished job's pass applies cleanPodPolicy
    for name in ("mxnet-job-server-0", "mxnet-job-worker-0"):  # deleted by cleanPodPolicy, held by Kueue
        held = pod(server, name)
        assert held is not None and held["metadata"].get("deletionTimestamp")
        set_pod(server, name, "Failed", exit_code=143)  # the kubelet stops them
    player.step()
    assert player.finished
    assert [name for name in PODS if pod(server, name) is not None] == ["mxnet-job-scheduler-0"]


def test_gitops_mode_frees_the_name_for_self_heal(api: tuple[FakeServer, Path, KueuePlayer]) -> None:
    """--restart-mode gitops: the reconciler only deletes and releases; Argo CD's or Flux's self-heal creates the pod
    again from Git, which it could not while Kueue held the old pod under that name."""
    server, kubeconfig, player = api
    start(server, kubeconfig, player)
    old = pod(server, "mxnet-job-worker-0")
    assert old is not None
    set_pod(server, "mxnet-job-worker-0", "Failed", exit_code=137)
    for _ in range(2):  # delete, then release the deleted pod
        result = run_cli(
            ["reconcile", "--once", "--kubeconfig", str(kubeconfig), "--no-leader-election", "--restart-mode", "gitops"]
        )
        assert result.exit_code == 0, result.stderr
    assert pod(server, "mxnet-job-worker-0") is None  # released, and not recreated by the reconciler
    assert old["metadata"]["uid"] not in player.finalized_by_kueue
    rendered = run_cli(["render", "-n", "ml", *KUEUE, "-"], stdin=JOB)
    git_pod = next(
        d
        for d in yaml.safe_load_all(rendered.stdout)
        if d and d["kind"] == "Pod" and d["metadata"]["name"] == "mxnet-job-worker-0"
    )
    assert server.state.create("v1", "pods", "ml", git_pod)[0] == 201  # self-heal
    player.step()
    assert not gated(server, "mxnet-job-worker-0")  # the admitted Workload takes the replacement
