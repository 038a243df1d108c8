"""Affinity: k8s.io/kubernetes pkg/apis/core/validation/validation.go `validateAffinity` (`validateNodeAffinity`,
`ValidateNodeSelector`, `ValidateNodeSelectorRequirement`, `validateNodeFieldSelectorRequirement`,
`validatePodAffinity`, `validatePodAntiAffinity`, `validatePodAffinityTerm`) and apimachinery
pkg/apis/meta/v1/validation `ValidateLabelSelector`.

A pod (anti-)affinity term's `matchLabelKeys` and `mismatchLabelKeys` (KEP 3633), as the 1.36 server checks them
in `validateMatchLabelKeysAndMismatchLabelKeys`
(https://github.com/kubernetes/kubernetes/blob/v1.36.0/pkg/apis/core/validation/validation.go): neither without a
`labelSelector` (an empty selector is one), each key a label key when there is a selector, and no key in both
lists. A key may repeat one of the selector's own: the server merges the pod's label value for it into the
selector on create. The MatchLabelKeysInPodAffinity gate is on by default from 1.31 (beta; alpha and off in
1.29-1.30, when the server drops both fields)."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, JsonPath
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate.meta import check_labels
from mxjob_gitops.compiler.rules.kubevalidate.report import (
    Found,
    as_dict,
    as_list,
    check_name,
    forbidden,
    invalid,
    is_int,
    required,
    since,
)

P = Code.K8S_POD
NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def check_affinity(found: Found, affinity: Any, path: JsonPath, version: str | None = None) -> None:
    """From 1.33 (ValidateNodeSelectorRequirement without AllowInvalidLabelValueInRequiredNodeAffinity) the values
    of a required node affinity's requirements are label values."""
    affinity = as_dict(affinity)
    strict_values = since(version, (1, 33))
    node = as_dict(affinity.get("nodeAffinity"))
    if "requiredDuringSchedulingIgnoredDuringExecution" in node:
        at = (*path, "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
        selector = as_dict(node["requiredDuringSchedulingIgnoredDuringExecution"])
        terms = as_list(selector.get("nodeSelectorTerms"))
        if not terms:
            required(found, P, (*at, "nodeSelectorTerms"), "must have at least one node selector term")
        for index, term in enumerate(terms):
            _node_term(found, term, (*at, "nodeSelectorTerms", index), strict_values)
    preferred = (*path, "nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution")
    for index, item in enumerate(as_list(node.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        _weight(found, as_dict(item).get("weight"), (*preferred, index, "weight"))
        _node_term(found, as_dict(item).get("preference"), (*preferred, index, "preference"))
    for key in ("podAffinity", "podAntiAffinity"):
        pod = as_dict(affinity.get(key))
        hard = (*path, key, "requiredDuringSchedulingIgnoredDuringExecution")
        for index, term in enumerate(as_list(pod.get("requiredDuringSchedulingIgnoredDuringExecution"))):
            _pod_term(found, term, (*hard, index), version)
        soft = (*path, key, "preferredDuringSchedulingIgnoredDuringExecution")
        for index, item in enumerate(as_list(pod.get("preferredDuringSchedulingIgnoredDuringExecution"))):
            _weight(found, as_dict(item).get("weight"), (*soft, index, "weight"))
            _pod_term(found, as_dict(item).get("podAffinityTerm"), (*soft, index, "podAffinityTerm"), version)


def _weight(found: Found, weight: Any, path: JsonPath) -> None:
    if is_int(weight) and not 1 <= weight <= 100:
        invalid(found, P, path, weight, "must be in the range 1-100")


def _node_term(found: Found, term: Any, path: JsonPath, label_values: bool = False) -> None:
    term = as_dict(term)
    for index, requirement in enumerate(as_list(term.get("matchExpressions"))):
        requirement, at = as_dict(requirement), (*path, "matchExpressions", index)
        operator, values = requirement.get("operator"), as_list(requirement.get("values"))
        if operator in ("In", "NotIn") and not values:
            required(found, P, (*at, "values"), "must be specified when `operator` is 'In' or 'NotIn'")
        elif operator in ("Exists", "DoesNotExist") and values:
            forbidden(found, P, (*at, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
        elif operator in ("Gt", "Lt") and len(values) != 1:
            # Only the count: the server does not check that the value is an integer (the scheduler does).
            required(found, P, (*at, "values"), "must be specified single value when `operator` is 'Lt' or 'Gt'")
        elif operator not in NODE_OPERATORS:
            invalid(found, P, (*at, "operator"), operator, "not a valid selector operator")
        check_name(found, P, (*at, "key"), requirement.get("key"), names.qualified_name)
        for position, value in enumerate(values if label_values else []):
            check_name(found, P, (*at, "values", position), value, names.label_value)
    for index, requirement in enumerate(as_list(term.get("matchFields"))):
        requirement, at = as_dict(requirement), (*path, "matchFields", index)
        if requirement.get("key") != "metadata.name":
            invalid(found, P, (*at, "key"), requirement.get("key"), "not a valid field selector key")
        if requirement.get("operator") not in ("In", "NotIn"):
            invalid(found, P, (*at, "operator"), requirement.get("operator"), "not a valid selector operator")
        elif len(as_list(requirement.get("values"))) != 1:
            required(
                found,
                P,
                (*at, "values"),
                "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
            )


def _pod_term(found: Found, term: Any, path: JsonPath, version: str | None) -> None:
    term = as_dict(term)
    check_label_selector(found, term.get("labelSelector"), (*path, "labelSelector"))
    # PodAffinityNamespaceSelector: beta and on in 1.22; an older server drops the field (dropDisabledFields).
    if since(version, (1, 22)):
        check_label_selector(found, term.get("namespaceSelector"), (*path, "namespaceSelector"))
    for index, namespace in enumerate(as_list(term.get("namespaces"))):
        check_name(found, P, (*path, "namespaces", index), namespace, names.dns1123_label)
    if since(version, (1, 31)):
        _label_keys(found, term, path)
    key = term.get("topologyKey")
    if not key:
        required(found, P, (*path, "topologyKey"), "can not be empty")
    else:
        check_name(found, P, (*path, "topologyKey"), key, names.qualified_name)


def _label_keys(found: Found, term: dict[str, Any], path: JsonPath) -> None:
    match, mismatch = as_list(term.get("matchLabelKeys")), as_list(term.get("mismatchLabelKeys"))
    if term.get("labelSelector") is None:
        for field, keys in (("matchLabelKeys", match), ("mismatchLabelKeys", mismatch)):
            if keys:
                forbidden(found, P, (*path, field), "must not be specified when labelSelector is not set")
    else:
        for field, keys in (("matchLabelKeys", match), ("mismatchLabelKeys", mismatch)):
            for index, key in enumerate(keys):
                check_name(found, P, (*path, field, index), key, names.qualified_name)
    both = {key for key in mismatch if isinstance(key, str)}
    for index, key in enumerate(match):
        if isinstance(key, str) and key in both:
            detail = "exists in both matchLabelKeys and mismatchLabelKeys"
            invalid(found, P, (*path, "matchLabelKeys", index), key, detail)


def check_label_selector(found: Found, selector: Any, path: JsonPath) -> None:
    """ValidateLabelSelector: matchLabels as labels; requirements with a known operator and fitting values."""
    selector = as_dict(selector)
    check_labels(found, selector.get("matchLabels"), (*path, "matchLabels"))
    for index, requirement in enumerate(as_list(selector.get("matchExpressions"))):
        requirement, at = as_dict(requirement), (*path, "matchExpressions", index)
        operator, values = requirement.get("operator"), as_list(requirement.get("values"))
        if operator in ("In", "NotIn") and not values:
            required(found, P, (*at, "values"), "must be specified when `operator` is 'In' or 'NotIn'")
        elif operator in ("Exists", "DoesNotExist") and values:
            forbidden(found, P, (*at, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
        elif operator not in SELECTOR_OPERATORS:
            invalid(found, P, (*at, "operator"), operator, "not a valid selector operator")
        check_name(found, P, (*at, "key"), requirement.get("key"), names.qualified_name)
        for position, value in enumerate(values):
            check_name(found, P, (*at, "values", position), value, names.label_value)
