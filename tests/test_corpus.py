"""Published MXJobs (tests/corpus/): each renders with exactly the warnings its header expects, or is rejected
with the error codes and fix it names. The header of each file gives its source repository, commit, path and
licence, the expected outcome and why (judged against the operator of the spec's era); the spec below the
`# ---- verbatim below` line is the published text, unchanged.

Also the cases of issue 27 that no published spec carries: a Kubernetes <= 1.24 export, a pre-Kubeflow
mlkube.io MxJob, a Scheduler with 0 replicas, a v1alpha2 MXTune job that reads DMLC_TUNER_* variables.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mxjob_gitops.compiler import RenderOptions, compile_documents, parse_text
from mxjob_gitops.compiler.base.diagnostics import Diagnostic, Severity

CORPUS = Path(__file__).parent / "corpus"
CASES = sorted(CORPUS.glob("*.yaml"))
MARK = "# ---- verbatim below\n"


def _header(text: str) -> dict[str, str]:
    head = text.partition(MARK)[0]
    fields: dict[str, str] = {}
    for line in head.splitlines():
        key, _, value = line.removeprefix("# ").partition(": ")
        fields[key] = value.strip()
    return fields


def _run(text: str, name: str = "case.yaml") -> tuple[list[Diagnostic], list[dict[str, Any]]]:
    parsed = parse_text(text, name)
    plan = compile_documents(parsed.documents, RenderOptions())
    found = [*parsed.diagnostics, *plan.diagnostics]
    return found, (list(plan.manifests()) if plan.ok and not parsed.diagnostics else [])


def _codes(found: list[Diagnostic], severity: Severity) -> list[str]:
    return sorted(d.code.value for d in found if d.severity is severity)


def test_the_corpus_covers_every_source() -> None:
    prefixes = {path.name.split("--")[0] for path in CASES}
    assert prefixes == {"mxo", "to", "kueue", "website"}
    assert len(CASES) >= 30


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_published_spec_gives_its_expected_outcome(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert MARK in text, "the spec must follow the header"
    header = _header(text)
    for key in ("source", "commit", "path", "licence", "expect", "judged"):
        assert header.get(key), f"header lacks {key}"
    assert len(header["commit"]) == 40
    outcome, _, codes = header["expect"].partition(" ")
    found, manifests = _run(text.partition(MARK)[2], path.name)
    shown = [d.render() for d in found]
    if outcome == "renders":
        assert _codes(found, Severity.ERROR) == [], shown
        assert _codes(found, Severity.WARNING) == ([] if codes == "clean" else codes.split()), shown
        assert any(m["kind"] == "Pod" for m in manifests)
    else:
        assert outcome == "rejected"
        assert _codes(found, Severity.ERROR) == codes.split(), shown
        assert manifests == []
        for problem in found:
            if problem.severity is Severity.ERROR:
                assert header["fix"] in (problem.hint or ""), shown


def _job(**spec: Any) -> dict[str, Any]:
    pod = {"spec": {"containers": [{"name": "mxnet", "image": "mxnet:1.9"}]}}
    replicas = {t: {"replicas": 1, "template": json.loads(json.dumps(pod))} for t in ("Scheduler", "Server", "Worker")}
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "MXJob",
        "metadata": {"name": "job"},
        "spec": {"jobMode": "MXTrain", "mxReplicaSpecs": replicas, **spec},
    }


def test_kubernetes_1_24_export_drops_cluster_name_with_the_other_server_fields() -> None:
    job = _job()
    job["metadata"] |= {"clusterName": "", "uid": "u", "resourceVersion": "1", "selfLink": "/x", "generation": 2}
    job["status"] = {"conditions": []}
    found, manifests = _run(json.dumps(job))
    assert _codes(found, Severity.ERROR) == []
    assert _codes(found, Severity.WARNING) == ["MXJ306", "MXJ306"]
    assert "metadata.clusterName" in found[0].message and "metadata.uid" in found[0].message
    rendered = next(m for m in manifests if m["kind"] == "MXJob")
    assert "clusterName" not in rendered["metadata"] and "status" not in rendered


def test_pre_kubeflow_mxjob_is_passed_through_with_a_note() -> None:
    job = {"apiVersion": "mlkube.io/v1beta1", "kind": "MxJob", "metadata": {"name": "j"}, "spec": {}}
    found, manifests = _run(json.dumps(job))
    assert [(d.severity, d.code.value) for d in found] == [(Severity.WARNING, "MXJ006")]
    assert "kubeflow.org/v1alpha1" in (found[0].hint or "")
    assert manifests == [job]


def test_kubeflow_kind_look_alike_is_an_error() -> None:
    job = _job()
    job["kind"] = "MxJob"
    found, _ = _run(json.dumps(job))
    assert _codes(found, Severity.ERROR) == ["MXJ004"]
    assert "kind: MXJob" in (found[0].hint or "")


def test_scheduler_with_zero_replicas_gets_one_error_and_no_contradicting_warning() -> None:
    job = _job()
    job["spec"]["mxReplicaSpecs"]["Scheduler"]["replicas"] = 0
    found, _ = _run(json.dumps(job))
    at = [d for d in found if d.path == ("spec", "mxReplicaSpecs", "Scheduler", "replicas")]
    assert [d.code.value for d in at] == ["MXJ205"]


def test_flat_run_policy_warning_agrees_in_number() -> None:
    found, _ = _run(json.dumps(_job(cleanPodPolicy="All")))
    assert "cleanPodPolicy sits directly under spec" in found[0].message
    assert "it was read" in found[0].message and "move it " in (found[0].hint or "")


def test_unknown_field_never_suggests_another_concept() -> None:
    found, _ = _run(json.dumps(_job(successPolicies="x", runPolcy={})))
    hints = {d.path[-1]: d.hint or "" for d in found}
    assert "did you mean" not in hints["successPolicies"]
    assert hints["runPolcy"] == "did you mean 'runPolicy'?"


def test_v1alpha2_tune_job_gets_the_tuner_variables_that_operator_set() -> None:
    def replica(script: str | None, **extra: Any) -> dict[str, Any]:
        container: dict[str, Any] = {"name": "mxnet", "image": "tvm"}
        if script:
            container["args"] = ["-c", script]
        return {"replicas": 1, "template": {"spec": {"containers": [container]}}, **extra}

    job = {
        "apiVersion": "kubeflow.org/v1alpha2",
        "kind": "MXJob",
        "metadata": {"name": "tune"},
        "spec": {
            "jobMode": "MXTune",
            "mxReplicaSpecs": {
                "TunerTracker": replica(None),
                "TunerServer": replica(
                    "rpc_server --tracker=$DMLC_TUNER_TRACKER_URI --key=$DMLC_TUNER_SERVER_KEY", label="k80"
                ),
                "Tuner": replica("tune --port $(DMLC_TUNER_TRACKER_PORT)"),
            },
        },
    }
    found, manifests = _run(json.dumps(job))
    assert _codes(found, Severity.ERROR) == []
    pods = {m["metadata"]["name"]: m for m in manifests if m["kind"] == "Pod"}
    env = {e["name"]: e.get("value") for e in pods["tune-tunerserver-0"]["spec"]["containers"][0]["env"]}
    assert env["DMLC_TUNER_TRACKER_URI"] == "tune-tunertracker-0"
    assert env["DMLC_TUNER_SERVER_KEY"] == "k80"
    tuner = {e["name"]: e.get("value") for e in pods["tune-tuner-0"]["spec"]["containers"][0]["env"]}
    assert tuner["DMLC_TUNER_TRACKER_PORT"] == "9091"
    assert "tune-tunertracker-0" in {s["metadata"]["name"] for s in manifests if s["kind"] == "Service"}


def test_v1_job_reading_tuner_variables_is_warned() -> None:
    job = _job()
    job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["command"] = [
        "sh",
        "-c",
        "run --key=${DMLC_TUNER_SERVER_KEY} --role=$DMLC_ROLE",
    ]
    found, _ = _run(json.dumps(job))
    assert _codes(found, Severity.WARNING) == ["MXJ317"]
    assert "DMLC_TUNER_SERVER_KEY" in found[0].message and "MX_CONFIG" in found[0].message


def test_v1beta1_run_policy_fields_its_operator_ignored_are_warned() -> None:
    job = _job(backoffLimit=3)
    job["apiVersion"] = "kubeflow.org/v1beta1"
    found, _ = _run(json.dumps(job))
    noted = [d for d in found if d.path == ("spec", "backoffLimit")]
    assert [d.code.value for d in noted] == ["MXJ304"]
    assert "ignored" in noted[0].message and "v1 enforces" in noted[0].message


def test_a_variable_the_script_sets_itself_is_not_warned() -> None:
    job = _job()
    job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["args"] = [
        "-c",
        "export DMLC_INTERFACE=eth0; DMLC_NUM_ATTEMPT=2 run --if=$DMLC_INTERFACE --n=${DMLC_NUM_ATTEMPT}",
    ]
    found, _ = _run(json.dumps(job))
    assert _codes(found, Severity.WARNING) == []
