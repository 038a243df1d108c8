"""The job-level edits of tests/job_edits.py on the pods engine, judged by kube-apiserver v1.20.2: each object the
renderer writes with the final judgement off (compiler.judge) is created with `dryRun=All` (admission included),
and `mxjob render --kubernetes-version 1.20` must refuse the edit exactly when the server refuses one of them. Under
`--gang-scheduler kueue` the Workload Kueue creates from the pods (compiler.gang.workload) goes to the 1.36 CRD
server with Kueue's Workload CRD (v1.20.2 cannot install that CRD, and no Kueue runs on it: Kueue's own server
judges the Workload)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from mxjob_gitops.compiler.compile import job as job_module
from mxjob_gitops.compiler.compile.documents import item_manifests
from mxjob_gitops.compiler.compile.job import compile_job
from mxjob_gitops.compiler.render.gang.plan import GangScheduler
from mxjob_gitops.compiler.render.gang.workload import kueue_workload
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.spec.targets import Target
from tests.conftest import run_cli
from tests.job_edits import EDITS, Edit
from tests.modern.server import ModernServer, install
from tests.realapi.cluster import RealCluster
from tests.realcomp import realcomp_share

NAMESPACE = "job-edits"
VERSION = "1.20"
PLURAL = {"Pod": "pods", "Service": "services", "ConfigMap": "configmaps", "MXJob": "mxjobs"}
GROUP = {"MXJob": "/apis/kubeflow.org/v1"}
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
        group = GROUP.get(kind, "/api/v1")
        code, body = cluster.request("POST", f"{group}/namespaces/{NAMESPACE}/{PLURAL[kind]}?dryRun=All", obj)
        assert code in (200, 201, 400, 413, 422, 500), (kind, code, body)
        if code not in (200, 201):
            found.append(f"{kind} {code}: {str(body.get('message', ''))[:300]}")
    return found


@pytest.fixture(scope="module")
def kueue_server() -> Iterator[ModernServer]:
    """The 1.36 CRD server with Kueue's Workload CRD."""
    with ModernServer() as server:
        install(server, realcomp_share() / "crds" / "kueue" / "kueue.x-k8s.io_workloads.yaml")
        yield server


def _workload_refusals(server: ModernServer, objects: list[dict[str, Any]]) -> list[str]:
    """What Kueue's CRD refuses of the Workload Kueue creates from the pods."""
    counts: Counter[str] = Counter(o["metadata"]["name"].rsplit("-", 1)[0] for o in objects if o["kind"] == "Pod")
    workload = kueue_workload(objects, counts)
    if workload is None:
        return []
    done = server.run(
        "apply", "--server-side", "--dry-run=server", "--field-manager=mxjob", "-n", NAMESPACE, "-f", "-",
        stdin=json.dumps(workload),
    )  # fmt: skip
    return [f"Workload: {done.stderr.strip()[:300]}"] if done.returncode else []


@pytest.mark.parametrize(("edit", "mode"), RUNS, ids=[f"{e.name}:{' '.join(m) or 'plain'}" for e, m in RUNS])
def test_render_at_120_agrees_with_the_server(
    mxjob_crd: RealCluster,
    kueue_server: ModernServer,
    edit: Edit,
    mode: tuple[str, ...],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
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
    objects = list(item_manifests(rendering.compiled, _options(args)))
    refusals = _refusals(mxjob_crd, objects)
    gang = rendering.compiled.gang
    if gang is not None and gang.scheduler.kind == "kueue":
        refusals += _workload_refusals(kueue_server, objects)
    assert ours.exit_code == (1 if refusals else 0), f"server: {refusals}; mxjob: {ours.stderr}"
