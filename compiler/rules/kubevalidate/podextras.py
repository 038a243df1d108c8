"""Pod fields whose rules depend on the Kubernetes version: ephemeral containers, refused on create, and pod-level
resources (`spec.resources`, KEP 2837). k8s.io/kubernetes pkg/apis/core/validation/validation.go
`ValidatePodCreate` ("cannot be set on create"), `validatePodResources`, `validatePodResourceRequirements`,
`validatePodResourceName`, `validatePodResourceConsistency`; the defaulting they see is pkg/apis/core/v1/defaults.go
`defaultHugePagePodLimits` and `defaultPodRequests`, the sums k8s.io/component-helpers resource
`AggregateContainerRequests` / `AggregateContainerLimits`. Called by compiler.kubevalidate.pod for a Pod and for
an MXJob's templates (each becomes a created pod).

Versions: ephemeral containers were alpha and off until 1.23 (the EphemeralContainers gate; an older server drops
the field silently, as v1.20.2 does), beta and on from 1.23; pod-level resources are beta and on from 1.34 (the
PodLevelResources gate: 1.32-1.33 drop the field; before 1.32 it is unknown, which the strict schema reports)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath, error
from mxjob_gitops.compiler.base.quantity import QuantityError, add_quantities
from mxjob_gitops.compiler.rules.kubevalidate.report import (
    Found,
    as_dict,
    as_list,
    forbidden,
    invalid,
    required,
    since,
    unsupported,
)
from mxjob_gitops.compiler.rules.kubevalidate.resources import quantity, resource_name_problem

P, R = Code.K8S_POD, Code.K8S_RESOURCES
POD_LEVEL = ("cpu", "hugepages-", "memory")  # resourcehelper.SupportedPodLevelResources, sorted as the server lists
Amounts = dict[str, list[Any]]  # resource -> the quantities (as written) that add up to it


def check_pod_extras(found: Found, spec: dict[str, Any], path: JsonPath, version: str | None) -> None:
    if as_list(spec.get("ephemeralContainers")) and since(version, (1, 23)):
        hint = "remove ephemeralContainers: they are only added to a running pod (kubectl debug)"
        found.append(error(P, "Forbidden: cannot be set on create", (*path, "ephemeralContainers"), hint))
    if spec.get("resources") is not None and since(version, (1, 34)):
        _pod_resources(found, spec, (*path, "resources"))


def _pod_resources(found: Found, spec: dict[str, Any], path: JsonPath) -> None:
    """validatePodResources on the defaulted spec."""
    resources = as_dict(spec.get("resources"))
    if as_dict(spec.get("os")).get("name") == "windows":
        forbidden(found, P, path, "may not be set for a windows pod")
        return
    if resources.get("claims") is not None:
        forbidden(found, P, (*path, "claims"), "claims may not be set for Resources at pod-level")
    before = len(found)
    limits = _amounts(found, resources.get("limits"), (*path, "limits"))
    requests = _amounts(found, resources.get("requests"), (*path, "requests"))
    if len(found) > before:
        return  # a bad name or quantity: the sums below would read it (the server reports it alone)
    containers = [_defaulted(c) for c in as_list(spec.get("containers"))]
    inits = [(_defaulted(c), as_dict(c).get("restartPolicy") == "Always") for c in as_list(spec.get("initContainers"))]
    if limits or requests:  # defaultHugePagePodLimits
        for name, total in _aggregate(containers, inits, "limits").items():
            if name.startswith("hugepages-") and name not in limits:
                limits[name] = [_show(total)]
    if limits:  # defaultPodRequests
        for name, total in _aggregate(containers, inits, "requests").items():
            if name in ("cpu", "memory") and name not in requests:
                requests[name] = [_show(total)]
        for name, limit in limits.items():
            requests.setdefault(name, limit)
    _requests_within_limits(found, limits, requests, path)
    _consistency(found, containers, inits, limits, requests, path)


def _amounts(found: Found, values: Any, path: JsonPath) -> Amounts:
    amounts: Amounts = {}
    for name, value in as_dict(values).items():
        at = (*path, name)
        problem = resource_name_problem(name)
        if problem:
            invalid(found, R, at, name, problem)
            continue
        if name not in ("cpu", "memory") and not name.startswith("hugepages-"):
            unsupported(found, R, at, name, POD_LEVEL)
            continue
        amount = quantity(found, at, value)
        if amount is not None and amount < 0:
            invalid(found, R, at, value, "must be greater than or equal to 0")
        elif amount is not None:
            amounts[name] = [value]
    return amounts


def _requests_within_limits(found: Found, limits: Amounts, requests: Amounts, path: JsonPath) -> None:
    """validateResourceRequirements: requests <= limits, hugepages equal to a limit, and cpu or memory with them."""
    for name, request in requests.items():
        amount, shown = _sum(request), _show(request)
        if name not in limits:
            if name.startswith("hugepages-"):
                required(found, R, (*path, "limits"), "Limit must be set for non overcommitable resources")
            continue
        limit = _sum(limits[name])
        if name.startswith("hugepages-") and amount != limit:
            invalid(found, R, (*path, "requests"), shown, f"must be equal to {name} limit of {_show(limits[name])}")
        elif amount > limit:
            detail = f"must be less than or equal to {name} limit of {_show(limits[name])}"
            invalid(found, R, (*path, "requests"), shown, detail)
    names = {*limits, *requests}
    if any(n.startswith("hugepages-") for n in names) and not names & {"cpu", "memory"}:
        forbidden(found, R, path, "HugePages require cpu or memory")


def _consistency(
    found: Found,
    containers: list[dict[str, Any]],
    inits: list[tuple[dict[str, Any], bool]],
    limits: Amounts,
    requests: Amounts,
    path: JsonPath,
) -> None:
    """validatePodResourceConsistency."""
    for name, total in sorted(_aggregate(containers, inits, "requests").items()):
        if name in requests and _sum(total) > _sum(requests[name]):
            detail = f"must be greater than or equal to aggregate container requests of {_show(total)}"
            invalid(found, R, (*path, "requests", name), _show(requests[name]), detail)
    for name, total in sorted(_aggregate(containers, inits, "limits").items()):
        if name.startswith("hugepages-") and name in limits and _sum(total) > _sum(limits[name]):
            detail = f"must be greater than or equal to aggregate container limits of {_show(total)}"
            invalid(found, R, (*path, "limits", name), _show(limits[name]), detail)
    for index, container in enumerate(containers):
        for name, value in as_dict(container.get("limits")).items():
            if name in limits and _sum([value]) > _sum(limits[name]):
                detail = f"must be less than or equal to pod limits of {_show(limits[name])}"
                invalid(found, R, (*path, "containers", index, name, "limits"), value, detail)


def _defaulted(container: Any) -> dict[str, Any]:
    """A container's requirements after SetDefaults_Container: each limit is also the request when none is given."""
    resources = as_dict(as_dict(container).get("resources"))
    limits, requests = as_dict(resources.get("limits")), as_dict(resources.get("requests"))
    return {"limits": limits, "requests": {**limits, **requests}}


def _aggregate(containers: list[dict[str, Any]], inits: list[tuple[dict[str, Any], bool]], key: str) -> Amounts:
    """AggregateContainerRequests / AggregateContainerLimits: the containers' sum, raised to what any init
    container needs (with the sidecars started before it); sidecars (restartPolicy Always) add to the sum."""
    total: Amounts = {}
    for container in containers:
        _add(total, as_dict(container.get(key)))
    sidecars: Amounts = {}
    peak: Amounts = {}
    for container, restartable in inits:
        own = as_dict(container.get(key))
        if restartable:
            _add(total, own)
            _add(sidecars, own)
            needed = sidecars
        else:
            needed = {}
            _add(needed, own)
            for name, values in sidecars.items():
                needed.setdefault(name, []).extend(values)
        for name, values in needed.items():
            if name not in peak or _sum(values) > _sum(peak[name]):
                peak[name] = list(values)
    for name, values in peak.items():
        if name not in total or _sum(values) > _sum(total[name]):
            total[name] = values
    return total


def _add(total: Amounts, values: dict[str, Any]) -> None:
    for name, value in values.items():
        total.setdefault(name, []).append(value)


def _sum(values: list[Any]) -> Decimal:
    amounts = [quantity([], (), value) for value in values]
    return sum((a for a in amounts if a is not None), Decimal(0))


def _show(values: list[Any]) -> str:
    """A sum as the server prints it (canonical), or the one value as written."""
    if len(values) == 1:
        return str(values[0])
    try:
        return add_quantities(values)
    except QuantityError:  # a container's bad quantity: reported by the container rules
        return str(values[0])
