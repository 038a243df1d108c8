"""What decide() returns: the actions (typed, one dataclass each) and the Plan that carries them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from mxjob_gitops.reconciler.kueue import MarkUnretriable, ReleasePod
from mxjob_gitops.reconciler.vocabulary import DeleteReason, EventType, Reason


class PodSource(Protocol):
    """The job's rendering: one pod's finished manifest by name (None: not part of the job)."""

    def pod(self, name: str) -> Mapping[str, Any] | None: ...


@dataclass(frozen=True, slots=True)
class DeletePod:
    name: str
    uid: str
    reason: DeleteReason
    keep: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CreatePod:
    """Create the pod `name` again: `manifest` is the rendering's pod with the replaced pod's ownership."""

    name: str
    manifest: Mapping[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True, slots=True)
class Event:
    type: EventType
    reason: Reason
    message: str
    about: str = ""  # what the event is about beyond the job (a pod uid): part of its idempotent name


@dataclass(frozen=True, slots=True)
class Nudge:
    """Ask the GitOps engine to reconcile now: a pod it owns was deleted for a restart."""

    pod: str


# ReleasePod and MarkUnretriable are Kueue bookkeeping on a pod (reconciler.kueue).
Action = DeletePod | CreatePod | Event | Nudge | ReleasePod | MarkUnretriable


@dataclass(frozen=True, slots=True)
class Plan:
    status: dict[str, Any]
    actions: tuple[Action, ...] = ()
    requeue_after: float | None = None
    exits: tuple[tuple[str, int | None, str], ...] = ()  # (replica type, code, class) acted on: metrics

    @property
    def restarts(self) -> int:
        return sum(1 for a in self.actions if isinstance(a, DeletePod) and a.reason is DeleteReason.RESTART)
