"""A replica type's restartPolicy, the exit-code table, backoffLimit and activeDeadlineSeconds as Job settings.

Sources (kubernetes pkg/controller/job, pkg/apis/batch/validation):
- podFailurePolicy needs the pod's restartPolicy Never (validation.go `validatePodFailurePolicy`); its rules are
  tried in order and the first match decides (pod_failure_policy.go `matchPodFailurePolicy`): FailJob fails the
  Job at once, Ignore does not count the failure against backoffLimit, Count does (the default for an unmatched
  failure). `onExitCodes` with operator NotIn matches when the named container's exit code is outside the set
  (`matchOnExitCodes`); `onPodConditions` DisruptionTarget matches pods evicted or preempted.
- A Job's pod template allows restartPolicy Never or OnFailure only (pkg/apis/batch/validation), so Always is
  OnFailure.
- backoffLimit counts failed pods (Never) or container restarts (OnFailure) of the Job (job_controller.go
  `pastBackoffLimitOnFailure`, `newFailedConditionForFailureTarget`); a Job past it fails, and JobSet's default
  failurePolicy (maxRestarts 0) fails the JobSet (kubernetes-sigs/jobset pkg/controllers/failure_policy.go
  `executeFailurePolicy`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.exitcodes import EVICTED, retryable
from mxjob_gitops.compiler.spec.model import MXJob, Replica

# An unset MXJob backoffLimit means no limit; int32's largest is the nearest a Job can say.
UNLIMITED = 2**31 - 1


def pod_restart_policy(replica: Replica) -> str:
    return "OnFailure" if replica.restart_policy in ("OnFailure", "Always") else "Never"


def backoff_limit(job: MXJob, replica: Replica) -> int:
    """Never: the first failed pod fails the job, as the operator does; otherwise the job's backoffLimit."""
    if replica.restart_policy == "Never":
        return 0
    limit = job.run_policy.backoff_limit
    return UNLIMITED if limit is None else limit


def pod_failure_policy(replica: Replica, overrides: Mapping[str, bool]) -> dict[str, Any] | None:
    """ExitCode: a permanent code of the `mxnet` container fails the job, a retryable one gets a new pod
    (counted against backoffLimit); an eviction or preemption (DisruptionTarget) is Evicted's class, not counted."""
    if replica.restart_policy != "ExitCode":
        return None
    # The Job API lists at most 255 values: 0 and the retryable codes 1-255 (never more than 256 - 1 permanent).
    keep = [0, *(code for code in range(1, 256) if retryable(code, overrides))]
    evicted = overrides.get(EVICTED, True)
    rules: list[dict[str, Any]] = [
        {
            "action": "Ignore" if evicted else "FailJob",
            "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}],
        }
    ]
    if len(keep) < 256:
        rules.append(
            {
                "action": "FailJob",
                "onExitCodes": {"containerName": c.DEFAULT_CONTAINER, "operator": "NotIn", "values": keep[:255]},
            }
        )
    return {"rules": rules}
