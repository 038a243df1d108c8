"""Convert older MXJob API versions (flat v1, v1beta1/v1alpha2, v1alpha1) to kubeflow.org/v1; pure, never mutates."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, JsonPath, PathPart, error, warning
from mxjob_gitops.compiler.base.jsonutil import as_dict, copy_json
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.legacy import OLD_LABELS_NOTE, fields_new_in_v1, legacy_v1_fields, v1alpha2_tuner_env

RUN_POLICY_KEYS = (
    "cleanPodPolicy",
    "ttlSecondsAfterFinished",
    "activeDeadlineSeconds",
    "backoffLimit",
    "schedulingPolicy",
    "suspend",
)
MAP_KEYED_VERSIONS = ("kubeflow.org/v1beta1", "kubeflow.org/v1alpha2")
LIST_VERSION = "kubeflow.org/v1alpha1"
SUPPORTED_VERSIONS = (c.API_VERSION, *MAP_KEYED_VERSIONS, LIST_VERSION)
_ALPHA1_TYPES = {"SCHEDULER": c.SCHEDULER, "SERVER": c.SERVER, "WORKER": c.WORKER}
_DEFAULTS_NOTE = (
    "the old operator defaulted cleanPodPolicy to All, v1 defaults to None: "
    "set spec.runPolicy.cleanPodPolicy if you relied on it"
)


@dataclass(slots=True)
class Conversion:
    """A v1 document plus where its fields came from in the original, for locating diagnostics."""

    data: dict[str, Any]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    renames: list[tuple[JsonPath, JsonPath]] = field(default_factory=list)

    def rename(self, new: Sequence[PathPart], old: Sequence[PathPart]) -> None:
        self.renames.append((tuple(new), tuple(old)))

    def origin(self, path: JsonPath) -> JsonPath:
        """Map a path in the v1 document to the path of the same field in the source document."""
        best: tuple[JsonPath, JsonPath] | None = None
        for new, old in self.renames:
            if path[: len(new)] == new and (best is None or len(new) > len(best[0])):
                best = (new, old)
        if best is None:
            return path
        return best[1] + path[len(best[0]) :]


def is_mxjob(obj: dict[str, Any]) -> bool:
    api_version = obj.get("apiVersion")
    return obj.get("kind") == c.KIND and isinstance(api_version, str) and api_version.startswith(f"{c.GROUP}/")


def writable_v1(obj: dict[str, Any]) -> dict[str, Any]:
    """Copy exactly the parts of a v1 job that normalising and defaulting change; share the rest.

    A full deep copy of every job costs more than everything else the compiler does to it.
    """
    data = dict(obj)
    for key in ("metadata", "spec"):
        if isinstance(data.get(key), dict):
            data[key] = dict(data[key])
    spec = data.get("spec")
    if not isinstance(spec, dict):
        return data
    if isinstance(spec.get("runPolicy"), dict):
        spec["runPolicy"] = dict(spec["runPolicy"])
    replicas = spec.get("mxReplicaSpecs")
    if isinstance(replicas, dict):
        spec["mxReplicaSpecs"] = {key: _writable_replica(value) for key, value in replicas.items()}
    return data


def _writable_replica(replica: Any) -> Any:
    if not isinstance(replica, dict):
        return replica
    replica = dict(replica)
    template = replica.get("template")
    if isinstance(template, dict):
        template = replica["template"] = dict(template)
        pod_spec = template.get("spec")
        if isinstance(pod_spec, dict):
            pod_spec = template["spec"] = dict(pod_spec)
            containers = pod_spec.get("containers")
            if isinstance(containers, list):
                pod_spec["containers"] = [_writable_container(item) for item in containers]
    return replica


def _writable_container(container: Any) -> Any:
    if not isinstance(container, dict):
        return container
    container = dict(container)
    if isinstance(container.get("ports"), list):
        container["ports"] = list(container["ports"])
    return container


def to_v1(obj: dict[str, Any]) -> Conversion:
    api_version = obj.get("apiVersion")
    data: dict[str, Any] = writable_v1(obj) if api_version == c.API_VERSION else copy_json(obj)
    conversion = Conversion(data)
    if api_version == c.API_VERSION:
        legacy_v1_fields(data, conversion.diagnostics)
        _lift_run_policy(conversion, from_version=None)
    elif api_version in MAP_KEYED_VERSIONS:
        data["apiVersion"] = c.API_VERSION
        _convert_map_keyed(conversion, str(api_version))
    elif api_version == LIST_VERSION:
        data["apiVersion"] = c.API_VERSION
        _convert_list_form(conversion)
    else:
        conversion.diagnostics.append(
            error(
                Code.UNSUPPORTED_VERSION,
                f"MXJob apiVersion {api_version!r} is not supported",
                ("apiVersion",),
                f"use one of {', '.join(SUPPORTED_VERSIONS)}",
            )
        )
    return conversion


def _lift_run_policy(conversion: Conversion, from_version: str | None) -> None:
    """Move run-policy keys written directly under spec (mxnet-operator v1.1, v1beta1) into spec.runPolicy."""
    spec = conversion.data.get("spec")
    if not isinstance(spec, dict):
        return
    flat = [key for key in RUN_POLICY_KEYS if key in spec]
    if not flat:
        return
    run_policy = spec.setdefault("runPolicy", {})
    if not isinstance(run_policy, dict):
        return
    for key in flat:
        if key in run_policy:
            conversion.diagnostics.append(
                error(
                    Code.CONFLICTING_FIELDS,
                    f"{key} is set both in spec and in spec.runPolicy",
                    ("spec", key),
                    f"keep only spec.runPolicy.{key}",
                )
            )
            continue
        run_policy[key] = spec.pop(key)
        conversion.rename(("spec", "runPolicy", key), ("spec", key))
    if from_version is None:
        conversion.diagnostics.append(
            warning(
                Code.CONVERTED,
                f"{', '.join(flat)} {'sits' if len(flat) == 1 else 'sit'} directly under spec "
                f"(the mxnet-operator v1.1 layout); {'it was' if len(flat) == 1 else 'they were'} read as "
                "spec.runPolicy",
                ("spec", flat[0]),
                f"move {'it' if len(flat) == 1 else 'them'} under spec.runPolicy; `mxjob convert` prints the result",
            )
        )


def _ensure_jobmode(conversion: Conversion, spec: dict[str, Any], types: Sequence[str]) -> None:
    if "jobMode" in spec:
        return
    spec["jobMode"] = c.MX_TUNE if any(t in c.TUNE_TYPES for t in types) else c.MX_TRAIN


def _convert_map_keyed(conversion: Conversion, api_version: str) -> None:
    spec = conversion.data.get("spec")
    notes = [f"converted from {api_version} to {c.API_VERSION}", OLD_LABELS_NOTE]
    if isinstance(spec, dict):
        fields_new_in_v1(spec, api_version, conversion.diagnostics)
        if "cleanPodPolicy" not in spec:
            notes.append(_DEFAULTS_NOTE)
        if "successPolicy" in spec:
            policy = spec.pop("successPolicy")
            if policy:
                conversion.diagnostics.append(
                    warning(
                        Code.FIELD_DROPPED,
                        f"successPolicy {policy!r} has no v1 equivalent: in v1 the Scheduler alone decides success",
                        ("spec", "successPolicy"),
                        "remove successPolicy",
                    )
                )
        if api_version == "kubeflow.org/v1alpha2":
            v1alpha2_tuner_env(conversion.data, conversion.diagnostics)
        replicas = as_dict(spec.get("mxReplicaSpecs"))
        for replica_type, replica in replicas.items():
            if isinstance(replica, dict) and "label" in replica:
                _label_to_annotation(conversion, replica, replica_type)
        _ensure_jobmode(conversion, spec, list(replicas))
        _lift_run_policy(conversion, from_version=api_version)
    conversion.diagnostics.append(
        warning(Code.CONVERTED, "; ".join(notes), ("apiVersion",), "run `mxjob convert` and commit the v1 form")
    )


def _label_to_annotation(conversion: Conversion, replica: dict[str, Any], replica_type: str) -> None:
    label = replica.pop("label")
    template = replica.setdefault("template", {})
    if not isinstance(template, dict):
        return
    metadata = template.setdefault("metadata", {})
    annotations = metadata.setdefault("annotations", {}) if isinstance(metadata, dict) else None
    if not isinstance(annotations, dict):
        return
    existing = annotations.get(c.TUNER_SERVER_KEY)
    path = ("spec", "mxReplicaSpecs", replica_type)
    if existing is not None and existing != label:
        conversion.diagnostics.append(
            error(
                Code.CONFLICTING_FIELDS,
                f"label {label!r} and annotation {c.TUNER_SERVER_KEY}={existing!r} disagree",
                (*path, "label"),
                "keep one of them",
            )
        )
        return
    annotations[c.TUNER_SERVER_KEY] = label
    conversion.rename((*path, "template", "metadata", "annotations", c.TUNER_SERVER_KEY), (*path, "label"))


def _convert_list_form(conversion: Conversion) -> None:
    spec = conversion.data.get("spec")
    conversion.diagnostics.append(
        warning(
            Code.CONVERTED,
            f"converted from {LIST_VERSION} to {c.API_VERSION}: pods and services are now named "
            "<job>-<type>-<index> (no runtime id); " + _DEFAULTS_NOTE,
            ("apiVersion",),
            "run `mxjob convert` and commit the v1 form",
        )
    )
    if not isinstance(spec, dict):
        return
    items = spec.pop("replicaSpecs", None)
    default_image = spec.pop("mxImage", None)
    scheduler_name = spec.pop("schedulerName", None)
    spec.pop("RuntimeId", None)
    termination = spec.pop("terminationPolicy", None)
    if termination:
        conversion.diagnostics.append(
            warning(
                Code.FIELD_DROPPED,
                "terminationPolicy has no v1 equivalent: the Scheduler decides the job",
                ("spec", "terminationPolicy"),
                "remove terminationPolicy",
            )
        )
    if "cleanupPodPolicy" in spec:
        cleanup = spec.pop("cleanupPodPolicy")
        spec.setdefault("runPolicy", {})["cleanPodPolicy"] = cleanup or "All"
        conversion.rename(("spec", "runPolicy", "cleanPodPolicy"), ("spec", "cleanupPodPolicy"))
    if spec.get("jobMode") not in (c.MX_TRAIN, c.MX_TUNE):
        spec.pop("jobMode", None)  # v1alpha1 said local/dist; v1 derives the mode from the replica types
    replica_specs: dict[str, Any] = {}
    for position, item in enumerate(items if isinstance(items, list) else []):
        source = ("spec", "replicaSpecs", position)
        if not isinstance(item, dict):
            conversion.diagnostics.append(error(Code.WRONG_TYPE, "replicaSpecs items must be mappings", source))
            continue
        raw_type = item.pop("mxReplicaType", "WORKER")
        replica_type = _ALPHA1_TYPES.get(str(raw_type).upper())
        if replica_type is None:
            conversion.diagnostics.append(
                error(
                    Code.UNKNOWN_REPLICA_TYPE,
                    f"mxReplicaType {raw_type!r} is not SCHEDULER, SERVER or WORKER",
                    (*source, "mxReplicaType"),
                )
            )
            continue
        if replica_type in replica_specs:
            conversion.diagnostics.append(
                error(
                    Code.CONFLICTING_FIELDS,
                    f"more than one replicaSpecs entry of type {raw_type}",
                    source,
                    "merge them into one entry",
                )
            )
            continue
        _convert_alpha1_item(item, default_image, scheduler_name)
        replica_specs[replica_type] = item
        conversion.rename(("spec", "mxReplicaSpecs", replica_type), source)
    spec["mxReplicaSpecs"] = replica_specs
    _ensure_jobmode(conversion, spec, list(replica_specs))


def _convert_alpha1_item(item: dict[str, Any], default_image: Any, scheduler_name: Any) -> None:
    port = item.pop("PsRootPort", None)
    template = item.get("template")
    pod_spec = template.get("spec") if isinstance(template, dict) else None
    if not isinstance(pod_spec, dict):
        return
    restart = pod_spec.pop("restartPolicy", None)
    if restart is not None and "restartPolicy" not in item:
        item["restartPolicy"] = restart
    if scheduler_name and "schedulerName" not in pod_spec:
        pod_spec["schedulerName"] = scheduler_name
    containers = pod_spec.get("containers")
    for container in containers if isinstance(containers, list) else ():  # another shape: the schema reports it
        if not isinstance(container, dict) or container.get("name") != c.DEFAULT_CONTAINER:
            continue
        if default_image and not container.get("image"):
            container["image"] = default_image
        if port is not None:
            ports = container.setdefault("ports", [])
            if isinstance(ports, list) and not any(
                isinstance(p, dict) and p.get("name") == c.DEFAULT_PORT_NAME for p in ports
            ):
                ports.append({"name": c.DEFAULT_PORT_NAME, "containerPort": port})
