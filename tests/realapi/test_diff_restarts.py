"""`mxjob diff --base REF PATH --kubeconfig …` on a real kube-apiserver names the running pods a change replaces and
how long they have run: the job's rendered pods are applied, bound to the stand-in node and reported Running with
a start time through the status subresource (there is no kubelet), and a commit changes the job's image."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import yaml

from mxjob_gitops.compiler.diff.age import rfc3339
from tests.conftest import EXAMPLES, run_cli
from tests.helpers import git, init_repo
from tests.realapi.cluster import RealCluster
from tests.realapi.kubelet import Kubelet

TRAIN = EXAMPLES / "train" / "mx_job_dist_gpu.yaml"
HOURS = 3_600


def _spec(namespace: str, image: str, name: str = "resnet") -> str:
    job: dict[str, Any] = yaml.safe_load(TRAIN.read_text(encoding="utf-8"))
    job["metadata"] = {"name": name, "namespace": namespace}
    for replica in job["spec"]["mxReplicaSpecs"].values():
        replica["template"]["spec"]["containers"][0]["image"] = image
    return yaml.safe_dump(job, sort_keys=False)


def _report(status: dict[str, Any], kubelet: Kubelet, pod: str) -> None:
    kubelet.sync()  # bound to the node first, as a scheduler would
    code, body = kubelet.cluster.request(
        "PATCH", f"{kubelet.base}/{pod}/status", {"status": status}, "application/merge-patch+json"
    )
    assert code == 200, body


def _running(started: float) -> dict[str, Any]:
    return {
        "phase": "Running",
        "startTime": rfc3339(started),
        "containerStatuses": [
            {
                "name": "mxnet",
                "ready": True,
                "restartCount": 0,
                "image": "mxjob/mxnet:gpu",
                "imageID": "",
                "state": {"running": {"startedAt": rfc3339(started)}},
            }
        ],
    }


def _repo(tmp_path: Path, namespace: str) -> tuple[Path, Path]:
    root = tmp_path / "repo"
    root.mkdir()
    init_repo(root)
    spec = root / "jobs" / "resnet.yaml"
    spec.parent.mkdir()
    spec.write_text(_spec(namespace, "mxjob/mxnet:gpu"), encoding="utf-8")
    (root / "jobs" / "other.yaml").write_text(_spec(namespace, "mxjob/mxnet:gpu", "other"), encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "resnet on mxnet:gpu")
    spec.write_text(_spec(namespace, "mxjob/mxnet:gpu-2"), encoding="utf-8")
    git(root, "commit", "-qam", "resnet on mxnet:gpu-2")
    return root, spec.parent


def test_the_diff_names_the_running_pods_it_replaces_and_their_age(
    kubelet: Kubelet, namespace: str, tmp_path: Path
) -> None:
    cluster: RealCluster = kubelet.cluster
    root, jobs = _repo(tmp_path, namespace)
    for name in ("resnet", "other"):
        kubelet.deploy(_spec(namespace, "mxjob/mxnet:gpu", name))
    now = time.time()
    # resnet: scheduler and server running for 2h10m and 2h, the worker still Pending; other: running, unchanged
    _report(_running(now - 2 * HOURS - 600), kubelet, "resnet-scheduler-0")
    _report(_running(now - 2 * HOURS), kubelet, "resnet-server-0")
    _report(_running(now - 5 * HOURS), kubelet, "other-worker-0")
    kubeconfig = cluster.kubeconfig_for_token(tmp_path / "kubeconfig", cluster.token, namespace)
    diff = ["diff", "--base", "HEAD~1", "--head", "HEAD", "--kubeconfig", str(kubeconfig), str(jobs)]
    line = f"replaces 2 running pods of {namespace}/resnet, running for 2h"

    text = run_cli(diff, cwd=root)
    assert text.exit_code == 1, text.stderr
    assert any(row.startswith(line) for row in text.stdout.splitlines()), text.stdout
    assert f"of {namespace}/other" not in text.stdout

    markdown = run_cli([*diff, "--format", "markdown"], cwd=root)
    assert markdown.exit_code == 1, markdown.stderr
    assert f"- {line} (3 pods replaced" in markdown.stdout, markdown.stdout

    report = run_cli([*diff, "--format", "json"], cwd=root)
    assert report.exit_code == 1, report.stderr
    [restart] = json.loads(report.stdout)["restarts"]
    assert restart["job"] == f"{namespace}/resnet" and restart["cluster"] is True and restart["replaced"] == 3
    assert restart["runningFor"] == "2h"
    assert [(p["name"], p["age"], p["how"]) for p in restart["running"]] == [
        ("resnet-scheduler-0", "2h", "in-place"),
        ("resnet-server-0", "2h", "in-place"),
    ]
    assert restart["running"][0]["startTime"] == rfc3339(now - 2 * HOURS - 600)

    # --live compares the cluster itself with HEAD: the same pods, the same ages
    live = run_cli(["diff", "--live", "--head", "HEAD", "--kubeconfig", str(kubeconfig), str(jobs)], cwd=root)
    assert live.exit_code == 1, live.stderr
    assert any(row.startswith(line) for row in live.stdout.splitlines()), live.stdout

    # the same diff without a cluster says which jobs restart if they are running
    offline = run_cli([*diff[:5], str(jobs)], cwd=root)
    assert offline.exit_code == 1, offline.stderr
    assert f"restarts {namespace}/resnet if it is running: 3 pods replaced" in offline.stdout.splitlines()


def test_a_jobset_replaced_by_argocd_names_every_running_replica(
    real_cluster: RealCluster, namespace: str, tmp_path: Path
) -> None:
    """The JobSet controller is not there: its pods are made by hand, with the labels its pod template carries."""
    root, jobs = _repo(tmp_path, namespace)
    now = time.time()
    for index, role in enumerate(("scheduler", "server", "worker")):
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"resnet-{role}-0-0-x{index}",
                "labels": {"training.kubeflow.org/job-name": "resnet", "training.kubeflow.org/replica-type": role},
            },
            "spec": {"containers": [{"name": "mxnet", "image": "mxjob/mxnet:gpu"}]},
        }
        real_cluster.kubectl("apply", "-n", namespace, "-f", "-", stdin=json.dumps(pod))
    kubelet = Kubelet(real_cluster, namespace)
    for index, role in enumerate(("scheduler", "server")):
        _report(_running(now - 3 * 86_400 - index), kubelet, f"resnet-{role}-0-0-x{index}")
    kubeconfig = real_cluster.kubeconfig_for_token(tmp_path / "kubeconfig", real_cluster.token, namespace)
    diff = ["diff", "--engine", "jobset", "--base", "HEAD~1", "--head", "HEAD", "--kubeconfig", str(kubeconfig)]

    replaced = run_cli([*diff, "--target", "argocd", str(jobs)], cwd=root)
    assert replaced.exit_code == 1, replaced.stderr
    assert f"replaces 2 running pods of {namespace}/resnet, running for 3d (the JobSet is replaced" in replaced.stdout

    refused = run_cli([*diff, "--format", "json", str(jobs)], cwd=root)
    assert refused.exit_code == 2, refused.stderr
    [restart] = json.loads(refused.stdout)["restarts"]
    assert restart["jobset"] == "refused" and "spec.replicatedJobs" in restart["reason"]


def test_an_unreachable_cluster_is_an_error_in_kubectls_words(
    real_cluster: RealCluster, namespace: str, tmp_path: Path
) -> None:
    root, jobs = _repo(tmp_path, namespace)
    kubeconfig = real_cluster.kubeconfig_for_token(tmp_path / "kubeconfig", real_cluster.token, namespace)
    text = kubeconfig.read_text(encoding="utf-8").replace(real_cluster.url, "https://127.0.0.1:1")
    kubeconfig.write_text(text, encoding="utf-8")
    result = run_cli(["diff", "--base", "HEAD~1", "--kubeconfig", str(kubeconfig), str(jobs)], cwd=root)
    assert result.exit_code == 2
    assert "the connection to the server 127.0.0.1:1 was refused" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
