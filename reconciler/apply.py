"""Carry out a Plan through the client, and only write: events first (idempotent names), then the status
(so a crash never loses a counted restart), then deletions, recreations and GitOps nudges. A dry run only
logs what it would do. Every failure is raised to the caller, which requeues the job."""

from __future__ import annotations

import contextlib
import hashlib
import logging
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any, assert_never

from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.reconciler.dryrun import action_line, status_line
from mxjob_gitops.reconciler.gitops import verified_owners
from mxjob_gitops.reconciler.kube import ClusterError, Conflict, Fenced, Writer
from mxjob_gitops.reconciler.kueue import MarkUnretriable, ReleasePod
from mxjob_gitops.reconciler.plan import Action, CreatePod, DeletePod, Event, Nudge, Plan
from mxjob_gitops.reconciler.state import timestamp

log = logging.getLogger("mxjob.reconcile")
EVENT_SENDERS = 8  # events created at once beside the workers' own requests (Applier.events)
FLUX_REQUESTED_AT = "reconcile.fluxcd.io/requestedAt"
ARGO_REFRESH = "argocd.argoproj.io/refresh"


@dataclass(frozen=True, slots=True)
class ApplySettings:
    dry_run: bool = False
    recreate: bool = True
    argocd_namespace: str = "argocd"
    flux_namespace: str = "flux-system"


class Applier:
    def __init__(self, writer: Writer | None, settings: ApplySettings, clock: Callable[[], datetime]) -> None:
        self.writer = None if settings.dry_run else writer
        self.settings = settings
        self.clock = clock
        # Shared by every worker: bounds the events in flight beside the workers' own requests.
        self._senders = ThreadPoolExecutor(EVENT_SENDERS, thread_name_prefix="events")

    def events(self, job: dict[str, Any], plan: Plan) -> None:
        """Before the status: a crash after this and before the status write decides the same events again,
        and their names (a hash of job, generation, reason, message and subject) make re-creating them a
        409 that is ignored, so an event is neither lost nor doubled. They are created at once, not one after
        another (an exit brings two, ExitedWithCode and MXJobRestarting): the status write, which is what the
        job's watchers wait for, then waits for one round trip instead of one per event."""
        events: list[Action] = [a for a in plan.actions if isinstance(a, Event)]
        if self.writer is None or len(events) < 2:
            self._each(job, events, {})
            return
        others = [self._senders.submit(self._each, job, [event], {}) for event in events[1:]]
        failures: list[ClusterError] = []
        try:
            self._each(job, events[:1], {})
        except ClusterError as exc:
            failures.append(exc)
        for other in others:
            try:
                other.result()
            except ClusterError as exc:
                failures.append(exc)
        if failures:
            raise next((x for x in failures if isinstance(x, Fenced)), failures[0])

    def status(self, job: dict[str, Any], plan: Plan) -> dict[str, Any] | None:
        """Write the new status when it changed; returns the updated job. Raises Conflict on 409."""
        if (job.get("status") or {}) == plan.status:
            return None
        meta = job["metadata"]
        if self.writer is None:
            namespace = str(meta.get("namespace") or "")
            conditions = [str(x["type"]) for x in plan.status["conditions"]]
            log.info(
                status_line(namespace, str(meta["name"]), conditions),
                extra={"job": f"{namespace}/{meta['name']}", "conditions": conditions},
            )
            return None
        return self.writer.replace_status({**job, "status": plan.status})

    def actions(self, job: dict[str, Any], plan: Plan, pods: Mapping[str, Mapping[str, Any]]) -> None:
        """Every action after the status; one failing does not stop the others, the first error is raised."""
        self._each(job, [a for a in plan.actions if not isinstance(a, Event)], pods)

    def _each(self, job: dict[str, Any], actions: list[Action], pods: Mapping[str, Mapping[str, Any]]) -> None:
        meta = job["metadata"]
        namespace, name = str(meta.get("namespace") or ""), str(meta["name"])
        failures: list[ClusterError] = []
        for action in actions:
            where = {"job": f"{namespace}/{name}", "action": type(action).__name__}
            if self.writer is None:
                log.info(action_line(action, namespace, name), extra=where)
                continue
            try:
                self._one(self.writer, job, namespace, action, pods)
            except Fenced:
                raise
            except OutOfScope as exc:  # never retried: only a change of the job can help
                log.warning(f"refused: {exc}", extra=where)
            except ClusterError as exc:
                log.warning(f"{_describe(action)} failed: {exc}", extra=where)
                failures.append(exc)
        if failures:
            raise failures[0]

    def _one(
        self, writer: Writer, job: dict[str, Any], namespace: str, action: Action, pods: Mapping[str, Mapping[str, Any]]
    ) -> None:
        match action:
            case Event():
                with contextlib.suppress(Conflict):  # recorded before a crash: the same name, already there
                    writer.create(self._event(job, action))
            case DeletePod():
                if writer.delete("v1", "Pod", namespace, action.name, action.uid or None):
                    log.info(
                        f"deleted pod {action.name}: {action.reason}",
                        extra={"job": f"{namespace}/{job['metadata']['name']}"},
                    )
            case CreatePod():
                if (action.manifest.get("metadata") or {}).get("namespace", namespace) != namespace:
                    raise OutOfScope(f"not creating pod {action.name} outside the job's namespace {namespace}")
                with contextlib.suppress(Conflict):  # there already (the GitOps engine's, or ours before a crash)
                    writer.create({**action.manifest})
                    log.info(f"recreated pod {action.name}", extra={"job": f"{namespace}/{job['metadata']['name']}"})
            case Nudge():
                self._nudge(writer, namespace, pods.get(action.pod))
            case ReleasePod() | MarkUnretriable():  # a pod already gone needs neither
                writer.merge_patch("v1", "Pod", namespace, action.name, action.patch(), missing_ok=True)
                log.info(_describe(action), extra={"job": f"{namespace}/{job['metadata']['name']}"})
            case _:
                assert_never(action)

    def _nudge(self, writer: Writer, namespace: str, pod: Mapping[str, Any] | None) -> None:
        """Ask the owner (a Flux Kustomization, an Argo CD Application) to reconcile now: only an owner whose own
        status lists this pod (reconciler.gitops), never one a pod's labels alone name."""
        if pod is None:
            return
        now = timestamp(self.clock())
        settings = self.settings
        for owner in verified_owners(
            writer.cluster.get, pod, namespace, settings.argocd_namespace, settings.flux_namespace
        ):
            key = FLUX_REQUESTED_AT if owner.kind == "Kustomization" else ARGO_REFRESH
            value = now if owner.kind == "Kustomization" else "normal"
            writer.merge_patch(
                owner.api_version, owner.kind, owner.namespace, owner.name, {"metadata": {"annotations": {key: value}}}
            )

    def _event(self, job: dict[str, Any], event: Event) -> dict[str, Any]:
        meta = job["metadata"]
        now = timestamp(self.clock())
        return {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": event_name(meta, event), "namespace": meta.get("namespace")},
            "involvedObject": {
                "apiVersion": c.API_VERSION,
                "kind": c.KIND,
                "name": meta["name"],
                "namespace": meta.get("namespace"),
                "uid": meta.get("uid"),
                "resourceVersion": meta.get("resourceVersion"),
            },
            "type": event.type.value,
            "reason": event.reason.value,
            "message": event.message,
            "source": {"component": "mxjob-reconciler"},
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
        }


class OutOfScope(ClusterError):
    """An action that would write outside the job's namespace: refused, logged, not retried."""


def event_name(job_metadata: Mapping[str, Any], event: Event) -> str:
    """`<job>.<16 hex>`: the same decision about the same job version gives the same name."""
    identity = "\0".join(
        str(x)
        for x in (
            job_metadata.get("uid"),
            job_metadata.get("generation"),
            event.reason.value,
            event.message,
            event.about,
        )
    )
    return f"{job_metadata['name']}.{hashlib.sha256(identity.encode()).hexdigest()[:16]}"


def _describe(action: Action) -> str:
    match action:
        case DeletePod():
            return f"delete pod {action.name} ({action.reason})"
        case CreatePod():
            return f"create pod {action.name} from the rendering"
        case Event():
            return f"record {action.type} event {action.reason}: {action.message}"
        case Nudge():
            return f"ask the GitOps owner of {action.pod} to reconcile"
        case ReleasePod():
            return f"remove Kueue's finalizer from replaced pod {action.name}"
        case MarkUnretriable():
            return f"mark pod {action.name} retriable-in-group=false (Kueue ends the group)"
        case _:
            assert_never(action)
