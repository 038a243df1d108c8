"""Generate schemas/mxjob-v1.schema.json: the MXJob v1 input schema with Kubernetes' strict PodTemplateSpec inlined.

Run `python schemas/generate.py` after changing this file; tests/test_schema.py fails when the committed
schema and this generator disagree. The Kubernetes definitions come from the kubernetes-validate package
(offline, pinned by KUBERNETES_VERSION below).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

KUBERNETES_VERSION = "1.35.0"
OUTPUT = Path(__file__).with_name("mxjob-v1.schema.json")
REF_PREFIX = "/api/_definitions.json#/$defs/"
ROOTS = ("io.k8s.api.core.v1.PodTemplateSpec", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
         "io.k8s.apimachinery.pkg.api.resource.Quantity")

REPLICA_TYPES = ["Scheduler", "Server", "Worker", "TunerTracker", "TunerServer", "Tuner"]
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
                "jobMode": {"type": "string", "enum": ["MXTrain", "MXTune"],
                            "description": "MXTrain (Scheduler, Server, Worker) or MXTune (TunerTracker, "
                                           "TunerServer, Tuner)."},
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
                "restartPolicy": {"type": "string", "enum": ["Always", "OnFailure", "Never", "ExitCode"],
                                  "description": "What happens when a pod fails (default Never)."},
                "template": {"$ref": "#/$defs/io.k8s.api.core.v1.PodTemplateSpec"},
            },
        },
        "RunPolicy": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "cleanPodPolicy": {"type": "string", "enum": ["All", "Running", "None"],
                                   "description": "Which pods to delete when the job finishes (default None)."},
                "ttlSecondsAfterFinished": _int(0, "Seconds after completion before the job is deleted."),
                "activeDeadlineSeconds": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1,
                                          "description": "Seconds the job may run before it is failed."},
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


def build_schema() -> dict[str, Any]:
    definitions = closure(kubernetes_definitions(), ROOTS)
    definitions.update(mxjob_definitions())
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
            "status": {"type": "object", "description": "Written by the reconciler; ignored on input."},
        },
        "$defs": dict(sorted(definitions.items())),
    }


def render() -> str:
    return json.dumps(build_schema(), indent=1, sort_keys=False) + "\n"


def main() -> int:
    OUTPUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUTPUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
