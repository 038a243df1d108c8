"""`mxjob diff --live`: the cluster's objects, fetched with the official client from a fake API over HTTP."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, run_cli
from tests.fakeapi import FakeServer
from tests.kubelet import PLURALS

JOB = EXAMPLES / "train" / "mx_job_dist_gpu.yaml"


def _as_the_server_stores_it(manifest: dict[str, Any]) -> dict[str, Any]:
    """What a real API server adds: defaults, injected volumes, status."""
    obj = copy.deepcopy(manifest)
    if obj["kind"] == "Pod":
        spec = obj["spec"]
        spec.update(
            dnsPolicy="ClusterFirst",
            nodeName="node-1",
            schedulerName="default-scheduler",
            serviceAccountName="default",
            terminationGracePeriodSeconds=30,
        )
        spec["volumes"] = [{"name": "kube-api-access-x1", "projected": {"sources": []}}]
        for container in spec["containers"]:
            container.update(imagePullPolicy="IfNotPresent", terminationMessagePath="/dev/termination-log")
            container["volumeMounts"] = [{"name": "kube-api-access-x1", "mountPath": "/var/run/secrets"}]
        obj["status"] = {"phase": "Running"}
    if obj["kind"] == "Service":
        obj["spec"]["clusterIPs"] = ["None"]
        obj["spec"]["ports"][0].update(protocol="TCP", targetPort=9091)
    return obj


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[FakeServer, Path]]:
    rendered = yaml.safe_load_all(run_cli(["render", "-n", "ml", str(JOB)]).stdout)
    with FakeServer() as server:
        for manifest in rendered:
            group_version = manifest["apiVersion"]
            code, _ = server.state.create(
                group_version, PLURALS[manifest["kind"]], "ml", _as_the_server_stores_it(manifest)
            )
            assert code == 201
        yield server, server.kubeconfig(tmp_path / "kubeconfig")


def _diff(kubeconfig: Path, path: Path, *extra: str) -> Any:
    return run_cli(["diff", "--live", "--kubeconfig", str(kubeconfig), "-n", "ml", *extra, str(path)])


def test_no_difference_when_the_cluster_matches_git(cluster: tuple[FakeServer, Path]) -> None:
    _, kubeconfig = cluster
    result = _diff(kubeconfig, JOB)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "0 objects differ" in result.stdout


def test_changes_added_and_removed_objects(cluster: tuple[FakeServer, Path], tmp_path: Path) -> None:
    server, kubeconfig = cluster
    changed = tmp_path / "job.yaml"
    changed.write_text(
        JOB.read_text(encoding="utf-8").replace("mxjob/mxnet:gpu", "mxjob/mxnet:gpu-2"), encoding="utf-8"
    )
    server.state.delete(("v1", "pods", "ml", "mxnet-job-server-0"))
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
    server.state.create("v1", "pods", "ml", leftover)
    result = _diff(kubeconfig, changed, "--format", "json")
    assert result.exit_code == 1, result.stderr
    objects = {(o["kind"], o["name"]): o for o in json.loads(result.stdout)["objects"]}
    assert objects[("Pod", "mxnet-job-server-0")]["status"] == "added"
    assert objects[("Pod", "mxnet-job-worker-7")]["status"] == "removed"
    worker = objects[("Pod", "mxnet-job-worker-0")]
    assert worker["status"] == "modified"
    assert [(c["path"], c["old"], c["new"]) for c in worker["changes"]] == [
        ("spec.containers[mxnet].image", "mxjob/mxnet:gpu", "mxjob/mxnet:gpu-2")
    ]
    assert worker["replace"] is False  # only the image: the pod can be updated in place


def test_unreachable_cluster_is_an_error(tmp_path: Path) -> None:
    with FakeServer() as server:
        kubeconfig = server.kubeconfig(tmp_path / "kubeconfig")
    result = _diff(kubeconfig, JOB)
    assert result.exit_code == 2
    assert result.stdout == "" and "--live" in result.stderr and "Traceback" not in result.stderr


def test_live_rejects_base() -> None:
    assert run_cli(["diff", "--live", "--base", "HEAD", str(JOB)]).exit_code == 2


def test_a_field_git_dropped_since_the_last_apply_shows_as_removed(tmp_path: Path) -> None:
    """Three-way view: server defaults vanish, but a field the last `kubectl apply` set and Git no longer has stays."""
    rendered = list(yaml.safe_load_all(run_cli(["render", "-n", "ml", str(JOB)]).stdout))
    with FakeServer() as server:
        for manifest in rendered:
            stored = _as_the_server_stores_it(manifest)
            if manifest["metadata"]["name"] == "mxnet-job-worker-0" and manifest["kind"] == "Pod":
                applied = copy.deepcopy(manifest)
                applied["spec"]["hostname"] = "old-host"
                stored["spec"]["hostname"] = "old-host"
                stored["metadata"]["annotations"] = {
                    "kubectl.kubernetes.io/last-applied-configuration": json.dumps(applied)
                }
            code, _ = server.state.create(manifest["apiVersion"], PLURALS[manifest["kind"]], "ml", stored)
            assert code == 201
        result = _diff(server.kubeconfig(tmp_path / "kubeconfig"), JOB, "--format", "json")
    assert result.exit_code == 1, result.stderr
    changed = [o for o in json.loads(result.stdout)["objects"] if o["status"] != "unchanged"]
    assert [(o["kind"], o["name"]) for o in changed] == [("Pod", "mxnet-job-worker-0")]
    assert [(c["path"], c["old"], c["new"]) for c in changed[0]["changes"]] == [("spec.hostname", "old-host", None)]
