"""Every pod of the BytePS example passes the checks BytePS's launcher makes on its env, inside its own pod."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from tests.e2e.check import JOB_TIMEOUT, RunCluster, results
from tests.e2e.jobs import load, render, with_command
from tests.e2e.scripts.bpslaunch_check import problems

BYTEPS = EXAMPLES / "byteps" / "byteps_job.yaml"


def test_every_byteps_pod_env_satisfies_the_launcher(run_cluster: RunCluster, workdir: Path) -> None:
    source = load(BYTEPS)
    worker_args = source["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["args"]
    job = with_command(source, ["python", "bpslaunch_check.py"], Worker=worker_args)
    with run_cluster(render(job, workdir)) as cluster:
        for name in cluster.plans:
            cluster.start(name)
        codes = cluster.wait(list(cluster.plans), JOB_TIMEOUT)
        found = results(cluster, list(cluster.plans))
        scheduler_ip = next(cluster.net.pods[n].ip for n, p in cluster.plans.items() if p.replica_type == "scheduler")
    assert set(codes.values()) == {0}, found
    assert {r["root_ip"] for r in found.values()} == {scheduler_ip}
    workers = {n: r for n, r in found.items() if r["role"] == "worker"}
    assert sorted(r["worker_id"] for r in workers.values()) == ["0", "1"]
    assert {r["local_size"] for r in workers.values()} == {8}  # NVIDIA_VISIBLE_DEVICES lists eight GPUs
    assert all(r["command"] == worker_args for r in workers.values())
    print("\n" + "\n".join(f"{n}: role {r['role']} id {r['worker_id']} root {r['root_ip']}" for n, r in found.items()))


BASE = {
    "DMLC_ROLE": "worker",
    "DMLC_NUM_WORKER": "2",
    "DMLC_NUM_SERVER": "1",
    "DMLC_PS_ROOT_URI": "s",
    "DMLC_PS_ROOT_PORT": "9091",
    "DMLC_WORKER_ID": "1",
}


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({}, []),
        ({"DMLC_WORKER_ID": None}, ["DMLC_WORKER_ID is missing"]),
        ({"DMLC_WORKER_ID": "2"}, ["DMLC_WORKER_ID '2' is not in 0..1"]),
        ({"DMLC_NUM_WORKER": "1", "DMLC_PS_ROOT_URI": None, "DMLC_WORKER_ID": "0"}, []),
        ({"DMLC_PS_ROOT_PORT": None}, ["DMLC_PS_ROOT_PORT is missing"]),
        ({"DMLC_ROLE": "tuner"}, ["DMLC_ROLE 'tuner' is not worker, server or scheduler"]),
        ({"DMLC_ROLE": "Server"}, ["DMLC_ROLE 'Server' is not lower case"]),
        (
            {"DMLC_ROLE": "server", "DMLC_NUM_WORKER": "1"},
            ["a server with DMLC_NUM_WORKER <= 1 exits without serving (no BYTEPS_FORCE_DISTRIBUTED=1)"],
        ),
        ({"DMLC_ROLE": "server", "DMLC_NUM_WORKER": "1", "BYTEPS_FORCE_DISTRIBUTED": "1"}, []),
    ],
)
def test_the_checker_finds_what_the_launcher_would_refuse(change: dict[str, str | None], expected: list[str]) -> None:
    env = {k: v for k, v in {**BASE, **change}.items() if v is not None}
    assert problems(env) == expected
