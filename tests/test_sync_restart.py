"""MXJ319: a Server or Worker restarted alone in a dist_sync job is warned about, with the fix; the examples follow
the advice (docs/reconciler.md, "Restarting one MXNet worker")."""

from __future__ import annotations

import pytest

from tests.conftest import EXAMPLES, run_cli

JOB = """apiVersion: kubeflow.org/v1
kind: MXJob
metadata:
  name: sync
spec:
  jobMode: MXTrain
  mxReplicaSpecs:
    Scheduler:
      replicas: 1
      template:
        spec:
          containers:
          - name: mxnet
            image: mxnet
    Server:
      replicas: 1
      restartPolicy: SERVER
      template:
        spec:
          containers:
          - name: mxnet
            image: mxnet
    Worker:
      replicas: 2
      restartPolicy: WORKER
      template:
        spec:
          containers:
          - name: mxnet
            image: mxnet
            args: [KVSTORE]
"""


def job(server: str, worker: str, kvstore: str) -> str:
    return JOB.replace("SERVER", server).replace("WORKER", worker).replace("KVSTORE", kvstore)


@pytest.mark.parametrize(
    ("server", "worker", "kvstore", "warned"),
    [
        ("ExitCode", "ExitCode", '"--kv-store", "dist_sync"', ["Server", "Worker"]),
        ("Never", "OnFailure", '"--kv-store=dist_sync_device"', ["Worker"]),
        ("Never", "Always", '"--kvstore", "dist_device_sync"', ["Worker"]),
        ("Never", "Never", '"--kv-store", "dist_sync"', []),
        ("ExitCode", "ExitCode", '"--kv-store", "dist_async"', []),
        ("ExitCode", "ExitCode", '"--kv-store", "local"', []),
    ],
)
def test_a_replica_restarted_alone_in_a_dist_sync_job_is_warned(
    server: str, worker: str, kvstore: str, warned: list[str]
) -> None:
    result = run_cli(["render", "-"], stdin=job(server, worker, kvstore))
    assert result.exit_code == 0, result.stderr
    found = [line for line in result.stderr.splitlines() if "MXJ319" in line]
    assert [t for t in ("Server", "Worker") if any(f"mxReplicaSpecs.{t}.restartPolicy" in x for x in found)] == warned
    assert all("restartPolicy: Never" in line and "activeDeadlineSeconds" in line for line in found)


@pytest.mark.parametrize("example", ["kustomize/base/mxjob.yaml", "byteps/byteps_job.yaml"])
def test_the_examples_follow_the_advice(example: str) -> None:
    result = run_cli(["render", str(EXAMPLES / example)])
    assert result.exit_code == 0, result.stderr
    assert "MXJ319" not in result.stderr
    assert "restartPolicy: ExitCode" not in (EXAMPLES / example).read_text(encoding="utf-8")


@pytest.mark.parametrize("policy", ["[ExitCode]", "{a: b}", "7"])
def test_a_malformed_restart_policy_is_the_schemas_to_report(policy: str) -> None:
    result = run_cli(
        ["render", "-"],
        stdin=job("ExitCode", "ExitCode", '"--kv-store", "dist_sync"').replace(
            "restartPolicy: ExitCode\n      template:\n        spec:\n          containers:\n          - name: mxnet\n"
            "            image: mxnet\n            args",
            f"restartPolicy: {policy}\n      template:\n        spec:\n          containers:\n          - name: mxnet\n"
            "            image: mxnet\n            args",
        ),
    )
    assert result.exit_code == 1, result.stderr  # a schema error, never an internal one
    assert "internal error" not in result.stderr
