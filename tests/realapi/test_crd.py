"""The MXJob CRD on a real kube-apiserver: it installs, is stored unchanged, and validates like `mxjob validate`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import EXAMPLES, run_cli
from tests.realapi.cluster import RealCluster
from tests.realapi.conftest import CEL_MINOR, CRD_FILE

# What the apiextensions v1 defaulting adds to a CRD that leaves it out (k8s.io/apiextensions-apiserver
# pkg/apis/apiextensions/v1/defaults.go: SetDefaults_CustomResourceDefinitionSpec): no other key may differ.
SERVER_DEFAULTS: dict[str, Any] = {"conversion": {"strategy": "None"}}

RUN_POLICY = {
    "cleanPodPolicy": "Running",
    "ttlSecondsAfterFinished": 600,
    "activeDeadlineSeconds": 86400,
    "backoffLimit": 3,
    "suspend": False,
    "schedulingPolicy": {
        "minAvailable": 3,
        "queue": "research",
        "priorityClass": "high",
        "minResources": {"cpu": "3", "memory": "6Gi"},
        "scheduleTimeoutSeconds": 300,
    },
}


def differences(want: Any, got: Any, path: str = "", unknown: frozenset[str] = frozenset()) -> Iterator[str]:
    """Every JSON path where two documents differ: keys only one side has, and differing values.

    Keys in `unknown` (fields this server version does not have) may be dropped.
    """
    if isinstance(want, dict) and isinstance(got, dict):
        for key in sorted(want.keys() | got.keys()):
            where = f"{path}.{key}"
            if key not in got and key in unknown:
                continue
            if key not in got:
                yield f"{where}: dropped by the server"
            elif key not in want:
                yield f"{where}: added by the server ({json.dumps(got[key])[:80]})"
            else:
                yield from differences(want[key], got[key], where, unknown)
    elif isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for index, (a, b) in enumerate(zip(want, got, strict=True)):
            yield from differences(a, b, f"{path}[{index}]", unknown)
    elif want != got:
        yield f"{path}: {json.dumps(want)[:80]} stored as {json.dumps(got)[:80]}"


def test_the_crd_is_established_and_stored_exactly_as_written(mxjob_crd: RealCluster) -> None:
    stored = json.loads(mxjob_crd.kubectl("get", "crd", "mxjobs.kubeflow.org", "-o", "json").stdout)
    conditions = {c["type"]: c["status"] for c in stored["status"]["conditions"]}
    assert conditions["Established"] == "True" and conditions["NamesAccepted"] == "True"
    written = yaml.safe_load(CRD_FILE.read_text(encoding="utf-8"))
    expected_spec = {**SERVER_DEFAULTS, **written["spec"]}
    unknown = frozenset({"x-kubernetes-validations"} if mxjob_crd.minor < CEL_MINOR else ())
    found = list(differences(expected_spec, stored["spec"], "spec", unknown))
    annotations = {
        k: v
        for k, v in (stored["metadata"].get("annotations") or {}).items()
        if k != "kubectl.kubernetes.io/last-applied-configuration"
    }
    found += differences(written["metadata"].get("annotations") or {}, annotations, "metadata.annotations")
    found += differences(
        written["metadata"].get("labels") or {}, stored["metadata"].get("labels") or {}, "metadata.labels"
    )
    assert found == [], "the stored CRD differs from the file:\n" + "\n".join(found)


def _job_with_run_policy(namespace: str) -> dict[str, Any]:
    job = yaml.safe_load((EXAMPLES / "train" / "mx_job_dist_gpu.yaml").read_text(encoding="utf-8"))
    job["metadata"]["namespace"] = namespace
    job["spec"]["runPolicy"] = json.loads(json.dumps(RUN_POLICY))
    return dict(job)


def test_a_job_with_every_run_policy_field_is_accepted(mxjob_crd: RealCluster, namespace: str, tmp_path: Path) -> None:
    spec = tmp_path / "job.yaml"
    spec.write_text(yaml.safe_dump(_job_with_run_policy(namespace)))
    rendered = run_cli(["render", str(spec)])
    assert rendered.exit_code == 0, rendered.stderr
    job = next(m for m in yaml.safe_load_all(rendered.stdout) if m and m["kind"] == "MXJob")
    code, body = mxjob_crd.request("POST", f"/apis/kubeflow.org/v1/namespaces/{namespace}/mxjobs", job)
    assert code == 201, body
    assert body["spec"]["runPolicy"] == job["spec"]["runPolicy"]
    assert body["spec"]["runPolicy"]["activeDeadlineSeconds"] == 86400


def test_a_field_of_the_wrong_type_is_rejected_as_validate_predicts(
    mxjob_crd: RealCluster, namespace: str, tmp_path: Path
) -> None:
    job = _job_with_run_policy(namespace)
    job["spec"]["runPolicy"]["backoffLimit"] = "three"
    spec = tmp_path / "job.yaml"
    spec.write_text(yaml.safe_dump(job))
    predicted = run_cli(["validate", str(spec)])
    assert predicted.exit_code == 1
    assert "error MXJ102 at spec.runPolicy.backoffLimit" in predicted.stdout, predicted.stdout
    code, body = mxjob_crd.request("POST", f"/apis/kubeflow.org/v1/namespaces/{namespace}/mxjobs", job)
    assert code == 422, body
    causes = [(c["field"], c["reason"]) for c in body["details"]["causes"]]
    assert causes == [("spec.runPolicy.backoffLimit", "FieldValueInvalid")] or causes == [
        ("spec.runPolicy.backoffLimit", "FieldValueTypeInvalid")
    ], causes
