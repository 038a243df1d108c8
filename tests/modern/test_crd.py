"""Our MXJob CRD on a v1.36 apiextensions-apiserver: server-side apply, stored unchanged, every CEL rule good and
bad with the server's message, every example applied server-side with strict field validation and no warning."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import JOB_EXAMPLE_FILES, run_cli
from tests.modern.conftest import CRD_FILE, CRD_NAME
from tests.modern.server import ModernServer
from tests.realapi.test_crd import SERVER_DEFAULTS, differences
from tests.realcomp import realcomp_bin


def _walk_rules(node: Any, path: str) -> Iterator[tuple[str, str, str]]:
    if isinstance(node, dict):
        for rule in node.get("x-kubernetes-validations") or []:
            yield path, rule["rule"], rule.get("message", "")
        for key, value in node.items():
            yield from _walk_rules(value, f"{path}.{key}")
    elif isinstance(node, list):
        for item in node:
            yield from _walk_rules(item, path)


def crd_rules() -> list[tuple[str, str, str]]:
    crd = yaml.safe_load(CRD_FILE.read_text(encoding="utf-8"))
    return list(_walk_rules(crd["spec"], "spec"))


QUEUE_RULE = "spec.runPolicy.schedulingPolicy.queue is immutable"
# kubectl sends `--validate=strict` as the query parameter fieldValidation=Strict (unknown or duplicate fields
# fail instead of warning).
# Each CEL rule of the CRD (by message) and the test below that drives it good and bad; a new rule fails
# test_every_cel_rule_is_exercised until it has a test here.
EXERCISED = {QUEUE_RULE: "test_the_queue_transition_rule"}


def rendered_mxjob(path: str, name: str | None = None) -> dict[str, Any]:
    result = run_cli(["render", path])
    assert result.exit_code == 0, result.stderr
    job = next(d for d in yaml.safe_load_all(result.stdout) if d and d["kind"] == "MXJob")
    if name:
        job["metadata"]["name"] = name
    return dict(job)


def apply(server: ModernServer, obj: dict[str, Any]) -> tuple[int, str, str]:
    done = server.run(
        "apply", "--server-side", "--field-manager=mxjob", "--validate=strict", "-f", "-",
        stdin=json.dumps(obj),
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def test_the_crd_installs_server_side_and_is_stored_unchanged(modern_crd: ModernServer) -> None:
    stored = json.loads(modern_crd.kubectl("get", "crd", CRD_NAME, "-o", "json", "--show-managed-fields"))
    conditions = {c["type"]: c["status"] for c in stored["status"]["conditions"]}
    assert conditions["Established"] == "True" and conditions["NamesAccepted"] == "True"
    written = yaml.safe_load(CRD_FILE.read_text(encoding="utf-8"))
    found = list(differences({**SERVER_DEFAULTS, **written["spec"]}, stored["spec"], "spec"))
    found += differences(
        written["metadata"].get("annotations") or {}, stored["metadata"].get("annotations") or {}, "annotations"
    )
    assert found == [], "the stored CRD differs from the file:\n" + "\n".join(found)
    managers = {m["manager"]: m["operation"] for m in stored["metadata"]["managedFields"]}
    assert managers.get("mxjob-tests") == "Apply", managers


def test_every_cel_rule_is_exercised() -> None:
    messages = sorted(message for _, _, message in crd_rules())
    assert messages, "the CRD has no x-kubernetes-validations: this test guards them"
    assert messages == sorted(EXERCISED), f"CEL rules without a test here: {set(messages) - set(EXERCISED)}"


def test_the_queue_transition_rule(modern_crd: ModernServer) -> None:
    job = rendered_mxjob(str(JOB_EXAMPLE_FILES[0]), "queue-rule")
    job["metadata"]["namespace"] = "cel"
    policy = job["spec"].setdefault("runPolicy", {}).setdefault("schedulingPolicy", {})
    policy["queue"] = "research"
    code, _, err = apply(modern_crd, job)
    assert code == 0, err
    # good: the same queue again, and a change elsewhere in the policy, pass the transition rule
    policy["minAvailable"] = 1
    code, _, err = apply(modern_crd, job)
    assert code == 0, err
    # bad: another queue is refused with the rule's own message at the field's path
    policy["queue"] = "production"
    code, _, err = apply(modern_crd, job)
    assert code != 0
    assert "spec.runPolicy.schedulingPolicy.queue: Invalid value" in err, err
    assert QUEUE_RULE in err, err
    stored = json.loads(modern_crd.kubectl("get", "mxjob", "queue-rule", "-n", "cel", "-o", "json"))
    assert stored["spec"]["runPolicy"]["schedulingPolicy"]["queue"] == "research"


@pytest.mark.parametrize("example", JOB_EXAMPLE_FILES, ids=lambda p: p.name)
def test_every_example_applies_server_side_strictly_without_warning(modern_crd: ModernServer, example: Any) -> None:
    job = rendered_mxjob(str(example))
    job["metadata"]["namespace"] = "examples"
    code, out, err = apply(modern_crd, job)
    assert code == 0, err
    assert err.strip() == "", f"the server warned: {err}"
    assert "serverside-applied" in out, out
    stored = json.loads(modern_crd.kubectl("get", "mxjob", job["metadata"]["name"], "-n", "examples", "-o", "json"))
    # pruning and defaulting leave the spec as we wrote it
    found = list(differences(job["spec"], stored["spec"], "spec"))
    assert found == [], "\n".join(found)


# crd-apiserver serves no core API, so `mxjob diff --live` compares the MXJob alone: the rendered Pods,
# Services and ConfigMap are left out with --ignore-kind (tests/realapi/test_zero_drift.py covers them on v1.20,
# tests/modern/test_core.py against 1.36's defaulting).
CORE_KINDS_IGNORED = ["--ignore-kind", "Pod", "--ignore-kind", "Service", "--ignore-kind", "ConfigMap"]


@pytest.mark.parametrize("example", JOB_EXAMPLE_FILES, ids=lambda p: p.name)
def test_diff_live_of_the_mxjob_is_empty_after_apply(modern_crd: ModernServer, example: Any) -> None:
    job = rendered_mxjob(str(example))
    namespace = job["metadata"].setdefault("namespace", "live")
    code, _, err = apply(modern_crd, job)
    assert code == 0, err
    live = ["diff", "--live", "--kubeconfig", str(modern_crd.kubeconfig), "-n", namespace, *CORE_KINDS_IGNORED]
    diff = run_cli([*live, str(example)])
    assert diff.exit_code == 0, diff.stdout + diff.stderr
    # and the comparison can fail: a value changed on the server shows up (fields only the server has are taken
    # as its defaults, so the control changes a value we render)
    replica = next(iter(job["spec"]["mxReplicaSpecs"].values()))
    replica["template"]["spec"]["containers"][0]["image"] = "changed/on-the-server:1"
    code, _, err = apply(modern_crd, job)
    assert code == 0, err
    changed = run_cli([*live, str(example)])
    assert changed.exit_code == 1 and "changed/on-the-server:1" in changed.stdout, changed.stdout + changed.stderr


def test_diff_live_finds_the_update_the_server_refuses(modern_crd: ModernServer, tmp_path: Any) -> None:
    """`mxjob diff --live` against the 1.36 server: a spec whose queue differs from the stored MXJob's is the
    finding MXJ410 (exit 2), and the server indeed refuses that update with the same message."""
    spec = yaml.safe_load(JOB_EXAMPLE_FILES[0].read_text(encoding="utf-8"))
    spec["metadata"]["name"] = "live-queue"
    spec["spec"].setdefault("runPolicy", {})["schedulingPolicy"] = {"queue": "research"}
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    job = rendered_mxjob(str(path))
    job["metadata"]["namespace"] = "live"
    code, _, err = apply(modern_crd, job)
    assert code == 0, err
    live = ["diff", "--live", "--kubeconfig", str(modern_crd.kubeconfig), "-n", "live", *CORE_KINDS_IGNORED]
    assert run_cli([*live, str(path)]).exit_code == 0
    spec["spec"]["runPolicy"]["schedulingPolicy"]["queue"] = "production"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    found = run_cli([*live, str(path)])
    assert found.exit_code == 2 and "MXJ410" in found.stderr, found.stdout + found.stderr
    message = 'spec.runPolicy.schedulingPolicy.queue: Invalid value: "production": ' + QUEUE_RULE
    assert f"MXJ410 at {message}" in found.stderr, found.stderr
    job["spec"]["runPolicy"]["schedulingPolicy"]["queue"] = "production"
    code, _, err = apply(modern_crd, job)
    assert code != 0 and message in err, err


@pytest.mark.parametrize("example", JOB_EXAMPLE_FILES, ids=lambda p: p.name)
def test_argo_cd_diff_of_the_stored_mxjob_is_empty_in_both_modes(
    modern_crd: ModernServer, example: Any, tmp_path: Path
) -> None:
    """Argo CD's default diff and its structured-merge diff (`-smd`, the ServerSideApply=true sync option) between
    the rendered MXJob and what the 1.36 server stores after Argo CD's server-side apply (field manager
    argocd-controller, so the live managedFields are Argo CD's): not modified; a changed image in Git is."""
    job = rendered_mxjob(str(example), f"argo-{example.stem.replace('_', '-')}")
    namespace = job["metadata"].setdefault("namespace", "argo-diff")
    modern_crd.kubectl("apply", "--server-side", "--field-manager=argocd-controller", "-f", "-", stdin=json.dumps(job))
    live = modern_crd.kubectl(
        "get", "mxjob", job["metadata"]["name"], "-n", namespace, "-o", "json", "--show-managed-fields"
    )
    assert json.loads(live)["metadata"]["managedFields"][0]["manager"] == "argocd-controller"
    (tmp_path / "live.json").write_text(live, encoding="utf-8")
    changed = json.loads(json.dumps(job))
    next(iter(changed["spec"]["mxReplicaSpecs"].values()))["template"]["spec"]["containers"][0]["image"] = "new:2"
    for desired, want in ((job, False), (changed, True)):
        (tmp_path / "desired.json").write_text(json.dumps(desired), encoding="utf-8")
        for mode in ((), ("-smd",)):
            argv = [str(realcomp_bin("argocd-diff")), *mode, "-desired", str(tmp_path / "desired.json")]
            done = subprocess.run(
                [*argv, "-live", str(tmp_path / "live.json")], capture_output=True, text=True, timeout=60
            )
            [verdict] = [json.loads(line) for line in done.stdout.splitlines()]
            assert verdict.get("modified") is want and done.returncode == int(want), (mode, verdict, done.stderr)
