"""The JobSet health checks (`mxjob render --engine jobset`): Argo CD's Lua script and Flux's CEL expressions.

| JobSet status                                  | Argo CD (Lua) | Flux (CEL)                    |
|------------------------------------------------|---------------|-------------------------------|
| no status yet                                  | Progressing   | InProgress                    |
| condition Failed=True                          | Degraded      | Failed                        |
| condition Completed=True                       | Healthy       | Current                       |
| condition Suspended=True                       | Suspended     | Current                       |
| anything else (running, restarting, starting)  | Progressing   | InProgress                    |

Flux (fluxcd/pkg runtime/cel status_evaluator.go `StatusEvaluator.Evaluate`; expression.go `NewExpression`) binds
only the object's own top-level fields as CEL variables, with no `self`: a JobSet the controller has not reconciled
yet has no `status`, and `has(status.x)` on it is an evaluation error. As for the MXJob (compiler.integrations.health,
STATUS_WRITTEN), the expressions first ask managedFields whether a status was written through the status
subresource (the JobSet controller writes it so), so that state reads InProgress.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

from mxjob_gitops.compiler.integrations.health import flux_expressions

JOBSET_GROUP = "jobset.x-k8s.io"
ARGOCD_CM_KEY = f"resource.customizations.health.{JOBSET_GROUP}_JobSet"
FLUX_EXPRESSIONS = flux_expressions("Completed")


def argocd_health_lua() -> str:
    """The Lua script, as Argo CD runs it for `jobset.x-k8s.io/JobSet`."""
    return files(__package__).joinpath("jobset_health.lua").read_text(encoding="utf-8")


def flux_health_check() -> dict[str, Any]:
    """One `spec.healthCheckExprs` entry of a Flux Kustomization (kustomize.toolkit.fluxcd.io/v1)."""
    return {"apiVersion": f"{JOBSET_GROUP}/v1alpha2", "kind": "JobSet", **FLUX_EXPRESSIONS}
