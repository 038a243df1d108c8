"""What every gang scheduler's module builds on: the plan it reads, the backend it defines, and shared helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Diagnostic
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.model import MXJob

GANG_ANNOTATION = f"{c.ANNOTATION_PREFIX}gang-scheduler"
SCHEDULING_POLICY = ("spec", "runPolicy", "schedulingPolicy")
Manifest = dict[str, Any]


@dataclass(frozen=True, slots=True)
class GangPlan:
    """What a gang scheduler's module reads to build its group object and join a pod to it."""

    job: MXJob
    policy: Mapping[str, Any]  # spec.runPolicy.schedulingPolicy ({} when absent)
    argument: str  # what followed `kind=` on the command line or in the annotation (else the default)
    total: int  # the job's pods
    min_member: int  # minAvailable, else every pod
    # Per role (lower-case replica type): how many of the first min_member pods, highest PriorityClass first.
    members: Mapping[str, int]
    min_resources: Mapping[str, str] | None  # the sum of their requests (None: not computed or nothing asked)
    kubernetes_version: str | None  # --kubernetes-version (None: the newest shape)


# A group object's apiVersion, kind and spec; metadata (name, namespace, labels) is added in one place.
GroupObject = tuple[str, str, dict[str, Any]]


def _no_findings(_plan: GangPlan) -> Iterator[Diagnostic]:
    return iter(())


@dataclass(frozen=True, slots=True)
class GangBackend:
    """What differs between gang schedulers; each one's module in compiler.decorations defines one."""

    kind: str  # the name --gang-scheduler and the job annotation use
    argument: str | None  # what `kind=VALUE` sets, as help text names it (NAME, QUEUE); None: no value
    default_argument: str
    # The pods' spec.schedulerName for an argument; None leaves the template's (the default scheduler).
    scheduler_name: Callable[[str], str | None]
    # The group object rendered before the pods (None: the scheduler has none).
    group: Callable[[GangPlan], GroupObject | None]
    # Make one freshly built pod (of the given role) a member of the group.
    join: Callable[[Manifest, GangPlan, str], None]
    # Whether the group needs minResources (and so the PriorityClass order of the pods).
    min_resources: bool = False
    # Scheduler-specific findings about a job that uses it.
    findings: Callable[[GangPlan], Iterator[Diagnostic]] = _no_findings
    # Findings about a job that uses another gang scheduler or none (it asked for this one in another way).
    absent: Callable[[MXJob], Iterator[Diagnostic]] = lambda _job: iter(())
    # Whether the group's shape depends on --kubernetes-version (then the rendering records it).
    versioned: bool = False
    # Why an argument cannot be the value of the field it ends up in ('' when it can): a schedulerName, a label.
    argument_problem: Callable[[str], str] = lambda _argument: ""
    # Notes on running a job of this scheduler on an engine (`pods` or `jobset`).
    engine_notes: Callable[[MXJob, str], Iterator[Diagnostic]] = lambda _job, _engine: iter(())
    # The object the scheduler's controller creates from the rendered objects (Kueue's Workload), so that the judge
    # holds it to its CRD too: called with the objects judged and the pods per replicated group; None: none.
    admission: Callable[[list[Manifest], Mapping[str, int]], Manifest | None] = lambda _objects, _counts: None


def pod_group_spec(plan: GangPlan) -> dict[str, Any]:
    """minMember and minResources, as both PodGroup CRDs (Volcano, scheduler-plugins) spell them."""
    spec: dict[str, Any] = {"minMember": plan.min_member}
    if plan.min_resources:
        spec["minResources"] = dict(plan.min_resources)
    return spec


def template_priority_class(job: MXJob) -> str | None:
    """Like the MPI operator's launcher-then-worker rule: the Scheduler's class, else the Worker's."""
    for replica_type in (c.SCHEDULER, c.WORKER):
        replica = job.replica(replica_type)
        name = replica.template["spec"].get("priorityClassName") if replica else None
        if name:
            return str(name)
    return None
