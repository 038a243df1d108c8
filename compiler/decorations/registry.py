"""Every decoration and gang scheduler, in the order they apply: adding one is a module plus one line here."""

from __future__ import annotations

from mxjob_gitops.compiler.decorations import (
    Decoration,
    argocd,
    flux,
    gang,
    kubernetes,
    kueue,
    scheduler_plugins,
    volcano,
)
from mxjob_gitops.compiler.gang import GangBackend

# Gang schedulers by the name --gang-scheduler and the job annotation use (also the order help text lists).
GANG_SCHEDULERS: tuple[GangBackend, ...] = (
    volcano.BACKEND,
    scheduler_plugins.BACKEND,
    kueue.BACKEND,
    kubernetes.BACKEND,
)

# Gang membership first: the Flux substitution check sees the finished pod.
DECORATIONS: tuple[Decoration, ...] = (
    gang.select,
    argocd.select,
    flux.select,
)
