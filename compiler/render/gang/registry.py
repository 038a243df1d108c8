"""Every gang scheduler, by the name --gang-scheduler and the job annotation use: adding one is a module plus one line
here."""

from __future__ import annotations

from mxjob_gitops.compiler.render.gang import kubernetes, kueue, scheduler_plugins, volcano
from mxjob_gitops.compiler.render.gang.base import GangBackend

# In the order help text lists them.
GANG_SCHEDULERS: tuple[GangBackend, ...] = (
    volcano.BACKEND,
    scheduler_plugins.BACKEND,
    kueue.BACKEND,
    kubernetes.BACKEND,
)
