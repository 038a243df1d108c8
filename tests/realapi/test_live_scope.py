"""`diff --live` scoping on a real kube-apiserver: without -n the kubeconfig context's namespace is used (as kubectl
does), another job's objects in that namespace never show as removed, `--prune-scope namespace` lists them, and a
leftover pod of a rendered job still shows as removed. (tests/test_live_diff_scope.py covers the same on the fake
API, with a second context.)"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import EXAMPLES, run_cli
from tests.realapi.cluster import RealCluster

TRAIN = EXAMPLES / "train" / "mx_job_dist_gpu.yaml"
TUNE = EXAMPLES / "tune" / "mx_job_tune_gpu.yaml"


def _statuses(stdout: str) -> dict[tuple[str, str], str]:
    return {(o["kind"], o["name"]): o["status"] for o in json.loads(stdout)["objects"]}


def test_live_diff_scope(mxjob_crd: RealCluster, namespace: str, tmp_path: Path) -> None:
    for job in (TRAIN, TUNE):
        rendered = run_cli(["render", "-n", namespace, str(job)])
        assert rendered.exit_code == 0, rendered.stderr
        mxjob_crd.kubectl("apply", "-n", namespace, "-f", "-", stdin=rendered.stdout)
    # the context's namespace is the test's; no -n anywhere below
    kubeconfig = mxjob_crd.kubeconfig_for_token(tmp_path / "kubeconfig", mxjob_crd.token, namespace)
    live = ["diff", "--live", "--kubeconfig", str(kubeconfig), "--format", "json"]

    same = run_cli([*live, str(TRAIN)])
    assert same.exit_code == 0, same.stdout + same.stderr
    assert _statuses(same.stdout) == {}

    wide = run_cli([*live, "--prune-scope", "namespace", str(TRAIN)])
    assert wide.exit_code == 1, wide.stderr
    removed = {name for (_, name), status in _statuses(wide.stdout).items() if status == "removed"}
    assert "auto-tuning-job" in removed and any(name.startswith("auto-tuning-job-") for name in removed)
    assert not any(name.startswith("mxnet-job") for name in removed), removed

    leftover = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "mxnet-job-worker-7",
            "labels": {
                "training.kubeflow.org/operator-name": "mxjob-controller",
                "training.kubeflow.org/job-name": "mxnet-job",
            },
        },
        "spec": {"containers": [{"name": "mxnet", "image": "old"}]},
    }
    mxjob_crd.kubectl("apply", "-n", namespace, "-f", "-", stdin=json.dumps(leftover))
    stale = run_cli([*live, str(TRAIN)])
    assert stale.exit_code == 1, stale.stderr
    assert _statuses(stale.stdout) == {("Pod", "mxnet-job-worker-7"): "removed"}
