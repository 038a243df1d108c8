"""`mxjob krm` against the KRM function specification (ResourceList in, ResourceList with results out)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import run_cli
from tests.helpers import job, replica

PASSTHROUGH: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {
        "name": "other",
        "annotations": {"internal.config.kubernetes.io/path": "other.yaml", "internal.config.kubernetes.io/index": "0"},
    },
}


def _job(**changes: Any) -> dict[str, Any]:
    spec = job(name="k", Worker=replica())
    spec["metadata"]["annotations"] = {
        "internal.config.kubernetes.io/path": "jobs/k.yaml",
        "internal.config.kubernetes.io/index": "1",
    }
    spec["spec"].update(changes)
    return spec


def _resource_list(items: list[dict[str, Any]], config: dict[str, Any] | None = None) -> str:
    document: dict[str, Any] = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}
    if config is not None:
        document["functionConfig"] = config
    return yaml.safe_dump(document)


def test_renders_mxjobs_and_passes_other_items_through_untouched() -> None:
    result = run_cli(["krm"], stdin=_resource_list([PASSTHROUGH, _job()]))
    assert result.exit_code == 0, result.stderr
    output = yaml.safe_load(result.stdout)
    assert (output["apiVersion"], output["kind"]) == ("config.kubernetes.io/v1", "ResourceList")
    assert output["items"][0] == PASSTHROUGH
    assert [i["kind"] for i in output["items"]] == ["ConfigMap", "ConfigMap", "Service", "Pod", "MXJob"]
    assert "results" not in output


def test_function_config_overrides_flags() -> None:
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "cfg"},
        "data": {"target": "argocd", "namespace": "ml", "gangScheduler": "volcano", "job": "false"},
    }
    output = yaml.safe_load(run_cli(["krm", "--target", "flux"], stdin=_resource_list([_job()], config)).stdout)
    kinds = [i["kind"] for i in output["items"]]
    assert kinds == ["ConfigMap", "PodGroup", "Service", "Pod"]
    pod = output["items"][-1]
    assert pod["metadata"]["namespace"] == "ml"
    assert pod["metadata"]["annotations"]["argocd.argoproj.io/sync-options"] == "Force=true,Replace=true"
    assert pod["spec"]["schedulerName"] == "volcano"


def test_errors_become_results_and_items_are_returned_unchanged() -> None:
    broken = _job(jobMode="MXTrian")
    result = run_cli(["krm"], stdin=_resource_list([PASSTHROUGH, broken]))
    assert result.exit_code == 1
    output = yaml.safe_load(result.stdout)
    assert output["items"] == [PASSTHROUGH, broken]
    assert output["results"] == [
        {
            "message": "MXJ103: jobMode is \"MXTrian\", which is not an allowed value (did you mean 'MXTrain'?)",
            "severity": "error",
            "resourceRef": {"apiVersion": "kubeflow.org/v1", "kind": "MXJob", "name": "k"},
            "field": {"path": "spec.jobMode"},
            "file": {"path": "jobs/k.yaml", "index": 1},
        }
    ]


def test_warnings_are_results_but_do_not_fail() -> None:
    result = run_cli(["krm"], stdin=_resource_list([_job(backoffLimit=2)]))
    assert result.exit_code == 0
    assert yaml.safe_load(result.stdout)["results"][0]["severity"] == "warning"


def _failure(stdin: str | bytes) -> list[dict[str, Any]]:
    """Run krm on input it must refuse: exit 1 and still a ResourceList whose error results say why."""
    result = run_cli(["krm"], stdin=stdin)
    assert result.exit_code == 1, result.stderr
    output = yaml.safe_load(result.stdout)
    assert (output["apiVersion"], output["kind"]) == ("config.kubernetes.io/v1", "ResourceList")
    assert output["results"] and all(r["severity"] == "error" for r in output["results"])
    results: list[dict[str, Any]] = output["results"]
    return results


@pytest.mark.parametrize("stdin", ["", "apiVersion: v1\nkind: ConfigMap\n", "items: [\n", "items: 3\n"])
def test_not_a_resource_list_is_an_error_result(stdin: str) -> None:
    results = _failure(stdin)
    assert "ResourceList" in results[-1]["message"]


def test_invalid_utf8_and_oversized_stdin_are_error_results(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "not UTF-8" in _failure(_resource_list([]).encode() + b"# \xff\xfe\n")[0]["message"]
    monkeypatch.setattr("mxjob_gitops.compiler.io.inputs.MAX_INPUT_BYTES", 100)
    assert "MXJ008" in _failure(_resource_list([PASSTHROUGH]))[0]["message"]


@pytest.mark.parametrize("metadata", [["a"], "text", 3])
def test_items_whose_metadata_is_not_a_mapping(metadata: Any) -> None:
    item = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata}
    assert _failure(_resource_list([item, _job()]))[0]["resourceRef"] == {"apiVersion": "v1", "kind": "ConfigMap"}


@pytest.mark.parametrize(
    ("config", "field", "words"),
    [
        (
            {"kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"namespace": "../../Bad NS"}},
            "data.namespace",
            "not a namespace name",
        ),
        ({"kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"namespcae": "ml"}}, "data.namespcae", "no option"),
        ({"kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"maxPods": "1.5"}}, "data.maxPods", "whole number"),
        ({"kind": "ConfigMap", "metadata": {"name": "c"}, "data": ["target=flux"]}, "data", "mapping"),
        ({"kind": "Secret", "metadata": {"name": "c"}, "data": {"namespace": "ml"}}, None, "not a ConfigMap"),
        ("target=flux", None, "not a ConfigMap"),
    ],
)
def test_a_bad_function_config_is_an_error_result(config: Any, field: str | None, words: str) -> None:
    [result] = _failure(_resource_list([PASSTHROUGH, _job()], config))
    assert words in result["message"]
    assert result.get("field", {}).get("path") == field


def _kustomize() -> str:
    """The standalone kustomize CLI: `kubectl kustomize` cannot run exec KRM functions, so a user who runs ours
    through kustomize runs this. $MXJOB_KUSTOMIZE, else the one .ci/kustomize.sh builds, else PATH's."""
    built = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mxjob-gitops/kustomize/bin/kustomize"
    for candidate in (os.environ.get("MXJOB_KUSTOMIZE"), str(built), shutil.which("kustomize")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    reason = "no kustomize CLI with exec functions (bash .ci/kustomize.sh builds one, or set MXJOB_KUSTOMIZE)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and the kustomize tier cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


def test_through_kustomize(tmp_path: Path) -> None:
    kustomize = _kustomize()
    (tmp_path / "fn").write_text(f"#!/bin/sh\nexec {sys.executable} -m mxjob_gitops krm\n", encoding="utf-8")
    (tmp_path / "fn").chmod(0o755)
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job(name="k", Worker=replica())), encoding="utf-8")
    (tmp_path / "render.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {
                    "name": "mxjob",
                    "annotations": {"config.kubernetes.io/function": "exec:\n  path: ./fn\n"},
                },
                "data": {"target": "plain"},
            }
        ),
        encoding="utf-8",
    )
    (tmp_path / "kustomization.yaml").write_text(
        "resources: [job.yaml]\ntransformers: [render.yaml]\n", encoding="utf-8"
    )
    built = subprocess.run(
        [kustomize, "build", "--enable-alpha-plugins", "--enable-exec", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "kind: Pod" in built.stdout


KPT = shutil.which("kpt")


def _kpt_function(tmp_path: Path) -> Path:
    script = tmp_path / "mxjob-krm"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mxjob_gitops krm "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    return script


@pytest.mark.skipif(KPT is None, reason="kpt is not installed")
def test_through_kpt(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    spec = job(name="k", Scheduler=replica(1), Server=replica(1), Worker=replica(2))
    (package / "job.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    (package / "other.yaml").write_text(yaml.safe_dump(PASSTHROUGH), encoding="utf-8")
    done = subprocess.run(
        [
            str(KPT),
            "fn",
            "eval",
            str(package),
            "--exec",
            str(_kpt_function(tmp_path)),
            "--output",
            "stdout",
            "--",
            "target=argocd",
            "namespace=ml",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    items = yaml.safe_load(done.stdout)["items"]
    pods = [i for i in items if i["kind"] == "Pod"]
    assert [p["metadata"]["name"] for p in pods] == ["k-scheduler-0", "k-server-0", "k-worker-0", "k-worker-1"]
    assert all(p["metadata"]["namespace"] == "ml" for p in pods)
    assert all(p["metadata"]["annotations"]["argocd.argoproj.io/ignore-restart-policy"] == "true" for p in pods)
    assert PASSTHROUGH["metadata"]["name"] in [i["metadata"]["name"] for i in items]


@pytest.mark.skipif(KPT is None, reason="kpt is not installed")
def test_through_kpt_reports_results(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "job.yaml").write_text(yaml.safe_dump(job(name="k", Workr=replica())), encoding="utf-8")
    done = subprocess.run(
        [str(KPT), "fn", "eval", str(package), "--exec", str(_kpt_function(tmp_path)), "--output", "stdout"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode != 0
    assert "MXJ203" in done.stdout + done.stderr
    assert (package / "job.yaml").read_text(encoding="utf-8") == yaml.safe_dump(job(name="k", Workr=replica()))
