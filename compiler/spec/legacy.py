"""Fields and kinds of older MXJob API versions met in a v1 document: what the operator of that era did with
each, and what the v1 form is. Pure; the rules cite mxnet-operator (kubeflow/mxnet-operator) by tag and file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, JsonPath, error, warning
from mxjob_gitops.compiler.base.jsonutil import as_dict, as_list
from mxjob_gitops.compiler.spec import constants as c

# A field of an older API version written in a v1 document: the v1 form, or that there is none (for the
# schema's unknown-field hint, which must never suggest a field that only looks alike).
# v1alpha1: mxnet-operator @8b18864 pkg/apis/mxnet/v1alpha1/types.go (MxJobSpec, MxReplicaSpec).
# v1beta1/v1alpha2: v1.1.0 pkg/apis/mxnet/v1beta1/types.go (MXJobSpec.SuccessPolicy, MXReplicaSpec.Label).
V1_FORM_OF: Final[dict[str, str]] = {
    "successPolicy": "v1 has no successPolicy (v1beta1 only): the v1 operator ignored it; remove it",
    "label": (
        f"v1 has no replica label (v1beta1 only): write template.metadata.annotations: "
        f"{{{c.TUNER_SERVER_KEY}: <key>}}, the form `mxjob convert` writes"
    ),
    "replicaSpecs": "that is the v1alpha1 list form: set apiVersion: kubeflow.org/v1alpha1, or write mxReplicaSpecs",
    "mxReplicaType": "that is v1alpha1: in v1 the type is the key under spec.mxReplicaSpecs",
    "PsRootPort": "that is v1alpha1: in v1 the port is the mxnet container's port named mxjob-port",
    "mxImage": "that is v1alpha1: set image on each replica's mxnet container",
    "terminationPolicy": "that is v1alpha1: v1 has no equivalent, the Scheduler decides the job; remove it",
    "cleanupPodPolicy": "that is v1alpha1: write spec.runPolicy.cleanPodPolicy",
    "RuntimeId": "that is v1alpha1: v1 names pods <job>-<type>-<index>; remove it",
}
_REPLICA_LEVEL: Final = frozenset({"label", "mxReplicaType", "PsRootPort"})


def v1_form_hint(parent: JsonPath, key: str) -> str:
    """The fix for KEY, unknown at PARENT of a v1 document, when it is a field of an older version there."""
    hint = V1_FORM_OF.get(key, "")
    if key in _REPLICA_LEVEL:
        return hint if len(parent) == 3 and parent[:2] == ("spec", "mxReplicaSpecs") else ""
    return hint if parent == ("spec",) else ""


# The pre-Kubeflow operator's group; its MxJob spec is the v1alpha1 list form.
_PRE_KUBEFLOW_GROUPS: Final = ("mlkube.io",)


def legacy_v1_fields(data: dict[str, Any], found: list[Diagnostic]) -> None:
    """v1beta1 fields left in a kubeflow.org/v1 document (mutates data, appends to found).

    successPolicy: mxnet-operator v1.1.0 pkg/apis/mxnet/v1/types.go MXJobSpec has no such field, and
    pkg/controller.v1/mxnet/informer.go mxJobFromUnstructured decodes with DefaultUnstructuredConverter,
    which drops unknown fields: the operator ignored it (training-operator's structural CRD prunes it).
    label: mxnet-operator v1.0.0 v1 MXReplicaSpec had Label; v1.1.0 (kubeflow/common ReplicaSpec) and
    training-operator read the tuner key only from the tuner-server-key template annotation
    (controller.v1/mxnet/mxnet.go genLabelsSpec), so the key silently becomes empty: refused with the v1 form.
    """
    spec = data.get("spec")
    if not isinstance(spec, dict):
        return
    if "successPolicy" in spec:
        policy = spec.pop("successPolicy")
        shown = f" {policy!r}" if isinstance(policy, str) and policy else ""
        found.append(
            warning(
                Code.FIELD_DROPPED,
                f"successPolicy{shown} is not a v1 field (only v1beta1 had it); the v1 operator ignored it and "
                "the job succeeds when its Scheduler does",
                ("spec", "successPolicy"),
                "remove successPolicy; v1 has no equivalent",
            )
        )
    for replica_type, replica in as_dict(spec.get("mxReplicaSpecs")).items():
        if isinstance(replica, dict) and "label" in replica:
            label = replica["label"]
            path: JsonPath = ("spec", "mxReplicaSpecs", replica_type, "label")
            found.append(
                error(
                    Code.UNKNOWN_FIELD,
                    f"label is not a v1 field: the v1 operator reads the tuner key from the pod template's "
                    f"{c.TUNER_SERVER_KEY} annotation, so without it the key is empty",
                    path,
                    f"replace label with template.metadata.annotations: {{{c.TUNER_SERVER_KEY}: {label!r}}} "
                    "(or write the job as kubeflow.org/v1beta1 and run `mxjob convert`)",
                )
            )


def legacy_kind_problem(obj: Any) -> Diagnostic | None:
    """A diagnostic for an object that looks like an MXJob but is not kind MXJob of kubeflow.org, else None.

    Such an object would otherwise pass through as a plain manifest that no cluster serves.
    """
    if not isinstance(obj, dict):
        return None
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    if not isinstance(kind, str) or kind.lower() != c.KIND.lower() or not isinstance(api_version, str):
        return None
    group = api_version.partition("/")[0]
    if group == c.GROUP and kind == c.KIND:
        return None
    if group in _PRE_KUBEFLOW_GROUPS:
        return warning(
            Code.UNSUPPORTED_VERSION,
            f"{api_version} {kind} is the pre-Kubeflow MXNet operator's job: no Kubeflow operator serves it, "
            "so it was passed through unrendered",
            ("apiVersion",),
            f"its spec is close to the kubeflow.org/v1alpha1 list form: write that apiVersion and kind: {c.KIND}, "
            "then run `mxjob convert`",
        )
    if group != c.GROUP:
        return None
    return error(
        Code.NOT_AN_OBJECT,
        f"kind {kind!r} of {api_version} is not an MXJob",
        ("kind",),
        f"write kind: {c.KIND} and apiVersion: {c.API_VERSION}",
    )


# $(NAME) (expanded by the kubelet), ${NAME} and $NAME (by a shell) in command and args.
_REFERENCE = re.compile(r"\$(?:\(|\{)?((?:DMLC|MX)_[A-Z0-9_]+)")
_ASSIGNED = re.compile(r"(?:^|[\s;&|(])((?:DMLC|MX)_[A-Z0-9_]+)=")
_TUNER_NOTE = (
    "only the v1alpha2 operator of November 2018 set it (mxnet-operator @c1ab3ad pkg/controller.v2/mxnet/pod.go "
    "setClusterSpec; `mxjob convert` writes it into env for a v1alpha2 job); later operators give tuner pods the "
    "tracker address and the tuner key only in MX_CONFIG, as cluster.tunertracker[0] and labels.tunerserver"
)


def unset_env_references(container: dict[str, Any], path: JsonPath, generated: tuple[str, ...]) -> Iterator[Diagnostic]:
    """A warning for each DMLC_*/MX_* variable that command or args read but neither the container's env nor
    the job sets: the process would run with an empty value."""
    if container.get("envFrom"):
        return  # a ConfigMap or Secret may hold it
    names = (as_dict(env).get("name") for env in as_list(container.get("env")))
    defined = {name for name in names if isinstance(name, str)} | set(generated)  # the schema reports the rest
    texts = [t for f in ("command", "args") for t in as_list(container.get(f)) if isinstance(t, str)]
    defined |= {name for text in texts for name in _ASSIGNED.findall(text)}  # `export NAME=...` in a script
    reported: set[str] = set()
    for field in ("command", "args"):
        for position, text in enumerate(as_list(container.get(field))):
            if not isinstance(text, str):
                continue
            for name in _REFERENCE.findall(text):
                if name in defined or name in reported:
                    continue
                reported.add(name)
                why = _TUNER_NOTE if name.startswith("DMLC_TUNER") else "the job does not generate it for this type"
                yield warning(
                    Code.ENV_NOT_SET,
                    f"{field} reads {name}, which nothing sets ({why}); the process sees it empty",
                    (*path, field, position),
                    f"set {name} in the container's env, or read the value from MX_CONFIG",
                )


def v1alpha2_tuner_env(data: dict[str, Any], found: list[Diagnostic]) -> None:
    """Write into env the DMLC_TUNER_* variables a v1alpha2 container reads, with the values that operator gave.

    mxnet-operator @c1ab3ad (v1alpha2, Nov 2018) pkg/controller.v2/mxnet/pod.go setClusterSpec appended to
    every container DMLC_TUNER_TRACKER_PORT (the TunerTracker's mxjob-port), DMLC_TUNER_TRACKER_URI
    (<job>-tunertracker-0) and DMLC_TUNER_SERVER_KEY (the TunerServer's label); @75bd5fa moved them into
    MX_CONFIG and no later operator set them. Only variables that command or args read are written, so a
    job that reads MX_CONFIG is unchanged; the v1 pod then gets the same values the old pod had.
    """
    spec = as_dict(data.get("spec"))
    replicas = as_dict(spec.get("mxReplicaSpecs"))
    if c.TUNER_TRACKER not in replicas and c.TUNER_SERVER not in replicas:
        return
    job = str(as_dict(data.get("metadata")).get("name", "")).replace("/", "-")
    server = as_dict(replicas.get(c.TUNER_SERVER))
    values = {
        "DMLC_TUNER_TRACKER_PORT": str(_tracker_port(as_dict(replicas.get(c.TUNER_TRACKER)))),
        "DMLC_TUNER_TRACKER_URI": f"{job}-{c.TUNER_TRACKER.lower()}-0",
        "DMLC_TUNER_SERVER_KEY": str(server.get("label", "")),
    }
    for replica_type, replica in replicas.items():
        pod_spec = as_dict(as_dict(as_dict(replica).get("template")).get("spec"))
        for position, container in enumerate(as_list(pod_spec.get("containers"))):
            if not isinstance(container, dict):
                continue
            read = {name for name in _referenced(container) if name in values}
            env = container.get("env")
            defined = {as_dict(item).get("name") for item in as_list(env)}
            added = sorted(read - defined)
            if not added or (env is not None and not isinstance(env, list)):
                continue
            container["env"] = [*as_list(env), *({"name": name, "value": values[name]} for name in added)]
            found.append(
                warning(
                    Code.CONVERTED,
                    f"{', '.join(added)} set in env as the v1alpha2 operator did (mxnet-operator @c1ab3ad "
                    "pod.go setClusterSpec); v1 sets no DMLC_TUNER_* variable",
                    ("spec", "mxReplicaSpecs", replica_type, "template", "spec", "containers", position),
                    "keep the env entries `mxjob convert` writes, or read MX_CONFIG (cluster.tunertracker[0], "
                    "labels.tunerserver)",
                )
            )


def _tracker_port(tracker: dict[str, Any]) -> Any:
    """The TunerTracker's mxjob-port as the v1alpha2 defaulter left it (9091 when not declared)."""
    containers = as_list(as_dict(as_dict(tracker.get("template")).get("spec")).get("containers"))
    for container in containers:
        if as_dict(container).get("name") == c.DEFAULT_CONTAINER:
            for port in as_list(as_dict(container).get("ports")):
                if as_dict(port).get("name") == c.DEFAULT_PORT_NAME:
                    return as_dict(port).get("containerPort", c.DEFAULT_PORT)
    return c.DEFAULT_PORT


def _referenced(container: dict[str, Any]) -> set[str]:
    return {
        name
        for field in ("command", "args")
        for text in as_list(container.get(field))
        if isinstance(text, str)
        for name in _REFERENCE.findall(text)
    }


# Fields v1 enforces that the v1beta1/v1alpha2 MXJobSpec lacked (mxnet-operator v1.1.0
# pkg/apis/mxnet/v1beta1/types.go MXJobSpec: cleanPodPolicy, successPolicy, ttlSecondsAfterFinished, jobMode,
# mxReplicaSpecs), so that operator ignored them when written.
_NEW_IN_V1: Final = ("activeDeadlineSeconds", "backoffLimit", "schedulingPolicy", "suspend")

# Pod labels of the v1beta1/v1alpha2 operator (pkg/controller.v1beta1/mxnet/controller.go labels, via
# tf-operator jobcontroller GenLabels) and of the v1 one (training-operator pkg/controller.v1/common).
OLD_LABELS_NOTE: Final = (
    "pods are now labelled training.kubeflow.org/job-name, replica-type and replica-index instead of "
    "group_name, mxnet_job_name, mxnet-replica-type and mxnet-replica-index: update selectors that used them"
)


def fields_new_in_v1(spec: dict[str, Any], api_version: str, found: list[Diagnostic]) -> None:
    """A warning for each run-policy field a v1beta1/v1alpha2 spec carries that its operator ignored."""
    for key in _NEW_IN_V1:
        if key in spec:
            found.append(
                warning(
                    Code.CONVERTED,
                    f"{key} was not a {api_version} field, so that operator ignored it; v1 enforces it "
                    "as spec.runPolicy." + key,
                    ("spec", key),
                    f"keep {key} only if the job should now be held to it",
                )
            )
