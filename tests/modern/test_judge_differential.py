"""The job-level edits of tests/job_edits.py in every mode they name, judged by the real components: the objects the
renderer writes with compiler.judge switched off go to core-validate (Kubernetes 1.36's own Pod, Service and
ConfigMap validation) and, for the custom resources (MXJob, PodGroups, JobSet), to the 1.36 CRD server
(server-side apply, dry run); a JobSet's pods are judged as its Job controller creates them
(compiler.jobset.controllers), and under `--gang-scheduler kueue` the Workload Kueue creates for the pods or the
JobSet (compiler.gang.workload) goes to the same server with Kueue's Workload CRD. `mxjob render
--kubernetes-version 1.36` must refuse an edit exactly when one of them refuses an object, and a hypothesis
strategy mixes the edits with the modes.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.compile import job as job_module
from mxjob_gitops.compiler.compile.documents import item_manifests
from mxjob_gitops.compiler.compile.job import compile_job
from mxjob_gitops.compiler.render.gang.plan import GangScheduler
from mxjob_gitops.compiler.render.gang.workload import kueue_workload
from mxjob_gitops.compiler.render.jobset.controllers import controller_pod
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.spec.targets import Target
from tests.conftest import run_cli
from tests.job_edits import EDITS, Edit
from tests.modern.server import ModernServer, install
from tests.modern.test_crds import with_crds  # noqa: F401 - the fixture installing both PodGroup CRDs
from tests.realcomp import realcomp_bin, realcomp_share

VERSION = "1.36"
MODES: tuple[tuple[str, ...], ...] = (
    (),
    ("--target", "argocd"),
    ("--target", "flux"),
    ("--gang-scheduler", "volcano"),
    ("--gang-scheduler", "kueue"),
    ("--gang-scheduler", "scheduler-plugins"),
    ("--engine", "jobset"),
    ("--engine", "jobset", "--gang-scheduler", "kueue", "--target", "flux"),
)
# core-validate runs no admission plugin: the edits only a server with them refuses are the v1.20.2 tier's.
MODERN_EDITS = [e for e in EDITS if ("--kubernetes-version" not in e.args or VERSION in e.args) and not e.admission]


@pytest.fixture(scope="module")
def judges(with_crds: ModernServer) -> ModernServer:  # noqa: F811
    """The 1.36 CRD server with the MXJob, PodGroup, JobSet and Kueue Workload CRDs."""
    install(with_crds, realcomp_share() / "crds" / "jobset" / "jobset.x-k8s.io_jobsets.yaml")
    install(with_crds, realcomp_share() / "crds" / "kueue" / "kueue.x-k8s.io_workloads.yaml")
    return with_crds


def _options(args: tuple[str, ...]) -> RenderOptions:
    values: dict[str, Any] = {"kubernetes_version": VERSION, "namespace": "edits"}
    pairs = iter(args)
    for flag in pairs:
        if flag == "--no-job":
            values["include_job"] = False
            continue
        value = next(pairs)
        if flag == "--gang-scheduler":
            values["gang_scheduler"] = GangScheduler.parse(value)
        elif flag == "--target":
            values["target"] = Target(value)
        elif flag == "--engine":
            values["engine"] = value
    return RenderOptions(**values)


def _unjudged(job: dict[str, Any], options: RenderOptions, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What the renderer writes for the job with the final judgement off (None: the job fails an earlier check)."""
    with monkeypatch.context() as patch:
        patch.setattr(job_module, "judge_rendering", lambda *_args: [])
        patch.setattr(job_module, "check_job", lambda *_args: [])  # the template rules too: the servers judge
        rendering = compile_job(job, options)
    if rendering.compiled is None:
        return []
    objects = list(item_manifests(rendering.compiled, options))
    counts: Counter[str] = Counter()
    for obj in list(objects):
        if obj["kind"] == "JobSet":
            for index, replicated in enumerate(obj["spec"]["replicatedJobs"]):
                last = replicated["template"]["spec"]["completions"] - 1
                objects.append(controller_pod(obj, index, last))
        elif obj["kind"] == "Pod":
            counts[obj["metadata"]["name"].rsplit("-", 1)[0]] += 1
    gang = rendering.compiled.gang
    if gang is not None and gang.scheduler.kind == "kueue":
        workload = kueue_workload(objects, counts)
        objects.extend([workload] if workload is not None else [])
    return objects


def _core_refuses(objects: list[dict[str, Any]], tmp_path: Path) -> list[str]:
    core = [o for o in objects if o["apiVersion"] == "v1"]
    if not core:
        return []
    for number, obj in enumerate(core):  # generateName: core-validate judges a name as the server makes one
        if "generateName" in obj["metadata"]:
            obj["metadata"] = {**obj["metadata"], "name": obj["metadata"]["generateName"] + f"x{number}"}
    path = tmp_path / "core.json"
    path.write_text("---\n".join(json.dumps(o) + "\n" for o in core), encoding="utf-8")
    done = subprocess.run(
        [str(realcomp_bin("core-validate")), str(path)], capture_output=True, text=True, timeout=300, check=False
    )
    return [e for line in done.stdout.splitlines() if line.strip() for e in json.loads(line).get("errors") or []]


def _server_refuses(server: ModernServer, objects: list[dict[str, Any]]) -> list[str]:
    refusals = []
    for obj in objects:
        if obj["apiVersion"] == "v1":
            continue
        done = server.run(
            "apply", "--server-side", "--dry-run=server", "--validate=strict", "--field-manager=mxjob",
            "-n", "edits", "-f", "-", stdin=json.dumps(obj),
        )  # fmt: skip
        if done.returncode != 0:
            refusals.append(f"{obj['kind']}: {done.stderr.strip()[:300]}")
    return refusals


def _agree(edit: Edit, mode: tuple[str, ...], server: ModernServer, tmp_path: Path, patch: pytest.MonkeyPatch) -> None:
    args = tuple(a for a in (*edit.args, *mode) if a != VERSION and a != "--kubernetes-version")
    if "--engine" in args and "--gang-scheduler" in args and "kueue" not in " ".join(args):
        return  # a usage error: the jobset engine gang-schedules with Kueue only
    if args.count("--target") > 1 or args.count("--gang-scheduler") > 1 or args.count("--engine") > 1:
        return
    job = edit.job()
    job["metadata"]["namespace"] = "edits"
    objects = _unjudged(job, _options(args), patch)
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(job), encoding="utf-8")
    ours = run_cli(["render", "--kubernetes-version", VERSION, "-n", "edits", *args, str(path)])
    if not objects:  # refused before the final judgement, by the rules the other tiers hold to the servers
        assert ours.exit_code == 1, ours.stderr
        return
    refusals = _core_refuses(objects, tmp_path) + _server_refuses(server, objects)
    assert ours.exit_code == (1 if refusals else 0), f"{edit.name} {args}: servers say {refusals}; {ours.stderr}"


@pytest.mark.parametrize("edit", MODERN_EDITS, ids=lambda e: e.name)
def test_each_edit_in_its_mode_agrees_with_the_servers(
    judges: ModernServer, edit: Edit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _agree(edit, (), judges, tmp_path, monkeypatch)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(edit=st.sampled_from(MODERN_EDITS), mode=st.sampled_from(MODES))
def test_edits_in_any_mode_agree_with_the_servers(
    judges: ModernServer, edit: Edit, mode: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _agree(edit, mode, judges, tmp_path, monkeypatch)


KUEUE_RUNS = [e for e in MODERN_EDITS if "--gang-scheduler" not in e.args and "--engine" not in e.args]


@pytest.mark.parametrize("edit", KUEUE_RUNS, ids=lambda e: e.name)
def test_each_edit_under_kueue_agrees_with_the_servers(
    judges: ModernServer, edit: Edit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every edit of the pods engine once more with `--gang-scheduler kueue=team-a`: the Workload Kueue creates
    from its pods is judged with them."""
    _agree(edit, ("--gang-scheduler", "kueue=team-a"), judges, tmp_path, monkeypatch)
