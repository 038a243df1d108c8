"""`mxjob integrations` and overlays/argocd-health: the snippets users install, as they install them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from mxjob_gitops.compiler.integrations.health import ARGOCD_CM_KEY, FLUX_EXPRESSIONS, argocd_health_lua
from tests import health_fixtures as fx
from tests.conftest import EXAMPLES, REPO, run_cli
from tests.test_health_checks import run_argocd_health, run_flux_health, stored

COMPONENT = REPO / "overlays" / "argocd-health"


@pytest.mark.parametrize(
    ("args", "code", "check"),
    [
        (["argocd-health"], 0, lambda out: yaml.safe_load(out)["data"][ARGOCD_CM_KEY] == argocd_health_lua()),
        (
            ["argocd-health", "--format", "json", "-n", "gitops"],
            0,
            lambda out: json.loads(out)["metadata"] == {"name": "argocd-cm", "namespace": "gitops"},
        ),
        (["argocd-health", "--format", "lua"], 0, lambda out: out == argocd_health_lua()),
        (
            ["flux-health"],
            0,
            lambda out: yaml.safe_load(out)["healthCheckExprs"][0]["failed"] == FLUX_EXPRESSIONS["failed"],
        ),
        (["flux-health", "--format", "json"], 0, lambda out: json.loads(out)["healthCheckExprs"][0]["kind"] == "MXJob"),
        (["flux-health", "--format", "lua"], 2, lambda out: out == ""),
        (["argocd-health", "--format", "toml"], 2, lambda out: out == ""),
        (["no-such-thing"], 2, lambda out: out == ""),
    ],
)
def test_cli_prints_the_snippets(args: list[str], code: int, check: Any) -> None:
    result = run_cli(["integrations", *args])
    assert result.exit_code == code, result.stderr
    assert check(result.stdout)
    if code:
        assert "Error" in result.stderr


def test_the_component_patch_is_what_the_cli_prints() -> None:
    """overlays/argocd-health carries a copy of the snippet; regenerate it with the command in its header."""
    expected = run_cli(["integrations", "argocd-health"]).stdout
    assert (COMPONENT / "argocd-cm-mxjob-health.yaml").read_text(encoding="utf-8") == expected


@pytest.mark.parametrize("component", ["argocd-health", "argocd-cmp"])
def test_the_component_installs_a_working_health_check(tmp_path: Path, component: str) -> None:
    for fixture in ("argocd-cm.yaml", "argocd-repo-server.yaml"):
        shutil.copy(REPO / "tests" / "fixtures" / fixture, tmp_path / fixture)
    path = os.path.relpath(REPO / "overlays" / component, tmp_path)
    (tmp_path / "kustomization.yaml").write_text(
        f"namespace: argocd\nresources: [argocd-cm.yaml, argocd-repo-server.yaml]\ncomponents: [{path}]\n",
        encoding="utf-8",
    )
    kubectl = shutil.which("kubectl")
    assert kubectl is not None, "kubectl is part of the test tools (GUIDE.md)"
    done = subprocess.run([kubectl, "kustomize", str(tmp_path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    config = next(d for d in yaml.safe_load_all(done.stdout) if d["metadata"]["name"] == "argocd-cm")
    assert config["data"]["timeout.reconciliation"] == "180s"  # merged into, not replaced
    script = config["data"][ARGOCD_CM_KEY]
    assert run_argocd_health(script, fx.failed_deadline())["status"] == "Degraded"
    assert run_argocd_health(script, fx.succeeded())["status"] == "Healthy"


def test_flux_examples_carry_the_health_check() -> None:
    for path in sorted((EXAMPLES / "gitops" / "flux").glob("*.yaml")):
        kustomizations = [
            d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d and d["kind"] == "Kustomization"
        ]
        assert kustomizations, path
        for kustomization in kustomizations:
            spec = kustomization["spec"]
            assert spec["wait"] is True, path
            (check,) = spec["healthCheckExprs"]
            assert {k: check[k] for k in FLUX_EXPRESSIONS} == FLUX_EXPRESSIONS, path
            assert (check["apiVersion"], check["kind"]) == ("kubeflow.org/v1", "MXJob")
            assert run_flux_health(stored(fx.failed_backoff_limit())) == ["Failed"]


def test_hydrator_example_renders_with_the_plugin() -> None:
    """drySource.plugin names our plugin; syncSource.path is a directory of its own (the hydrator requires one)."""
    plugin = yaml.safe_load((REPO / "overlays" / "argocd-cmp" / "plugin.yaml").read_text(encoding="utf-8"))
    (app,) = yaml.safe_load_all((EXAMPLES / "gitops" / "argocd" / "hydrator.yaml").read_text(encoding="utf-8"))
    hydrator = app["spec"]["sourceHydrator"]
    assert hydrator["drySource"]["plugin"]["name"] == plugin["metadata"]["name"]
    assert hydrator["syncSource"]["path"].strip("./") not in ("",)
    assert "source" not in app["spec"] and app["spec"]["syncPolicy"]["automated"]["prune"] is True
