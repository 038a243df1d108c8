"""`mxjob diff --live` as kubectl users expect: no -n means the kubeconfig context's namespace, --context picks the
context, and only the rendered jobs' objects can show as removed unless --prune-scope namespace asks for more."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, run_cli
from tests.fakeapi import FakeServer
from tests.kubelet import PLURALS
from tests.test_live_diff import _as_the_server_stores_it

TRAIN = EXAMPLES / "train" / "mx_job_dist_gpu.yaml"
TUNE = EXAMPLES / "tune" / "mx_job_tune_gpu.yaml"


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[FakeServer, Path]]:
    """Both example jobs deployed in `ml`; the kubeconfig's current context defaults to `ml`, context `dev`
    to namespace `dev`."""
    with FakeServer() as server:
        for path in (TRAIN, TUNE):
            for manifest in yaml.safe_load_all(run_cli(["render", "-n", "ml", str(path)]).stdout):
                code, _ = server.state.create(
                    manifest["apiVersion"], PLURALS[manifest["kind"]], "ml", _as_the_server_stores_it(manifest)
                )
                assert code == 201
        kubeconfig = server.kubeconfig(tmp_path / "kubeconfig", namespace="ml")
        config: dict[str, Any] = json.loads(kubeconfig.read_text(encoding="utf-8"))
        config["contexts"].append({"name": "dev", "context": {"cluster": "fake", "user": "fake", "namespace": "dev"}})
        kubeconfig.write_text(json.dumps(config), encoding="utf-8")
        yield server, kubeconfig


def _objects(stdout: str) -> dict[tuple[str, str], str]:
    return {(o["kind"], o["name"]): o["status"] for o in json.loads(stdout)["objects"]}


def test_no_namespace_flag_means_the_context_namespace(cluster: tuple[FakeServer, Path]) -> None:
    _, kubeconfig = cluster
    result = run_cli(["diff", "--live", "--kubeconfig", str(kubeconfig), str(TRAIN)])
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "0 objects differ" in result.stdout


def test_context_picks_the_kubeconfig_context(cluster: tuple[FakeServer, Path]) -> None:
    _, kubeconfig = cluster
    result = run_cli(
        ["diff", "--live", "--kubeconfig", str(kubeconfig), "--context", "dev", "--format", "json", str(TRAIN)]
    )
    assert result.exit_code == 1, result.stderr
    statuses = _objects(result.stdout)
    assert statuses and set(statuses.values()) == {"added"}  # nothing of it lives in `dev`


def test_other_jobs_in_the_namespace_are_not_removed(cluster: tuple[FakeServer, Path]) -> None:
    _, kubeconfig = cluster
    result = run_cli(["diff", "--live", "--kubeconfig", str(kubeconfig), "-n", "ml", "--format", "json", str(TRAIN)])
    assert result.exit_code == 0, result.stdout + result.stderr
    assert _objects(result.stdout) == {}


def test_prune_scope_namespace_shows_every_managed_object(cluster: tuple[FakeServer, Path]) -> None:
    _, kubeconfig = cluster
    result = run_cli(
        [
            "diff",
            "--live",
            "--kubeconfig",
            str(kubeconfig),
            "--prune-scope",
            "namespace",
            "--format",
            "json",
            str(TRAIN),
        ]
    )
    assert result.exit_code == 1, result.stderr
    removed = {name for (kind, name), status in _objects(result.stdout).items() if status == "removed"}
    assert "auto-tuning-job" in removed and any(name.startswith("auto-tuning-job-") for name in removed)
    assert not any(name.startswith("mxnet-job") for name in removed)


def test_a_leftover_pod_of_a_rendered_job_is_still_removed(cluster: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = cluster
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
    result = run_cli(["diff", "--live", "--kubeconfig", str(kubeconfig), "--format", "json", str(TRAIN)])
    assert result.exit_code == 1, result.stderr
    assert _objects(result.stdout) == {("Pod", "mxnet-job-worker-7"): "removed"}
