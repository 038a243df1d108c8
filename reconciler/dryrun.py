"""What `mxjob reconcile --dry-run` prints for each planned write, in kubectl's dry-run words
(`pod ml/train-worker-1 deleted (dry run)`): objects as namespace/name, lists as plain text. apply.py calls it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from mxjob_gitops.reconciler.kueue import MarkUnretriable, ReleasePod
from mxjob_gitops.reconciler.plan import Action, CreatePod, DeletePod, Event, Nudge


def _named(namespace: str, name: str) -> str:
    return f"{namespace}/{name}" if namespace else name


def status_line(namespace: str, job: str, conditions: Sequence[str]) -> str:
    listed = ", ".join(conditions) or "none"
    return f"mxjob {_named(namespace, job)} status updated (dry run): conditions {listed}"


def action_line(action: Action, namespace: str, job: str) -> str:
    match action:
        case DeletePod():
            return f"pod {_named(namespace, action.name)} deleted (dry run): {action.reason}"
        case CreatePod():
            return f"pod {_named(namespace, action.name)} created (dry run) from the job's rendering"
        case Event():
            return (
                f"event {action.reason} ({action.type}) on mxjob {_named(namespace, job)} created (dry run): "
                f"{action.message}"
            )
        case Nudge():
            return f"the GitOps owner of pod {_named(namespace, action.pod)} asked to reconcile (dry run)"
        case ReleasePod():
            return f"pod {_named(namespace, action.name)} patched (dry run): Kueue's finalizer removed"
        case MarkUnretriable():
            return f"pod {_named(namespace, action.name)} patched (dry run): retriable-in-group=false"
        case _:
            assert_never(action)
