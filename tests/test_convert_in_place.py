"""`mxjob convert --in-place` on old specs with comments: only what the conversion changes is rewritten."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
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


def test_a_symbolic_link_is_refused_and_left_a_link(tmp_path: Path) -> None:
    """Rewriting would replace the link with a file (and a link may point out of the repository): refused, located,
    exit 1, and no file of the run is written."""
    target, link, other = tmp_path / "target.yaml", tmp_path / "link.yaml", tmp_path / "other.yaml"
    target.write_text(V1ALPHA1, encoding="utf-8")
    other.write_text(V1ALPHA1, encoding="utf-8")
    link.symlink_to(target)
    result = run_cli(["convert", "--in-place", str(link), str(other)])
    assert result.exit_code == 1, result.stderr
    assert f"{link}: error MXJ001: a symbolic link" in result.stderr and "Traceback" not in result.stderr
    assert link.is_symlink() and target.read_text(encoding="utf-8") == V1ALPHA1
    assert other.read_text(encoding="utf-8") == V1ALPHA1


def test_ordinary_bad_input_is_a_located_error_never_an_internal_one(tmp_path: Path) -> None:
    not_utf8 = tmp_path / "latin1.yaml"
    not_utf8.write_bytes(V1ALPHA1.encode("utf-8") + "# caf\u00e9\n".encode("latin-1"))
    result = run_cli(["convert", "--in-place", str(not_utf8)])
    assert result.exit_code == 1 and f"{not_utf8}: error MXJ001: the file is not UTF-8 text" in result.stderr


def test_a_json_file_that_holds_yaml_is_rewritten_as_yaml(tmp_path: Path) -> None:
    path = tmp_path / "job.json"
    path.write_text(V1ALPHA1, encoding="utf-8")
    text, _ = _convert(path)
    assert yaml.safe_load(text)["apiVersion"] == "kubeflow.org/v1"


def test_a_file_the_round_trip_writer_cannot_read_is_a_finding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ruamel.yaml may refuse what the safe reader accepted: every rewrite is built before any file is written, so
    the first file is not left converted while the second fails; exit 1 with the reason and a way out."""
    from ruamel.yaml.error import YAMLError

    from mxjob_gitops.compiler.io import inplace

    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text(V1ALPHA1, encoding="utf-8")
    second.write_text(V1ALPHA1.replace("# ", "#  "), encoding="utf-8")
    original = inplace.rewrite_yaml

    def picky(text: str, edits: list[Any]) -> str:
        if "#  " in text:
            raise YAMLError("while scanning a simple key\nnot what I expected")
        return original(text, edits)

    monkeypatch.setattr(inplace, "rewrite_yaml", picky)
    result = run_cli(["convert", "--in-place", str(tmp_path)])
    assert result.exit_code == 1, result.stderr
    assert f"{second}: error MXJ001: cannot be rewritten in place: YAMLError: while scanning" in result.stderr
    assert first.read_text(encoding="utf-8") == V1ALPHA1
