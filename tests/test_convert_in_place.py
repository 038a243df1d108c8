"""`mxjob convert --in-place` on old specs with comments: only what the conversion changes is rewritten."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.conftest import run_cli

V1BETA1 = """\
# Tuning job, still in the v1beta1 form.
apiVersion: kubeflow.org/v1beta1
kind: MXJob
metadata:
  name: tune-beta   # keep this name: dashboards use it
spec:
  jobMode: MXTune
  cleanPodPolicy: All
  mxReplicaSpecs:
    # the tracker first
    TunerTracker:
      replicas: 1
      template:
        spec:
          containers:
            - name: mxnet
              image: "mxjob/auto-tuning:gpu"  # pinned
              args: [--port, "9091"]
    TunerServer:
      label: 2080ti
      replicas: 2
      template:
        spec:
          containers:
            - name: mxnet
              image: mxjob/auto-tuning:gpu
    Tuner:
      replicas: 1
      template:
        spec:
          containers:
            - name: mxnet
              image: mxjob/auto-tuning:gpu
---
apiVersion: v1
kind: ConfigMap   # not an MXJob: untouched
metadata: {name: settings}
data:
  a: "1"
"""

V1ALPHA1 = """\
apiVersion: kubeflow.org/v1alpha1
kind: MXJob
metadata:
  name: example-dist-job
spec:
  jobMode: dist
  replicaSpecs:
  - mxReplicaType: SCHEDULER
    PsRootPort: 9091
    replicas: 1
    template:
      spec:
        containers:
        - image: mxjob/mxnet:gpu   # the scheduler's image
          name: mxnet
        restartPolicy: OnFailure
  - mxReplicaType: SERVER
    replicas: 1
    template:
      spec:
        containers:
        - image: mxjob/mxnet:gpu
          name: mxnet
        restartPolicy: OnFailure
  - mxReplicaType: WORKER
    replicas: 1
    template:
      spec:
        # one GPU worker
        containers:
        - image: mxjob/mxnet:gpu
          name: mxnet
        restartPolicy: OnFailure
"""


def _convert(path: Path) -> tuple[str, str]:
    result = run_cli(["convert", "--in-place", str(path)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    return path.read_text(encoding="utf-8"), result.stderr


def test_v1beta1_keeps_comments_order_and_quoting(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(V1BETA1, encoding="utf-8")
    text, stderr = _convert(path)
    assert "mxjob: 1 file converted, 0 unchanged" in stderr
    for kept in (
        "# Tuning job, still in the v1beta1 form.",
        "  name: tune-beta   # keep this name: dashboards use it",
        "    # the tracker first",
        '              image: "mxjob/auto-tuning:gpu"  # pinned',
        '              args: [--port, "9091"]',
        "kind: ConfigMap   # not an MXJob: untouched",
        "metadata: {name: settings}",
    ):
        assert kept + "\n" in text, kept
    job, config_map = yaml.safe_load_all(text)
    assert job["apiVersion"] == "kubeflow.org/v1"
    assert job["spec"]["runPolicy"] == {"cleanPodPolicy": "All"} and "cleanPodPolicy" not in job["spec"]
    assert list(job["spec"]["mxReplicaSpecs"]) == ["TunerTracker", "TunerServer", "Tuner"]  # not sorted
    server = job["spec"]["mxReplicaSpecs"]["TunerServer"]
    assert "label" not in server and server["template"]["metadata"]["annotations"] == {"tuner-server-key": "2080ti"}
    assert config_map == {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "1"}}
    assert run_cli(["validate", str(path)]).exit_code == 0
    again = run_cli(["convert", "--in-place", str(path)])
    assert "0 files converted, 1 unchanged" in again.stderr and path.read_text(encoding="utf-8") == text


def test_v1alpha1_replica_list_keeps_the_comments_inside_each_replica(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(V1ALPHA1, encoding="utf-8")
    text, _ = _convert(path)
    # moved one level deeper, the comments come along (their column may shift with the indentation)
    assert "- image: mxjob/mxnet:gpu # the scheduler's image\n" in text and "# one GPU worker\n" in text
    converted = yaml.safe_load(text)
    assert converted["apiVersion"] == "kubeflow.org/v1"
    assert set(converted["spec"]["mxReplicaSpecs"]) == {"Scheduler", "Server", "Worker"}
    assert run_cli(["validate", str(path)]).exit_code == 0


def test_files_that_need_nothing_are_not_touched(tmp_path: Path) -> None:
    current = tmp_path / "current.yaml"
    text = (
        V1BETA1.replace("kubeflow.org/v1beta1", "kubeflow.org/v1")
        .replace("  cleanPodPolicy: All\n", "  runPolicy:\n    cleanPodPolicy: All\n")
        .replace("      label: 2080ti\n", "")
    )
    current.write_text(text, encoding="utf-8")
    before = current.stat().st_mtime_ns
    _, stderr = _convert(current)
    assert "0 files converted, 1 unchanged" in stderr
    assert current.read_text(encoding="utf-8") == text and current.stat().st_mtime_ns == before


def test_json_files_stay_json(tmp_path: Path) -> None:
    path = tmp_path / "job.json"
    path.write_text(json.dumps(yaml.safe_load(V1ALPHA1)), encoding="utf-8")
    text, _ = _convert(path)
    assert json.loads(text)["apiVersion"] == "kubeflow.org/v1"


def test_an_invalid_file_means_nothing_is_written(tmp_path: Path) -> None:
    good, bad = tmp_path / "a.yaml", tmp_path / "b.yaml"
    good.write_text(V1ALPHA1, encoding="utf-8")
    bad.write_text(V1ALPHA1.replace("replicas: 1\n    template", "replicas: many\n    template", 1), encoding="utf-8")
    result = run_cli(["convert", "--in-place", str(tmp_path)])
    assert result.exit_code == 1 and "nothing was written" in result.stderr
    assert good.read_text(encoding="utf-8") == V1ALPHA1


def test_standard_input_cannot_be_rewritten() -> None:
    result = run_cli(["convert", "--in-place", "-"], stdin=V1ALPHA1)
    assert result.exit_code == 2 and "--in-place rewrites files" in result.stderr
