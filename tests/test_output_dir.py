"""`render -o DIR`: one file per object, a kustomization kubectl builds, atomic replace, stale files pruned."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from mxjob_gitops.compiler.io.output_dir import OutputError, file_name
from tests.conftest import EXAMPLES, JOB_EXAMPLE_DIRS, run_cli
from tests.helpers import job, replica

KUBECTL = shutil.which("kubectl")


def _render(out: Path, *inputs: str, extra: tuple[str, ...] = ()) -> tuple[int, str]:
    result = run_cli(["render", "-o", str(out), *extra, *inputs])
    assert result.stdout == ""
    return result.exit_code, result.stderr


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_one_file_per_object_and_a_kustomization(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, _ = _render(out, str(EXAMPLES / "train"))
    assert code == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        ".mxjob-render.index",
        "configmap-mxnet-job-mxjob-config.yaml",
        "kustomization.yaml",
        "mxjob-mxnet-job.yaml",
        "pod-mxnet-job-scheduler-0.yaml",
        "pod-mxnet-job-server-0.yaml",
        "pod-mxnet-job-worker-0.yaml",
        "service-mxnet-job-scheduler-0.yaml",
        "service-mxnet-job-server-0.yaml",
        "service-mxnet-job-worker-0.yaml",
    ]
    kustomization = yaml.safe_load((out / "kustomization.yaml").read_text(encoding="utf-8"))
    assert len(kustomization["resources"]) == 8


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
def test_kubectl_kustomize_builds_the_same_objects(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert _render(out, *map(str, JOB_EXAMPLE_DIRS))[0] == 0
    built = subprocess.run([str(KUBECTL), "kustomize", str(out)], capture_output=True, text=True, check=True)
    streamed = run_cli(["render", *map(str, JOB_EXAMPLE_DIRS)])
    key = lambda d: (d["kind"], d["metadata"].get("namespace", ""), d["metadata"]["name"])  # noqa: E731
    assert sorted(map(key, yaml.safe_load_all(built.stdout))) == sorted(map(key, yaml.safe_load_all(streamed.stdout)))
    for ours in yaml.safe_load_all(streamed.stdout):
        assert ours in list(yaml.safe_load_all(built.stdout))


def test_rerender_is_a_no_op_and_removes_only_stale_files(tmp_path: Path) -> None:
    spec = tmp_path / "job.json"
    spec.write_text(
        json.dumps(job(name="j", Scheduler=replica(1), Server=replica(1), Worker=replica(3))), encoding="utf-8"
    )
    out = tmp_path / "out"
    assert _render(out, str(spec))[0] == 0
    (out / "README.md").write_text("mine", encoding="utf-8")
    before = _snapshot(out)
    code, message = _render(out, str(spec))
    assert code == 0 and "0 written" in message
    assert _snapshot(out) == before
    spec.write_text(
        json.dumps(job(name="j", Scheduler=replica(1), Server=replica(1), Worker=replica(2))), encoding="utf-8"
    )
    code, message = _render(out, str(spec))
    assert code == 0 and "2 removed" in message
    assert not (out / "pod-j-worker-2.yaml").exists() and not (out / "service-j-worker-2.yaml").exists()
    assert (out / "README.md").read_text(encoding="utf-8") == "mine"


def test_failed_render_leaves_the_directory_as_it_was(tmp_path: Path) -> None:
    spec = tmp_path / "job.json"
    spec.write_text(json.dumps(job(name="j", Worker=replica(1))), encoding="utf-8")
    out = tmp_path / "out"
    assert _render(out, str(spec))[0] == 0
    before = _snapshot(out)
    spec.write_text(json.dumps(job(name="J", Worker=replica(1))), encoding="utf-8")
    assert _render(out, str(spec))[0] == 1
    assert _snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.json", "out"]


def _jobs_then(tmp_path: Path, last: dict[str, object], count: int = 30) -> Path:
    """`count` valid jobs, then `last`: the valid ones are staged before the last one is compiled."""
    documents = [_valid(f"job-{i:02d}") for i in range(count)] + [last]
    path = tmp_path / "in.yaml"
    path.write_text("\n---\n".join(json.dumps(d) for d in documents), encoding="utf-8")
    return path


def _valid(name: str) -> dict[str, object]:
    return job(name, Scheduler=replica(1), Server=replica(1), Worker=replica(2))


def _mtimes(directory: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in directory.iterdir()}


def test_an_invalid_job_after_staged_files_changes_nothing(tmp_path: Path) -> None:
    """Jobs are rendered into DIR one at a time: an error in the last one must still leave DIR as it was."""
    out = tmp_path / "out"
    assert _render(out, str(_jobs_then(tmp_path, _valid("last"))))[0] == 0
    before, mtimes = _snapshot(out), _mtimes(out)
    code, message = _render(out, str(_jobs_then(tmp_path, job(name="last", Worker=replica(-1)), count=31)))
    assert code == 1 and "nothing was written" in message
    assert _snapshot(out) == before and _mtimes(out) == mtimes


def test_a_failed_render_creates_no_directory(tmp_path: Path) -> None:
    code, _message = _render(tmp_path / "a" / "b" / "out", str(_jobs_then(tmp_path, job(name="x", Worker=replica(-1)))))
    assert code == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.yaml"]


def test_errors_in_the_input_come_before_a_file_name_clash(tmp_path: Path) -> None:
    """Two objects that differ only in apiVersion want the same file; an invalid job after them is reported
    first (exit 1), as when every job was compiled before anything was written."""
    clash = [
        {"apiVersion": version, "kind": "Deployment", "metadata": {"name": "web", "namespace": "ml"}}
        for version in ("apps/v1", "apps/v1beta2")
    ]
    path = tmp_path / "in.yaml"
    documents = [*clash, job(name="bad", Worker=replica(-1))]
    path.write_text("\n---\n".join(json.dumps(d) for d in documents), encoding="utf-8")
    code, message = _render(tmp_path / "out", str(path))
    assert code == 1 and "would both be written" not in message, message
    path.write_text("\n---\n".join(json.dumps(d) for d in clash), encoding="utf-8")
    code, message = _render(tmp_path / "out", str(path))
    assert code == 2 and "would both be written" in message, message
    assert not (tmp_path / "out").exists()


def test_foreign_files_are_never_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "kustomization.yaml").write_text("resources: [mine.yaml]\n", encoding="utf-8")
    code, message = _render(out, str(EXAMPLES / "train"))
    assert code == 2 and "not written by mxjob render" in message
    assert sorted(p.name for p in out.iterdir()) == ["kustomization.yaml"]


def test_output_inside_the_input_directory_is_not_read_back(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES / "train", tmp_path / "jobs")
    out = tmp_path / "jobs" / "rendered"
    assert _render(out, str(tmp_path / "jobs"))[0] == 0
    assert _render(out, str(tmp_path / "jobs"))[0] == 0


def test_json_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert _render(out, str(EXAMPLES / "single"), extra=("--format", "json"))[0] == 0
    pod = json.loads((out / "training.pod-mnist-single-worker-0.json").read_text(encoding="utf-8"))
    assert pod["metadata"]["namespace"] == "training"


def test_unchanged_files_are_not_touched_and_edited_ones_are_restored(tmp_path: Path) -> None:
    spec = tmp_path / "job.json"
    spec.write_text(
        json.dumps(job(name="j", Scheduler=replica(1), Server=replica(1), Worker=replica(2))), encoding="utf-8"
    )
    out = tmp_path / "out"
    assert _render(out, str(spec))[0] == 0
    before = _snapshot(out)
    pod, service = out / "pod-j-worker-0.yaml", out / "service-j-worker-1.yaml"
    kept = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in out.iterdir() if p.name != ".mxjob-render.index"}
    edited = pod.read_bytes().replace(b"image: ", b"image:_", 1)  # same size, other bytes
    pod.write_bytes(edited)
    service.unlink()
    service.symlink_to(tmp_path / "elsewhere.yaml")
    code, message = _render(out, str(spec))
    assert code == 0 and "2 written" in message, message
    assert _snapshot(out) == before and not service.is_symlink()
    after = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in out.iterdir()}
    untouched = [name for name in kept if name not in (pod.name, service.name)]
    assert untouched and all(after[name] == kept[name] for name in untouched)


def _object(kind: Any, name: Any, namespace: Any = None, field: str = "name") -> dict[str, Any]:
    metadata: dict[str, Any] = {field: name}
    if namespace is not None:
        metadata["namespace"] = namespace
    return {"apiVersion": "v1", "kind": kind, "metadata": metadata}


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        (_object("Pod", "job-worker-0", "ml"), "ml.pod-job-worker-0.yaml"),
        (_object("Service", "job-worker-0", "ml"), "ml.service-job-worker-0.yaml"),
        (_object("PriorityClass", "high"), "priorityclass-high.yaml"),
        (_object("Pod", "job-", "ml", field="generateName"), "ml.pod-job-.yaml"),
        (_object("Pod", "a.b", "ml"), "ml.pod-a.b.yaml"),
        (_object("Service", "a.b", "ml"), None),  # a Service name is a label
        (_object("Pod", "../x", "ml"), None),
        (_object("Pod", "Job", "ml"), None),
        (_object("Pod", "job", "m.l"), None),  # a namespace has no '.': the name's prefix stays unambiguous
        (_object("Pod", "job", "../ml"), None),
        (_object("Pod", "job", "ML"), None),
        (_object("Pod", "job", 7), None),
        (_object("Po/d", "job", "ml"), None),
        (_object("pod.x", "job", "ml"), None),
        (_object(None, "job", "ml"), None),
        (_object("Pod", 7, "ml"), None),
        (_object("Pod", "", "ml"), None),
    ],
)
def test_file_names_are_checked_every_time(manifest: dict[str, Any], expected: str | None) -> None:
    """Each kind and each namespace is checked once and remembered (names.kind_problem, names.namespace_problem):
    an invalid one must stay refused on every call, and a valid pair must not let an invalid name through."""
    for _ in range(2):
        if expected is None:
            with pytest.raises(OutputError, match="refusing to name a file"):
                file_name(manifest, ".yaml")
        else:
            assert file_name(manifest, ".yaml") == expected
