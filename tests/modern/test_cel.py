"""The offline CEL evaluator (compiler.kubevalidate.cel) against the real 1.36 CRD server: the same creates and
updates sent to both, the verdicts, the field paths and the messages compared. A test CRD carries one rule of each
kind the server knows (object, scalar, map-value, set-item and map-list-item rules; message, default message,
messageExpression, reason, fieldPath; transition rules in correlatable places, rules in an atomic list); the MXJob CRD's
own queue rule is driven the same way through compiler.kubevalidate.crdrules."""

from __future__ import annotations

import copy
import json
import re
import ssl
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.rules.kubevalidate.cel import evaluate
from mxjob_gitops.compiler.rules.kubevalidate.crdrules import check_update, mxjob_rules, rule_skeleton
from tests.conftest import JOB_EXAMPLE_FILES
from tests.modern.server import ModernServer
from tests.modern.test_crd import crd_rules, rendered_mxjob
from tests.realapi.cluster import wait_until

GROUP, PLURAL = "celcases.mxjob-tests.example.com", "celcases"
SPEC: dict[str, Any] = yaml.safe_load(
    """
type: object
x-kubernetes-validations:
- rule: "!has(self.minReplicas) || self.minReplicas <= self.replicas"
  message: replicas must be at least minReplicas
- rule: "!has(self.mode) || self.mode in ['a', 'b']"
- rule: "!has(self.replicas) || self.replicas >= 0"
  fieldPath: .replicas
  reason: FieldValueForbidden
  message: replicas must not be negative
- rule: "!has(self.tags) || size(self.tags) <= 3"
  messageExpression: "'mode ' + self.mode + ' takes at most 3 tags'"
- rule: "!has(self.owner) || self.owner != ''"
  reason: FieldValueRequired
  message: owner must not be empty
properties:
  replicas: {type: integer, x-kubernetes-validations: [{rule: "self <= 100", message: at most 100}]}
  minReplicas: {type: integer}
  mode: {type: string, maxLength: 20}
  owner: {type: string, maxLength: 20}
  queue: {type: string, maxLength: 20, x-kubernetes-validations: [{rule: self == oldSelf, message: queue is immutable}]}
  ratio: {type: number, x-kubernetes-validations: [{rule: "self < 1.5", message: ratio below 1.5}]}
  tags:
    type: array
    x-kubernetes-list-type: set
    maxItems: 10
    items: {type: string, maxLength: 20, x-kubernetes-validations: [{rule: "self.startsWith('t')"}]}
  limits:
    type: object
    maxProperties: 10
    additionalProperties:
      type: integer
      x-kubernetes-validations: [{rule: self >= oldSelf, message: limits only grow}]
  workers:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [name]
    maxItems: 10
    items:
      type: object
      required: [name]
      properties: {name: {type: string, maxLength: 20}, size: {type: integer}}
      x-kubernetes-validations:
      - {rule: "!has(oldSelf.size) || self.size == oldSelf.size", message: worker size is immutable}
      - {rule: "self.size > 0", message: size must be positive}
  stages:
    type: array
    x-kubernetes-list-type: atomic
    maxItems: 10
    items:
      type: object
      properties: {n: {type: integer}}
      x-kubernetes-validations: [{rule: self.n >= 0, message: n must not be negative}]
"""
)
CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": GROUP},
    "spec": {
        "group": "mxjob-tests.example.com",
        "names": {"kind": "CelCase", "plural": PLURAL, "singular": "celcase", "listKind": "CelCaseList"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": SPEC}}},
            }
        ],
    },
}
GOOD = {"replicas": 2, "minReplicas": 1, "mode": "a", "queue": "q1", "ratio": 0.5, "tags": ["t1"],
        "limits": {"cpu": 2}, "workers": [{"name": "w", "size": 2}], "stages": [{"n": 1}]}  # fmt: skip
# (name, create spec, update spec or None): each create, then the update of it, goes to the server and offline.
CASES: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = [
    ("good", GOOD, {**GOOD, "replicas": 3, "limits": {"cpu": 3, "mem": 1}, "workers": [{"name": "w", "size": 2}]}),
    ("min-above-replicas", {**GOOD, "minReplicas": 5}, None),
    ("unknown-mode-default-message", {**GOOD, "mode": "c"}, None),
    ("negative-replicas-forbidden-fieldpath", {**GOOD, "replicas": -1, "minReplicas": -2}, None),
    ("too-many-replicas-scalar-rule", {**GOOD, "replicas": 101}, None),
    ("message-expression", {**GOOD, "tags": ["t1", "t2", "t3", "t4"]}, None),
    ("set-item-rule", {**GOOD, "tags": ["t1", "x"]}, None),
    ("required-reason", {**GOOD, "owner": ""}, None),
    ("number-rule", {**GOOD, "ratio": 2}, None),
    ("several-at-once", {**GOOD, "mode": "z", "replicas": 200, "tags": ["y"]}, None),
    ("queue-changed", GOOD, {**GOOD, "queue": "q2"}),
    ("queue-added-on-update", {k: v for k, v in GOOD.items() if k != "queue"}, GOOD),
    ("queue-removed-on-update", GOOD, {k: v for k, v in GOOD.items() if k != "queue"}),
    ("map-value-shrinks", GOOD, {**GOOD, "limits": {"cpu": 1}}),
    ("map-value-new-key", GOOD, {**GOOD, "limits": {"cpu": 2, "gpu": 0}}),
    ("map-list-item-changed", GOOD, {**GOOD, "workers": [{"name": "w", "size": 3}]}),
    ("map-list-item-renamed", GOOD, {**GOOD, "workers": [{"name": "v", "size": 3}]}),
    ("map-list-item-bad-on-update", GOOD, {**GOOD, "workers": [{"name": "w", "size": 2}, {"name": "x", "size": 0}]}),
    ("evaluation-error-no-such-key", {**GOOD, "workers": [{"name": "w"}]}, None),
    ("atomic-list-item-rule", {**GOOD, "stages": [{"n": 1}, {"n": -1}]}, None),
    ("atomic-list-item-bad-on-update", GOOD, {**GOOD, "stages": [{"n": -2}]}),
    ("update-breaks-plain-rule", GOOD, {**GOOD, "mode": "q"}),
]


def _context() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def request(server: ModernServer, method: str, path: str, body: Any) -> tuple[int, dict[str, Any]]:
    """One API call with the server's Status on failure (its causes: field, reason, message of each error)."""
    data = json.dumps(body).encode()
    call = urllib.request.Request(
        server.url + path, data=data, method=method,
        headers={"Content-Type": "application/json", "Authorization": "Bearer anonymous"},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(call, context=_context(), timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _field(path: str) -> str:
    """`spec.limits[cpu]`, `spec.tags[1]` as `spec.limits.cpu`, `spec.tags.1` (our paths do not tell keys apart)."""
    return re.sub(r"\[([^\]]*)\]", r".\1", path)


def server_errors(status: int, reply: dict[str, Any]) -> set[tuple[str, str]]:
    if status < 300:
        return set()
    causes = (reply.get("details") or {}).get("causes") or []
    assert causes, reply
    return {(_field(c.get("field", "")), c["message"]) for c in causes}


def offline_errors(spec: dict[str, Any], old: dict[str, Any] | None, schema: dict[str, Any]) -> set[tuple[str, str]]:
    wrapper = {"type": "object", "properties": {"spec": schema}}
    results = evaluate(wrapper, {"spec": spec}) if old is None else evaluate(wrapper, {"spec": spec}, {"spec": old})
    assert not any(r.unsupported for r in results), results
    return {(".".join(str(p) for p in r.path), r.message) for r in results if not r.ratcheted}


@pytest.fixture(scope="module")
def cel_crd(modern: ModernServer) -> Iterator[ModernServer]:
    modern.kubectl("apply", "--server-side", "--field-manager=mxjob-tests", "-f", "-", stdin=json.dumps(CRD))
    modern.wait_established(GROUP)
    offline_errors(GOOD, GOOD, SPEC)  # the interpreter loaded before hypothesis runs (it sets the recursion limit)
    yield modern


@pytest.mark.parametrize(("name", "create", "update"), CASES, ids=[c[0] for c in CASES])
def test_the_evaluator_agrees_with_the_server(
    cel_crd: ModernServer, name: str, create: dict[str, Any], update: dict[str, Any] | None
) -> None:
    base = f"/apis/mxjob-tests.example.com/v1/namespaces/default/{PLURAL}"
    obj = {"apiVersion": "mxjob-tests.example.com/v1", "kind": "CelCase", "metadata": {"name": name}, "spec": create}
    status, reply = request(cel_crd, "POST", base, obj)
    assert server_errors(status, reply) == offline_errors(create, None, SPEC), (name, reply)
    if update is None:
        return
    assert status == 201, reply
    changed = {**reply, "spec": copy.deepcopy(update)}
    status, reply = request(cel_crd, "PUT", f"{base}/{name}", changed)
    assert server_errors(status, reply) == offline_errors(update, create, SPEC), (name, reply)


def test_the_catalog_covers_create_and_update_refusals() -> None:
    """The cases above are no tautology: several creates and several updates are refused."""
    refused_creates = [n for n, c, u in CASES if u is None and offline_errors(c, None, SPEC)]
    refused_updates = [n for n, c, u in CASES if u is not None and offline_errors(u, c, SPEC)]
    assert len(refused_creates) >= 8 and len(refused_updates) >= 5, (refused_creates, refused_updates)


def test_the_packaged_rules_are_the_crds() -> None:
    """schemas/cel holds exactly the CRD's rules, and every one of them: the same walk finds the same rules."""
    skeleton = json.dumps(mxjob_rules())
    for _, rule, message in crd_rules():
        assert json.dumps(rule) in skeleton and json.dumps(message) in skeleton
    assert rule_skeleton(mxjob_rules()) == mxjob_rules()


@pytest.mark.parametrize("queues", [("research", "research"), ("research", "production"), (None, "production")])
def test_the_mxjob_queue_rule_agrees_with_the_server(modern_crd: ModernServer, queues: tuple[str | None, str]) -> None:
    old_queue, new_queue = queues
    name = f"queue-{old_queue or 'none'}-{new_queue}"
    job = rendered_mxjob(str(JOB_EXAMPLE_FILES[0]), name)
    job["metadata"]["namespace"] = "default"
    if old_queue:
        job["spec"].setdefault("runPolicy", {}).setdefault("schedulingPolicy", {})["queue"] = old_queue
    base = "/apis/kubeflow.org/v1/namespaces/default/mxjobs"
    status, stored = request(modern_crd, "POST", base, job)
    assert status == 201, stored
    new = copy.deepcopy(stored)
    new["spec"].setdefault("runPolicy", {}).setdefault("schedulingPolicy", {})["queue"] = new_queue
    status, reply = request(modern_crd, "PUT", f"{base}/{name}", new)
    offline = {(d.json_path, d.message) for d in check_update(new, stored)}
    assert server_errors(status, reply) == offline, reply
    assert (status >= 300) == (old_queue not in (None, new_queue))


RATCHET = "ratchets.mxjob-tests.example.com"


def _ratchet_crd(with_rule: bool) -> dict[str, Any]:
    mode: dict[str, Any] = {"type": "string", "maxLength": 20}
    if with_rule:
        mode["x-kubernetes-validations"] = [{"rule": "self in ['a', 'b']", "message": "mode must be a or b"}]
    spec = {"type": "object", "properties": {"mode": mode, "size": {"type": "integer"}}}
    crd = copy.deepcopy(CRD)
    crd["metadata"]["name"] = RATCHET
    crd["spec"]["names"] = {"kind": "Ratchet", "plural": "ratchets", "singular": "ratchet", "listKind": "RatchetList"}
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"] = spec
    return crd


def test_ratcheting_agrees_with_the_server(modern: ModernServer) -> None:
    """A rule added after an object was stored: an update that leaves the failing value as it is passes with a
    warning on the server (CRDValidationRatcheting), one that changes it to another failing value is refused."""
    modern.kubectl(
        "apply", "--server-side", "--field-manager=mxjob-tests", "-f", "-", stdin=json.dumps(_ratchet_crd(False))
    )
    modern.wait_established(RATCHET)
    base = "/apis/mxjob-tests.example.com/v1/namespaces/default/ratchets"
    obj = {"apiVersion": "mxjob-tests.example.com/v1", "kind": "Ratchet", "metadata": {"name": "r"},
           "spec": {"mode": "z", "size": 1}}  # fmt: skip
    status, stored = request(modern, "POST", base, obj)
    assert status == 201, stored
    rules = _ratchet_crd(True)
    modern.kubectl("apply", "--server-side", "--field-manager=mxjob-tests", "-f", "-", stdin=json.dumps(rules))
    schema = rules["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    probe = {**obj, "metadata": {"name": "probe"}}
    wait_until(lambda: request(modern, "POST", f"{base}?dryRun=All", probe)[0] == 422, 30, "the new rule in force", 0.2)

    def update(spec: dict[str, Any]) -> None:
        nonlocal stored
        old = stored["spec"]
        offline = evaluate({"type": "object", "properties": {"spec": schema}}, {"spec": spec}, {"spec": old})
        status, reply = request(modern, "PUT", f"{base}/r", {**stored, "spec": spec})
        refused = [r for r in offline if not r.ratcheted]
        assert server_errors(status, reply) == {(".".join(map(str, r.path)), r.message) for r in refused}, reply
        if status < 300:
            stored = reply

    update({"mode": "z", "size": 2})  # ratcheted: mode unchanged
    update({"mode": "y", "size": 2})  # refused: mode changed to another bad value
    update({"mode": "a", "size": 3})  # fixed


def _optional(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.just(ABSENT), strategy)


ABSENT = object()
SPECS = st.fixed_dictionaries(
    {
        "replicas": _optional(st.integers(-3, 120)),
        "minReplicas": _optional(st.integers(-3, 120)),
        "mode": _optional(st.sampled_from(["a", "b", "c", ""])),
        "owner": _optional(st.sampled_from(["", "x"])),
        "queue": _optional(st.sampled_from(["q1", "q2"])),
        "ratio": _optional(st.sampled_from([0, 1.25, 1.5, 2])),
        "tags": _optional(st.lists(st.sampled_from(["t1", "t2", "x", "ty", "t3"]), max_size=5, unique=True)),
        "limits": _optional(st.dictionaries(st.sampled_from(["cpu", "mem", "gpu"]), st.integers(0, 4), max_size=3)),
        "workers": _optional(
            st.lists(
                st.fixed_dictionaries({"name": st.sampled_from(["w", "v", "u"]), "size": st.integers(-1, 3)}),
                max_size=3,
                unique_by=lambda worker: worker["name"],
            )
        ),
        "stages": _optional(st.lists(st.fixed_dictionaries({"n": st.integers(-1, 2)}), max_size=2)),
    }
).map(lambda spec: {k: v for k, v in spec.items() if v is not ABSENT})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(create=SPECS, update=SPECS)
def test_drawn_creates_and_updates_agree_with_the_server(
    cel_crd: ModernServer, create: dict[str, Any], update: dict[str, Any]
) -> None:
    """Specs drawn for the test CRD: the create, then (when it was stored) the update to another drawn spec."""
    base = f"/apis/mxjob-tests.example.com/v1/namespaces/default/{PLURAL}"
    name = f"drawn-{abs(hash(json.dumps([create, update], sort_keys=True))) % 10**12}"
    obj = {"apiVersion": "mxjob-tests.example.com/v1", "kind": "CelCase", "metadata": {"name": name}, "spec": create}
    status, reply = request(cel_crd, "POST", base, obj)
    if status == 409:  # drawn before (hypothesis replays examples)
        return
    assert server_errors(status, reply) == offline_errors(create, None, SPEC), reply
    if status != 201:
        return
    status, answer = request(cel_crd, "PUT", f"{base}/{name}", {**reply, "spec": update})
    assert server_errors(status, answer) == offline_errors(update, create, SPEC), answer
    request(cel_crd, "DELETE", f"{base}/{name}", {})
