"""The examples' layouts, rendered by `mxjob render`, form a real MXNet parameter-server cluster with exact sums."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mxjob_gitops.compiler.render.gang.registry import GANG_SCHEDULERS
from tests.conftest import EXAMPLES, REPO
from tests.e2e.check import RunCluster, run_to_completion
from tests.e2e.jobs import load, pod_envs, render, with_command

GOLDEN = REPO / "tests" / "golden"
TRAIN = ["python", "kvstore_check.py"]
LOCAL = ["--kv-store", "local"]


@pytest.mark.parametrize(
    ("source", "worker_args", "workers"),
    [
        pytest.param(EXAMPLES / "train" / "mx_job_dist_gpu.yaml", [], 1, id="train-1-scheduler-1-server-1-worker"),
        pytest.param(GOLDEN / "custom-ports" / "input.yaml", [], 2, id="custom-mxjob-ports-namespace-ml"),
        pytest.param(EXAMPLES / "single" / "mx_job_single_worker.yaml", LOCAL, 1, id="single-worker"),
        pytest.param(GOLDEN / "env-collision" / "input.yaml", LOCAL, 1, id="env-collision-single-with-sidecar"),
    ],
)
def test_layout_forms_a_cluster(
    run_cluster: RunCluster, workdir: Path, source: Path, worker_args: list[str], workers: int
) -> None:
    job = with_command(load(source), TRAIN, Worker=worker_args)
    found = run_to_completion(run_cluster, render(job, workdir))
    assert len(found) == workers


def test_custom_port_is_the_schedulers_bind_port(workdir: Path) -> None:
    manifests = render(with_command(load(GOLDEN / "custom-ports" / "input.yaml"), TRAIN), workdir)
    envs = {
        name: dict((e["name"], e.get("value", "")) for e in containers[0][1])
        for name, containers in pod_envs(manifests).items()
    }
    assert {env["DMLC_PS_ROOT_PORT"] for env in envs.values()} == {"9000"}


def test_user_env_colliding_with_ours_in_a_distributed_job(run_cluster: RunCluster, workdir: Path) -> None:
    """User entries named like ours are dropped at render; the job still forms, and $(VAR) in args is expanded."""
    job = with_command(
        load(EXAMPLES / "byteps" / "byteps_job.yaml"),
        TRAIN,
        Worker=["--tag", "$(DMLC_ROLE)-$(DMLC_WORKER_ID)-$$(kept)"],
    )
    for spec in job["spec"]["mxReplicaSpecs"].values():
        container = spec["template"]["spec"]["containers"][0]
        container["env"] = [
            *container.get("env", []),
            {"name": "DMLC_ROLE", "value": "server"},
            {"name": "DMLC_NUM_WORKER", "value": "7"},
            {"name": "PS_VERBOSE", "value": "1"},
        ]
    found = run_to_completion(run_cluster, render(job, workdir))
    assert sorted(r["tag"] for r in found.values()) == ["worker-0-$(kept)", "worker-1-$(kept)"]


TARGETS = {
    "plain": [],
    "argocd": ["--target", "argocd"],
    "flux": ["--target", "flux"],
    **{backend.kind: ["--gang-scheduler", backend.kind] for backend in GANG_SCHEDULERS},
    "argocd-volcano": ["--target", "argocd", "--gang-scheduler", "volcano"],
}


def test_targets_and_gang_schedulers_leave_the_env_unchanged(run_cluster: RunCluster, workdir: Path) -> None:
    """The BytePS example's layout (2 servers, 2 workers): every rendering has the same env; one of them is run."""
    job = with_command(load(EXAMPLES / "byteps" / "byteps_job.yaml"), TRAIN)
    with ThreadPoolExecutor() as pool:  # independent `mxjob render` processes
        futures = {target: pool.submit(render, job, workdir / target, *options) for target, options in TARGETS.items()}
        renderings = {target: future.result() for target, future in futures.items()}
    envs = {target: pod_envs(manifests) for target, manifests in renderings.items()}
    for target, env in envs.items():
        assert env == envs["plain"], f"--target/--gang-scheduler {target} changed a pod's env"
    found = run_to_completion(run_cluster, renderings["argocd-volcano"])
    assert len(found) == 2
