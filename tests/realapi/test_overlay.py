"""overlays/standalone on a real server, and the reconciler running as the overlay's service account (no 403)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mxjob_gitops.reconciler.kube import Cluster
from mxjob_gitops.reconciler.leader import LeaderElector
from tests.conftest import REPO, run_cli
from tests.realapi.cluster import RealCluster
from tests.realapi.conftest import crd_apply_flags
from tests.realapi.kubelet import Kubelet
from tests.test_reconcile import EXITCODE_JOB, PODS

SYSTEM = "mxjob-system"
ACCOUNT = "mxjob-reconciler"


@pytest.fixture(scope="module")
def standalone(mxjob_crd: RealCluster) -> RealCluster:
    overlay = str(REPO / "overlays" / "standalone")
    applied = mxjob_crd.kubectl("apply", *crd_apply_flags(mxjob_crd), "-k", overlay, check=False)
    assert (applied.returncode, applied.stderr) == (0, ""), applied.stderr
    mxjob_crd.ensure_namespace(SYSTEM)
    return mxjob_crd


def test_the_standalone_overlay_installs(standalone: RealCluster) -> None:
    deployment = json.loads(standalone.kubectl("get", "deployment", ACCOUNT, "-n", SYSTEM, "-o", "json").stdout)
    assert deployment["spec"]["template"]["spec"]["serviceAccountName"] == ACCOUNT
    standalone.wait_established("mxjobs.kubeflow.org")


def test_the_reconciler_needs_nothing_its_service_account_lacks(
    standalone: RealCluster, namespace: str, tmp_path: Path
) -> None:
    token = standalone.kubectl("create", "token", ACCOUNT, "-n", SYSTEM).stdout.strip()
    kubeconfig = standalone.kubeconfig_for_token(tmp_path / "reconciler", token, SYSTEM)
    kubelet = Kubelet(standalone, namespace)
    kubelet.deploy(EXITCODE_JOB)
    for name in PODS:
        kubelet.set_pod(name, "Running")
    passes = []
    for step in ("running", "failed", "recreate"):
        if step == "failed":
            kubelet.set_pod("mxnet-job-worker-0", "Failed", exit_code=137)
        result = run_cli(["reconcile", "--once", "--kubeconfig", str(kubeconfig), "--no-leader-election", "-A"])
        kubelet.sync()
        passes.append(result.stderr)
        assert result.exit_code == 0, result.stderr
    log = "\n".join(passes)
    assert "403" not in log and "forbidden" not in log.lower(), log
    assert kubelet.job_status()["restartCounts"] == {"Worker": 1}
    assert kubelet.pods()["mxnet-job-worker-0"]["status"].get("phase") != "Failed"  # recreated
    elector = LeaderElector(Cluster.connect(str(kubeconfig)), SYSTEM, "rbac-check", lambda: datetime.now(UTC))
    assert elector.try_acquire() is True
    elector.release()
