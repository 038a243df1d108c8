"""Generate every file under schemas/: the MXJob v1 schema, both PodGroup schemas, the MXJob CRD.

The JSON schemas sit where kubeconform's `-schema-location 'schemas/kubeconform/{{.Group}}/{{.ResourceKind}}_
{{.ResourceAPIVersion}}.json'` finds them; the MXJob one is also the compiler's input schema. Run
`python schemas/generate.py` after changing this file or crd.py; tests/test_schema.py fails when the
committed files and the generator disagree. The Kubernetes definitions come from the kubernetes-validate package
(offline, pinned by KUBERNETES_VERSION below).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mxjob_gitops.compiler.spec.replicas import ReplicaType
from mxjob_gitops.reconciler.vocabulary import ConditionType, StandardCondition

KUBERNETES_VERSION = "1.35.0"
HERE = Path(__file__).resolve().parent
REF_PREFIX = "/api/_definitions.json#/$defs/"
ROOTS = (
    "io.k8s.api.core.v1.PodTemplateSpec",
    "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
    "io.k8s.apimachinery.pkg.api.resource.Quantity",
)

REPLICA_TYPES = [t.value for t in ReplicaType]
INT32_MAX = 2**31 - 1


def kubernetes_definitions() -> dict[str, Any]:
    import kubernetes_validate

    base = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"
    folder = base / f"v{KUBERNETES_VERSION}-local-strict"
    with (folder / "_definitions.json").open(encoding="utf-8") as handle:
        definitions: dict[str, Any] = json.load(handle)["$defs"]
    return definitions


def _refs(node: Any) -> list[str]:
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                found.append(value.rsplit("/", 1)[-1])
            else:
                found.extend(_refs(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_refs(value))
    return found


def closure(definitions: dict[str, Any], roots: tuple[str, ...]) -> dict[str, Any]:
    needed: dict[str, Any] = {}
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in needed:
            continue
        needed[name] = definitions[name]
        stack.extend(_refs(definitions[name]))
    text = json.dumps(needed, sort_keys=True).replace(REF_PREFIX, "#/$defs/")
    result: dict[str, Any] = json.loads(text)
    return result


def _int(minimum: int = 0, description: str = "") -> dict[str, Any]:
    return {"type": "integer", "minimum": minimum, "maximum": INT32_MAX, "description": description}


def mxjob_definitions() -> dict[str, Any]:
    quantity = {"$ref": "#/$defs/io.k8s.apimachinery.pkg.api.resource.Quantity"}
    return {
        "MXJobSpec": {
            "type": "object",
            "additionalProperties": False,
            "required": ["jobMode", "mxReplicaSpecs"],
            "properties": {
                "jobMode": {
                    "type": "string",
                    "enum": ["MXTrain", "MXTune"],
                    "description": "MXTrain (Scheduler, Server, Worker) or MXTune (TunerTracker, TunerServer, Tuner).",
                },
                "mxReplicaSpecs": {
                    "type": "object",
                    "minProperties": 1,
                    "propertyNames": {"enum": REPLICA_TYPES},
                    "additionalProperties": {"$ref": "#/$defs/ReplicaSpec"},
                    "description": "Replica specs keyed by replica type.",
                },
                "runPolicy": {"$ref": "#/$defs/RunPolicy"},
            },
        },
        "ReplicaSpec": {
            "type": "object",
            "additionalProperties": False,
            "required": ["template"],
            "properties": {
                "replicas": _int(0, "Number of pods of this replica type (default 1)."),
                "restartPolicy": {
                    "type": "string",
                    "enum": ["Always", "OnFailure", "Never", "ExitCode"],
                    "description": "What happens when a pod fails (default Never).",
                },
                "template": {"$ref": "#/$defs/io.k8s.api.core.v1.PodTemplateSpec"},
            },
        },
        "RunPolicy": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "cleanPodPolicy": {
                    "type": "string",
                    "enum": ["All", "Running", "None"],
                    "description": "Which pods to delete when the job finishes (default None).",
                },
                "ttlSecondsAfterFinished": _int(0, "Seconds after completion before the job is deleted."),
                "activeDeadlineSeconds": {
                    "type": "integer",
                    "format": "int64",
                    "minimum": 0,
                    "maximum": 2**63 - 1,
                    "description": "Seconds the job may run before it is failed.",
                },
                "backoffLimit": _int(0, "Restarts allowed before the job is failed."),
                "schedulingPolicy": {"$ref": "#/$defs/SchedulingPolicy"},
                "suspend": {"type": "boolean", "description": "Suspend the job: no pods run (default false)."},
            },
        },
        "SchedulingPolicy": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "minAvailable": _int(0, "Pods that must be schedulable together (gang size)."),
                "queue": {"type": "string"},
                "minResources": {"type": "object", "additionalProperties": quantity},
                "priorityClass": {"type": "string"},
                "scheduleTimeoutSeconds": _int(0),
            },
        },
    }


def mxjob_schema(definitions: dict[str, Any]) -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "MXJob kubeflow.org/v1 (input accepted by mxjob-gitops)",
        "description": f"Generated by schemas/generate.py from Kubernetes {KUBERNETES_VERSION} strict schemas.",
        "type": "object",
        "additionalProperties": False,
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "properties": {
            "apiVersion": {"type": "string", "const": "kubeflow.org/v1"},
            "kind": {"type": "string", "const": "MXJob"},
            "metadata": {"$ref": "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
            "spec": {"$ref": "#/$defs/MXJobSpec"},
            "status": {"$ref": "#/$defs/JobStatus"},
        },
        "$defs": dict(sorted(definitions.items())),
    }


def status_definitions() -> dict[str, Any]:
    time = {"type": "string", "format": "date-time"}
    counter = {"type": "integer", "minimum": 0, "maximum": INT32_MAX}
    return {
        "JobStatus": {
            "type": "object",
            "description": "Written by `mxjob reconcile` through the status subresource.",
            "properties": {
                "conditions": {"type": "array", "items": {"$ref": "#/$defs/JobCondition"}},
                "replicaStatuses": {"type": "object", "additionalProperties": {"$ref": "#/$defs/ReplicaStatus"}},
                "startTime": time,
                "completionTime": time,
                "lastReconcileTime": time,
                "observedGeneration": {
                    "type": "integer",
                    "minimum": 0,
                    "format": "int64",
                    "description": "The metadata.generation the reconciler last acted on (kstatus reads it).",
                },
                "restartCounts": {
                    "type": "object",
                    "additionalProperties": counter,
                    "description": "Pod restarts made by the reconciler, per replica type.",
                },
            },
        },
        "JobCondition": {
            "type": "object",
            "required": ["type", "status"],
            "properties": {
                # Every type the reconciler writes: the training operator's, Refused (ours) and kstatus' Stalled
                # (reconciler/standard.py), from the reconciler's own vocabulary so that the two cannot drift.
                "type": {"type": "string", "enum": [*ConditionType, *StandardCondition]},
                "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
                "reason": {"type": "string"},
                "message": {"type": "string"},
                "lastUpdateTime": time,
                "lastTransitionTime": time,
            },
        },
        "ReplicaStatus": {
            "type": "object",
            "properties": {"active": counter, "succeeded": counter, "failed": counter},
        },
    }


def _object_meta_ref() -> dict[str, Any]:
    return {"$ref": "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}


def pod_group_schema(
    definitions: dict[str, Any], api_version: str, spec: dict[str, Any], status: dict[str, Any]
) -> dict[str, Any]:
    needed = closure(
        definitions,
        ("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "io.k8s.apimachinery.pkg.api.resource.Quantity"),
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"PodGroup {api_version}",
        "description": f"Generated by schemas/generate.py (Kubernetes {KUBERNETES_VERSION} metadata).",
        "type": "object",
        "additionalProperties": False,
        "required": ["apiVersion", "kind", "metadata"],
        "properties": {
            "apiVersion": {"type": "string", "const": api_version},
            "kind": {"type": "string", "const": "PodGroup"},
            "metadata": _object_meta_ref(),
            "spec": {"type": "object", "additionalProperties": False, "properties": spec},
            "status": {"type": "object", "properties": status},
        },
        "$defs": dict(sorted(needed.items())),
    }


def pod_group_schemas(definitions: dict[str, Any]) -> dict[str, dict[str, Any]]:
    quantities = {
        "type": "object",
        "additionalProperties": {"$ref": "#/$defs/io.k8s.apimachinery.pkg.api.resource.Quantity"},
    }
    counter = _int(0)
    volcano = pod_group_schema(
        definitions,
        "scheduling.volcano.sh/v1beta1",
        {
            "minMember": counter,
            "minTaskMember": {"type": "object", "additionalProperties": counter},
            "queue": {"type": "string"},
            "priorityClassName": {"type": "string"},
            "minResources": quantities,
            "networkTopology": {
                "type": "object",
                "properties": {"mode": {"type": "string", "enum": ["hard", "soft"]}, "highestTierAllowed": counter},
            },
        },
        {
            "phase": {"type": "string"},
            "conditions": {"type": "array", "items": {"type": "object"}},
            "running": counter,
            "succeeded": counter,
            "failed": counter,
        },
    )
    plugins = pod_group_schema(
        definitions,
        "scheduling.x-k8s.io/v1alpha1",
        {
            "minMember": counter,
            "minResources": quantities,
            "scheduleTimeoutSeconds": counter,
        },
        {
            "phase": {"type": "string"},
            "occupiedBy": {"type": "string"},
            "running": counter,
            "succeeded": counter,
            "failed": counter,
            "scheduleStartTime": {"type": "string", "format": "date-time"},
        },
    )
    return {
        "kubeconform/scheduling.volcano.sh/podgroup_v1beta1.json": volcano,
        "kubeconform/scheduling.x-k8s.io/podgroup_v1alpha1.json": plugins,
    }


def build_files() -> dict[str, str]:
    """Every generated file under schemas/, by relative path."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))  # crd.py sits next to this script
    from crd import build_crd

    kubernetes = kubernetes_definitions()
    definitions = closure(kubernetes, ROOTS)
    definitions.update(mxjob_definitions())
    definitions.update(status_definitions())
    mxjob = mxjob_schema(definitions)
    schemas: dict[str, dict[str, Any]] = {"kubeconform/kubeflow.org/mxjob_v1.json": mxjob}
    schemas.update(pod_group_schemas(kubernetes))
    files = {path: json.dumps(schema, indent=1) + "\n" for path, schema in schemas.items()}
    files["crd/kubeflow.org_mxjobs.yaml"] = build_crd(mxjob)
    files["cel/kubeflow.org_mxjobs.json"] = cel_rules(files["crd/kubeflow.org_mxjobs.yaml"])
    return files


def cel_rules(crd_text: str) -> str:
    """The CRD's schema pruned to the nodes that lead to its CEL rules (compiler.kubevalidate.crdrules)."""
    import yaml

    from mxjob_gitops.compiler.rules.kubevalidate.crdrules import rule_skeleton

    crd = yaml.safe_load(crd_text)
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    return json.dumps(rule_skeleton(schema), indent=1, sort_keys=True) + "\n"


def main() -> int:
    for relative, text in build_files().items():
        path = HERE / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
