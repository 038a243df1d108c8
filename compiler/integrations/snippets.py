"""The snippets `mxjob integrations` prints, as values: argocd-cm's health entries and Flux's `healthCheckExprs`
for the kinds an engine renders (`pods`: the MXJob, `jobset`: the JobSet, `all`: both), and the pull-request
check script. cli/integrations.py chooses the format and prints them."""

from __future__ import annotations

from importlib.resources import files
from typing import Any

from mxjob_gitops.compiler.integrations import jobset_health
from mxjob_gitops.compiler.integrations.health import argocd_cm, argocd_health_lua, flux_health_check


def argocd_lua(engine: str) -> str:
    """The Lua health check of the one kind `engine` (pods or jobset) renders."""
    return argocd_health_lua() if engine == "pods" else jobset_health.argocd_health_lua()


def argocd_patch(namespace: str, engine: str) -> dict[str, Any]:
    """An argocd-cm ConfigMap holding the health check of each kind the engine renders."""
    patch = argocd_cm(namespace)
    if engine != "pods":
        data = {} if engine == "jobset" else patch["data"]
        patch["data"] = {**data, jobset_health.ARGOCD_CM_KEY: jobset_health.argocd_health_lua()}
    return patch


def flux_fragment(engine: str) -> dict[str, Any]:
    """A Flux Kustomization's spec fragment with the health check of each kind the engine renders."""
    checks = [flux_health_check()] if engine != "jobset" else []
    if engine != "pods":
        checks.append(jobset_health.flux_health_check())
    return {"healthCheckExprs": checks}


def pr_check_script() -> str:
    """The bash script the GitHub Action and the GitLab template run on a pull request."""
    return files("mxjob_gitops.compiler.integrations").joinpath("pr_check.sh").read_text("utf-8")
