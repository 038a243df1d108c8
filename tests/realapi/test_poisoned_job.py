"""One poisoned job among healthy ones on a real kube-apiserver: the others are reconciled (`--once`, controller)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from mxjob_gitops.reconciler.controller import Controller, _leading
from mxjob_gitops.reconciler.kube import Cluster
from mxjob_gitops.reconciler.runner import Reconciler, Settings
from tests.conftest import run_cli
from tests.realapi.cluster import wait_until
from tests.realapi.kubelet import Kubelet
from tests.test_faults import SPEC

JOBS = 5
POISONED = "job-02"


def _config_map(kubelet: Kubelet, render: Any) -> None:
    path = f"/api/v1/namespaces/{kubelet.namespace}/configmaps/{POISONED}-mxjob-config"
    config_map = kubelet.cluster.get(path)
    assert config_map is not None
    record = json.loads(config_map["data"]["job.json"])
    record["render"] = render
    code, body = kubelet.cluster.request(
        "PATCH", path, {"data": {"job.json": json.dumps(record)}}, "application/merge-patch+json"
    )
    assert code == 200, body


def _workers(kubelet: Kubelet, count: int) -> None:
    kubelet.patch_job({"spec": {"mxReplicaSpecs": {"Worker": {"replicas": count}}}}, POISONED)


# (name, poison, cure): what the real server stores is what the reconciler must survive.
POISONS: list[tuple[str, Callable[[Kubelet], None], Callable[[Kubelet], None]]] = [
    ("bad ConfigMap render", lambda k: _config_map(k, "oops"), lambda k: _config_map(k, {})),
    ("unknown gang scheduler", lambda k: _config_map(k, {"gangScheduler": "slurm"}), lambda k: _config_map(k, {})),
    ("a 2,000,000-replica job", lambda k: _workers(k, 2_000_000), lambda k: _workers(k, 2)),
]


def _restarted(kubelet: Kubelet, old: dict[str, str]) -> list[str]:
    """The jobs whose failed worker-0 was restarted exactly once and is back (a new uid), record cleared."""
    pods = kubelet.pods()
    done = []
    for job, uid in old.items():
        status = kubelet.job_status(job)
        pod = pods.get(f"{job}-worker-0")
        record = (status.get("podRestarts") or {}).get(f"{job}-worker-0") or {}
        if (
            status.get("restartCounts") == {"Worker": 1}
            and not record.get("pending")
            and pod is not None
            and pod["metadata"]["uid"] != uid
        ):
            done.append(job)
    return done


def _deploy_failed(kubelet: Kubelet) -> dict[str, str]:
    """JOBS jobs, every pod Running, then worker-0 of each exits 137; the uid of each failed pod by job."""
    kubelet.deploy("---\n".join(SPEC.format(i=i) for i in range(JOBS)))
    for pod in kubelet.pods():
        kubelet.set_pod(pod, "Running")
    old = {}
    for i in range(JOBS):
        worker = f"job-{i:02d}-worker-0"
        old[f"job-{i:02d}"] = kubelet.pods()[worker]["metadata"]["uid"]
        kubelet.set_pod(worker, "Failed", exit_code=137)
    return old


def _pass(kubelet: Kubelet) -> tuple[int, str]:
    result = run_cli(
        [
            "reconcile",
            "--once",
            "--kubeconfig",
            str(kubelet.cluster.kubeconfig),
            "--no-leader-election",
            "-n",
            kubelet.namespace,
            "--pass-timeout",
            "5",
        ]
    )
    kubelet.sync()
    return result.exit_code, result.stderr


@pytest.mark.parametrize(("name", "poison", "cure"), POISONS, ids=[p[0] for p in POISONS])
def test_the_others_converge_and_the_poisoned_one_after_the_cure(
    kubelet: Kubelet, name: str, poison: Callable[[Kubelet], None], cure: Callable[[Kubelet], None]
) -> None:
    old = _deploy_failed(kubelet)
    poison(kubelet)
    code, stderr = _pass(kubelet)
    assert code == 1, stderr
    assert f"{kubelet.namespace}/{POISONED}" in stderr and "1 job(s) could not be reconciled" in stderr
    assert sorted(_restarted(kubelet, old)) == sorted(set(old) - {POISONED})
    cure(kubelet)
    code, stderr = _pass(kubelet)
    assert code == 0, stderr
    assert sorted(_restarted(kubelet, old)) == sorted(old)


def test_controller_mode_the_others_converge_and_the_workers_live(kubelet: Kubelet) -> None:
    old = _deploy_failed(kubelet)
    _config_map(kubelet, "oops")
    reconciler = Reconciler(Cluster.connect(str(kubelet.cluster.kubeconfig)), Settings(namespaces=(kubelet.namespace,)))
    controller = Controller(reconciler, retry_cap=0.5)
    _leading(controller, True)
    controller.start()
    try:

        def restarted(jobs: set[str]) -> Callable[[], bool]:
            def check() -> bool:
                kubelet.sync()  # the kubelet confirms deletions, as on a node
                return sorted(_restarted(kubelet, old)) == sorted(jobs)

            return check

        wait_until(restarted(set(old) - {POISONED}), 60, "the other jobs to be restarted")
        assert controller.health() == "" and all(t.is_alive() for t in controller.threads)
        _config_map(kubelet, {})
        wait_until(restarted(set(old)), 60, "the cured job to be restarted")
        assert all(t.is_alive() for t in controller.threads)
    finally:
        controller.stop.set()
