"""The MXJob health checks as data: Argo CD's Lua script (argocd-cm) and Flux's CEL expressions (Kustomization).

Both read only the status `mxjob reconcile` writes and give the same verdicts (docs/argocd.md, docs/flux.md):

| MXJob status                               | Argo CD (Lua) | Flux (CEL) |
|--------------------------------------------|---------------|------------|
| condition Failed=True                      | Degraded      | Failed     |
| condition Succeeded=True                   | Healthy       | Current    |
| condition Suspended=True                   | Suspended     | Current    |
| anything else (Created, Running, Restarting, no conditions) | Progressing | InProgress |

Flux has no Suspended status; a suspended job is where Git wants it, so it counts as Current.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

from mxjob_gitops.compiler import constants as c

ARGOCD_CM_KEY = "resource.customizations.health.kubeflow.org_MXJob"
# Evaluated by kustomize-controller >= v1.5 in the order inProgress, failed, current (fluxcd/pkg
# runtime/cel/status_evaluator.go, StatusEvaluator.Evaluate); the first true one decides. Each top-level field
# is a variable there, so an object without any `status` makes even `has(status.conditions)` fail; our CRD
# therefore defaults `status` to {} (schemas/crd.py), and the server returns an MXJob the reconciler has not
# reached as `status: {}`, which reads InProgress (tests/modern/test_health.py, in Flux's own evaluator).
_FINISHED = "c.status == 'True' && c.type in ['Failed', 'Succeeded', 'Suspended']"
FLUX_EXPRESSIONS = {
    "inProgress": f"!has(status.conditions) || !status.conditions.exists(c, {_FINISHED})",
    "failed": "status.conditions.exists(c, c.status == 'True' && c.type == 'Failed')",
    "current": "status.conditions.exists(c, c.status == 'True' && c.type in ['Succeeded', 'Suspended'])",
}


def argocd_health_lua() -> str:
    """The Lua script, as Argo CD runs it for `kubeflow.org/MXJob`."""
    return files(__package__).joinpath("mxjob_health.lua").read_text(encoding="utf-8")


def argocd_cm(namespace: str = "argocd") -> dict[str, Any]:
    """A merge patch for `argocd-cm` that installs the script (kubectl patch --type merge, or a kustomize patch)."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "argocd-cm", "namespace": namespace},
        "data": {ARGOCD_CM_KEY: argocd_health_lua()},
    }


def flux_health_check() -> dict[str, Any]:
    """One `spec.healthCheckExprs` entry of a Flux Kustomization (kustomize.toolkit.fluxcd.io/v1)."""
    return {"apiVersion": f"{c.GROUP}/v1", "kind": c.KIND, **FLUX_EXPRESSIONS}
