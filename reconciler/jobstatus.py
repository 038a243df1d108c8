"""The one builder of the MXJob status the reconciler writes (decide() and refuse() call it; apply writes it).

Every write carries every field: what a path does not compute is taken over from the previous status (as
reconciler.trust.clean_status read it), and what is derived (`restartCounts` from `podRestarts`, the kstatus
conditions, `observedGeneration`) is derived here on every path — running, finished, suspended and refused —
so that no write drops a field it did not mean to drop, and a finished job's next pass writes nothing.

The training operator keeps one status too: each reconcile starts from a deep copy of the job's status and
writes it whole (kubeflow/training-operator v1.8, pkg/controller.v1/common/job.go `ReconcileJobs`:
`oldStatus := jobStatus.DeepCopy()` … `UpdateJobStatusInApiServer`), and restart counts never lived there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from mxjob_gitops.reconciler.standard import standard_conditions
from mxjob_gitops.reconciler.state import Condition, timestamp

# The fields every status write carries (with these empty values when there is nothing to say).
LEDGER_FIELDS = ("podRestarts", "restartCounts")


def build_status(
    status: Mapping[str, Any], conditions: Iterable[Condition], generation: int | None, now: datetime
) -> dict[str, Any]:
    """The status to write: `status`'s fields, the restart ledger and its per-type sums, the Kubeflow conditions
    with the kstatus-standard ones (reconciler.standard), and the generation this decision saw, so that kstatus
    reads a spec we have not reconciled yet as InProgress."""
    restarts = dict(status.get("podRestarts") or {})
    written = {
        **status,
        "podRestarts": restarts,
        "restartCounts": restart_counts(restarts),
        "conditions": [x.to_dict() for x in standard_conditions(list(conditions), timestamp(now))],
    }
    if generation is not None:
        written["observedGeneration"] = generation
    return written


def restart_counts(restarts: Mapping[str, Any]) -> dict[str, int]:
    """Restarts per replica type, summed over the per-pod ledger."""
    by_type: dict[str, int] = {}
    for record in restarts.values():
        replica_type = str(record.get("type", ""))
        by_type[replica_type] = by_type.get(replica_type, 0) + int(record.get("count", 0))
    return dict(sorted(by_type.items()))
