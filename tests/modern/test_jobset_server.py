"""The JobSet engine against real components: the JobSet CRD (with its CEL rules) on a 1.36 CRD server takes every
rendering of every example, and every golden case rendered with `--engine jobset`, by server-side apply with strict
field validation, with the start order in `dependsOn` and no deprecated `startupPolicy`; and each embedded Pod
template passes the 1.36 Pod validation (core-validate), wrapped in a Pod as the Job controller makes one.

It uses the tier's one etcd + crd-apiserver (tests/modern/conftest.py), with the JobSet CRD added.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO, run_cli
from tests.modern.server import ModernServer, install
from tests.realcomp import realcomp_bin, realcomp_share

GOLDEN = REPO / "tests" / "golden"
# The golden cases rendered with --engine jobset that exit 0: their expected.out is a JobSet stream.
JOBSET_GOLDENS = sorted(
    case.name
    for case in GOLDEN.iterdir()
    if (case / "args").exists()
    and "jobset" in (case / "args").read_text(encoding="utf-8").split()
    and (case / "expected.exit").read_text(encoding="utf-8").strip() == "0"
)
# The order startupPolicy InOrder gave and dependsOn must keep: each after the one before it is Ready.
TRAIN_ORDER = ["scheduler", "server", "worker"]
# Every example that holds an MXJob spec (kustomize overlays are patches; their base is here).
EXAMPLES = sorted(p for p in (REPO / "examples").rglob("*.yaml") if "mxReplicaSpecs:" in p.read_text(encoding="utf-8"))
VARIANTS: tuple[tuple[str, list[str]], ...] = (
    ("plain", []),
    ("kueue", ["--gang-scheduler", "kueue=team-a"]),
    ("exit-codes", ["--exit-codes", "137=permanent,3=retryable,Evicted=permanent"]),
    ("argocd", ["--target", "argocd"]),
)


@pytest.fixture(scope="module")
def jobset_server(modern: ModernServer) -> ModernServer:
    """The tier's one 1.36 server (tests/modern/conftest.py) with the JobSet CRD installed server-side."""
    install(modern, realcomp_share() / "crds" / "jobset" / "jobset.x-k8s.io_jobsets.yaml")
    return modern


def _render(example: Path, flags: list[str]) -> list[dict[str, Any]]:
    result = run_cli(["render", "--engine", "jobset", *flags, str(example)])
    assert result.exit_code == 0, result.stderr
    return [d for d in yaml.safe_load_all(result.stdout) if d]


@pytest.mark.parametrize("flags", [v[1] for v in VARIANTS], ids=[v[0] for v in VARIANTS])
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.parent.name + "/" + p.stem for p in EXAMPLES])
def test_the_crd_server_takes_every_rendering(jobset_server: ModernServer, example: Path, flags: list[str]) -> None:
    documents = _render(example, flags)
    assert [d["kind"] for d in documents] == ["JobSet"]
    stored = _apply(jobset_server, documents[0], "t-" + example.stem.replace("_", "-"))
    _assert_start_order(stored)


@pytest.mark.parametrize("case", JOBSET_GOLDENS)
def test_the_crd_server_takes_every_jobset_golden(jobset_server: ModernServer, case: str) -> None:
    text = (GOLDEN / case / "expected.out").read_text(encoding="utf-8")
    documents = [d for d in yaml.safe_load_all(text) if d]
    assert [d["kind"] for d in documents] == ["JobSet"]
    stored = _apply(jobset_server, documents[0], "g-" + case)
    _assert_start_order(stored)


def test_jobset_goldens_are_found() -> None:
    assert {"train-jobset", "byteps-jobset", "tune-jobset"} <= set(JOBSET_GOLDENS)


def test_depends_on_and_an_in_order_startup_policy_are_refused_together(jobset_server: ModernServer) -> None:
    """The CRD's CEL rule that makes the two APIs exclusive is live on this server: the order we write could not
    be kept by adding the deprecated field back."""
    (jobset,) = _render(REPO / "examples" / "train" / "mx_job_dist_gpu.yaml", [])
    jobset["spec"]["startupPolicy"] = {"startupPolicyOrder": "InOrder"}
    argv = ("apply", "--server-side", "--validate=strict", "--field-manager=mxjob", "-n", "t-exclusive", "-f", "-")
    done = jobset_server.run(*argv, stdin=yaml.safe_dump(jobset))
    assert done.returncode != 0 and "mutually exclusive" in done.stderr, done.stderr


def _apply(server: ModernServer, jobset: dict[str, Any], default_namespace: str) -> dict[str, Any]:
    """Apply server-side with strict field validation; what the server stored, which must hold all we wrote."""
    namespace = jobset["metadata"].get("namespace") or default_namespace
    server.kubectl(
        "apply",
        "--server-side",
        "--validate=strict",  # fieldValidation=Strict on the request
        "--field-manager=mxjob",
        "-n",
        namespace,
        "-f",
        "-",
        stdin=yaml.safe_dump(jobset),
    )
    name = jobset["metadata"]["name"]
    stored: dict[str, Any] = json.loads(server.kubectl("get", "-n", namespace, "jobset", name, "-o", "json"))
    server.kubectl("delete", "-n", namespace, "jobset", name)
    # Nothing we wrote was pruned or changed by the schema (the server adds only defaults we leave out).
    assert _contains(stored["spec"], jobset["spec"]), stored["spec"]
    return stored


def _assert_start_order(stored: dict[str, Any]) -> None:
    """No startupPolicy; with a scheduler, each replicatedJob after it depends on the one before being Ready."""
    spec = stored["spec"]
    assert "startupPolicy" not in spec
    names = [r["name"] for r in spec["replicatedJobs"]]
    depends = [r.get("dependsOn") for r in spec["replicatedJobs"]]
    if names[0] == "scheduler":
        assert names == [n for n in TRAIN_ORDER if n in names], names
        assert depends == [None, *([{"name": a, "status": "Ready"}] for a in names[:-1])], depends
        assert spec["coordinator"] == {"replicatedJob": "scheduler", "jobIndex": 0, "podIndex": 0}
    else:  # a lone Worker, MXTune: nothing waits (AnyOrder)
        assert depends == [None] * len(names), depends


def _contains(stored: Any, written: Any) -> bool:
    if isinstance(written, dict):
        return isinstance(stored, dict) and all(k in stored and _contains(stored[k], v) for k, v in written.items())
    if isinstance(written, list):
        return isinstance(stored, list) and len(stored) == len(written) and all(map(_contains, stored, written))
    return bool(stored == written)


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.parent.name + "/" + p.stem for p in EXAMPLES])
def test_every_pod_template_passes_pod_validation(example: Path, tmp_path: Path) -> None:
    validate = realcomp_bin("core-validate")
    pods = []
    for document in _render(example, []):
        name = document["metadata"]["name"]
        for rjob in document["spec"]["replicatedJobs"]:
            template = rjob["template"]["spec"]["template"]
            # As the Job controller creates them: the template, a name, and the subdomain JobSet sets.
            metadata = {**template["metadata"], "name": f"{name}-{rjob['name']}-0-0"}
            spec = {**template["spec"], "subdomain": document["spec"]["network"]["subdomain"]}
            pods.append({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec})
    path = tmp_path / "pods.yaml"
    path.write_text(yaml.safe_dump_all(pods), encoding="utf-8")
    result = subprocess.run([str(validate), str(path)], capture_output=True, text=True, timeout=60)
    verdicts = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert len(verdicts) == len(pods), result.stderr
    assert all(not v.get("errors") for v in verdicts), verdicts
    assert result.returncode == 0
