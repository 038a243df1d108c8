"""The MXJob health checks run in real interpreters: the Argo CD script in Lua 5.1, the Flux expressions in Flux's
own CEL evaluator (realcomp's flux-health).

Inputs are MXJob objects whose status the reconciler's decide() wrote (tests/health_fixtures.py); the table is
laid out like Argo CD's resource_customizations/*/health_test.yaml cases (input, status, message).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from lupa import lua51

from mxjob_gitops.compiler.integrations.health import FLUX_EXPRESSIONS, argocd_health_lua, flux_health_check
from tests import health_fixtures as fx
from tests.realcomp import realcomp_bin

ACTIVE = "Scheduler 1/1 active; Server 1/1 active; Worker 2/2 active"
# Lua verdict -> the kstatus status Flux reports for the same object (compiler/integrations/health.py).
FLUX_FOR = {"Healthy": "Current", "Degraded": "Failed", "Progressing": "InProgress", "Suspended": "Current"}
CASES: list[tuple[str, Callable[[], dict[str, Any]], str, str]] = [
    (
        "created only",
        fx.created,
        "Progressing",
        "MXJob mnist is created. (Scheduler 0/1 active; Server 0/1 active; Worker 0/2 active)",
    ),
    ("running", fx.running, "Progressing", f"MXJob mnist is running. ({ACTIVE})"),
    (
        "restarting",
        fx.restarting,
        "Progressing",
        "job mnist is restarting because Worker replica(s) failed. "
        "(Scheduler 1/1 active; Server 1/1 active; Worker 1/2 active, 1 failed)",
    ),
    ("suspended", fx.suspended, "Suspended", "MXJob mnist is suspended."),
    ("succeeded", fx.succeeded, "Healthy", "MXJob mnist is successfully completed."),
    (
        "failed: permanent exit code",
        fx.failed_permanent_exit_code,
        "Degraded",
        "mxjob mnist is failed because 1 Worker replica(s) failed.",
    ),
    (
        "failed: backoff limit",
        fx.failed_backoff_limit,
        "Degraded",
        "Job mnist has failed because it has reached the specified backoff limit",
    ),
    (
        "failed: deadline",
        fx.failed_deadline,
        "Degraded",
        "Job mnist has failed because it was active longer than specified deadline",
    ),
    (
        "no conditions",
        fx.no_conditions,
        "Progressing",
        f"Waiting for the MXJob reconciler to report a status ({ACTIVE})",
    ),
]


def run_argocd_health(script: str, obj: dict[str, Any]) -> dict[str, Any]:
    """Run a health script the way Argo CD does (util/lua/lua.go, runLuaWithResourceActionParameters and
    ExecuteHealthLua): Lua 5.1 with only the package, base and table libraries and a safe `os` that has just
    `time` and `date` (util/lua/oslib_safe.go, OpenSafeOs), the object as global `obj`, the returned table as
    the result, an unknown status turned into Unknown."""
    runtime = lua51.LuaRuntime()
    runtime.execute(
        "debug.setmetatable('', nil) os = {time = os.time, date = os.date} "
        "string, math, io, debug, coroutine, python = nil, nil, nil, nil, nil, nil"
    )
    runtime.globals()["obj"] = runtime.table_from(obj, recursive=True)
    result = runtime.execute(script)
    assert lua51.lua_type(result) == "table"
    verdict: dict[str, Any] = {str(k): v for k, v in result.items()}
    if verdict.get("status") not in ("Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"):
        return {"status": "Unknown", "message": "invalid health status"}
    return verdict


def stored(obj: dict[str, Any]) -> dict[str, Any]:
    """The object as the API server hands it to Flux: applied by the GitOps engine, and with an entry for the
    reconciler's status write when there is a status (a write through the status subresource is recorded with
    `subresource: status` in managedFields; tests/modern checks that on the 1.36 CRD server)."""
    fields = [{"manager": "kustomize-controller", "operation": "Apply", "apiVersion": "kubeflow.org/v1"}]
    if "status" in obj:
        fields.append({"manager": "mxjob-reconcile", "operation": "Update", "subresource": "status"})
    return {**obj, "metadata": {**obj["metadata"], "managedFields": fields}}


def run_flux_health(*objects: dict[str, Any]) -> list[str]:
    """Flux's own evaluator (fluxcd/pkg runtime/cel StatusEvaluator, built as `flux-health`) on our expressions;
    an evaluation error reads Unknown, as Flux's status reader reports it."""
    binary = realcomp_bin("flux-health")
    with tempfile.TemporaryDirectory() as work:
        exprs, objs = Path(work) / "exprs.yaml", Path(work) / "objects.yaml"
        exprs.write_text(yaml.safe_dump({"healthCheckExprs": [flux_health_check()]}), encoding="utf-8")
        objs.write_text(yaml.safe_dump_all(objects), encoding="utf-8")
        done = subprocess.run(
            [str(binary), "-exprs", str(exprs), str(objs)], capture_output=True, text=True, check=False
        )
    verdicts = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(verdicts) == len(objects), done.stderr
    return [str(v["status"]) for v in verdicts]


@pytest.mark.parametrize(("build", "status", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_argocd_health_script(build: Callable[[], dict[str, Any]], status: str, message: str) -> None:
    assert run_argocd_health(argocd_health_lua(), build()) == {"status": status, "message": message}


@pytest.mark.parametrize(("build", "status"), [c[1:3] for c in CASES], ids=[c[0] for c in CASES])
def test_flux_expressions_match_the_lua_verdicts(build: Callable[[], dict[str, Any]], status: str) -> None:
    assert run_flux_health(stored(build())) == [FLUX_FOR[status]]


def test_a_job_without_any_status_yet() -> None:
    fresh = fx.mxjob()
    assert run_argocd_health(argocd_health_lua(), fresh) == {
        "status": "Progressing",
        "message": "Waiting for the MXJob reconciler to report a status",
    }
    # Applied, not yet reconciled: InProgress in Flux's own evaluator, not an evaluation error (Unknown).
    assert run_flux_health(stored(fresh)) == ["InProgress"]


def test_the_lua_sandbox_is_as_narrow_as_argo_cds() -> None:
    """A script that reaches for the string library fails here as it would in Argo CD."""
    with pytest.raises(lua51.LuaError):
        run_argocd_health("return {status = string.upper('healthy')}", fx.running())
    with pytest.raises(lua51.LuaError):
        run_argocd_health("return {status = ('x'):rep(2)}", fx.running())
    with pytest.raises(lua51.LuaError):
        run_argocd_health("return {status = os.getenv('HOME')}", fx.running())
    assert run_argocd_health("return {status = 'Healthy', message = os.date('!%Y', 0)}", fx.running()) == {
        "status": "Healthy",
        "message": "1970",
    }


def test_the_flux_entry_names_the_mxjob_kind() -> None:
    assert flux_health_check() == {"apiVersion": "kubeflow.org/v1", "kind": "MXJob", **FLUX_EXPRESSIONS}


@pytest.mark.parametrize(("build", "status"), [c[1:3] for c in CASES], ids=[c[0] for c in CASES])
def test_a_generation_the_reconciler_has_not_seen_reads_in_progress(
    build: Callable[[], dict[str, Any]], status: str
) -> None:
    """The reconciler writes the generation it acted on (status.observedGeneration, reconciler/standard.py); a spec
    changed in Git since (a new metadata.generation) reads InProgress in Flux, which checks the generation before
    any expression, and Progressing in Argo CD, until the reconciler's next pass has seen it."""
    obj = build()
    assert obj["status"]["observedGeneration"] == obj["metadata"]["generation"] == 1
    stale = {**obj, "metadata": {**obj["metadata"], "generation": 2}}
    assert run_flux_health(stored(obj), stored(stale)) == [FLUX_FOR[status], "InProgress"]
    assert run_argocd_health(argocd_health_lua(), stale) == {
        "status": "Progressing",
        "message": "Waiting for the MXJob reconciler to observe generation 2",
    }
