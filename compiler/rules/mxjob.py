"""Semantic rules the schema cannot express (names, replica layout, containers, ports); every finding is reported."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, JsonPath, Severity, error, info, suggest, warning
from mxjob_gitops.compiler.base.jsonutil import as_dict, as_list
from mxjob_gitops.compiler.rules.syncrestart import sync_restart_problems
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.legacy import unset_env_references
from mxjob_gitops.compiler.spec.model import pod_restart_policy
from mxjob_gitops.compiler.spec.replicas import TRAITS, generated_env_names, types_of

DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_COPIED_TEMPLATE_METADATA = {"labels", "annotations", "finalizers"}
REPLICAS = ("spec", "mxReplicaSpecs")


def replica_count(replica: Any) -> int:
    value = as_dict(replica).get("replicas", 1)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 1


def check_rules(data: dict[str, Any]) -> list[Diagnostic]:
    spec = as_dict(data.get("spec"))
    written = as_dict(spec.get("mxReplicaSpecs"))
    replicas = {k: v for k, v in written.items() if k in c.REPLICA_TYPES}
    found = list(_check_name(as_dict(data.get("metadata")), replicas))
    # An unknown replica type (MXJ203, with its "did you mean") is most likely a missing one misspelt.
    misspelt = any(k not in c.REPLICA_TYPES for k in as_dict(spec.get("mxReplicaSpecs")))
    found.extend(_check_layout(spec.get("jobMode"), replicas, misspelt))
    for replica_type, replica in replicas.items():
        found.extend(_check_replica(replica_type, as_dict(replica)))
    found.extend(_check_run_policy(as_dict(spec.get("runPolicy"))))
    found.extend(sync_restart_problems(spec))
    found.extend(_null_items(spec, ("spec",)))
    # One finding per field: a count the layout refuses gets its error, not also the "no pods" note.
    refused = {d.path for d in found if d.severity is Severity.ERROR}
    return [d for d in found if not (d.code is Code.ZERO_REPLICAS and d.path in refused)]


def _null_items(value: Any, path: JsonPath) -> list[Diagnostic]:
    """`- null` in a list: the schemas accept it (nullable objects), the API server does not."""
    found: list[Diagnostic] = []
    if isinstance(value, dict | list):
        _collect_null_items(value, path, found)
    return found


def _collect_null_items(value: dict[str, Any] | list[Any], path: JsonPath, found: list[Diagnostic]) -> None:
    """Depth first, in document order; only maps and lists are entered (a scalar cannot hold a list)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, dict | list):
                _collect_null_items(item, (*path, key), found)
        return
    for position, item in enumerate(value):
        if item is None:
            found.append(error(Code.WRONG_TYPE, "a list item is null", (*path, position), "remove the empty item"))
        elif isinstance(item, dict | list):
            _collect_null_items(item, (*path, position), found)


def _check_name(metadata: dict[str, Any], replicas: dict[str, Any]) -> Iterator[Diagnostic]:
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        yield error(Code.MISSING_FIELD, "the job has no metadata.name", ("metadata",), "add metadata.name")
        return
    if not DNS1035.match(name):
        yield error(
            Code.JOB_NAME,
            f"job name {name!r} is not a DNS-1035 label",
            ("metadata", "name"),
            "use lower-case letters, digits and '-', starting with a letter and ending with a letter or digit",
        )
    longest = ""
    for replica_type, replica in replicas.items():
        count = replica_count(replica)
        if count:
            generated = f"{name}-{replica_type.lower()}-{count - 1}"
            longest = max(longest, generated, key=len)
    if len(longest) > c.MAX_DNS_LABEL:
        allowed = c.MAX_DNS_LABEL - (len(longest) - len(name))
        yield error(
            Code.NAME_TOO_LONG,
            f"generated name {longest!r} has {len(longest)} characters; Kubernetes allows {c.MAX_DNS_LABEL}",
            ("metadata", "name"),
            f"shorten the job name to at most {max(allowed, 1)} characters",
        )
    elif len(name) > c.MAX_DNS_LABEL:
        yield error(
            Code.NAME_TOO_LONG,
            f"job name has {len(name)} characters; Kubernetes allows {c.MAX_DNS_LABEL}",
            ("metadata", "name"),
        )


def _check_layout(job_mode: Any, replicas: dict[str, Any], misspelt: bool) -> Iterator[Diagnostic]:
    if job_mode not in (c.MX_TRAIN, c.MX_TUNE):
        return
    types = types_of(job_mode)
    yield from _foreign_types(replicas, c.TUNE_TYPES if job_mode == c.MX_TRAIN else c.TRAIN_TYPES, job_mode)
    train = job_mode == c.MX_TRAIN
    lone_worker = train and set(replicas) == {c.WORKER} and replica_count(replicas[c.WORKER]) == 1
    missing = [t for t in types if t not in replicas]
    if missing and not lone_worker and not misspelt:
        alone = " (or one Worker alone)" if train else ""
        yield error(
            Code.JOB_MODE_LAYOUT,
            f"{job_mode} needs {', '.join(types[:-1])} and {types[-1]}{alone}; missing {', '.join(missing)}",
            REPLICAS,
            f"add {', '.join(missing)}",
        )
    for replica_type in types:
        if TRAITS[replica_type].exactly_one:
            yield from _exactly_one(replicas, replica_type)
    if not train and c.TUNER_SERVER in replicas and replica_count(replicas[c.TUNER_SERVER]) < 1:
        yield error(
            Code.REPLICA_COUNT,
            "MXTune needs at least one TunerServer",
            (*REPLICAS, c.TUNER_SERVER, "replicas"),
            "set replicas to 1 or more",
        )


def _foreign_types(replicas: dict[str, Any], foreign: frozenset[str], mode: str) -> Iterator[Diagnostic]:
    for replica_type in replicas:
        if replica_type in foreign:
            other = c.MX_TUNE if mode == c.MX_TRAIN else c.MX_TRAIN
            yield error(
                Code.JOB_MODE_LAYOUT,
                f"replica type {replica_type} belongs to {other}, not {mode}",
                (*REPLICAS, replica_type),
                f"remove it or set jobMode: {other}",
            )


def _exactly_one(replicas: dict[str, Any], replica_type: str) -> Iterator[Diagnostic]:
    if replica_type in replicas and replica_count(replicas[replica_type]) != 1:
        yield error(
            Code.REPLICA_COUNT,
            f"a job has exactly one {replica_type}; replicas is {replica_count(replicas[replica_type])}",
            (*REPLICAS, replica_type, "replicas"),
            "set replicas: 1",
        )


def _check_replica(replica_type: str, replica: dict[str, Any]) -> Iterator[Diagnostic]:
    base: JsonPath = (*REPLICAS, replica_type)
    if replica.get("replicas") == 0:
        yield warning(
            Code.ZERO_REPLICAS, f"{replica_type} has 0 replicas: no pods of this type are rendered", (*base, "replicas")
        )
    template = as_dict(replica.get("template"))
    metadata = as_dict(template.get("metadata"))
    for key, value in metadata.items():
        if key not in _COPIED_TEMPLATE_METADATA and not (key == "creationTimestamp" and value is None):
            yield warning(
                Code.TEMPLATE_METADATA_IGNORED,
                f"template metadata.{key} is ignored: pods are named and placed by the job",
                (*base, "template", "metadata", key),
                f"remove metadata.{key}",
            )
    pod_spec = as_dict(template.get("spec"))
    policy = replica.get("restartPolicy", c.DEFAULT_RESTART_POLICY)
    own = pod_spec.get("restartPolicy")
    if (
        isinstance(policy, str)
        and policy in c.RESTART_POLICIES
        and own is not None
        and own != pod_restart_policy(policy)
    ):
        yield warning(
            Code.RESTART_POLICY_OVERRIDDEN,
            f"template restartPolicy {own!r} is replaced by {pod_restart_policy(policy)!r} from the "
            f"replica's restartPolicy {policy!r}",
            (*base, "template", "spec", "restartPolicy"),
            "set restartPolicy on the replica spec, not in the template",
        )
    if pod_spec.get("schedulingGates"):
        # The API server lets a pod update remove scheduling gates but never add one (kubernetes
        # pkg/apis/core/validation/validation.go, validateOnlyDeletedSchedulingGates from ValidatePodUpdate),
        # so a gate declared in Git drifts for good once a controller lifts it.
        yield warning(
            Code.SCHEDULING_GATES,
            "schedulingGates on a Git-declared pod: once a controller removes a gate, the pod differs "
            "from Git forever (gates cannot be re-added), and a sync with Force/Replace restarts it",
            (*base, "template", "spec", "schedulingGates"),
            "let the controller that lifts the gate add it at admission, as Kueue does",
        )
    if not _required_missing(replica):  # a template, spec or containers left out: the schema says which
        yield from _check_containers(pod_spec, (*base, "template", "spec"), generated_env_names(replica_type))


def _required_missing(replica: dict[str, Any]) -> bool:
    """Whether the schema reports a missing required field on the way to the containers (MXJ104: a replica's
    template, a pod spec's containers); a null value or a template without a spec passes it and gets MXJ206 here."""
    if "template" not in replica:
        return True
    spec = as_dict(replica["template"]).get("spec")
    return isinstance(spec, dict) and "containers" not in spec


def _check_containers(pod_spec: dict[str, Any], base: JsonPath, generated: tuple[str, ...]) -> Iterator[Diagnostic]:
    containers = as_list(pod_spec.get("containers"))
    names = [str(as_dict(item).get("name")) for item in containers]
    # A container without a string name is the schema's finding (MXJ104, MXJ102), whose hint names mxnet.
    named = all(isinstance(as_dict(item).get("name"), str) for item in containers)
    if c.DEFAULT_CONTAINER not in names and named:
        close = suggest(c.DEFAULT_CONTAINER, names)
        yield error(
            Code.NO_MXNET_CONTAINER,
            "the template has no container named 'mxnet'",
            (*base, "containers"),
            f"rename your training container to mxnet{'; ' + close if close else ''}",
        )
    for position, item in enumerate(containers):
        container = as_dict(item)
        path = (*base, "containers", position)
        if not container.get("image"):
            yield error(
                Code.EMPTY_IMAGE, f"container {container.get('name')!r} has no image", (*path, "image"), "set image"
            )
        for env_position, env in enumerate(as_list(container.get("env"))):
            name = as_dict(env).get("name")
            if name in generated:
                yield warning(
                    Code.ENV_OVERRIDDEN,
                    f"env {name} is generated for this replica type; your entry is replaced by it "
                    "(the operator appended its own, which won; the duplicate is dropped because "
                    "server-side apply rejects duplicate env names)",
                    (*path, "env", env_position, "name"),
                    f"remove {name} from env",
                )
        yield from unset_env_references(container, path, generated)
        if container.get("name") == c.DEFAULT_CONTAINER:
            yield from _check_ports(as_list(container.get("ports")), (*path, "ports"))


def _check_ports(ports: list[Any], base: JsonPath) -> Iterator[Diagnostic]:
    names: dict[str, int] = {}
    named_ports = [p for p in ports if isinstance(p, dict)]
    has_default = any(p.get("name") == c.DEFAULT_PORT_NAME for p in named_ports)
    total = len(named_ports) + (0 if has_default else 1)
    for position, port in enumerate(ports):
        name = as_dict(port).get("name")
        if name is None and total > 1:
            yield error(
                Code.SERVICE_PORTS,
                "every port of the mxnet container needs a name: each one becomes a port of the replica's Service",
                (*base, position),
                "add a name",
            )
        elif isinstance(name, str) and name in names:  # a name of another type is the schema's finding
            yield error(
                Code.SERVICE_PORTS,
                f"port name {name!r} is used twice",
                (*base, position, "name"),
                "give every port a unique name",
            )
        elif isinstance(name, str):
            names[name] = position
    yield from _check_port_numbers(named_ports, has_default, base)


def _check_port_numbers(ports: list[dict[str, Any]], has_default: bool, base: JsonPath) -> Iterator[Diagnostic]:
    """Each port becomes a port of the replica's headless Service (mxjob-port 9091/TCP added when missing), where
    the API server refuses a number twice for one protocol (k8s.io/kubernetes pkg/apis/core/validation/
    validation.go ValidateService: `Duplicate value` of spec.ports[i]); a Pod may declare it twice."""
    seen = set() if has_default else {(c.DEFAULT_PORT, "TCP")}
    for position, port in enumerate(ports):
        number, protocol = port.get("containerPort"), port.get("protocol") or "TCP"
        if not isinstance(number, int) or isinstance(number, bool):
            continue
        if (number, protocol) in seen:
            added = "" if has_default else f" (or the {c.DEFAULT_PORT_NAME} {c.DEFAULT_PORT} the operator adds)"
            yield error(
                Code.SERVICE_PORTS,
                f"port {number}/{protocol} is declared twice{added}: the replica's Service would hold it twice, "
                "which the API server refuses (spec.ports: Duplicate value)",
                (*base, position, "containerPort"),
                f"give each port its own number, or name the training port {c.DEFAULT_PORT_NAME}",
            )
        seen.add((number, protocol))


def _check_run_policy(run_policy: dict[str, Any]) -> Iterator[Diagnostic]:
    if "ttlSecondsAfterFinished" in run_policy:
        yield warning(
            Code.TTL_DROPPED,
            "ttlSecondsAfterFinished is not rendered: deleting a Git-tracked job makes Argo CD or Flux "
            "create it again, and the job runs again",
            ("spec", "runPolicy", "ttlSecondsAfterFinished"),
            "remove it; delete finished jobs by removing them from Git",
        )
    if run_policy.get("suspend") is True:
        yield info(
            Code.SUSPENDED,
            "the job is suspended: its pods and services are not rendered",
            ("spec", "runPolicy", "suspend"),
        )
