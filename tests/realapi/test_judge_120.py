"""The job-level edits of tests/job_edits.py on the pods engine, judged by kube-apiserver v1.20.2: each object the
renderer writes with the final judgement off (compiler.judge) is created with `dryRun=All` (admission included),
and `mxjob render --kubernetes-version 1.20` must refuse the edit exactly when the server refuses one of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from mxjob_gitops.compiler.compile import job as job_module
from mxjob_gitops.compiler.compile.documents import item_manifests
from mxjob_gitops.compiler.compile.job import compile_job
from mxjob_gitops.compiler.render.gang.plan import GangScheduler
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.spec.targets import Target
from tests.conftest import run_cli
from tests.job_edits import EDITS, Edit
from tests.realapi.cluster import RealCluster

NAMESPACE = "job-edits"
VERSION = "1.20"
PLURAL = {"Pod": "pods", "Service": "services", "ConfigMap": "configmaps", "MXJob": "mxjobs"}
# The pods engine's edits that do not name another version; PodGroups have no CRD on this server (not sent).
PODS_EDITS = [
    e for e in EDITS if "--engine" not in e.args and ("--kubernetes-version" not in e.args or VERSION in e.args)
]
MODES: tuple[tuple[str, ...], ...] = ((), ("--target", "flux", "--gang-scheduler", "kueue"))
# Each edit in each mode but those where the edit names a target or gang scheduler of its own.
RUNS = [
    (edit, mode)
    for edit in PODS_EDITS
    for mode in MODES
    if not mode or ("--target" not in edit.args and "--gang-scheduler" not in edit.args)
]


def _options(args: tuple[str, ...]) -> RenderOptions:
    values: dict[str, Any] = {"kubernetes_version": VERSION, "namespace": NAMESPACE}
    pairs = iter(args)
    for flag in pairs:
        if flag == "--no-job":
            values["include_job"] = False
        elif flag == "--gang-scheduler":
            values["gang_scheduler"] = GangScheduler.parse(next(pairs))
        elif flag == "--target":
            values["target"] = Target(next(pairs))
    return RenderOptions(**values)


def _refusals(cluster: RealCluster, objects: list[dict[str, Any]]) -> list[str]:
    found = []
    for obj in objects:
        kind = obj["kind"]
        if kind not in PLURAL:
            continue
        group = "/apis/kubeflow.org/v1" if kind == "MXJob" else "/api/v1"
        code, body = cluster.request("POST", f"{group}/namespaces/{NAMESPACE}/{PLURAL[kind]}?dryRun=All", obj)
        assert code in (200, 201, 400, 413, 422, 500), (kind, code, body)
        if code not in (200, 201):
            found.append(f"{kind} {code}: {str(body.get('message', ''))[:300]}")
    return found


@pytest.mark.parametrize(("edit", "mode"), RUNS, ids=[f"{e.name}:{' '.join(m) or 'plain'}" for e, m in RUNS])
def test_render_at_120_agrees_with_the_server(
    mxjob_crd: RealCluster, edit: Edit, mode: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = tuple(a for a in (*edit.args, *mode) if a not in ("--kubernetes-version", VERSION))
    mxjob_crd.ensure_namespace(NAMESPACE)
    job = edit.job()
    job["metadata"]["namespace"] = NAMESPACE
    with monkeypatch.context() as patch:
        patch.setattr(job_module, "judge_rendering", lambda *_args: [])
        patch.setattr(job_module, "check_job", lambda *_args: [])  # the template rules too: the servers judge
        rendering = compile_job(job, _options(args))
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(job), encoding="utf-8")
    ours = run_cli(["render", "--kubernetes-version", VERSION, "-n", NAMESPACE, *args, str(path)])
    if rendering.compiled is None:  # refused before the final judgement
        assert ours.exit_code == 1, ours.stderr
        return
    refusals = _refusals(mxjob_crd, list(item_manifests(rendering.compiled, _options(args))))
    assert ours.exit_code == (1 if refusals else 0), f"server: {refusals}; mxjob: {ours.stderr}"
