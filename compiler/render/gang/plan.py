"""Gang scheduling: which scheduler a job uses, and its PodGroup (members, minResources); schedulers plug in."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, error, info, warning
from mxjob_gitops.compiler.base.quantity import QuantityError, add_quantities
from mxjob_gitops.compiler.render.gang import registry
from mxjob_gitops.compiler.render.gang.base import (
    GANG_ANNOTATION,
    SCHEDULING_POLICY,
    GangBackend,
    GangPlan,
    GroupObject,
)
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.model import MXJob, Replica


def backends() -> dict[str, GangBackend]:
    return {backend.kind: backend for backend in registry.GANG_SCHEDULERS}


@dataclass(frozen=True, slots=True)
class GangScheduler:
    kind: str
    argument: str

    @classmethod
    def parse(cls, text: str) -> GangScheduler:
        """`volcano`, `scheduler-plugins`, `scheduler-plugins=NAME`, `kueue`, `kueue=QUEUE`, …"""
        name, equals, argument = text.partition("=")
        known = backends()
        backend = known.get(name)
        if backend is None or (equals and (backend.argument is None or not argument)):
            forms = [
                form
                for b in known.values()
                for form in ((b.kind, f"{b.kind}={b.argument}") if b.argument else (b.kind,))
            ]
            raise ValueError(f"{text!r}: use {', '.join(forms[:-1])} or {forms[-1]}")
        problem = backend.argument_problem(argument) if argument else ""
        if problem:
            raise ValueError(f"{text!r}: {backend.argument} {argument!r} {problem}")
        return cls(backend.kind, argument or backend.default_argument)

    @property
    def backend(self) -> GangBackend:
        return backends()[self.kind]

    @property
    def scheduler_name(self) -> str | None:
        return self.backend.scheduler_name(self.argument)

    def __str__(self) -> str:
        """The text `parse` reads back: `volcano`, `scheduler-plugins=NAME`, `kueue`."""
        return f"{self.kind}={self.argument}" if self.argument else self.kind


@dataclass(frozen=True, slots=True)
class Gang:
    """What one job's gang scheduling renders: the plan and the group object (pods join in decorations.gang)."""

    scheduler: GangScheduler
    plan: GangPlan
    pod_group: dict[str, Any] | None


def choose_scheduler(job: MXJob, flag: GangScheduler | None) -> tuple[GangScheduler | None, list[Diagnostic]]:
    """The job's annotation wins over the command-line default; other schedulers say what the job misses."""
    annotations = job.document["metadata"].get("annotations") or {}
    value = annotations.get(GANG_ANNOTATION)
    chosen = flag
    found: list[Diagnostic] = []
    if value is not None:
        try:
            chosen = GangScheduler.parse(str(value))
        except ValueError as exc:
            return None, [
                error(
                    Code.INVALID_VALUE,
                    f"annotation {GANG_ANNOTATION}: {exc}",
                    ("metadata", "annotations", GANG_ANNOTATION),
                )
            ]
    for backend in backends().values():
        if chosen is None or backend.kind != chosen.kind:
            found.extend(backend.absent(job))
    return chosen, found


def gang_forms() -> str:
    """The --gang-scheduler values, as help text and hints list them: `volcano|kueue[=QUEUE]|…`."""
    return "|".join(f"{b.kind}[={b.argument}]" if b.argument else b.kind for b in backends().values())


def plan_gang(
    job: MXJob,
    scheduler: GangScheduler,
    priorities: Mapping[str, int],
    priority_sources: Mapping[str, str],
    kubernetes_version: str | None = None,
) -> tuple[Gang, list[Diagnostic]]:
    policy: dict[str, Any] = job.run_policy.scheduling_policy or {}
    backend = scheduler.backend
    found: list[Diagnostic] = []
    total = sum(replica.replicas for replica in job.replicas)
    min_member = int(policy.get("minAvailable", total))
    computes = backend.min_resources and "minResources" not in policy and min_member > 0
    # Without minResources to compute the PriorityClass order still ranks the members, quietly.
    ranked = _first_members(
        job, min_member, priorities if backend.min_resources else {}, priority_sources, found if computes else []
    )
    min_resources: dict[str, str] | None = None
    if backend.min_resources and "minResources" in policy:
        min_resources = dict(policy["minResources"])
    elif computes:
        min_resources = _sum(ranked, found) or None
    members = {replica.role: count for replica, count in ranked if count}
    plan = GangPlan(job, policy, scheduler.argument, total, min_member, members, min_resources, kubernetes_version)
    found.extend(_scheduler_name_conflicts(job, scheduler))
    found.extend(backend.findings(plan))
    if min_member > total:
        found.append(
            warning(
                Code.REPLICA_COUNT,
                f"minAvailable {min_member} is more than the job's {total} pods: the group can never be scheduled",
                (*SCHEDULING_POLICY, "minAvailable"),
                f"set minAvailable to at most {total}",
            )
        )
    group = backend.group(plan)
    return Gang(scheduler, plan, None if group is None else _group_object(job, group)), found


def _group_object(job: MXJob, group: GroupObject) -> dict[str, Any]:
    api_version, kind, spec = group
    metadata: dict[str, Any] = {"name": job.name}
    if job.namespace:
        metadata["namespace"] = job.namespace
    metadata["labels"] = {c.LABEL_OPERATOR_NAME: c.OPERATOR_NAME, c.LABEL_JOB_NAME: job.name}
    annotations = {k: v for k, v in (job.document["metadata"].get("annotations") or {}).items() if k != GANG_ANNOTATION}
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata, "spec": spec}


def _first_members(
    job: MXJob, min_member: int, priorities: Mapping[str, int], sources: Mapping[str, str], notes: list[Diagnostic]
) -> list[tuple[Replica, int]]:
    """The first minMember pods per replica type, highest PriorityClass value first (ties: rendering order)."""
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
                notes.append(
                    warning(
                        Code.PRIORITY_UNKNOWN,
                        f"the value of PriorityClass {name!r} is not known offline; {replica.type} pods count as 0 "
                        "when minResources picks the first minMember pods",
                        ("spec", "mxReplicaSpecs", replica.type, "template", "spec", "priorityClassName"),
                        f"pass --priority-class {name}=VALUE or include the PriorityClass object in the input",
                    )
                )
        ranked.append((-value, order, replica))
    chosen: list[tuple[Replica, int]] = []
    remaining = max(min_member, 0)
    for _, _, replica in sorted(ranked, key=lambda item: (item[0], item[1])):
        count = min(replica.replicas, remaining)
        remaining -= count
        chosen.append((replica, count))
    if used:
        notes.append(
            info(
                Code.PRIORITY_ORDER,
                f"PodGroup minResources ordered pods by PriorityClass {', '.join(used)}",
                SCHEDULING_POLICY,
            )
        )
    return chosen


def _sum(chosen: list[tuple[Replica, int]], notes: list[Diagnostic]) -> dict[str, str]:
    """Requests (limits where a request is missing) of the chosen pods, summed per resource."""
    per_resource: dict[str, list[object]] = {}
    for replica, count in chosen:
        for container in replica.template["spec"]["containers"] if count else ():
            resources = container.get("resources") or {}
            merged = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
            for resource, quantity in merged.items():
                per_resource.setdefault(resource, []).extend([quantity] * count)
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
        if own and scheduler.scheduler_name is not None and own != scheduler.scheduler_name:
            yield warning(
                Code.SCHEDULER_NAME_KEPT,
                f"{replica.type} pods keep schedulerName {own!r}, so the gang scheduler "
                f"{scheduler.scheduler_name!r} does not place them",
                ("spec", "mxReplicaSpecs", replica.type, "template", "spec", "schedulerName"),
                "remove schedulerName from the template",
            )
