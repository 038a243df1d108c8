"""GitOps target decorations: Argo CD sync waves and sync options, Flux force and substitution opt-out."""

from __future__ import annotations

import enum
import json
from typing import Any

from compiler import constants as c

ARGO_WAVE = "argocd.argoproj.io/sync-wave"
ARGO_SYNC_OPTIONS = "argocd.argoproj.io/sync-options"
ARGO_IGNORE_RESTART_POLICY = "argocd.argoproj.io/ignore-restart-policy"
FLUX_FORCE = "kustomize.toolkit.fluxcd.io/force"
FLUX_SUBSTITUTE = "kustomize.toolkit.fluxcd.io/substitute"
# The pod every other pod waits for: the scheduler in training, the tracker in tuning.
_RENDEZVOUS_ROLES = frozenset({"scheduler", "tunertracker"})


class Target(enum.StrEnum):
    PLAIN = "plain"
    ARGOCD = "argocd"
    FLUX = "flux"


def _annotate(manifest: dict[str, Any], extra: dict[str, str]) -> None:
    metadata = manifest["metadata"]
    metadata["annotations"] = {**(metadata.get("annotations") or {}), **extra}


def _argocd(manifest: dict[str, Any]) -> dict[str, str]:
    if manifest["kind"] != "Pod":
        return {ARGO_WAVE: "-1"}
    role = manifest["metadata"]["labels"].get(c.LABEL_REPLICA_TYPE)
    return {
        ARGO_WAVE: "0" if role in _RENDEZVOUS_ROLES else "1",
        # Pod specs are immutable: a changed pod must be deleted and created.
        ARGO_SYNC_OPTIONS: "Force=true,Replace=true",
        # Without this a running restartPolicy=Never pod stays Progressing and the next wave never starts.
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
    if target is Target.ARGOCD:
        _annotate(manifest, _argocd(manifest))
    elif target is Target.FLUX:
        extra = _flux(manifest, check_substitution)
        if extra:
            _annotate(manifest, extra)
    return manifest
