"""Argo CD decoration: pods are replaced, never patched, and judged healthy while they run; no sync waves."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from mxjob_gitops.compiler.render.decorations import Filter, JobContext, Manifest, annotate
from mxjob_gitops.compiler.spec.targets import Target

ARGO_SYNC_OPTIONS = "argocd.argoproj.io/sync-options"
ARGO_IGNORE_RESTART_POLICY = "argocd.argoproj.io/ignore-restart-policy"
_POD_ANNOTATIONS = {
    # Pod specs are immutable: a changed pod must be deleted and created.
    ARGO_SYNC_OPTIONS: "Force=true,Replace=true",
    # Argo CD 3.6+ (common.AnnotationIgnoreRestartPolicy): a running pod is judged like a long-running one,
    # so the app is Healthy rather than Progressing while training runs. Earlier releases ignore it.
    ARGO_IGNORE_RESTART_POLICY: "true",
}


def select(context: JobContext) -> Filter | None:
    return _decorate if context.options.target is Target.ARGOCD else None


def _decorate(manifests: Iterable[Manifest]) -> Iterator[Manifest]:
    """Pods only, and never a sync wave (docs/argocd.md, "Why one wave").

    Argo CD's sync engine (gitops-engine pkg/sync/sync_context.go, `syncContext.Sync`) waits for every applied
    object that is not yet Healthy whenever `syncTasks.multiStep()` (pkg/sync/sync_tasks.go) is true, i.e. when
    the objects span more than one wave or phase. A running pod with restartPolicy Never/OnFailure is
    Progressing until it exits (pkg/health/health_pod.go, `getCorev1PodHealth`), so a wave annotation would keep
    the sync operation running for the whole training run. In one wave the sync ends once everything is
    applied, and the kind order of `syncTasks.Less` (kindOrder) still creates ConfigMaps and Services before Pods.
    """
    for manifest in manifests:
        if manifest["kind"] == "Pod":
            annotate(manifest, _POD_ANNOTATIONS)
        yield manifest
