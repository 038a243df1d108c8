"""Per-environment MXJob patches with kustomize, piped into `mxjob render -`, using the real kubectl."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
import yaml

from tests.conftest import EXAMPLES, REPO, run_cli

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
OVERLAYS = EXAMPLES / "kustomize" / "overlays"


def _kustomize(overlay: str) -> str:
    done = subprocess.run(
        [str(KUBECTL), "kustomize", str(OVERLAYS / overlay)], capture_output=True, text=True, check=True
    )
    return done.stdout


def test_prod_overlay_renders_its_sizes() -> None:
    result = run_cli(["render", "-"], stdin=_kustomize("prod"))
    assert result.exit_code == 0, result.stderr
    docs = list(yaml.safe_load_all(result.stdout))
    pods = sorted(d["metadata"]["name"] for d in docs if d["kind"] == "Pod")
    assert pods == [
        "imagenet-scheduler-0",
        "imagenet-server-0",
        "imagenet-server-1",
        "imagenet-worker-0",
        "imagenet-worker-1",
        "imagenet-worker-2",
        "imagenet-worker-3",
    ]
    assert {d["metadata"]["namespace"] for d in docs} == {"ml"}
    job = json.loads(docs[0]["data"]["job.json"])
    assert job["runPolicy"]["activeDeadlineSeconds"] == 172800


def test_dev_overlay_changes_the_image_of_every_replica_type() -> None:
    docs = list(yaml.safe_load_all(run_cli(["render", "-"], stdin=_kustomize("dev")).stdout))
    images = {d["metadata"]["name"]: d["spec"]["containers"][0]["image"] for d in docs if d["kind"] == "Pod"}
    assert images == dict.fromkeys(
        ["imagenet-scheduler-0", "imagenet-server-0", "imagenet-worker-0"],
        "registry.example.com/ml/imagenet-train:1.5.0-rc1",
    )
    worker = next(d for d in docs if d["kind"] == "Pod" and d["metadata"]["name"] == "imagenet-worker-0")
    assert worker["spec"]["containers"][0]["args"][-2:] == ["--batch-size", "16"]


def test_shell_pipeline_fails_when_either_side_fails() -> None:
    mxjob = f"{sys.executable} -m mxjob_gitops"
    ok = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {KUBECTL} kustomize {OVERLAYS / 'prod'} | {mxjob} render -"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0 and "kind: Pod" in ok.stdout
    corrupt = "sed 's/replicas: 4/replicas: four/'"
    broken = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {KUBECTL} kustomize {OVERLAYS / 'prod'} | {corrupt} | {mxjob} render -"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert broken.returncode == 1 and broken.stdout == ""
    assert "replicas must be an integer" in broken.stderr
