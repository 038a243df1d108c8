"""The MXJob replica types and one table of their traits; constants, rules, cluster spec and schemas read it.

The traits restate the training operator (pkg/controller.v1/mxnet): `SetPodEnv` in mxnet.go appends the
DMLC variables and DMLC_WORKER_ID for Worker pods only; `UpdateJobStatus` in mxjob_controller.go lets the
Scheduler (or a lone Worker) decide success. The operator never completes an MXTune job; our reconciler
lets the Tuner decide (docs/reconciler.md).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class JobMode(enum.StrEnum):
    TRAIN = "MXTrain"
    TUNE = "MXTune"


class ReplicaType(enum.StrEnum):
    """In rendering order: the rendezvous first."""

    SCHEDULER = "Scheduler"
    SERVER = "Server"
    WORKER = "Worker"
    TUNER_TRACKER = "TunerTracker"
    TUNER_SERVER = "TunerServer"
    TUNER = "Tuner"


@dataclass(frozen=True, slots=True)
class Traits:
    mode: JobMode
    # Every other pod connects to its first pod (DMLC_PS_ROOT_URI in training, the tracker in tuning).
    rendezvous: bool
    # Its pods get DMLC_WORKER_ID (their index).
    worker_id: bool
    # Its success is the job's success (in MXTrain a Worker without Scheduler and Server decides too).
    decides_success: bool
    # A job has exactly one pod of this type.
    exactly_one: bool
    # The operator's defaulter matched the spec key case-insensitively.
    any_case: bool


TRAITS: dict[str, Traits] = {
    ReplicaType.SCHEDULER: Traits(
        JobMode.TRAIN, rendezvous=True, worker_id=False, decides_success=True, exactly_one=True, any_case=True
    ),
    ReplicaType.SERVER: Traits(
        JobMode.TRAIN, rendezvous=False, worker_id=False, decides_success=False, exactly_one=False, any_case=True
    ),
    ReplicaType.WORKER: Traits(
        JobMode.TRAIN, rendezvous=False, worker_id=True, decides_success=False, exactly_one=False, any_case=True
    ),
    ReplicaType.TUNER_TRACKER: Traits(
        JobMode.TUNE, rendezvous=True, worker_id=False, decides_success=False, exactly_one=True, any_case=False
    ),
    ReplicaType.TUNER_SERVER: Traits(
        JobMode.TUNE, rendezvous=False, worker_id=False, decides_success=False, exactly_one=False, any_case=False
    ),
    ReplicaType.TUNER: Traits(
        JobMode.TUNE, rendezvous=False, worker_id=False, decides_success=True, exactly_one=True, any_case=False
    ),
}

# The variables the operator appends to every container, in its order; DMLC_WORKER_ID follows for worker_id types.
SHARED_ENV = (
    "MX_CONFIG",
    "DMLC_PS_ROOT_PORT",
    "DMLC_PS_ROOT_URI",
    "DMLC_NUM_SERVER",
    "DMLC_NUM_WORKER",
    "DMLC_ROLE",
    "DMLC_USE_KUBERNETES",
)
WORKER_ID_ENV = "DMLC_WORKER_ID"


def types_of(mode: str) -> tuple[str, ...]:
    """The replica types of a job mode, in rendering order (plain strings, as they appear in specs)."""
    return tuple(t.value for t in ReplicaType if TRAITS[t].mode == mode)


def rendezvous_of(mode: str) -> str:
    return next(t for t in types_of(mode) if TRAITS[t].rendezvous)


def generated_env_names(replica_type: str) -> tuple[str, ...]:
    """The variables the operator appends to every container of this replica type."""
    traits = TRAITS.get(replica_type)
    return (*SHARED_ENV, WORKER_ID_ENV) if traits is not None and traits.worker_id else SHARED_ENV
