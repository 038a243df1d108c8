"""The cluster side of `mxjob diff`'s restart report: the pods of the jobs a change restarts, read through the
reconciler's `mxjob.live` plugins (the compiler never imports the reconciler), matched by diff.restarts."""

from __future__ import annotations

from collections.abc import Sequence

from mxjob_gitops.compiler.diff.restarts import JobRestart, observe, selectors
from mxjob_gitops.compiler.io.errors import CommandError
from mxjob_gitops.compiler.io.live import live_plugin


def observed_restarts(
    restarts: Sequence[JobRestart], kubeconfig: str | None, context: str | None, now: float
) -> list[JobRestart]:
    """The restarts with the running pods each concerns; a cluster that cannot be read is a CommandError in
    kubectl's words (exit 2). Jobs without a namespace are looked up in the one kubectl would use."""
    what = "mxjob diff --kubeconfig/--context"
    lookup, default_namespace = live_plugin("pods", what), live_plugin("namespace", what)
    try:
        namespace = default_namespace(kubeconfig, context)
        pods = lookup(kubeconfig, context, selectors(restarts, namespace))
    except Exception as exc:  # the reconciler's ClusterError, worded by reconciler.access
        raise CommandError(f"the cluster's pods could not be read: {exc}") from None
    return observe(restarts, pods, namespace, now)
