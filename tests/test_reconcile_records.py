"""Records the reconciler reads back from the cluster are bounded (compiler.jsonbound): a job whose ConfigMap
`job.json` is hostile (nested 100,000 deep, larger than a ConfigMap holds, not JSON, not text) is reported on the
job as a Refused condition (MXJobInvalid) and a Warning event, and never as an internal error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mxjob_gitops.compiler.base.jsonbound import MAX_RECORD_CHARS, load_record
from mxjob_gitops.compiler.base.limits import MAX_DEPTH
from tests.conftest import run_cli
from tests.fakeapi import FakeServer
from tests.kubelet import deploy, set_pod
from tests.test_reconcile import EXITCODE_JOB, PODS, api  # noqa: F401 (api is a fixture)

CONFIG_MAP = ("v1", "configmaps", "ml", "mxnet-job-mxjob-config")
HOSTILE = {
    "nested 100,000 deep": "[" * 100_000 + "]" * 100_000,
    "objects nested 100,000 deep": '{"a":' * 100_000 + "1" + "}" * 100_000,
    "larger than a ConfigMap": json.dumps({"render": {"x": "y" * MAX_RECORD_CHARS}}),
    "not JSON": "{render: ",
    "render not an object": json.dumps({"render": ["x"] * 100_000}),
}


@pytest.mark.parametrize("record", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_record_is_a_condition_and_an_event(
    api: tuple[FakeServer, Path],  # noqa: F811
    record: str,
) -> None:
    server, kubeconfig = api
    deploy(server, EXITCODE_JOB)
    for name in PODS:
        set_pod(server, name, "Running")
    config_map = server.state.objects[CONFIG_MAP]
    data = {**config_map["data"], "job.json": record}
    server.state.update(CONFIG_MAP, {**config_map, "data": data}, status_only=False, check_version=False)
    set_pod(server, "mxnet-job-worker-0", "Failed", exit_code=137)  # a restart needs the recorded options
    result = run_cli(["reconcile", "--once", "--kubeconfig", str(kubeconfig), "--no-leader-election"])
    log = result.stderr
    assert result.exit_code == 1, log  # the job was not reconciled, and said so
    assert "internal error" not in log and "RecursionError" not in log
    # Reported once: a --once pass does not retry a refused job until its time is up (the next pass, or the
    # watch loop with back-off, tries it again).
    assert sum(" warning " in line and "refused:" in line for line in log.splitlines()) == 1, log
    status = server.state.objects[("kubeflow.org/v1", "mxjobs", "ml", "mxnet-job")]["status"]
    refused = [c for c in status["conditions"] if c["type"] == "Refused"]
    assert [(c["status"], c["reason"]) for c in refused] == [("True", "MXJobInvalid")]
    assert "mxnet-job-mxjob-config job.json" in refused[0]["message"]
    assert len(refused[0]["message"]) < 400
    events = [e for (_, plural, _, _), e in server.state.objects.items() if plural == "events"]
    assert any(e["reason"] == "MXJobInvalid" and e["type"] == "Warning" for e in events)


def test_a_record_within_bounds_loads() -> None:
    nested: Any = "x"
    for _ in range(MAX_DEPTH - 2):  # and two objects around: MAX_DEPTH levels
        nested = [nested]
    assert load_record(json.dumps({"render": {"k": nested}}))["render"]["k"] == nested
    assert load_record('{"a": "[[[[[[' + "[" * 1000 + '"}') == {"a": "[[[[[[" + "[" * 1000}  # brackets in strings


@pytest.mark.parametrize("text", ["[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "x" * (MAX_RECORD_CHARS + 1), "{"])
def test_load_record_refuses_with_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        load_record(text)
