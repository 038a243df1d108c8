"""What the JobSet engine finds in a defaulted job before rendering it: names too long for the pod hostnames, and
the settings it can only approximate (each is a warning saying what runs instead; docs/jobset.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, error, warning
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.exitcodes import OOM_KILLED, OVERRIDE_ANNOTATION
from mxjob_gitops.compiler.spec.model import MXJob

if TYPE_CHECKING:
    from mxjob_gitops.compiler.render.gang.plan import GangScheduler


def findings(job: MXJob, scheduler: GangScheduler | None, exit_codes: str) -> Iterator[Diagnostic]:
    # The pod hostname `<jobset>-<rjob>-0-<index>` is a DNS label (the Job controller sets it for Indexed Jobs).
    longest = max((f"{job.name}-{r.role}-0-{r.replicas - 1}" for r in job.replicas if r.replicas), key=len, default="")
    if len(longest) > c.MAX_DNS_LABEL:
        yield error(
            Code.NAME_TOO_LONG,
            f"pod hostname {longest!r} has {len(longest)} characters on the jobset engine; "
            f"DNS allows {c.MAX_DNS_LABEL}",
            ("metadata", "name"),
            f"shorten the job name to at most {c.MAX_DNS_LABEL - (len(longest) - len(job.name))} characters",
        )
    if scheduler is not None and scheduler.kind != "kueue":
        yield warning(
            Code.GANG_POLICY_IGNORED,
            f"gang scheduler {scheduler.kind} has no effect on the jobset engine (it gang-schedules with Kueue only)",
            ("metadata", "annotations"),
            "use kueue, or render with --engine pods",
        )
    for replica in job.replicas:
        if replica.restart_policy == "Always":
            yield warning(
                Code.RESTART_POLICY_OVERRIDDEN,
                f"{replica.type}: restartPolicy Always runs as OnFailure (a Job's pods allow Never or OnFailure)",
                ("spec", "mxReplicaSpecs", replica.type, "restartPolicy"),
                "say OnFailure to silence this",
            )
    annotations = job.document["metadata"].get("annotations") or {}
    if OOM_KILLED in exit_codes or OOM_KILLED in str(annotations.get(OVERRIDE_ANNOTATION, "")):
        yield warning(
            Code.FIELD_DROPPED,
            f"the {OOM_KILLED} class is not rendered on the jobset engine: podFailurePolicy sees only exit codes "
            "(an OOM kill is exit 137)",
            ("metadata", "annotations"),
            "classify 137 instead",
        )
