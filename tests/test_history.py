"""Each historical version means what its operator meant (docs/conversion.md), through every command that reads a
spec; and the published specs reproduced in tests/corpus/reproductions/ give the outcome their header expects.

A reproduction's header names its source (URL), what the operator of its era did with it (`era`), the outcome
expected here (`expect: renders CODES` or `expect: rejected CODES`, with `fix:` a text every error's hint holds)
and why; the spec follows the `# ---- reproduction below` line (minimal, faithful to the published one)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import run_cli
from tests.helpers import git, init_repo

REPRODUCTIONS = sorted((Path(__file__).parent / "corpus" / "reproductions").glob("*.yaml"))
MARK = "# ---- reproduction below\n"
CODE = re.compile(r": (error|warning) (MXJ\d{3})[ :]")


def _header(text: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for line in text.partition(MARK)[0].splitlines():
        key, _, value = line.removeprefix("# ").partition(": ")
        fields[key] = value.strip()
    return fields


def test_the_reproductions_cover_the_published_sources() -> None:
    names = {path.name.split("-")[0] for path in REPRODUCTIONS}
    assert {"mxo", "deepinsight", "tusimple", "ksonnet", "katib", "cube", "aws"} <= names


def test_cube_studios_default_of_no_servers_is_an_empty_server_list() -> None:
    """cube-studio's launcher defaults to 0 parameter servers: MX_CONFIG holds "server":[] as the operator wrote."""
    path = next(p for p in REPRODUCTIONS if p.name.startswith("cube"))
    result = run_cli(["render", "-"], stdin=path.read_text().partition(MARK)[2])
    rendered = [m for m in yaml.safe_load_all(result.stdout) if m]
    assert '"server":[],"worker":[{"url":"mxjob-demo-1a2b-worker-0"' in _mx_config(rendered, "mxjob-demo-1a2b-worker-2")


@pytest.mark.parametrize("path", REPRODUCTIONS, ids=lambda p: p.stem)
def test_a_reproduction_gives_its_expected_outcome(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    header = _header(text)
    for key in ("source", "era", "expect", "why"):
        assert header.get(key), f"header lacks {key}"
    outcome, _, codes = header["expect"].partition(" ")
    result = run_cli(["render", "-"], stdin=text.partition(MARK)[2])
    found = CODE.findall(result.stderr)
    errors = sorted(code for severity, code in found if severity == "error")
    warnings = sorted(code for severity, code in found if severity == "warning")
    if outcome == "renders":
        assert result.exit_code == 0, result.stderr
        assert (errors, warnings) == ([], sorted(codes.split())), result.stderr
    else:
        assert outcome == "rejected" and result.exit_code == 1 and result.stdout == ""
        assert errors == sorted(codes.split()), result.stderr
        hints = [line for line in result.stderr.splitlines() if ": error " in line]
        assert all(header["fix"] in line for line in hints), result.stderr


V1ALPHA1 = """apiVersion: kubeflow.org/v1alpha1
kind: MXJob
metadata:
  name: old
spec:
  replicaSpecs:
  - replicas: 1
    {type_key}: SCHEDULER
    {port_key}: 9000
    template:
      spec:
        containers:
        - image: mxjob/mxnet:gpu
          name: mxnet
        {restart}
  - replicas: 1
    mxReplicaType: SERVER
    template:
      spec:
        containers:
        - image: mxjob/mxnet:gpu
          name: mxnet
  - replicas: 2
    mxReplicaType: WORKER
    template:
      spec:
        containers:
        - image: mxjob/mxnet:gpu
          name: mxnet
"""
MISSPELT = V1ALPHA1.format(type_key="replicaType", port_key="PsRootPortt", restart="restartPolicy: OnFailure")
NO_RESTART = V1ALPHA1.format(type_key="mxReplicaType", port_key="PsRootPort", restart="")


def _said(command: str, args: list[str], stdout: str, stderr: str) -> str:
    return stdout if command in ("validate", "krm") else stderr


def _resource_list(*documents: str) -> str:
    """The documents as the items of a ResourceList; a text PyYAML cannot read is indented under `items:`."""
    try:
        items = [yaml.safe_load(d) for d in documents]
    except yaml.YAMLError:
        indented = "".join("- " + d.replace("\n", "\n  ").rstrip() + "\n" for d in documents)
        return "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + indented
    return json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items})


def _run_everywhere(tmp_path: Path, text: str) -> dict[str, tuple[int, str]]:
    """Each command's exit code and what it said about `text`, saved as job.yaml (krm: as its one item)."""
    (tmp_path / "job.yaml").write_text(text)
    said: dict[str, tuple[int, str]] = {}
    for command, args in {
        "render": ["render", "job.yaml"],
        "validate": ["validate", "job.yaml"],
        "convert": ["convert", "job.yaml"],
        "convert --in-place": ["convert", "--in-place", "job.yaml"],
        "diff": ["diff", "job.yaml", "job.yaml"],
    }.items():
        result = run_cli(args, cwd=tmp_path)
        said[command] = (result.exit_code, result.stdout if command == "validate" else result.stderr)
    krm = run_cli(["krm"], stdin=_resource_list(text))
    results = yaml.safe_load(krm.stdout).get("results") or []
    said["krm"] = (krm.exit_code, "\n".join(str(r.get("message")) for r in results))
    return said


def test_misspelt_v1alpha1_keys_are_reported_in_v1alpha1_terms_at_their_lines(tmp_path: Path) -> None:
    for command, (code, said) in _run_everywhere(tmp_path, MISSPELT).items():
        assert code in (1, 2), (command, said)
        if command == "krm":
            assert "unknown field 'replicaType'" in said and "did you mean 'mxReplicaType'?" in said, said
            continue
        assert re.search(r"job\.yaml:8:5: error MXJ101 at spec\.replicaSpecs\[0\]\.replicaType: ", said), (
            command,
            said,
        )
        assert re.search(r"job\.yaml:9:5: error MXJ101 at spec\.replicaSpecs\[0\]\.PsRootPortt: ", said), (
            command,
            said,
        )
        assert "did you mean 'mxReplicaType'?" in said and "did you mean 'PsRootPort'?" in said
        assert "merge them" not in said and "mxReplicaSpecs" not in said and "mxjob-port" not in said
    assert (tmp_path / "job.yaml").read_text() == MISSPELT


def test_v1alpha1_without_restart_policy_keeps_always(tmp_path: Path) -> None:
    said = _run_everywhere(tmp_path, NO_RESTART)
    assert said["convert --in-place"][0] == 0
    converted = yaml.safe_load((tmp_path / "job.yaml").read_text())
    policies = {t: r.get("restartPolicy") for t, r in converted["spec"]["mxReplicaSpecs"].items()}
    assert policies == {"Scheduler": "Always", "Server": "Always", "Worker": "Always"}
    (tmp_path / "job.yaml").write_text(NO_RESTART)
    warned = said["render"][1]
    assert re.search(r"job\.yaml:11:7: warning MXJ304 at spec\.replicaSpecs\[0\]\.template: .*Always", warned), warned
    assert warned.count("sets no restartPolicy") == 3
    rendered = [m for m in yaml.safe_load_all(run_cli(["render", "job.yaml"], cwd=tmp_path).stdout) if m]
    assert {m["spec"]["restartPolicy"] for m in rendered if m["kind"] == "Pod"} == {"Always"}
    resources = yaml.safe_load(run_cli(["krm"], stdin=_resource_list(NO_RESTART)).stdout)
    assert {i["spec"]["restartPolicy"] for i in resources["items"] if i["kind"] == "Pod"} == {"Always"}


def test_a_template_that_sets_restart_policy_keeps_it() -> None:
    text = V1ALPHA1.format(type_key="mxReplicaType", port_key="PsRootPort", restart="restartPolicy: Never")
    result = run_cli(["convert", "-"], stdin=text)
    spec = yaml.safe_load(result.stdout)["spec"]["mxReplicaSpecs"]
    assert spec["Scheduler"]["restartPolicy"] == "Never" and spec["Worker"]["restartPolicy"] == "Always"


ZERO = {
    "apiVersion": "kubeflow.org/v1",
    "kind": "MXJob",
    "metadata": {"name": "z"},
    "spec": {
        "jobMode": "MXTrain",
        "mxReplicaSpecs": {
            t: {"replicas": n, "template": {"spec": {"containers": [{"name": "mxnet", "image": "x"}]}}}
            for t, n in (("Scheduler", 1), ("Server", 0), ("Worker", 1))
        },
    },
}
ZERO_CONFIG = (
    '{"cluster":{"scheduler":[{"url":"z-scheduler-0","port":9091}],"server":[],'
    '"worker":[{"url":"z-worker-0","port":9091}]},"labels":{"scheduler":"","server":"","worker":""},'
    '"task":{"type":"worker","index":0}}'
)


def _mx_config(manifests: list[dict[str, Any]], pod: str) -> str:
    found = next(m for m in manifests if m["kind"] == "Pod" and m["metadata"]["name"] == pod)
    env = {e["name"]: e.get("value") for e in found["spec"]["containers"][0]["env"]}
    return str(env["MX_CONFIG"])


def test_a_type_with_zero_replicas_is_an_empty_list_in_mx_config_byte_for_byte() -> None:
    rendered = [m for m in yaml.safe_load_all(run_cli(["render", "-"], stdin=json.dumps(ZERO)).stdout) if m]
    assert _mx_config(rendered, "z-worker-0") == ZERO_CONFIG
    resources = yaml.safe_load(run_cli(["krm"], stdin=_resource_list(json.dumps(ZERO))).stdout)
    assert _mx_config(resources["items"], "z-worker-0") == ZERO_CONFIG


ALIAS_FIRST = """apiVersion: kubeflow.org/v1
kind: MXJob
metadata:
  name: alias
spec:
  jobMode: MXTrain
  mxReplicaSpecs:
    Worker:
      replicas: 1
      template: {spec: {containers: [{name: mxnet, image: x}], volumes: [*cifarvol]}}
    Server:
      replicas: 1
      template: {spec: {containers: [{name: mxnet, image: x}], volumes: [&cifarvol {name: d, emptyDir: {}}]}}
"""


def test_an_alias_before_its_anchor_keeps_its_name(tmp_path: Path) -> None:
    for command, (code, said) in _run_everywhere(tmp_path, ALIAS_FIRST).items():
        assert code in (1, 2), (command, said)
        file = "<stdin>" if command == "krm" else "job.yaml"
        assert re.search(
            rf"{re.escape(file)}:\d+:\d+: (error )?MXJ001: YAML syntax error: found undefined alias 'cifarvol'", said
        ), said
        assert "its anchor &cifarvol comes later, at line" in said and "fix the YAML" not in said


def test_a_replica_without_template_gets_one_error() -> None:
    job = json.loads(json.dumps(ZERO))
    job["spec"]["mxReplicaSpecs"]["Server"]["replicas"] = 1
    del job["spec"]["mxReplicaSpecs"]["Scheduler"]["template"]
    result = run_cli(["render", "-"], stdin=json.dumps(job))
    assert result.exit_code == 1
    assert CODE.findall(result.stderr) == [("error", "MXJ104")], result.stderr
    assert "rename your training container" not in result.stderr


@pytest.mark.parametrize("api_version", ["mxnet.mlkube.io/v1beta1", "mlkube.io/v1beta1"])
def test_the_pre_kubeflow_groups_are_recognised(tmp_path: Path, api_version: str) -> None:
    job = {"apiVersion": api_version, "kind": "MxJob", "metadata": {"name": "j"}, "spec": {"replicaSpecs": []}}
    for command, (code, said) in _run_everywhere(tmp_path, yaml.safe_dump(job)).items():
        if command in ("render", "convert", "krm"):
            assert code == 0 and "MXJ006" in said and "pre-Kubeflow" in said, (command, said)


def test_a_katib_experiment_with_mxjob_trials_gets_a_note(tmp_path: Path) -> None:
    path = next(p for p in REPRODUCTIONS if p.name.startswith("katib"))
    text = path.read_text().partition(MARK)[2]
    for command, (code, said) in _run_everywhere(tmp_path, text).items():
        if command in ("render", "krm"):
            assert code == 0 and "MXJ006" in said and "--engine jobset" in said, (command, said)
    plain = {"apiVersion": "kubeflow.org/v1beta1", "kind": "Experiment", "metadata": {"name": "e"}, "spec": {}}
    result = run_cli(["render", "-"], stdin=json.dumps(plain))
    assert result.exit_code == 0 and "MXJ006" not in result.stderr


def test_git_mode_reports_misspelt_keys_at_their_lines(tmp_path: Path) -> None:
    init_repo(tmp_path)
    (tmp_path / "job.yaml").write_text(MISSPELT)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "old")
    result = run_cli(["diff", "--base", "HEAD", "job.yaml"], cwd=tmp_path)
    assert result.exit_code == 2
    assert "HEAD:job.yaml:8:5: error MXJ101 at spec.replicaSpecs[0].replicaType" in result.stderr


def test_a_misspelt_v1_type_is_not_also_a_missing_one() -> None:
    job = json.loads(json.dumps(ZERO))
    job["spec"]["mxReplicaSpecs"]["Server"]["replicas"] = 1
    job["spec"]["mxReplicaSpecs"]["Schedulr"] = job["spec"]["mxReplicaSpecs"].pop("Scheduler")
    result = run_cli(["render", "-"], stdin=json.dumps(job))
    assert CODE.findall(result.stderr) == [("error", "MXJ203")], result.stderr
    assert "did you mean 'Scheduler'?" in result.stderr


def test_findings_on_a_refused_v1alpha1_job_name_its_own_fields_and_lines() -> None:
    """The job is refused after its conversion: each finding still names the v1alpha1 field and its line."""
    text = V1ALPHA1.format(type_key="mxReplicaType", port_key="PsRootPort", restart="restartPolicy: Sometimes")
    result = run_cli(["render", "-"], stdin=text)
    said = result.stderr
    assert result.exit_code == 1
    assert re.search(
        r"<stdin>:15:\d+: error MXJ103 at spec\.replicaSpecs\[0\]\.template\.spec\.restartPolicy: ", said
    ), said
    assert "mxReplicaSpecs" not in said, said


def test_a_v1alpha3_experiment_with_an_mxjob_raw_template_gets_the_note_too() -> None:
    experiment = {
        "apiVersion": "kubeflow.org/v1alpha3",
        "kind": "Experiment",
        "metadata": {"name": "e"},
        "spec": {"trialTemplate": {"goTemplate": {"rawTemplate": 'apiVersion: "kubeflow.org/v1"\nkind: MXJob\n'}}},
    }
    result = run_cli(["render", "-"], stdin=json.dumps(experiment))
    assert result.exit_code == 0 and "MXJ006 at spec.trialTemplate.goTemplate.rawTemplate" in result.stderr
