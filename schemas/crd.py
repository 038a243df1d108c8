"""Turn the MXJob JSON schema into the CRD's structural openAPIV3Schema (used by schemas/generate.py).

The result obeys the API server's rules (schemas/structural.py checks them and the build fails otherwise) and
holds only keys the server stores, so the CRD read back from a cluster equals this file: no $ref, no
`additionalProperties: false` next to `properties` (the server prunes unknown fields instead), no `const`,
`propertyNames`, type lists, `nullable` or strategic-merge hints (x-kubernetes-patch-*, x-kubernetes-unions);
int-or-string values use x-kubernetes-int-or-string. Descriptions of the Kubernetes definitions are dropped to
keep the CRD well below the 256 KiB last-applied-configuration limit.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from structural import STORED_KEYS, check

from mxjob_gitops.compiler.render.emit import to_yaml

# What the server stores of a schema node (schemas/structural.py STORED_KEYS, minus what a CRD may not use).
KEPT_KEYS = STORED_KEYS - {
    "$schema",
    "id",
    "title",
    "$ref",
    "definitions",
    "dependencies",
    "additionalItems",
    "patternProperties",
    "nullable",
    "format",
}
KEPT_FORMATS = {"date-time", "int32", "int64", "byte", "date", "double", "float"}
# List-map keys the Kubernetes types leave optional get the default the API server gives them, as controller-gen
# writes it from the `+default` markers in k8s.io/api/core/v1/types.go (ContainerPort.Protocol "TCP";
# LocalObjectReference.Name ""): apiextensions' validateMapListKeysMapSet wants every key required or defaulted.
LIST_MAP_KEY_DEFAULTS = {"protocol": "TCP", "name": ""}
# controller-gen's pattern for resource.Quantity (k8s.io/apimachinery/pkg/api/resource/quantity.go grammar).
QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?"
    r"(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
FLOAT_EXACT = 2**53


def structural(
    node: dict[str, Any], definitions: dict[str, Any], keep_description: bool, trail: tuple[str, ...] = ()
) -> dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        if name in trail:
            raise ValueError(f"recursive schema at {' -> '.join((*trail, name))}")
        ours = not name.startswith("io.k8s.")
        merged = {**definitions[name], **{k: v for k, v in node.items() if k != "$ref"}}
        resolved = structural(merged, definitions, keep_description and ours, (*trail, name))
        if name.endswith("resource.Quantity"):
            resolved["pattern"] = QUANTITY_PATTERN
        return resolved
    out: dict[str, Any] = {}
    options = node.get("oneOf") or node.get("anyOf")
    if options is not None and _scalar_choice(options):
        out["x-kubernetes-int-or-string"] = True
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    for key, value in node.items():
        if key in ("oneOf", "anyOf") or not _kept(key, value, keep_description):
            continue
        if key == "const":
            out["enum"] = [value]
        elif key == "type":
            # `[X, "null"]` is just X: optional fields are omitted, and CRD pruning drops nulls of
            # non-nullable fields; `nullable` is forbidden on items of map/set lists and on their keys.
            out["type"] = next(t for t in value if t != "null") if isinstance(value, list) else value
        elif key == "properties":
            out[key] = {name: structural(sub, definitions, keep_description, trail) for name, sub in value.items()}
        elif key in ("additionalProperties", "items"):
            if isinstance(value, dict):
                out[key] = structural(value, definitions, keep_description, trail)
        elif key in ("minimum", "maximum") and abs(value) > FLOAT_EXACT:
            continue  # stored as float64 (JSONSchemaProps): keep `format: int64` alone, as controller-gen does
        else:
            out[key] = value
    if "properties" in out or "additionalProperties" in out:
        out.setdefault("type", "object")
    if out.get("x-kubernetes-list-type") == "map":
        _default_map_keys(out)
    return out


def _kept(key: str, value: Any, keep_description: bool) -> bool:
    if key == "format":
        return value in KEPT_FORMATS
    if key == "description":
        return keep_description and bool(value)
    return key in KEPT_KEYS or key == "const"


def _default_map_keys(array: dict[str, Any]) -> None:
    items = array["items"]
    for key in array["x-kubernetes-list-map-keys"]:
        prop = items["properties"][key]
        if key not in items.get("required", []) and "default" not in prop:
            if key not in LIST_MAP_KEY_DEFAULTS:
                raise ValueError(f"list-map key {key!r} is optional and has no known server default")
            prop["default"] = LIST_MAP_KEY_DEFAULTS[key]


def _scalar_choice(options: list[Any]) -> bool:
    kinds: set[str] = set()
    for option in options:
        kind = option.get("type") if isinstance(option, dict) else None
        kinds.update(kind if isinstance(kind, list) else [str(kind)])
    return bool(kinds) and kinds <= {"string", "integer", "number", "null"}


def _run_policy_rules(run_policy: dict[str, Any]) -> None:
    """The training operator's rules: suspend defaults to false, and the queue of a job is immutable."""
    run_policy["suspend"]["default"] = False
    run_policy["schedulingPolicy"]["properties"]["queue"]["x-kubernetes-validations"] = [
        {"rule": "self == oldSelf", "message": "spec.runPolicy.schedulingPolicy.queue is immutable"}
    ]


def build_crd(mxjob: dict[str, Any]) -> str:
    definitions = mxjob["$defs"]
    root = structural({k: v for k, v in mxjob.items() if k != "$defs"}, definitions, keep_description=True)
    root["properties"]["metadata"] = {"type": "object"}
    root["properties"]["status"]["x-kubernetes-preserve-unknown-fields"] = True
    # An MXJob the reconciler has not reached yet reads `status: {}` rather than no status: Flux's
    # healthCheckExprs bind each top-level field as a variable (fluxcd/pkg runtime/cel, StatusEvaluator), so
    # with no `status` at all even `has(status.conditions)` fails ("no such attribute(s)") and Flux waits for
    # its timeout. The API server applies the default when it reads the object from etcd
    # (apiextensions-apiserver pkg/apiserver/schema/defaulting), so the stored objects stay as written.
    root["properties"]["status"]["default"] = {}
    # ... and `observedGeneration: 0` until the reconciler writes the generation it acted on: kstatus (Flux's
    # default health) reads a generation not observed yet as InProgress (cli-utils pkg/kstatus/status/generic.go,
    # checkGeneration), as it reads a batch Job its controller has not started (core.go, jobConditions).
    root["properties"]["status"]["properties"]["observedGeneration"]["default"] = 0
    root.pop("required", None)
    root["required"] = ["spec"]
    _run_policy_rules(root["properties"]["spec"]["properties"]["runPolicy"]["properties"])
    problems = check(root)
    if problems:
        raise ValueError("the CRD schema breaks the API server's rules:\n" + "\n".join(map(str, problems)))
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": "mxjobs.kubeflow.org",
            "labels": {"app.kubernetes.io/name": "mxjob-gitops", "app.kubernetes.io/component": "crd"},
        },
        "spec": {
            "group": "kubeflow.org",
            "names": {
                "kind": "MXJob",
                "listKind": "MXJobList",
                "plural": "mxjobs",
                "singular": "mxjob",
                "categories": ["kubeflow", "all-jobs"],
            },
            "scope": "Namespaced",
            # The server's default (apiextensions v1 SetDefaults_CustomResourceDefinitionSpec), written out so
            # that the stored CRD equals this file.
            "conversion": {"strategy": "None"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "additionalPrinterColumns": [
                        {"name": "State", "type": "string", "jsonPath": ".status.conditions[-1:].type"},
                        {"name": "Mode", "type": "string", "jsonPath": ".spec.jobMode", "priority": 1},
                        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
                    ],
                    "schema": {"openAPIV3Schema": root},
                }
            ],
        },
    }
    header = "# Generated by schemas/generate.py from the MXJob schema; do not edit.\n"
    return header + to_yaml(crd)
