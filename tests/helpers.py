"""Build MXJob specs and render them in-process for the unit tests."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from mxjob_gitops.compiler import RenderOptions, compile_documents, parse_text
from mxjob_gitops.compiler.io.inputs import SharedParses
from mxjob_gitops.compiler.read.source import ParseResult
from mxjob_gitops.compiler.render.emit import to_json
from tests.conftest import REPO


def container(name: str = "mxnet", image: str = "mxnet:1.9", **extra: Any) -> dict[str, Any]:
    return {"name": name, "image": image, **extra}


def replica(
    replicas: int | None = None, containers: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    spec: dict[str, Any] = {"template": {"spec": {"containers": containers or [container()]}}}
    if replicas is not None:
        spec["replicas"] = replicas
    spec.update(extra)
    return spec


def job(name: str = "mxnet-job", mode: str = "MXTrain", **replicas: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "MXJob",
        "metadata": {"name": name},
        "spec": {"jobMode": mode, "mxReplicaSpecs": replicas},
    }


def render(*documents: dict[str, Any], options: RenderOptions | None = None) -> list[dict[str, Any]]:
    text = "\n---\n".join(to_json(d) for d in documents)
    parsed = parse_text(text, "test.yaml")
    assert not parsed.diagnostics, parsed.diagnostics
    plan = compile_documents(parsed.documents, options or RenderOptions())
    assert plan.ok, [d.render() for d in plan.diagnostics]
    return list(plan.manifests())


def by_name(manifests: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    for manifest in manifests:
        if manifest["kind"] == kind and manifest["metadata"]["name"] == name:
            return manifest
    raise KeyError(f"{kind}/{name}")


def env_of(pod: dict[str, Any], container_index: int = 0) -> dict[str, str]:
    return {e["name"]: e.get("value", "") for e in pod["spec"]["containers"][container_index]["env"]}


def env_names(pod: dict[str, Any], container_index: int = 0) -> list[str]:
    return [e["name"] for e in pod["spec"]["containers"][container_index]["env"]]


def schema_script(name: str) -> ModuleType:
    """A development script of schemas/ (generate.py, kubernetes_bundle.py, ...) loaded as a module; the folder is
    on sys.path meanwhile, as when the script runs, so it can import its neighbours."""
    folder = str(REPO / "schemas")
    sys.path.insert(0, folder)
    try:
        spec = importlib.util.spec_from_file_location(name, REPO / "schemas" / f"{name}.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules.setdefault(name, module)
        spec.loader.exec_module(module)
        return sys.modules[name]
    finally:
        sys.path.remove(folder)


def git(repo: Path, *args: str) -> None:
    """One git command in `repo`, quiet, failing the test on error."""
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def init_repo(repo: Path) -> None:
    """An empty repository on branch main with a committer identity."""
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "ci")


class EveryTextParsed(SharedParses):
    """What `mxjob diff` read with before cli.inputs.SharedParses: every text parsed whole, in its turn (a test
    puts it in SharedParses' place; whatever was parsed ahead is not used)."""

    def __call__(self, text: str, file: str) -> ParseResult:
        return parse_text(text, file)
