"""One mistake, one finding: a duplicate job, a container without a name, a mistyped quantity and a type error
beside other mistakes are each reported once, where they are, with the fix; -q leaves errors only."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES, run_cli

TRAIN = EXAMPLES / "train" / "mx_job_dist_gpu.yaml"


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if " error MXJ" in line]


def test_the_same_job_in_two_files_is_one_line_naming_both(tmp_path: Path) -> None:
    (tmp_path / "jobs").mkdir()
    for name in ("a.yaml", "b.yaml"):
        shutil.copy(TRAIN, tmp_path / "jobs" / name)
    result = run_cli(["render", "jobs"], cwd=tmp_path)
    assert result.exit_code == 1 and result.stdout == ""
    line = "jobs/b.yaml:6:9: error MXJ210 at metadata.name: MXJob mxnet-job is also defined at jobs/a.yaml:6:9"
    errors = _errors(result.stderr)
    assert len(errors) == 1 and errors[0].startswith(line), result.stderr


def test_a_hand_written_object_that_clashes_with_a_rendered_one_is_named(tmp_path: Path) -> None:
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "mxnet-job-worker-0"}, "spec": {}}
    (tmp_path / "svc.yaml").write_text(yaml.safe_dump(service), encoding="utf-8")
    shutil.copy(TRAIN, tmp_path / "job.yaml")
    result = run_cli(["render", "job.yaml", "svc.yaml"], cwd=tmp_path)
    errors = _errors(result.stderr)
    assert len(errors) == 1 and errors[0].startswith("svc.yaml:4:9: error MXJ210 at metadata.name: Service ")
    assert "is also produced by job.yaml:6:9" in errors[0]


def test_a_container_without_a_name_is_one_finding_that_names_mxnet(tmp_path: Path) -> None:
    job = yaml.safe_load(TRAIN.read_text(encoding="utf-8"))
    del job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["name"]
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job, sort_keys=False), encoding="utf-8")
    errors = _errors(run_cli(["render", "job.yaml"], cwd=tmp_path).stderr)
    assert len(errors) == 1 and " MXJ104 " in errors[0] and "name: mxnet" in errors[0], errors


@pytest.mark.parametrize(
    ("value", "fix"),
    [
        ("4GB", "(write 4G or 4Gi)"),
        ("500 MB", "(write 500M or 500Mi)"),
        ("2 Gi", "(write 2Gi)"),
        ("8K", "(write 8k or 8Ki)"),
        ("<MEMORY>", "(a placeholder was left in: write the amount, e.g. 1, 500m or 4Gi)"),
        ("1e1000000", "(an exponent must be within ±999,000)"),
        ("lots", "(write a number with an optional suffix, e.g. 2, 500m, 4Gi or 512Mi)"),
    ],
)
def test_a_quantity_message_is_short_and_suggests_the_fix(tmp_path: Path, value: str, fix: str) -> None:
    job = yaml.safe_load(TRAIN.read_text(encoding="utf-8"))
    job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["resources"] = {
        "limits": {"memory": value}
    }
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job, sort_keys=False), encoding="utf-8")
    errors = _errors(run_cli(["render", "job.yaml"], cwd=tmp_path).stderr)
    assert len(errors) == 1, errors
    message = errors[0].split(": ", 1)[1]
    assert message == (
        "error MXJ401 at spec.mxReplicaSpecs.Worker.template.spec.containers[0].resources.limits.memory: "
        f'memory is "{value}", which is not a Kubernetes quantity {fix}'
    )


def test_a_type_error_does_not_hide_the_objects_other_findings(tmp_path: Path) -> None:
    job = yaml.safe_load(TRAIN.read_text(encoding="utf-8"))
    job["metadata"]["labels"] = {"team": "bad value!"}  # the API server's rule (MXJ402)
    job["spec"]["mxReplicaSpecs"]["Server"]["replicas"] = "1"  # a type error (MXJ102)
    container = job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    container["ports"] = [{"containerPort": "x", "name": "p"}]  # another type error, inside the pod template
    container["volumeMounts"] = [{"name": "missing", "mountPath": "/data"}]  # no such volume: the server's MXJ403
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job, sort_keys=False), encoding="utf-8")
    errors = _errors(run_cli(["render", "job.yaml"], cwd=tmp_path).stderr)
    codes = sorted(line.split(" error ", 1)[1].split(" ", 1)[0] for line in errors)
    assert codes == ["MXJ102", "MXJ102", "MXJ402", "MXJ403"], errors


@pytest.mark.parametrize(
    "edit",
    [
        lambda job: job.__setitem__("metadata", "x"),
        lambda job: job["spec"].__setitem__("mxReplicaSpecs", "x"),
        lambda job: job["spec"]["mxReplicaSpecs"]["Worker"].__setitem__("template", 5),
        lambda job: job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"].__setitem__("containers", "x"),
        lambda job: job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"].append("x"),
        lambda job: job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0].__setitem__("name", 5),
    ],
    ids=["metadata", "replica-specs", "template", "containers", "container-item", "container-name"],
)
def test_a_value_of_the_wrong_shape_is_one_finding(tmp_path: Path, edit: object) -> None:
    job = yaml.safe_load(TRAIN.read_text(encoding="utf-8"))
    edit(job)  # type: ignore[operator]
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job, sort_keys=False), encoding="utf-8")
    result = run_cli(["render", "job.yaml"], cwd=tmp_path)
    assert result.exit_code == 1 and len(_errors(result.stderr)) == 1, result.stderr
    assert " MXJ102 " in _errors(result.stderr)[0]


def test_quiet_validate_reports_errors_only(tmp_path: Path) -> None:
    shutil.copy(EXAMPLES / "single" / "mx_job_single_worker.yaml", tmp_path / "job.yaml")  # namespace: training
    loud = run_cli(["validate", "-n", "prod", "job.yaml"], cwd=tmp_path)
    assert "warning MXJ320" in loud.stdout
    for fmt in ("text", "json", "github"):
        quiet = run_cli(["validate", "-q", "--format", fmt, "-n", "prod", "job.yaml"], cwd=tmp_path)
        assert quiet.exit_code == 0 and "MXJ320" not in quiet.stdout + quiet.stderr, (fmt, quiet.stdout)


def test_quiet_reconcile_logs_errors_only() -> None:
    from mxjob_gitops.reconciler.cli import configure_logging

    configure_logging("text", -1)
    assert logging.getLogger("mxjob").level == logging.ERROR
    configure_logging("text", 0)
    assert logging.getLogger("mxjob").level == logging.INFO
