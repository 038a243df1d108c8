"""Carry out a Plan through the client: status first (so a crash never loses a counted restart), then
events, deletions, recreations and GitOps nudges. A dry run only logs what it would do."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from compiler import constants as c
from reconciler.decide import CreatePod, DeletePod, Event, Nudge, Plan
from reconciler.jobs import render_options, rendered_pod
from reconciler.kube import Cluster, ClusterError, Writer
from reconciler.state import ARGO_TRACKING, timestamp

log = logging.getLogger("mxjob.reconcile")
FLUX_REQUESTED_AT = "reconcile.fluxcd.io/requestedAt"
ARGO_REFRESH = "argocd.argoproj.io/refresh"


@dataclass(frozen=True, slots=True)
class ApplySettings:
    dry_run: bool = False
    recreate: bool = True
    argocd_namespace: str = "argocd"


class Applier:
    def __init__(self, cluster: Cluster, settings: ApplySettings, clock: Callable[[], datetime]) -> None:
        self.cluster = cluster
        self.writer = None if settings.dry_run else Writer(cluster)
        self.settings = settings
        self.clock = clock

    def status(self, job: dict[str, Any], plan: Plan) -> dict[str, Any] | None:
        """Write the new status when it changed; returns the updated job. Raises Conflict on 409."""
        if (job.get("status") or {}) == plan.status:
            return None
        meta = job["metadata"]
        if self.writer is None:
            log.info("would write status", extra={"job": f"{meta.get('namespace')}/{meta['name']}",
                                                  "conditions": [x["type"] for x in plan.status["conditions"]]})
            return None
        return self.writer.replace_status({**job, "status": plan.status})

    def actions(self, job: dict[str, Any], plan: Plan, pods: dict[str, dict[str, Any]]) -> None:
        meta = job["metadata"]
        namespace, name = str(meta.get("namespace") or ""), str(meta["name"])
        for action in plan.actions:
            where = {"job": f"{namespace}/{name}", "action": type(action).__name__}
            if self.writer is None:
                log.info(f"would {_describe(action)}", extra=where)
                continue
            try:
                self._one(job, namespace, action, pods)
            except ClusterError as exc:
                log.warning(f"{_describe(action)} failed: {exc}", extra=where)

    def _one(self, job: dict[str, Any], namespace: str, action: Any, pods: dict[str, dict[str, Any]]) -> None:
        assert self.writer is not None
        if isinstance(action, Event):
            self.writer.create(self._event(job, action))
        elif isinstance(action, DeletePod):
            self.writer.delete("v1", "Pod", namespace, action.name, action.uid or None)
            where = {"job": f"{namespace}/{job['metadata']['name']}"}
            log.info(f"deleted pod {action.name}: {action.reason}", extra=where)
        elif isinstance(action, CreatePod):
            self._recreate(job, namespace, action)
        elif isinstance(action, Nudge):
            self._nudge(namespace, pods.get(action.pod))

    def _recreate(self, job: dict[str, Any], namespace: str, action: CreatePod) -> None:
        assert self.writer is not None
        config_map = self.cluster.get("v1", "ConfigMap", namespace, f"{job['metadata']['name']}{c.CONFIGMAP_SUFFIX}")
        pod = rendered_pod(job, action.name, render_options(config_map, namespace))
        if pod is None:
            log.warning(f"pod {action.name} is not part of the job any more; not recreated")
            return
        keep = action.keep
        metadata = pod["metadata"]
        metadata["labels"] = {**metadata.get("labels", {}), **(keep.get("labels") or {})}
        if keep.get("annotations"):
            metadata["annotations"] = {**(metadata.get("annotations") or {}), **keep["annotations"]}
        try:
            self.writer.create(pod)
            log.info(f"recreated pod {action.name}", extra={"job": f"{namespace}/{job['metadata']['name']}"})
        except ClusterError as exc:
            if "conflict" not in str(exc):
                raise

    def _nudge(self, namespace: str, pod: dict[str, Any] | None) -> None:
        """Ask the owner (a Flux Kustomization or an Argo CD Application) to reconcile now."""
        assert self.writer is not None
        if pod is None:
            return
        metadata = pod.get("metadata") or {}
        labels = metadata.get("labels") or {}
        now = timestamp(self.clock())
        if "kustomize.toolkit.fluxcd.io/name" in labels:
            self.writer.merge_patch("kustomize.toolkit.fluxcd.io/v1", "Kustomization",
                                    labels.get("kustomize.toolkit.fluxcd.io/namespace", "flux-system"),
                                    labels["kustomize.toolkit.fluxcd.io/name"],
                                    {"metadata": {"annotations": {FLUX_REQUESTED_AT: now}}})
        tracking = (metadata.get("annotations") or {}).get(ARGO_TRACKING)
        if tracking:
            application = tracking.split(":", 1)[0]
            app_namespace, _, app_name = application.rpartition("_")
            self.writer.merge_patch("argoproj.io/v1alpha1", "Application", app_namespace or
                                    self.settings.argocd_namespace, app_name,
                                    {"metadata": {"annotations": {ARGO_REFRESH: "normal"}}})

    def _event(self, job: dict[str, Any], event: Event) -> dict[str, Any]:
        meta = job["metadata"]
        now = timestamp(self.clock())
        return {
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"generateName": f"{meta['name']}.", "namespace": meta.get("namespace")},
            "involvedObject": {"apiVersion": c.API_VERSION, "kind": c.KIND, "name": meta["name"],
                               "namespace": meta.get("namespace"), "uid": meta.get("uid"),
                               "resourceVersion": meta.get("resourceVersion")},
            "type": event.type, "reason": event.reason, "message": event.message,
            "source": {"component": "mxjob-reconciler"}, "firstTimestamp": now, "lastTimestamp": now, "count": 1,
        }


def _describe(action: Any) -> str:
    if isinstance(action, DeletePod):
        return f"delete pod {action.name} ({action.reason})"
    if isinstance(action, CreatePod):
        return f"create pod {action.name} from the rendering"
    if isinstance(action, Event):
        return f"record {action.type} event {action.reason}: {action.message}"
    if isinstance(action, Nudge):
        return f"ask the GitOps owner of {action.pod} to reconcile"
    return str(action)

