"""Gang scheduling: which scheduler a job uses, and its PodGroup (members, minResources); schedulers plug in."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from compiler import constants as c
from compiler.diagnostics import Code, Diagnostic, error, info, warning
from compiler.model import MXJob, Replica
from compiler.quantity import QuantityError, add_quantities

GANG_ANNOTATION = f"{c.ANNOTATION_PREFIX}gang-scheduler"
SCHEDULING_POLICY = ("spec", "runPolicy", "schedulingPolicy")
Manifest = dict[str, Any]


class GangKind(enum.StrEnum):
    """The gang schedulers built in (compiler.decorations.registry lists every one)."""

    VOLCANO = "volcano"
    SCHEDULER_PLUGINS = "scheduler-plugins"


@dataclass(frozen=True, slots=True)
class GangBackend:
    """What differs between gang schedulers; each one's module in compiler.decorations defines one."""

    kind: str  # the name --gang-scheduler and the job annotation use
    default_scheduler: str  # the pods' schedulerName
    named: bool  # whether `kind=SCHEDULER_NAME` picks another scheduler name
    pod_group_api: str  # apiVersion of its PodGroup
    # Scheduler-specific PodGroup spec fields from the job and its schedulingPolicy.
    group_fields: Callable[[MXJob, Mapping[str, Any]], dict[str, Any]]
    # Make one freshly built pod (given job name and replica role) a member of the group.
    join: Callable[[Manifest, str, str], None]


def backends() -> dict[str, GangBackend]:
    from compiler.decorations.registry import GANG_SCHEDULERS

    return {backend.kind: backend for backend in GANG_SCHEDULERS}


@dataclass(frozen=True, slots=True)
class GangScheduler:
    kind: str
    scheduler_name: str

    @classmethod
    def parse(cls, text: str) -> GangScheduler:
        """`volcano`, `scheduler-plugins`, or `scheduler-plugins=NAME` (the scheduler's name)."""
        name, _, scheduler = text.partition("=")
        known = backends()
        backend = known.get(name)
        if backend is None or (scheduler and not backend.named):
            forms = [form for b in known.values() for form in ((b.kind, f"{b.kind}=NAME") if b.named else (b.kind,))]
            raise ValueError(f"{text!r}: use {', '.join(forms[:-1])} or {forms[-1]}")
        return cls(backend.kind, scheduler or backend.default_scheduler)

    @property
    def backend(self) -> GangBackend:
        return backends()[self.kind]

    def __str__(self) -> str:
        """The text `parse` reads back: `volcano`, `scheduler-plugins=NAME`."""
        return f"{self.kind}={self.scheduler_name}" if self.backend.named else self.kind


@dataclass(frozen=True, slots=True)
class Gang:
    """What one job's gang scheduling renders: the PodGroup (pods join it in compiler.decorations.gang)."""

    scheduler: GangScheduler
    pod_group: dict[str, Any]


def choose_scheduler(job: MXJob, flag: GangScheduler | None) -> tuple[GangScheduler | None, list[Diagnostic]]:
    """The job's annotation wins over the command-line default."""
    annotations = job.document["metadata"].get("annotations") or {}
    value = annotations.get(GANG_ANNOTATION)
    if value is None:
        return flag, []
    try:
        return GangScheduler.parse(str(value)), []
    except ValueError as exc:
        return None, [error(Code.INVALID_VALUE, f"annotation {GANG_ANNOTATION}: {exc}",
                            ("metadata", "annotations", GANG_ANNOTATION))]


def plan_gang(job: MXJob, scheduler: GangScheduler, priorities: Mapping[str, int],
              priority_sources: Mapping[str, str]) -> tuple[Gang, list[Diagnostic]]:
    policy: dict[str, Any] = job.run_policy.scheduling_policy or {}
    found: list[Diagnostic] = []
    total = sum(replica.replicas for replica in job.replicas)
    min_member = policy.get("minAvailable", total)
    spec: dict[str, Any] = {"minMember": min_member, **scheduler.backend.group_fields(job, policy)}
    if "minResources" in policy:
        spec["minResources"] = policy["minResources"]
    elif min_member > 0:
        resources, notes = _min_resources(job, min_member, priorities, priority_sources)
        found.extend(notes)
        if resources:
            spec["minResources"] = resources
    found.extend(_scheduler_name_conflicts(job, scheduler))
    if min_member > total:
        found.append(warning(Code.REPLICA_COUNT, f"minAvailable {min_member} is more than the job's {total} pods: "
                                                 "the group can never be scheduled",
                             (*SCHEDULING_POLICY, "minAvailable"), f"set minAvailable to at most {total}"))
    return Gang(scheduler, _pod_group(job, scheduler, spec)), found


def _pod_group(job: MXJob, scheduler: GangScheduler, spec: dict[str, Any]) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": job.name}
    if job.namespace:
        metadata["namespace"] = job.namespace
    metadata["labels"] = {c.LABEL_OPERATOR_NAME: c.OPERATOR_NAME, c.LABEL_JOB_NAME: job.name}
    annotations = {k: v for k, v in (job.document["metadata"].get("annotations") or {}).items()
                   if k != GANG_ANNOTATION}
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": scheduler.backend.pod_group_api, "kind": "PodGroup", "metadata": metadata, "spec": spec}


def template_priority_class(job: MXJob) -> str | None:
    """Like the MPI operator's launcher-then-worker rule: the Scheduler's class, else the Worker's."""
    for replica_type in (c.SCHEDULER, c.WORKER):
        replica = job.replica(replica_type)
        name = replica.template["spec"].get("priorityClassName") if replica else None
        if name:
            return str(name)
    return None


def _min_resources(job: MXJob, min_member: int, priorities: Mapping[str, int],
                   sources: Mapping[str, str]) -> tuple[dict[str, str], list[Diagnostic]]:
    """Requests (limits where a request is missing) of the first minMember pods, highest priority first."""
    notes: list[Diagnostic] = []
    ranked: list[tuple[int, int, Replica]] = []
    used: list[str] = []
    for order, replica in enumerate(job.replicas):
        name = replica.template["spec"].get("priorityClassName")
        value = 0
        if name:
            if name in priorities:
                value = priorities[name]
                used.append(f"{name}={value} ({sources.get(name, 'given')})")
            else:
                notes.append(warning(
                    Code.PRIORITY_UNKNOWN,
                    f"the value of PriorityClass {name!r} is not known offline; {replica.type} pods count as 0 "
                    "when minResources picks the first minMember pods",
                    ("spec", "mxReplicaSpecs", replica.type, "template", "spec", "priorityClassName"),
                    f"pass --priority-class {name}=VALUE or include the PriorityClass object in the input"))
        ranked.append((-value, order, replica))
    per_resource: dict[str, list[object]] = {}
    remaining = min_member
    for _, _, replica in sorted(ranked, key=lambda item: (item[0], item[1])):
        count = min(replica.replicas, remaining)
        remaining -= count
        for container in replica.template["spec"]["containers"]:
            resources = container.get("resources") or {}
            merged = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
            for resource, quantity in merged.items():
                per_resource.setdefault(resource, []).extend([quantity] * count)
        if remaining == 0:
            break
    if used:
        notes.append(info(Code.PRIORITY_ORDER, "PodGroup minResources ordered pods by "
                          f"PriorityClass {', '.join(used)}", SCHEDULING_POLICY))
    return _sum(per_resource, notes), notes


def _sum(per_resource: dict[str, list[object]], notes: list[Diagnostic]) -> dict[str, str]:
    totals: dict[str, str] = {}
    for resource, quantities in sorted(per_resource.items()):
        try:
            totals[resource] = add_quantities(quantities)
        except QuantityError as exc:
            notes.append(error(Code.INVALID_VALUE, f"resource {resource}: {exc}", SCHEDULING_POLICY))
    return totals


def _scheduler_name_conflicts(job: MXJob, scheduler: GangScheduler) -> Iterator[Diagnostic]:
    for replica in job.replicas:
        own = replica.template["spec"].get("schedulerName")
        if own and own != scheduler.scheduler_name:
            yield warning(Code.SCHEDULER_NAME_KEPT,
                          f"{replica.type} pods keep schedulerName {own!r}, so the gang scheduler "
                          f"{scheduler.scheduler_name!r} does not place them",
                          ("spec", "mxReplicaSpecs", replica.type, "template", "spec", "schedulerName"),
                          "remove schedulerName from the template")
