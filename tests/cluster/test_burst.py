"""A burst of exits on the cluster tier: 50 jobs (500 pods) running on kwok nodes, then 50 `mxnet` containers of 20
of them end at once with mixed codes (retryable 137 and 143, permanent 1 and OOMKilled), several in one job. The
reconciler's reaction to each (the restart recorded in the job's status, or the job Failed) must come within a
median of 2 s and at most 10 s of kwok's report of the exit (tests/cluster/lag.py measures both from outside),
and every job must end as its exits say: restarted pods recreated and running with exact counts, failed jobs
Failed, the other 30 jobs untouched. The target is issue 39's on a 2-core machine; the load average is printed
with the figures, and in the failure message."""

from __future__ import annotations

import os
import statistics
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from tests.cluster.control_plane import POOL_LABEL, ControlPlane
from tests.cluster.lag import Observer, condition, exit_pods, percentile, restart_recorded, wait_for
from tests.cluster.test_lifecycle import Reconciler
from tests.conftest import run_cli

JOBS = 50
NODES = 5  # 110 pods each
MEDIAN_TARGET, MAX_TARGET = 2.0, 10.0
SETTLE = 900.0  # deploying 500 pods and recreating the restarted ones, on 2 loaded cores

# (job index, worker indexes, exit code, reason): 50 exits in 20 jobs.
RETRYABLE = [(j, (0, 1, 2, 3), 137, "") for j in range(10)] + [(j, (5,), 143, "") for j in (18, 19)]
PERMANENT = [(j, (1,), 1, "") for j in range(10, 15)] + [(j, (2,), 137, "OOMKilled") for j in (15, 16, 17)]


def job_name(index: int) -> str:
    return f"burst-{index:02d}"


def spec(namespace: str, index: int) -> dict[str, Any]:
    def replica(replicas: int, policy: str) -> dict[str, Any]:
        pod = {"nodeSelector": {POOL_LABEL: namespace}, "containers": [{"name": "mxnet", "image": "mxnet:1.9"}]}
        return {"replicas": replicas, "restartPolicy": policy, "template": {"spec": pod}}

    replicas = {"Scheduler": replica(1, "Never"), "Server": replica(3, "Never"), "Worker": replica(6, "ExitCode")}
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "MXJob",
        "metadata": {"name": job_name(index)},
        "spec": {"jobMode": "MXTrain", "runPolicy": {"cleanPodPolicy": "None"}, "mxReplicaSpecs": replicas},
    }


class Cluster:
    """The test's namespace on the shared control plane, read as the jobs' owner would."""

    def __init__(self, plane: ControlPlane, namespace: str) -> None:
        self.plane, self.namespace = plane, namespace

    def jobs(self) -> dict[str, dict[str, Any]]:
        listing = self.plane.get(f"/apis/kubeflow.org/v1/namespaces/{self.namespace}/mxjobs") or {}
        return {j["metadata"]["name"]: j for j in listing.get("items") or []}

    def pods(self) -> dict[str, dict[str, Any]]:
        listing = self.plane.get(f"/api/v1/namespaces/{self.namespace}/pods") or {}
        return {p["metadata"]["name"]: p for p in listing.get("items") or []}

    def states(self) -> dict[str, str]:
        """Each job's newest kubeflow condition that is true (Created, Running, Restarting, Failed, ...)."""
        found = {}
        for name, job in self.jobs().items():
            true = [c["type"] for c in (job.get("status") or {}).get("conditions") or [] if c.get("status") == "True"]
            found[name] = true[-1] if true else ""
        return found


@pytest.fixture
def burst_cluster(control_plane: ControlPlane) -> Iterator[Cluster]:
    namespace = "burst"
    control_plane.ensure_namespace(namespace)
    for index in range(NODES):
        control_plane.add_node(f"{namespace}-{index}", namespace)
    reconciler = Reconciler(control_plane, namespace)
    reconciler.start()
    try:
        yield Cluster(control_plane, namespace)
    finally:
        reconciler.stop()


def test_a_burst_of_50_mixed_exits_is_reflected_within_the_lag_target(burst_cluster: Cluster) -> None:
    cluster, plane = burst_cluster, burst_cluster.plane
    text = yaml.safe_dump_all([spec(cluster.namespace, i) for i in range(JOBS)])
    rendered = run_cli(["render", "-n", cluster.namespace, "-"], stdin=text)
    assert rendered.exit_code == 0, rendered.stderr
    plane.kubectl("apply", "-n", cluster.namespace, "-f", "-", stdin=rendered.stdout)
    wait_for("every job Running", lambda: _all_running(cluster), SETTLE, plane.check_running)

    exits = {
        f"{job_name(j)}-worker-{w}": (j, code, reason)
        for j, workers, code, reason in RETRYABLE + PERMANENT
        for w in workers
    }
    assert len(exits) == 50
    before = {name: pod["metadata"]["uid"] for name, pod in cluster.pods().items()}
    at_start = os.getloadavg()
    with Observer(plane, cluster.namespace) as seen:
        exit_pods(
            plane, cluster.namespace, {p: x[1] for p, x in exits.items()}, {p: x[2] for p, x in exits.items() if x[2]}
        )
        lags = _lags(seen, exits, plane)
    load = [max(a, b) for a, b in zip(at_start, os.getloadavg(), strict=True)]
    figures = (
        f"{len(exits)} exits in 20 jobs of {JOBS} ({JOBS * 10} pods): lag median {statistics.median(lags):.2f} s, "
        f"p90 {percentile(lags, 0.9):.2f} s, max {max(lags):.2f} s; load average {' '.join(f'{x:.1f}' for x in load)}"
    )
    print(figures)
    assert statistics.median(lags) <= MEDIAN_TARGET and max(lags) <= MAX_TARGET, figures

    retryable = {job_name(j): len(workers) for j, workers, _, _ in RETRYABLE}
    permanent = {job_name(j) for j, _, _, _ in PERMANENT}
    wait_for(
        "the restarted jobs Running again, with every pod recreated and Running",
        lambda: _settled(cluster, retryable, permanent, exits, before),
        SETTLE,
        plane.check_running,
    )
    jobs = cluster.jobs()
    for name, job in jobs.items():
        status = job.get("status") or {}
        if name in retryable:
            assert status.get("restartCounts") == {"Worker": retryable[name]}, (
                name,
                status.get("podRestarts"),
                status.get("restartCounts"),
            )
        elif name in permanent:
            assert status["conditions"][-1]["message"].endswith("because 1 Worker replica(s) failed."), (name, status)
            assert not status.get("restartCounts"), (name, status)
        else:
            assert not status.get("restartCounts") and not status.get("podRestarts"), (name, status)


def _all_running(cluster: Cluster) -> bool:
    states = cluster.states()
    return len(states) == JOBS and all(state == "Running" for state in states.values())


def _lags(seen: Observer, exits: dict[str, tuple[int, int, str]], plane: ControlPlane) -> list[float]:
    """Per exit: from kwok's report of it to the job's status recording the restart (retryable), or the job Failed
    (permanent), as the observer's watches saw them."""
    permanent = {job_name(j) for j, _, _, _ in PERMANENT}
    lags: dict[str, float] = {}

    def reacted() -> bool:
        for pod, (index, _, _) in exits.items():
            exited = seen.exit_of(pod)
            if pod in lags or exited is None:
                continue
            job = job_name(index)
            test = condition("Failed") if job in permanent else restart_recorded(pod, exited.uid)
            when = seen.reaction(job, exited.seen, test)
            if when is not None:
                lags[pod] = when - exited.seen
        return len(lags) == len(exits)

    wait_for(f"a reaction to each of {len(exits)} exits", reacted, 120, plane.check_running)
    return list(lags.values())


def _settled(
    cluster: Cluster,
    retryable: dict[str, int],
    permanent: set[str],
    exits: dict[str, tuple[int, int, str]],
    before: dict[str, str],
) -> bool:
    states, pods = cluster.states(), cluster.pods()
    if any(states[name] != "Failed" for name in permanent):
        return False
    if any(states[name] != "Running" for name in states if name not in permanent):
        return False
    restarted = [pod for pod, (index, _, _) in exits.items() if job_name(index) in retryable]
    return all(
        pod in pods
        and pods[pod]["metadata"]["uid"] != before[pod]
        and pods[pod]["status"].get("phase") == "Running"
        and not pods[pod]["metadata"].get("deletionTimestamp")
        for pod in restarted
    )
