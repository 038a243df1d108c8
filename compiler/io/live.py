"""The cluster side of `mxjob diff --live`: where to look, and the reconciler's `mxjob.live` plugins that read it
(the compiler never imports the reconciler: the plugins are entry points of the installed package)."""

from __future__ import annotations

import dataclasses
from typing import Any

from mxjob_gitops.compiler.io.errors import CommandError


@dataclasses.dataclass(frozen=True, slots=True)
class LiveCluster:
    """Where --live looks: the kubeconfig, its context, and which missing objects count as removed."""

    kubeconfig: str | None
    context: str | None
    prune_scope: str


def live_plugin(name: str, what: str = "mxjob diff --live") -> Any:
    """One of the reconciler's `mxjob.live` entry points (`fetch`, `namespace`, `pods`) for `what` (the command
    line that needs it); the compiler never imports it."""
    from importlib.metadata import entry_points

    from mxjob_gitops.compiler.io.extras import require

    require("cluster", what)
    found = [entry for entry in entry_points(group="mxjob.live") if entry.name == name]
    if not found:
        raise CommandError(
            f"{what} needs the reconciler package (mxjob_gitops.reconciler.live), which is not installed"
        )
    return found[0].load()
