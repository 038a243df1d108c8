"""The reconciler's typed vocabulary: condition types, reasons, pod phases, outcomes and delete reasons.

Behaviour is keyed on these members, never on message text; the string values are what the API and
the training operator use (`pkg/apis/kubeflow.org/v1/common_types.go` JobConditionType, `NewReason`).
"""

from __future__ import annotations

import enum


class ConditionType(enum.StrEnum):
    CREATED = "Created"
    RUNNING = "Running"
    RESTARTING = "Restarting"
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"
    SUSPENDED = "Suspended"
    # Ours: the reconciler refuses to act on the job (too large for its configured bounds).
    REFUSED = "Refused"


class StandardCondition(enum.StrEnum):
    """The standard condition kstatus reads that the reconciler writes, derived from the Kubeflow ones by
    reconciler.standard (sigs.k8s.io/cli-utils pkg/kstatus/status/status.go ConditionStalled). kstatus also reads
    Reconciling, which no MXJob state needs (reconciler.standard says why), so it is never written."""

    STALLED = "Stalled"


class Reason(enum.StrEnum):
    CREATED = "MXJobCreated"
    RUNNING = "MXJobRunning"
    RESTARTING = "MXJobRestarting"
    SUCCEEDED = "MXJobSucceeded"
    FAILED = "MXJobFailed"
    SUSPENDED = "MXJobSuspended"
    RESUMED = "MXJobResumed"
    EXITED = "ExitedWithCode"
    TOO_LARGE = "MXJobTooLarge"
    INVALID = "MXJobInvalid"
    NOT_RECREATED = "MXJobPodNotRecreated"
    POD_MISSING = "MXJobPodMissing"
    POD_LOST = "MXJobPodLost"


class PodPhase(enum.StrEnum):
    PENDING = "Pending"
    RUNNING = "Running"
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"
    UNKNOWN = "Unknown"

    @classmethod
    def parse(cls, text: object) -> PodPhase:
        try:
            return cls(str(text or "Pending"))
        except ValueError:
            return cls.UNKNOWN


class RestartPolicy(enum.StrEnum):
    ALWAYS = "Always"
    ON_FAILURE = "OnFailure"
    NEVER = "Never"
    EXIT_CODE = "ExitCode"


class CleanPodPolicy(enum.StrEnum):
    ALL = "All"
    RUNNING = "Running"  # running and pending pods
    NONE = "None"


# Replica types whose in-place restarts count towards backoffLimit (training operator pkg/core/job.go
# PastBackoffLimit: OnFailure, Always and, since kubeflow/common v0.4, ExitCode).
BACKOFF_COUNTED = frozenset({RestartPolicy.ON_FAILURE, RestartPolicy.ALWAYS, RestartPolicy.EXIT_CODE})


class Outcome(enum.Enum):
    """What decide() did with one failed pod."""

    RESTART = "restart"  # deleted now, to be created again
    WAIT = "wait"  # restart back-off still running
    FAIL = "fail"  # the failure fails the job (Never, or a permanent code)
    BACKOFF = "backoff"  # restarting it would reach backoffLimit: the job fails
    DONE = "done"  # already counted earlier; only the delete is repeated


class DeleteReason(enum.StrEnum):
    RESTART = "restart"
    RESTART_RECORDED = "restart (recorded earlier)"
    CLEAN_POD_POLICY = "cleanPodPolicy"
    SUSPENDED = "the job is suspended"
    LIMIT = "the job failed on a limit"

    @property
    def is_restart(self) -> bool:
        return self in (DeleteReason.RESTART, DeleteReason.RESTART_RECORDED)


class RestartMode(enum.StrEnum):
    """Who creates a restarted pod again: the reconciler, or the GitOps engine's self-heal."""

    RECREATE = "recreate"
    GITOPS = "gitops"


class WatchEventType(enum.StrEnum):
    """The `type` of a watch event (apimachinery pkg/watch/watch.go EventType)."""

    ADDED = "ADDED"
    MODIFIED = "MODIFIED"
    DELETED = "DELETED"
    BOOKMARK = "BOOKMARK"
    ERROR = "ERROR"


class EventType(enum.StrEnum):
    NORMAL = "Normal"
    WARNING = "Warning"
