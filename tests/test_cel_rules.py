"""compiler.kubevalidate.cel and .crdrules without a server (tests/modern/test_cel.py compares them with the 1.36
CRD server): which rules run on create and on update, rules the interpreter cannot run, and the MXJob's rules."""

from __future__ import annotations

from typing import Any

import yaml

from mxjob_gitops.compiler.base.diagnostics import Code, Severity
from mxjob_gitops.compiler.rules.kubevalidate.cel import evaluate, has_rules
from mxjob_gitops.compiler.rules.kubevalidate.crdrules import check_create, check_update, mxjob_rules, rule_skeleton
from tests.conftest import JOB_EXAMPLE_FILES, REPO


def _schema(rules: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    field = {"type": "string", "x-kubernetes-validations": rules, **extra}
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": {"field": field}}}}


def _obj(value: Any) -> dict[str, Any]:
    return {"spec": {"field": value}}


def test_a_transition_rule_runs_only_on_an_update_with_an_old_value() -> None:
    schema = _schema([{"rule": "self == oldSelf", "message": "immutable"}])
    assert evaluate(schema, _obj("a")) == []  # create
    assert evaluate(schema, _obj("a"), {"spec": {}}) == []  # no old value
    assert evaluate(schema, {"spec": {}}, _obj("a")) == []  # no new value: nothing to validate
    assert evaluate(schema, _obj("a"), _obj("a")) == []
    [result] = evaluate(schema, _obj("b"), _obj("a"))
    assert result.transition and result.path == ("spec", "field")
    assert result.message == 'Invalid value: "b": immutable'


def test_oldself_in_a_string_is_no_transition_rule() -> None:
    schema = _schema([{"rule": "self != 'oldSelf'"}])
    [result] = evaluate(schema, _obj("oldSelf"))
    assert not result.transition and result.message == "Invalid value: \"oldSelf\": failed rule: self != 'oldSelf'"


def test_a_rule_the_interpreter_cannot_run_is_a_warning_never_a_verdict() -> None:
    schema = _schema([{"rule": "self.lowerAscii() == self"}])
    [result] = evaluate(schema, _obj("A"))
    assert result.unsupported and "lowerAscii" in result.message
    assert evaluate(_schema([{"rule": "self.matches('^[a-z]+$') &&& true"}]), _obj("a"))[0].unsupported


def test_an_unchanged_failing_value_is_ratcheted_on_update() -> None:
    schema = _schema([{"rule": "self.size() < 3", "message": "short"}])
    assert [r.ratcheted for r in evaluate(schema, _obj("long"))] == [False]
    assert [r.ratcheted for r in evaluate(schema, _obj("long"), _obj("long"))] == [True]
    assert [r.ratcheted for r in evaluate(schema, _obj("longer"), _obj("long"))] == [False]


def test_the_packaged_skeleton_is_the_crds() -> None:
    crd = yaml.safe_load((REPO / "schemas" / "crd" / "kubeflow.org_mxjobs.yaml").read_text(encoding="utf-8"))
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert has_rules(schema) and rule_skeleton(schema) == mxjob_rules()


def test_the_mxjob_queue_rule_as_diagnostics() -> None:
    job = yaml.safe_load(JOB_EXAMPLE_FILES[0].read_text(encoding="utf-8"))
    job["spec"].setdefault("runPolicy", {})["schedulingPolicy"] = {"queue": "research"}
    assert check_create(job) == []
    changed = yaml.safe_load(yaml.safe_dump(job))
    changed["spec"]["runPolicy"]["schedulingPolicy"]["queue"] = "production"
    [found] = check_update(changed, job)
    assert found.code is Code.K8S_UPDATE and found.severity is Severity.ERROR
    assert found.json_path == "spec.runPolicy.schedulingPolicy.queue"
    assert 'keep "research"' in found.hint and "delete and recreate the MXJob" in found.hint
    assert check_update(job, job) == []
