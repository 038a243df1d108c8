"""The JobSet engine against real components: the JobSet CRD (with its CEL rules) on a 1.36 CRD server takes every
rendering of every example by server-side apply with strict field validation, and each embedded Pod template
passes the 1.36 Pod validation (core-validate), wrapped in a Pod as the Job controller makes one.

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
    namespace = documents[0]["metadata"].get("namespace") or "t-" + example.stem.replace("_", "-")
    text = yaml.safe_dump_all(documents)
    jobset_server.kubectl(
        "apply",
        "--server-side",
        "--validate=strict",  # fieldValidation=Strict on the request
        "--field-manager=mxjob",
        "-n",
        namespace,
        "-f",
        "-",
        stdin=text,
    )
    name = documents[0]["metadata"]["name"]
    stored = json.loads(jobset_server.kubectl("get", "-n", namespace, "jobset", name, "-o", "json"))
    # Nothing we wrote was pruned or changed by the schema (the server adds only defaults we leave out).
    assert _contains(stored["spec"], documents[0]["spec"]), stored["spec"]
    jobset_server.kubectl("delete", "-n", namespace, "jobset", name)


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
