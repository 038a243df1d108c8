"""The independent mutation catalog (tests/hidden_mutations.py) against real servers.

Every case is one edit to an object `mxjob render examples/single` writes. Expected verdicts come only from the
servers: kube-apiserver v1.20.2 of this tier (`dryRun=All` creates over HTTPS, admission included) and
core-validate (Kubernetes 1.36's own defaulting and validation, offline). `mxjob validate` must agree with
each: with `--kubernetes-version 1.20` against v1.20.2 (every case: a rule 1.20 did not have reads as 1.20 read
it), and with 1.36 against
core-validate (cases marked `http_only` are verdicts only the HTTP path gives, see tests/hidden_mutations.py).
Pod edits that touch only `spec` go into the Worker's pod template too: `mxjob render` must refuse them
exactly when v1.20.2 refuses the pod.
"""

from __future__ import annotations

import copy
import json
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import run_cli
from tests.hidden_mutations import CASES, EXAMPLE_PODS, Case, apply, render_bases
from tests.realapi.cluster import RealCluster
from tests.realcomp import realcomp_bin

NAMESPACE = "hidden-catalog"
OLDEST_SHIPPED = "1.20"
MODERN = "1.36"
PLURAL = {"Pod": "pods", "Service": "services", "ConfigMap": "configmaps"}
# Edits that `mxjob render` refuses by the MXJob's own rules, with the code: the operator needs the container
# named mxnet (MXJ206); each mxnet port becomes a port of the replica's headless Service, so a port without a name
# next to the added mxjob-port, or a second port 9091/TCP, makes a Service v1.20.2 refuses (`spec.ports[1]:
# Duplicate value`, seen from that server while render still wrote it) (MXJ208).
RENDER_OWN_RULES = {
    "ctr.name-63": "MXJ206",
    "port.unnamed-ok": "MXJ208",
    "port.name-15": "MXJ208",
    "port.name-one-letter-digits": "MXJ208",
    "port.same-number-other-name": "MXJ208",
}


BASES = render_bases()


def mutated(index: int, item: Case) -> dict[str, Any]:
    """The case's object; names get the case's index first so that no two files render the same object."""
    obj = copy.deepcopy(BASES[item.base])
    if obj["kind"] != "MXJob":
        obj["metadata"]["name"] = f"{obj['metadata']['name']}-h{index}"
    return apply(obj, item.steps)


def template_case(item: Case) -> bool:
    """A pod edit of the spec, labels or annotations: the same edit fits the pod template."""
    allowed = ("spec.", "metadata.labels.", "metadata.annotations.")
    return item.base in EXAMPLE_PODS and all(path.startswith(allowed) for _, path, _ in item.steps)


def with_template_edit(item: Case) -> dict[str, Any]:
    """The MXJob with the case's edit made to the pod template of the pod's replica type."""
    job = copy.deepcopy(BASES[f"{item.base}:job"])
    template = job["spec"]["mxReplicaSpecs"][EXAMPLE_PODS[item.base][2]]["template"]
    apply(template, item.steps)
    return job


def _write(directory: Path, index: int, obj: dict[str, Any]) -> Path:
    path = directory / f"case{index:03d}.yaml"
    path.write_text(yaml.safe_dump(obj, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def validate_verdicts(directory: Path, files: dict[int, Path], version: str, strict: bool = True) -> dict[int, bool]:
    """`mxjob validate` of every file in one run: index -> accepted (no error for that file)."""
    if not files:
        return {}
    mode = "--strict" if strict else "--no-strict"
    argv = ["validate", "--kubernetes-version", version, mode, "--format", "json", "-q", str(directory)]
    result = run_cli(argv)
    assert result.exit_code in (0, 1), result.stdout + result.stderr
    report = json.loads(result.stdout)
    bad: set[str] = set()
    for diagnostic in report["diagnostics"]:
        if diagnostic["severity"] == "error":
            bad.add(diagnostic.get("file") or "")
    seen: set[str] = set()
    for resource in report["resources"]:
        origin = resource["origin"]["file"]
        seen.add(origin)
        if resource["status"] != "valid":
            bad.add(origin)
    missing = [str(p) for p in files.values() if str(p) not in seen and str(p) not in bad]
    assert not missing, f"validate reported nothing for {missing}"
    return {index: str(path) not in bad for index, path in files.items()}


def judge_validate(tmp: Path, version: str, indices: list[int], strict: bool = True) -> dict[int, bool]:
    """Core objects go in one validate run; each MXJob alone (every MXJob renders the same pod names)."""
    verdicts: dict[int, bool] = {}
    tmp = tmp / ("strict" if strict else "relaxed")
    tmp.mkdir()
    core_dir = tmp / f"core-{version}"
    core_dir.mkdir()
    core_files = {}
    for index in indices:
        item = CASES[index]
        if BASES[item.base]["kind"] == "MXJob":
            alone = tmp / f"job-{version}-{index}"
            alone.mkdir()
            verdicts |= validate_verdicts(alone, {index: _write(alone, index, mutated(index, item))}, version, strict)
        else:
            core_files[index] = _write(core_dir, index, mutated(index, item))
    return verdicts | validate_verdicts(core_dir, core_files, version, strict)


@pytest.fixture(scope="module")
def server_verdicts(mxjob_crd: RealCluster) -> dict[int, tuple[bool, str]]:
    """v1.20.2's answer to a dry-run create of every case: index -> (accepted, message). The requests go out
    from a few threads at once (each is independent; nothing is stored with dryRun=All)."""
    mxjob_crd.ensure_namespace(NAMESPACE)

    def ask(index: int) -> tuple[bool, str]:
        item = CASES[index]
        kind = BASES[item.base]["kind"]
        if kind == "MXJob":
            path = f"/apis/kubeflow.org/v1/namespaces/{NAMESPACE}/mxjobs?dryRun=All"
        else:
            path = f"/api/v1/namespaces/{NAMESPACE}/{PLURAL[kind]}?dryRun=All"
        code, body = mxjob_crd.request("POST", path, mutated(index, item))
        # 500: v1.20.2's RuntimeClass admission fails on `runtimeClassName: ""` (1.36 refuses it as invalid).
        assert code in (200, 201, 400, 403, 422, 500), (item.name, code, body)
        return code in (200, 201), str(body.get("message", ""))[:300]

    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(enumerate(pool.map(ask, range(len(CASES)))))


@pytest.fixture(scope="module")
def core_validate_verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[bool, str]]:
    """core-validate (Kubernetes 1.36) on every Pod, Service and ConfigMap case, in one run."""
    binary = realcomp_bin("core-validate")
    indices = [i for i, item in enumerate(CASES) if BASES[item.base]["kind"] in PLURAL and not item.http_only]
    stream = tmp_path_factory.mktemp("core-validate") / "cases.yaml"
    stream.write_text("".join("---\n" + json.dumps(mutated(i, CASES[i])) + "\n" for i in indices), encoding="utf-8")
    run = subprocess.run([str(binary), str(stream)], capture_output=True, text=True, timeout=300)
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    assert len(lines) == len(indices), run.stderr[-2000:]
    return {
        i: (not line["errors"], "; ".join(line["errors"] or [])[:300]) for i, line in zip(indices, lines, strict=True)
    }


def _disagreements(ours: dict[int, bool], theirs: dict[int, tuple[bool, str]], what: str) -> Iterator[str]:
    for index, accepted in sorted(ours.items()):
        expected, message = theirs[index]
        if accepted != expected:
            side = "false positive (we reject)" if expected else "false negative (we accept)"
            yield f"{CASES[index].name}: {side}; {what} says: {message or 'accepted'}"


def test_validate_agrees_with_kube_apiserver_120(server_verdicts: dict[int, tuple[bool, str]], tmp_path: Path) -> None:
    """At 1.20 itself, relaxed: v1.20.2 has no strict field validation (it came in 1.25) and its decoder drops a field
    it does not know, such as one added in a later release, so `--no-strict` is the same question. Strict
    validation refuses those unknown fields too, as kubectl's schema check against a 1.20 server does."""
    indices = list(range(len(CASES)))
    assert len(indices) >= 200
    ours = judge_validate(tmp_path, OLDEST_SHIPPED, indices, strict=False)
    found = list(_disagreements(ours, server_verdicts, "kube-apiserver v1.20.2"))
    assert not found, f"{len(found)} of {len(indices)} cases disagree:\n" + "\n".join(found)


def test_validate_agrees_with_core_validate_136(
    core_validate_verdicts: dict[int, tuple[bool, str]], tmp_path: Path
) -> None:
    ours = judge_validate(tmp_path, MODERN, sorted(core_validate_verdicts))
    found = list(_disagreements(ours, core_validate_verdicts, "core-validate 1.36"))
    assert not found, f"{len(found)} of {len(ours)} cases disagree:\n" + "\n".join(found)


def _dry_run(cluster: RealCluster, obj: dict[str, Any]) -> tuple[bool, str]:
    obj["metadata"].pop("namespace", None)
    code, body = cluster.request("POST", f"/api/v1/namespaces/{NAMESPACE}/{PLURAL[obj['kind']]}?dryRun=All", obj)
    assert code in (200, 201, 400, 403, 422), (code, body)
    return code in (200, 201), str(body.get("message", ""))[:300]


def test_render_refuses_what_kube_apiserver_120_refuses(
    mxjob_crd: RealCluster, server_verdicts: dict[int, tuple[bool, str]], tmp_path: Path
) -> None:
    """Refused: v1.20.2 must refuse the pod carrying the edit. Rendered: v1.20.2 must accept every Pod, Service
    and ConfigMap written (the compiler may complete or override what the template says, e.g. restartPolicy)."""
    indices = [i for i, item in enumerate(CASES) if template_case(item) and not item.http_only]
    assert len(indices) >= 150
    found: list[str] = []
    for index in indices:
        name = CASES[index].name
        path = _write(tmp_path, index, with_template_edit(CASES[index]))
        result = run_cli(["render", "--kubernetes-version", OLDEST_SHIPPED, "--no-job", str(path)])
        assert result.exit_code in (0, 1), (name, result.stderr[-2000:])
        if name in RENDER_OWN_RULES:
            if result.exit_code != 1 or RENDER_OWN_RULES[name] not in result.stderr:
                found.append(f"{name}: render should refuse with {RENDER_OWN_RULES[name]}: {result.stderr[:300]}")
            continue
        if result.exit_code == 1:
            accepted, _ = server_verdicts[index]
            if accepted:
                found.append(f"{name}: render refuses a pod v1.20.2 accepts; render says: {result.stderr[:300]}")
            continue
        for obj in yaml.safe_load_all(result.stdout):
            accepted, message = _dry_run(mxjob_crd, obj)
            if not accepted:
                found.append(f"{name}: render wrote a {obj['kind']} v1.20.2 refuses: {message}")
    assert not found, f"{len(found)} of {len(indices)} cases disagree:\n" + "\n".join(found)
