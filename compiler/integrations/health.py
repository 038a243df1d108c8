"""The MXJob health checks as data: Argo CD's Lua script (argocd-cm) and Flux's CEL expressions (Kustomization).

Both read only the status `mxjob reconcile` writes and give the same verdicts (docs/argocd.md, docs/flux.md):

| MXJob status                               | Argo CD (Lua) | Flux (CEL) |
|--------------------------------------------|---------------|------------|
| condition Failed=True                      | Degraded      | Failed     |
| condition Refused=True (over the reconciler's bounds) | Degraded | Failed |
| condition Succeeded=True                   | Healthy       | Current    |
| condition Suspended=True                   | Suspended     | Current    |
| anything else (Created, Running, Restarting, no conditions, no status yet) | Progressing | InProgress |

Flux has no Suspended status; a suspended job is where Git wants it, so it counts as Current.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

from mxjob_gitops.compiler.spec import constants as c

ARGOCD_CM_KEY = "resource.customizations.health.kubeflow.org_MXJob"
# Evaluated by kustomize-controller >= v1.5 in the order inProgress, failed, current (fluxcd/pkg
# runtime/cel/status_evaluator.go, StatusEvaluator.Evaluate); the first true one decides, none true is InProgress,
# and an evaluation error is reported as such (Unknown) until the timeout. The expressions are parsed, not
# compiled (runtime/cel/expression.go, NewExpression), so `status` is a variable only when the object has one:
# `has(status.x)` then fails, and `has(status)` is not CEL. Whether the reconciler has written a status yet is told
# without naming `status`: every write through the status subresource leaves a managedFields entry with
# `subresource: status` (Kubernetes >= 1.22; seen on the 1.36 CRD server of the test tier). Where managedFields
# were stripped from the object altogether, `STATUS_WRITTEN` is true and the expressions read `status` directly.
# CEL's && and || are commutative and absorb an error when the other side decides, so `!written || ...` and
# `written && ...` never reach `status` on a job that has none: no status yet reads InProgress. Our own CRD also
# defaults `status` to {} (schemas/crd.py), so with it even a client that strips managedFields reads InProgress
# (tests/modern/test_health.py, in Flux's own evaluator, against the 1.36 server).
STATUS_WRITTEN = (
    "metadata.?managedFields.orValue([{'subresource': 'status'}]).exists(f, f.?subresource.orValue('') == 'status')"
)


def flux_expressions(done: str, stalled: tuple[str, ...] = ("Failed",)) -> dict[str, str]:
    """healthCheckExprs for a kind whose controller writes Kubeflow-style conditions: a `stalled` condition True is
    Failed, `done`=True or Suspended=True is Current, anything else (no status yet included) InProgress."""
    failing = ", ".join(f"'{kind}'" for kind in stalled)
    finished = f"c.status == 'True' && c.type in [{failing}, '{done}', 'Suspended']"
    current = f"c.status == 'True' && c.type in ['{done}', 'Suspended']"
    failed = (
        f"c.status == 'True' && c.type == '{stalled[0]}'"
        if len(stalled) == 1
        else f"c.status == 'True' && c.type in [{failing}]"
    )
    return {
        "inProgress": f"!{STATUS_WRITTEN} || !has(status.conditions) || !status.conditions.exists(c, {finished})",
        "failed": f"{STATUS_WRITTEN} && status.conditions.exists(c, {failed})",
        "current": f"{STATUS_WRITTEN} && status.conditions.exists(c, {current})",
    }


# Refused: `mxjob reconcile` will not act on a job over its size bounds until the spec changes (reconciler/decide.py
# refuse); kstatus reads its Stalled condition as Failed too (reconciler/standard.py).
FLUX_EXPRESSIONS = flux_expressions("Succeeded", ("Failed", "Refused"))


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
