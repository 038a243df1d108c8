"""The kstatus-standard part of an MXJob status, derived from the Kubeflow conditions: `Stalled` and (in decide)
`observedGeneration`, so that Flux's default health check (kstatus, a Kustomization with `wait: true` and no
`healthCheckExprs`) reads an MXJob as a user expects. No I/O.

kstatus knows no Kubeflow condition. sigs.k8s.io/cli-utils pkg/kstatus/status/status.go `Compute` runs the
generic rules first (generic.go `checkGenericProperties`): `metadata.deletionTimestamp` is Terminating;
`checkGeneration`: `status.observedGeneration` other than `metadata.generation` is InProgress; condition
`Reconciling=True` is InProgress and `Stalled=True` is Failed (with the condition's message). A kind without a rule
of its own in core.go then reads `Ready` (status.go `checkReadyCondition`), and anything else is Current.

An MXJob reads as kstatus reads the nearest built-in kind, a batch Job (core.go `jobConditions`): InProgress until
its controller has started it ("Job not started", no `startTime`), then Current while it runs and once it has
completed, Failed once it failed, Current while suspended with `spec.suspend` ("Job is suspended"):

| MXJob                                  | kstatus     | from                                                     |
|----------------------------------------|-------------|----------------------------------------------------------|
| not reconciled yet                     | InProgress  | `observedGeneration: 0` (the CRD's default) < generation  |
| Created, Running, Restarting           | Current     | nothing abnormal (a started batch Job: "Job in progress") |
| Succeeded                              | Current     | nothing abnormal (Complete=True)                          |
| Failed                                 | Failed      | `Stalled=True` with the Failed reason and message         |
| Refused (ours: the job is too large)   | Failed      | `Stalled=True`: the reconciler will not act on it         |
| Suspended                              | Current     | nothing abnormal (Suspended=True with spec.suspend)       |
| spec changed, not yet reconciled       | InProgress  | `observedGeneration` behind `metadata.generation`         |
| being deleted                          | Terminating | `metadata.deletionTimestamp`                              |

`Reconciling` is never needed: a job the reconciler has not seen yet is told by `observedGeneration`, and no later
state of a batch Job reads InProgress. The conditions follow kstatus' "abnormal-true" pattern (its README): present
only while True. With `healthCheckExprs` (compiler.integrations.health) Flux instead waits until the job finished.
"""

from __future__ import annotations

from collections.abc import Sequence

from mxjob_gitops.reconciler.state import Condition
from mxjob_gitops.reconciler.vocabulary import ConditionType, StandardCondition

STANDARD = frozenset(StandardCondition)
# What stalls a job, most severe first: Failed is terminal; Refused holds until the job is within bounds.
STALLING = (ConditionType.FAILED, ConditionType.REFUSED)


def standard_conditions(conditions: Sequence[Condition], now: str) -> list[Condition]:
    """`conditions` with Stalled derived afresh: the standard conditions first, then the Kubeflow ones in their order
    (the newest Kubeflow condition stays last, where the CRD's State column and Argo CD's health message read it).
    An unchanged Stalled is kept as it was, so a pass that changes nothing writes nothing."""
    kubeflow = [x for x in conditions if x.type not in STANDARD]
    previous = next((x for x in conditions if x.type == StandardCondition.STALLED), None)
    true = {x.type: x for x in kubeflow if x.status == "True"}
    cause = next((true[kind] for kind in STALLING if kind in true), None)
    if cause is None:
        return kubeflow
    if previous is not None and (previous.status, previous.reason, previous.message) == (
        "True",
        cause.reason,
        cause.message,
    ):
        return [previous, *kubeflow]
    transition = previous.last_transition if previous is not None and previous.status == "True" else now
    stalled = Condition(StandardCondition.STALLED.value, "True", cause.reason, cause.message, now, transition)
    return [stalled, *kubeflow]
