"""Run a rendered training job to the end and check what its workers report."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from tests.e2e.pods import Manifest
from tests.e2e.runner import Cluster

RunCluster = Callable[[list[Manifest]], AbstractContextManager[Cluster]]
# A bound for a whole job of up to five pods (each imports MXNet in ~5 s; two cores shared with other work).
JOB_TIMEOUT = 120.0
MARK = "E2E-RESULT "


def result_of(cluster: Cluster, name: str) -> dict[str, Any]:
    """The last E2E-RESULT record the pod `name` printed (in its latest run)."""
    lines = [line for line in cluster.pods[name].output().splitlines() if line.startswith(MARK)]
    assert lines, f"{name} printed no result\n{cluster.report()}"
    found: dict[str, Any] = json.loads(lines[-1][len(MARK) :])
    return found


def results(cluster: Cluster, names: list[str]) -> dict[str, dict[str, Any]]:
    """The E2E-RESULT record each named pod printed."""
    return {name: result_of(cluster, name) for name in names}


def run_to_completion(run_cluster: RunCluster, manifests: list[Manifest]) -> dict[str, dict[str, Any]]:
    """Start every pod, require all to exit 0, and return the workers' results."""
    with run_cluster(manifests) as cluster:
        for name in cluster.plans:
            cluster.start(name)
        return finish(cluster)


def finish(cluster: Cluster) -> dict[str, dict[str, Any]]:
    """Once the pods are started: require all to exit 0, check and return the workers' results."""
    codes = cluster.wait(list(cluster.plans), JOB_TIMEOUT)
    assert set(codes.values()) == {0}, f"exit codes {codes}\n{cluster.report()}"
    workers = [n for n, p in cluster.plans.items() if p.replica_type == "worker"]
    found = results(cluster, workers)
    check_workers(cluster, found)
    print(
        f"\n{len(cluster.plans)} pods: "
        + ", ".join(
            f"{n} rank {r['rank']} {r['kvstore']} {[x['seen'][0] for x in r['rounds']]}" for n, r in found.items()
        )
    )
    return found


def check_workers(cluster: Cluster, found: dict[str, dict[str, Any]]) -> None:
    """Exact aggregates, one rank per worker, and each pod's identity (hostname, MX_CONFIG task) as rendered."""
    for name, result in found.items():
        assert result["ok"], f"{name}: inexact aggregate {result['rounds']}"
        assert result["hostname"] == cluster.plans[name].hostname == result["own_url"] == name
        labels = cluster.plans[name].labels
        assert result["task"] == {"type": "worker", "index": int(labels["training.kubeflow.org/replica-index"])}
        assert result["num_workers"] == len(found)
        assert result["worker_id"] == str(result["task"]["index"])
    assert sorted(r["rank"] for r in found.values()) == list(range(len(found)))
