"""Flux's default health (kstatus, `wait: true` without healthCheckExprs) over MXJob states, on statuses made by the
reconciler's own decide() and written by its own status writer (reconciler.apply.Applier through the status
subresource) to the 1.36 CRD server, read back and given to the real `kstatus` (sigs.k8s.io/cli-utils v0.37.2) and
to Flux's own fork of it (flux-health without expressions), and, on the same objects, to our Argo CD Lua
(argocd-health) and Flux expressions (flux-health), whose answers do not change. reconciler/standard.py has the
table and why each row reads as it does."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from mxjob_gitops.reconciler.apply import Applier, ApplySettings
from mxjob_gitops.reconciler.decide import decide, refuse
from mxjob_gitops.reconciler.jobs import JobCache, generation_of
from mxjob_gitops.reconciler.kube import Cluster, Writer
from mxjob_gitops.reconciler.plan import Plan
from mxjob_gitops.reconciler.state import PodView
from mxjob_gitops.reconciler.trust import clean_status
from mxjob_gitops.reconciler.vocabulary import PodPhase, Reason
from tests.conftest import REPO
from tests.modern.server import ModernServer
from tests.modern.test_crd import apply, rendered_mxjob
from tests.modern.test_health import argocd, flux, run_jsonl
from tests.realcomp import realcomp_bin

NAMESPACE = "kstatus"
EXAMPLE = REPO / "examples" / "train" / "mx_job_dist_gpu.yaml"  # Scheduler, Server, Worker; restartPolicy Never
NOW = datetime(2026, 11, 25, 12, 0, 0, tzinfo=UTC)


class Job:
    """One MXJob on the server, driven by the reconciler's decide() and status writer."""

    def __init__(self, server: ModernServer, name: str, edit: Callable[[dict[str, Any]], None] | None) -> None:
        self.server, self.name = server, name
        job = rendered_mxjob(str(EXAMPLE), name)
        job["metadata"]["namespace"] = NAMESPACE
        if edit is not None:
            edit(job)
        code, _, err = apply(server, job)
        assert code == 0, err
        self.applier = Applier(Writer(Cluster.connect(str(server.kubeconfig))), ApplySettings(), lambda: NOW)

    def live(self) -> dict[str, Any]:
        text = self.server.kubectl("get", "mxjob", self.name, "-n", NAMESPACE, "-o", "json")
        return dict(json.loads(text))

    def pods(self, *phases: tuple[str, PodPhase, int | None]) -> list[PodView]:
        return [
            PodView(f"{self.name}-{kind.lower()}-0", f"uid-{kind}", kind, 0, phase, code, finished_at=NOW)
            for kind, phase, code in phases
        ]

    def decide(self, *phases: tuple[str, PodPhase, int | None]) -> None:
        live = self.live()
        self._write(live, decide(JobCache().view(live), self.pods(*phases), NOW, clean_status(live.get("status"))))

    def refuse(self) -> None:
        live = self.live()
        status = clean_status(live.get("status"))
        self._write(live, refuse(self.name, status, NOW, Reason.TOO_LARGE, "too large", generation_of(live)))

    def _write(self, live: dict[str, Any], plan: Plan) -> None:
        self.applier.status(live, plan)  # PUT .../status: the server validates it against the CRD


RUNNING = (
    ("Scheduler", PodPhase.RUNNING, None),
    ("Server", PodPhase.RUNNING, None),
    ("Worker", PodPhase.RUNNING, None),
)


def _restart_on_137(job: dict[str, Any]) -> None:
    job["spec"]["mxReplicaSpecs"]["Worker"]["restartPolicy"] = "ExitCode"


def _suspend(job: dict[str, Any]) -> None:
    job["spec"]["runPolicy"]["suspend"] = True


def _finalizer(job: dict[str, Any]) -> None:
    job["metadata"]["finalizers"] = ["tests.mxjob-gitops/hold"]


def _not_reconciled(job: Job) -> None:
    return


def _created(job: Job) -> None:
    job.decide()


def _running(job: Job) -> None:
    job.decide()
    job.decide(*RUNNING)


def _restarting(job: Job) -> None:
    _running(job)
    job.decide(*RUNNING[:2], ("Worker", PodPhase.FAILED, 137))


def _succeeded(job: Job) -> None:
    _running(job)
    job.decide(*((kind, PodPhase.SUCCEEDED, 0) for kind, _, _ in RUNNING))


def _failed(job: Job) -> None:
    _running(job)
    job.decide(*RUNNING[:2], ("Worker", PodPhase.FAILED, 1))


def _suspended(job: Job) -> None:
    job.decide()


def _refused(job: Job) -> None:
    job.refuse()


def _generation_behind(job: Job) -> None:
    _succeeded(job)  # a finished job whose spec then changes (a new generation) that the reconciler has not seen
    job.server.kubectl(
        "patch", "mxjob", job.name, "-n", NAMESPACE, "--type=merge", "-p", '{"spec":{"runPolicy":{"backoffLimit":3}}}'
    )


def _deleting(job: Job) -> None:
    _running(job)
    job.server.kubectl("delete", "mxjob", job.name, "-n", NAMESPACE, "--wait=false")


# state -> (spec change, what the reconciler did, kstatus, Argo CD (our Lua), Flux (our healthCheckExprs)).
STATES: dict[str, tuple[Callable[[dict[str, Any]], None] | None, Callable[[Job], None], str, str, str]] = {
    "not-reconciled": (None, _not_reconciled, "InProgress", "Progressing", "InProgress"),
    "created": (None, _created, "Current", "Progressing", "InProgress"),
    "running": (None, _running, "Current", "Progressing", "InProgress"),
    "restarting": (_restart_on_137, _restarting, "Current", "Progressing", "InProgress"),
    "succeeded": (None, _succeeded, "Current", "Healthy", "Current"),
    "failed": (None, _failed, "Failed", "Degraded", "Failed"),
    "suspended": (_suspend, _suspended, "Current", "Suspended", "Current"),
    "refused": (None, _refused, "Failed", "Degraded", "Failed"),
    "generation-behind": (None, _generation_behind, "InProgress", "Progressing", "InProgress"),
    "deleting": (_finalizer, _deleting, "Terminating", "Progressing", "InProgress"),
}  # fmt: skip


# The state each row reached, as the newest Kubeflow condition says (the CRD's State column): so no row reads right
# by accident of a decision that did not happen.
NEWEST = {
    "not-reconciled": None,
    "created": "Created",
    "running": "Running",
    "restarting": "Restarting",
    "succeeded": "Succeeded",
    "failed": "Failed",
    "suspended": "Suspended",
    "refused": "Refused",
    "generation-behind": "Succeeded",
    "deleting": "Running",
}


def kstatus(objects: list[dict[str, Any]], tmp_path: Path) -> list[dict[str, Any]]:
    docs = tmp_path / "kstatus.yaml"
    docs.write_text(yaml.safe_dump_all(objects), encoding="utf-8")
    return run_jsonl([str(realcomp_bin("kstatus")), str(docs)])


def flux_without_expressions(objects: list[dict[str, Any]], tmp_path: Path) -> list[dict[str, Any]]:
    """What kustomize-controller's `wait: true` computes with no healthCheckExprs for the kind: flux-health with
    an empty list falls back to Flux's own kstatus (fluxcd/cli-utils v1.2.1, whose generic rules are cli-utils')."""
    exprs, docs = tmp_path / "no-exprs.yaml", tmp_path / "flux-default.yaml"
    exprs.write_text("healthCheckExprs: []\n", encoding="utf-8")
    docs.write_text(yaml.safe_dump_all(objects), encoding="utf-8")
    return run_jsonl([str(realcomp_bin("flux-health")), "-exprs", str(exprs), str(docs)])


@pytest.mark.parametrize("state", list(STATES))
def test_each_state_reads_right_in_kstatus_and_the_engines_health_checks(
    modern_crd: ModernServer, state: str, tmp_path: Path
) -> None:
    edit, act, want_kstatus, want_argocd, want_flux = STATES[state]
    job = Job(modern_crd, f"ks-{state}", edit)
    try:
        act(job)
        live = job.live()
        conditions = live["status"].get("conditions") or [{"type": None}]
        assert conditions[-1]["type"] == NEWEST[state], conditions
        [ks] = kstatus([live], tmp_path)
        [plain] = flux_without_expressions([live], tmp_path)
        [argo] = argocd([live], tmp_path)
        [fl] = flux([live], tmp_path)
        assert (ks["status"], argo["status"], fl["status"]) == (want_kstatus, want_argocd, want_flux), (ks, argo, fl)
        assert (plain["source"], plain["status"], plain["message"]) == ("kstatus", ks["status"], ks["message"]), plain
        if want_kstatus == "Failed":  # Flux shows why: the message of the condition that stalled the job
            reason = next(c for c in live["status"]["conditions"] if c["type"] in ("Failed", "Refused"))
            assert ks["message"] == reason["message"], ks
    finally:
        if edit is _finalizer:
            modern_crd.kubectl(
                "patch", "mxjob", job.name, "-n", NAMESPACE, "--type=merge", "-p", '{"metadata":{"finalizers":null}}'
            )


def test_the_server_stores_what_the_reconciler_writes(modern_crd: ModernServer) -> None:
    """The widened CRD: Stalled and observedGeneration pass the status subresource's validation and pruning."""
    job = Job(modern_crd, "ks-stored", None)
    assert job.live()["status"] == {"observedGeneration": 0}  # the CRD's default: no generation observed yet
    _failed(job)
    live = job.live()
    status = live["status"]
    assert status["observedGeneration"] == generation_of(live) == 1
    types = [c["type"] for c in status["conditions"]]
    assert types[0] == "Stalled" and types[-1] == "Failed", types  # the State column still reads the newest: Failed
    stalled, failed = status["conditions"][0], status["conditions"][-1]
    assert (stalled["status"], stalled["reason"], stalled["message"]) == ("True", failed["reason"], failed["message"])
    listed = modern_crd.kubectl("get", "mxjob", job.name, "-n", NAMESPACE, "--no-headers")
    assert listed.split()[1] == "Failed", listed


def test_a_new_generation_reads_in_progress_until_the_reconciler_has_seen_it(
    modern_crd: ModernServer, tmp_path: Path
) -> None:
    job = Job(modern_crd, "ks-generation", None)
    _generation_behind(job)
    [ks] = kstatus([job.live()], tmp_path)
    assert ks["status"] == "InProgress", ks
    job.decide(*((kind, PodPhase.SUCCEEDED, 0) for kind, _, _ in RUNNING))
    live = job.live()
    [ks] = kstatus([live], tmp_path)
    assert (ks["status"], live["status"]["observedGeneration"]) == ("Current", 2), ks


def test_a_condition_type_outside_the_crd_is_refused(modern_crd: ModernServer) -> None:
    """The enum is enforced on the status subresource, so the widening above is what lets Stalled through."""
    job = Job(modern_crd, "ks-enum", None)
    live = job.live()
    live["status"] = {"conditions": [{"type": "Ready", "status": "True"}]}
    done = modern_crd.run("replace", "--subresource=status", "-f", "-", stdin=json.dumps(live))
    assert done.returncode != 0 and "status.conditions[0].type" in done.stderr, done.stderr
