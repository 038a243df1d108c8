"""Resource quantities and requirements: k8s.io/apimachinery pkg/api/resource `ParseQuantity` and
k8s.io/kubernetes pkg/apis/core/validation/validation.go `ValidateResourceRequirements`,
`validateContainerResourceName`, `ValidateResourceQuantityValue`, `ValidateNonnegativeQuantity`."""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.base.quantity import QuantityError, parse
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate.report import Found, as_dict, forbidden, invalid, required, since

Q, R = Code.K8S_QUANTITY, Code.K8S_RESOURCES
STANDARD = {"cpu", "memory", "ephemeral-storage"}
_INTEGER_NEEDED = "must be an integer"


def quantity(found: Found, path: JsonPath, value: Any) -> Decimal | None:
    """The amount, or None with the parse error reported (the server's decoding error)."""
    if value is None:
        return None
    try:
        return parse(value)[0]
    except QuantityError as exc:
        invalid(found, Q, path, value, str(exc))
        return None


def resource_name_problem(name: str) -> str:
    """validateContainerResourceName: a qualified name; without a prefix, a standard container resource."""
    problem = names.qualified_name(name)
    if problem:
        return problem
    if "/" not in name:
        if name in STANDARD or name.startswith("hugepages-"):
            return ""
        return "must be a standard resource for containers"
    if name.startswith("requests.") or name.startswith("limits."):
        return "must not be a quota resource"
    return ""


def _extended(name: str) -> bool:
    """IsExtendedResourceName: outside kubernetes.io/ and not a native name; such resources cannot be overcommitted."""
    return "/" in name and not name.startswith("kubernetes.io/") and ".kubernetes.io/" not in name.split("/")[0] + "/"


def _parsed(found: Found, values: Any, path: JsonPath) -> dict[str, Decimal]:
    amounts: dict[str, Decimal] = {}
    for name, value in as_dict(values).items():
        at = (*path, name)
        problem = resource_name_problem(name) if isinstance(name, str) else ""
        if problem:
            invalid(found, R, at, name, problem)
        amount = quantity(found, at, value)
        if amount is None:
            continue
        if amount < 0:
            invalid(found, R, at, value, "must be greater than or equal to 0")
        elif _extended(name) and amount != amount.to_integral_value():
            invalid(found, R, at, value, _INTEGER_NEEDED)
        amounts[name] = amount
    return amounts


def _huge_pages(found: Found, amounts: dict[str, Decimal], raw: dict[str, Any], path: JsonPath) -> None:
    """validateResourceQuantityHugePageValue (from 1.22; pods created before keep AllowIndivisibleHugePagesValues):
    a positive whole number of pages."""
    for name, amount in amounts.items():
        if not name.startswith("hugepages-"):
            continue
        try:
            page = parse(name.removeprefix("hugepages-"))[0]
        except QuantityError:
            page = Decimal(0)
        if page <= 0 or amount <= 0 or amount.to_integral_value(ROUND_CEILING) % page.to_integral_value(ROUND_CEILING):
            invalid(found, R, (*path, name), raw[name], f"{raw[name]} is not positive integer multiple of {name}")


def check_requirements(found: Found, resources: Any, path: JsonPath, version: str | None = None) -> None:
    """requests <= limits; extended resources and hugepages need a limit equal to any request; hugepages need cpu
    or memory (ValidateResourceRequirements)."""
    resources = as_dict(resources)
    limits = _parsed(found, resources.get("limits"), (*path, "limits"))
    requests = _parsed(found, resources.get("requests"), (*path, "requests"))
    if since(version, (1, 22)):
        _huge_pages(found, limits, as_dict(resources.get("limits")), (*path, "limits"))
        _huge_pages(found, requests, as_dict(resources.get("requests")), (*path, "requests"))
    named = {*limits, *requests}
    if any(n.startswith("hugepages-") for n in named) and not named & {"cpu", "memory"}:
        forbidden(found, R, path, "HugePages require cpu or memory")
    raw_limits = as_dict(resources.get("limits"))
    for name, amount in requests.items():
        at = (*path, "requests", name)
        overcommit = not (_extended(name) or name.startswith("hugepages-"))
        if name not in limits:
            if not overcommit and name not in as_dict(resources.get("limits")):
                required(found, R, (*path, "limits"), "Limit must be set for non overcommitable resources")
            continue
        if overcommit and amount > limits[name]:
            invalid(
                found,
                R,
                at,
                as_dict(resources["requests"])[name],
                f"must be less than or equal to {name} limit of {raw_limits[name]}",
            )
        elif not overcommit and amount != limits[name]:
            invalid(
                found,
                R,
                at,
                as_dict(resources["requests"])[name],
                f"must be equal to {name} limit of {raw_limits[name]}",
            )
