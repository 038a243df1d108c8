"""overlays/: every overlay builds with kubectl and validates; RBAC has no wildcards; the Argo CD plugin works."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, REPO, run_cli

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
OVERLAYS = ["base", "standalone", "kubeflow", "argocd-cmp"]
PLUGIN = yaml.safe_load((REPO / "overlays" / "argocd-cmp" / "plugin.yaml").read_text(encoding="utf-8"))


def build(path: Path) -> list[dict[str, Any]]:
    done = subprocess.run([str(KUBECTL), "kustomize", str(path)], capture_output=True, text=True, check=True)
    return [d for d in yaml.safe_load_all(done.stdout) if d]


def find(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    return next(d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name)


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_overlay_builds_and_validates(overlay: str) -> None:
    docs = build(REPO / "overlays" / overlay)
    assert docs
    result = run_cli(["validate", "-"], stdin=yaml.safe_dump_all(docs))
    assert result.exit_code == 0, result.stdout
    assert "0 invalid, 0 skipped" in result.stdout


@needs_kubectl
def test_cluster_role_is_least_privilege() -> None:
    docs = build(REPO / "overlays" / "standalone")
    for kind in ("ClusterRole", "Role"):
        for role in (d for d in docs if d["kind"] == kind):
            for rule in role["rules"]:
                for key in ("apiGroups", "resources", "verbs"):
                    assert "*" not in rule[key], (role["metadata"]["name"], rule)
    role = find(docs, "ClusterRole", "mxjob-reconciler")
    status = next(r for r in role["rules"] if r["resources"] == ["mxjobs/status"])
    assert status["verbs"] == ["get", "update", "patch"]
    writes = {"create", "update", "patch", "delete", "deletecollection"}
    services = [r for r in role["rules"] if "services" in r["resources"]]
    assert not any(writes & set(r["verbs"]) for r in services)  # the reconciler never writes Services
    binding = find(docs, "ClusterRoleBinding", "mxjob-reconciler")
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "mxjob-reconciler", "namespace": "mxjob-system"}]


@needs_kubectl
@pytest.mark.parametrize(("overlay", "namespace"), [("standalone", "mxjob-system"), ("kubeflow", "kubeflow")])
def test_reconciler_runs_restricted(overlay: str, namespace: str) -> None:
    docs = build(REPO / "overlays" / overlay)
    deployment = find(docs, "Deployment", "mxjob-reconciler")
    assert deployment["metadata"]["namespace"] == namespace
    pod = deployment["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    container = pod["containers"][0]
    assert container["image"] == "registry.example.com/platform/mxjob-gitops:0.1.0"
    assert container["args"][0] == "reconcile"
    assert container["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
    }
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    crd = find(docs, "CustomResourceDefinition", "mxjobs.kubeflow.org")
    assert crd["spec"]["versions"][0]["subresources"] == {"status": {}}
    if overlay == "standalone":
        assert (
            find(docs, "Namespace", namespace)["metadata"]["labels"]["pod-security.kubernetes.io/enforce"]
            == "restricted"
        )


@needs_kubectl
def test_argocd_component_adds_the_sidecar(tmp_path: Path) -> None:
    shutil.copy(REPO / "tests" / "fixtures" / "argocd-repo-server.yaml", tmp_path / "repo-server.yaml")
    component = os.path.relpath(REPO / "overlays" / "argocd-cmp", tmp_path)
    (tmp_path / "kustomization.yaml").write_text(
        f"resources: [repo-server.yaml]\ncomponents: [{component}]\n", encoding="utf-8"
    )
    docs = build(tmp_path)
    template = find(docs, "Deployment", "argocd-repo-server")["spec"]["template"]
    spec = template["spec"]
    assert sorted(c["name"] for c in spec["containers"]) == ["argocd-repo-server", "mxjob-cmp"]
    assert template["metadata"]["annotations"]["kubectl.kubernetes.io/default-container"] == "argocd-repo-server"
    sidecar = next(c for c in spec["containers"] if c["name"] == "mxjob-cmp")
    assert sidecar["command"] == ["/var/run/argocd/argocd-cmp-server"]
    assert sidecar["securityContext"]["runAsUser"] == 999
    assert sidecar["image"] == "registry.example.com/platform/mxjob-gitops-cmp:0.1.0"
    assert {v["name"] for v in spec["volumes"]} == {"var-files", "plugins", "mxjob-cmp-plugin", "mxjob-cmp-tmp"}
    config_map = find(docs, "ConfigMap", "mxjob-cmp-plugin")
    assert config_map["metadata"]["namespace"] == "argocd"
    assert yaml.safe_load(config_map["data"]["plugin.yaml"]) == PLUGIN


def _shim(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "mxjob").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mxjob_gitops "$@"\n', encoding="utf-8")
    (bin_dir / "mxjob").chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(REPO)}


def _run_plugin(command: list[str], app: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=app, env={**os.environ, **env}, capture_output=True, text=True, check=False)


def test_generate_renders_with_the_app_namespace_and_env(tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(EXAMPLES / "train", app)
    env = {
        **_shim(tmp_path),
        "ARGOCD_APP_NAMESPACE": "training",
        "ARGOCD_ENV_MXJOB_GANG_SCHEDULER": "volcano",
        "KUBE_VERSION": "1.33",
    }
    done = _run_plugin(PLUGIN["spec"]["generate"]["command"], app, env)
    assert done.returncode == 0, done.stderr
    docs = list(yaml.safe_load_all(done.stdout))
    assert {d["metadata"]["namespace"] for d in docs} == {"training"}
    assert "PodGroup" in {d["kind"] for d in docs}
    pod = find(docs, "Pod", "mxnet-job-worker-0")
    assert pod["metadata"]["annotations"]["argocd.argoproj.io/sync-options"] == "Force=true,Replace=true"
    assert "against Kubernetes 1.33" in done.stderr


def test_generate_fails_with_nothing_on_stdout_for_an_invalid_spec(tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    broken = (EXAMPLES / "train" / "mx_job_dist_gpu.yaml").read_text(encoding="utf-8").replace("Never", "Nevr")
    (app / "job.yaml").write_text(broken, encoding="utf-8")
    for kube in ("", "1.33"):
        done = _run_plugin(PLUGIN["spec"]["generate"]["command"], app, {**_shim(tmp_path), "KUBE_VERSION": kube})
        assert done.returncode == 1
        assert done.stdout == ""
        assert "MXJ103" in done.stderr


def test_generate_tolerates_a_cluster_newer_than_the_bundled_schemas(tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(EXAMPLES / "single", app)
    done = _run_plugin(PLUGIN["spec"]["generate"]["command"], app, {**_shim(tmp_path), "KUBE_VERSION": "v1.99.1"})
    assert done.returncode == 0, done.stderr
    assert "no offline schemas for Kubernetes 1.99" in done.stderr
    assert "kind: Pod" in done.stdout


def test_discover_matches_only_directories_with_mxjobs(tmp_path: Path) -> None:
    command = PLUGIN["spec"]["discover"]["find"]["command"]
    with_job = tmp_path / "jobs"
    shutil.copytree(EXAMPLES / "tune", with_job / "nested")
    (tmp_path / "json").mkdir()
    (tmp_path / "json" / "job.json").write_text('{"apiVersion": "kubeflow.org/v1", "kind": "MXJob"}', encoding="utf-8")
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n# kind: MXJob\n", encoding="utf-8"
    )
    assert _run_plugin(command, with_job, {}).stdout.strip() == "./nested/mx_job_tune_gpu.yaml"
    assert _run_plugin(command, tmp_path / "json", {}).stdout.strip() == "./job.json"
    assert _run_plugin(command, plain, {}).stdout == ""


def test_generate_builds_an_overlay_with_kustomize(tmp_path: Path) -> None:
    """An Application that points at a kustomize overlay: the plugin builds it (the real kustomize) and renders
    what it builds, validating the same rendering."""
    from tests.kustomizetool import kustomize_binary

    binary = kustomize_binary()
    shutil.copytree(EXAMPLES / "kustomize", tmp_path / "repo")
    app = tmp_path / "repo" / "overlays" / "prod"
    env = {**_shim(tmp_path), "ARGOCD_APP_NAMESPACE": "training", "KUBE_VERSION": "1.35", "PARAM_ENGINE": "pods"}
    if binary is not None:
        env["MXJOB_KUSTOMIZE"] = binary
    done = _run_plugin(PLUGIN["spec"]["generate"]["command"], app, env)
    assert done.returncode == 0, done.stderr
    docs = list(yaml.safe_load_all(done.stdout))
    workers = sorted(d["metadata"]["name"] for d in docs if d["kind"] == "Pod" and "-worker-" in d["metadata"]["name"])
    assert workers == [f"imagenet-worker-{i}" for i in range(4)]  # the overlay's 4 workers, not the base's
    assert {d["metadata"]["namespace"] for d in docs} == {"ml"}  # the overlay's own namespace wins
    assert "against Kubernetes 1.35" in done.stderr
