"""The MXJob CRD's own CEL rules as diagnostics: on create (compiler.job) and on an update, where an old MXJob
exists (compiler.updates for `mxjob diff`). The rules are the CRD's (schemas/crd);
schemas/generate.py keeps the part of its schema that leads to them in schemas/cel/kubeflow.org_mxjobs.json, so
a run reads a few lines of JSON instead of the whole CRD, and the CEL interpreter is imported only when a rule
must run (compiler.kubevalidate.cel)."""

from __future__ import annotations

import functools
import json
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, error, warning
from mxjob_gitops.compiler.rules.kubevalidate.cel import RuleResult, Schema, evaluate, has_rules
from mxjob_gitops.compiler.rules.kubevalidate.report import since

RULES_FILE = "cel/kubeflow.org_mxjobs.json"
# What a schema node keeps on the way to a rule (the structure the walk and the CEL typing read).
STRUCTURE = (
    "type",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
)


def rule_skeleton(schema: Schema) -> Schema:
    """The nodes of a structural schema that lead to x-kubernetes-validations; a node with rules is kept whole
    (less descriptions), so its rules see every field typed as the server types it."""
    if schema.get("x-kubernetes-validations"):
        whole: Schema = _without_descriptions(schema)
        return whole
    kept: Schema = {key: schema[key] for key in STRUCTURE if key in schema}
    properties = {k: rule_skeleton(v) for k, v in (schema.get("properties") or {}).items() if has_rules(v)}
    if properties:
        kept["properties"] = properties
    for key in ("items", "additionalProperties"):
        if has_rules(schema.get(key)):
            kept[key] = rule_skeleton(schema[key])
    parts = [rule_skeleton(part) for part in schema.get("allOf") or () if has_rules(part)]
    if parts:
        kept["allOf"] = parts
    return kept


def _without_descriptions(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _without_descriptions(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [_without_descriptions(v) for v in node]
    return node


@functools.cache
def mxjob_rules() -> Schema:
    from mxjob_gitops.compiler.rules.schema import schema_dir

    with (schema_dir() / RULES_FILE).open(encoding="utf-8") as handle:
        skeleton: Schema = json.load(handle)
    return skeleton


def enforced(version: str | None) -> bool:
    """x-kubernetes-validations run from 1.25 (CustomResourceValidationExpressions: alpha in 1.23, beta and on in
    1.25, GA in 1.29); an older server drops the key from the CRD (docs/crd.md), so nothing is checked."""
    return since(version, (1, 25))


def check_create(obj: dict[str, Any], version: str | None = None) -> list[Diagnostic]:
    """The CRD's rules an MXJob breaks when it is created (transition rules do not run on create)."""
    schema = mxjob_rules()
    if not schema or not enforced(version):
        return []
    return [_diagnostic(result, None) for result in evaluate(schema, obj)]


def check_update(new: dict[str, Any], old: dict[str, Any], version: str | None = None) -> list[Diagnostic]:
    """The CRD's rules an update of `old` to `new` breaks: the server refuses the update (kubectl apply, an Argo
    CD or Flux sync fail) for each error."""
    schema = mxjob_rules()
    if not schema or not enforced(version):
        return []
    return [_diagnostic(result, old) for result in evaluate(schema, new, old)]


def _diagnostic(result: RuleResult, old: dict[str, Any] | None) -> Diagnostic:
    if result.unsupported:
        return warning(Code.CEL_NOT_CHECKED, result.message, result.path, "the API server checks it when applied")
    if result.ratcheted:
        hint = "the server only warns: the value is unchanged since the object was stored"
        return warning(Code.K8S_CEL, result.message, result.path, hint)
    if result.transition and old is not None:
        before = _value_at(old, result.path)
        keep = f"keep {_show(before)}" if before is not None else "keep the stored value"
        hint = f"the API server refuses this update: delete and recreate the {old.get('kind', 'object')}, or {keep}"
        return error(Code.K8S_UPDATE, result.message, result.path, hint)
    return error(Code.K8S_CEL, result.message, result.path, "see docs/validation.md#the-crds-cel-rules")


def _value_at(obj: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        if isinstance(obj, dict) and isinstance(part, str):
            obj = obj.get(part)
        elif isinstance(obj, list) and isinstance(part, int) and part < len(obj):
            obj = obj[part]
        else:
            return None
    return obj


def _show(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, dict | list) else "the stored value"
