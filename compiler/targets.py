"""GitOps target decorations: Argo CD pod sync options and health opt-in, Flux force and substitution opt-out."""

from __future__ import annotations

import enum
import json
from typing import Any

ARGO_SYNC_OPTIONS = "argocd.argoproj.io/sync-options"
ARGO_IGNORE_RESTART_POLICY = "argocd.argoproj.io/ignore-restart-policy"
FLUX_FORCE = "kustomize.toolkit.fluxcd.io/force"
FLUX_SUBSTITUTE = "kustomize.toolkit.fluxcd.io/substitute"


class Target(enum.StrEnum):
    PLAIN = "plain"
    ARGOCD = "argocd"
    FLUX = "flux"


def _annotate(manifest: dict[str, Any], extra: dict[str, str]) -> None:
    metadata = manifest["metadata"]
    metadata["annotations"] = {**(metadata.get("annotations") or {}), **extra}


def _argocd(manifest: dict[str, Any]) -> dict[str, str]:
    """Pods only, and never a sync wave (docs/argocd.md, "Why one wave").

    Argo CD's sync engine (gitops-engine pkg/sync/sync_context.go, `syncContext.Sync`) waits for every applied
    object that is not yet Healthy whenever `syncTasks.multiStep()` (pkg/sync/sync_tasks.go) is true, i.e. when
    the objects span more than one wave or phase. A running pod with restartPolicy Never/OnFailure is
    Progressing until it exits (pkg/health/health_pod.go, `getCorev1PodHealth`), so a wave annotation would keep
    the sync operation running for the whole training run. In one wave the sync ends once everything is
    applied, and the kind order of `syncTasks.Less` (kindOrder) still creates ConfigMaps and Services before Pods.
    """
    if manifest["kind"] != "Pod":
        return {}
    return {
        # Pod specs are immutable: a changed pod must be deleted and created.
        ARGO_SYNC_OPTIONS: "Force=true,Replace=true",
        # Argo CD 3.6+ (common.AnnotationIgnoreRestartPolicy): a running pod is judged like a long-running one,
        # so the app is Healthy rather than Progressing while training runs. Earlier releases ignore it.
        ARGO_IGNORE_RESTART_POLICY: "true",
    }


def _flux(manifest: dict[str, Any], check_substitution: bool) -> dict[str, str]:
    extra: dict[str, str] = {}
    if manifest["kind"] == "Pod":
        extra[FLUX_FORCE] = "Enabled"
    if check_substitution and "${" in json.dumps(manifest, ensure_ascii=False):
        extra[FLUX_SUBSTITUTE] = "disabled"
    return extra


def decorate(manifest: dict[str, Any], target: Target, check_substitution: bool) -> dict[str, Any]:
    """Add the target's annotations to a freshly generated manifest (its metadata dict is never shared)."""
    extra: dict[str, str] = {}
    if target is Target.ARGOCD:
        extra = _argocd(manifest)
    elif target is Target.FLUX:
        extra = _flux(manifest, check_substitution)
    if extra:
        _annotate(manifest, extra)
    return manifest
