"""The typed, defaulted MXJob the expander works from, built from a validated v1 document (operator defaults)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mxjob_gitops.compiler.base.jsonutil import as_dict, as_list
from mxjob_gitops.compiler.spec import constants as c


@dataclass(frozen=True, slots=True)
class ContainerPort:
    name: str | None
    number: int
    protocol: str | None


@dataclass(frozen=True, slots=True)
class Replica:
    """One replica type of a job, with the operator's defaults applied."""

    type: str
    replicas: int
    restart_policy: str
    template: dict[str, Any]

    @property
    def role(self) -> str:
        """Lower-case replica type: the name part, label value, DMLC_ROLE and MX_CONFIG key."""
        return self.type.lower()

    @property
    def pod_restart_policy(self) -> str:
        return pod_restart_policy(self.restart_policy)

    @property
    def mxnet_ports(self) -> tuple[ContainerPort, ...]:
        for container in as_list(as_dict(self.template.get("spec")).get("containers")):
            if container.get("name") == c.DEFAULT_CONTAINER:
                return tuple(
                    ContainerPort(p.get("name"), p["containerPort"], p.get("protocol"))
                    for p in as_list(container.get("ports"))
                )
        return ()

    @property
    def port(self) -> int:
        """The mxjob-port of the mxnet container: this replica type's port in MX_CONFIG."""
        for port in self.mxnet_ports:
            if port.name == c.DEFAULT_PORT_NAME:
                return port.number
        return c.DEFAULT_PORT

    @property
    def tuner_key(self) -> str:
        annotations = as_dict(as_dict(self.template.get("metadata")).get("annotations"))
        value = annotations.get(c.TUNER_SERVER_KEY, "")
        return value if isinstance(value, str) else str(value)


@dataclass(frozen=True, slots=True)
class RunPolicy:
    clean_pod_policy: str
    suspend: bool
    backoff_limit: int | None
    active_deadline_seconds: int | None
    scheduling_policy: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class MXJob:
    name: str
    namespace: str | None
    job_mode: str
    replicas: tuple[Replica, ...]
    run_policy: RunPolicy
    document: dict[str, Any]

    def replica(self, replica_type: str) -> Replica | None:
        for replica in self.replicas:
            if replica.type == replica_type:
                return replica
        return None

    def count(self, replica_type: str) -> int:
        replica = self.replica(replica_type)
        return replica.replicas if replica else 0


def apply_defaults(data: dict[str, Any], default_namespace: str | None) -> MXJob:
    """Default a validated v1 document in place (it is a private copy) and return the typed job."""
    metadata = data["metadata"]
    if default_namespace and not metadata.get("namespace"):
        metadata["namespace"] = default_namespace
    spec = data["spec"]
    replicas: list[Replica] = []
    for replica_type in c.REPLICA_TYPES:
        raw = spec["mxReplicaSpecs"].get(replica_type)
        if raw is None:
            continue
        # JSON Schema counts 2.0 as an integer; the rendering (and the API server's int32) wants 2.
        raw["replicas"] = int(raw.get("replicas", 1))
        raw.setdefault("restartPolicy", c.DEFAULT_RESTART_POLICY)
        _default_port(raw["template"])
        replicas.append(Replica(replica_type, raw["replicas"], raw["restartPolicy"], raw["template"]))
    run_policy = spec.setdefault("runPolicy", {})
    run_policy.setdefault("cleanPodPolicy", c.DEFAULT_CLEAN_POD_POLICY)
    run_policy.setdefault("suspend", False)
    run_policy.pop("ttlSecondsAfterFinished", None)
    return MXJob(
        name=metadata["name"],
        namespace=metadata.get("namespace") or None,
        job_mode=spec["jobMode"],
        replicas=tuple(replicas),
        run_policy=RunPolicy(
            clean_pod_policy=run_policy["cleanPodPolicy"],
            suspend=run_policy["suspend"],
            backoff_limit=run_policy.get("backoffLimit"),
            active_deadline_seconds=run_policy.get("activeDeadlineSeconds"),
            scheduling_policy=run_policy.get("schedulingPolicy"),
        ),
        document=data,
    )


def _default_port(template: dict[str, Any]) -> None:
    """Append mxjob-port 9091 to the mxnet container when it has no port of that name (operator defaulter)."""
    for container in template["spec"]["containers"]:
        if container.get("name") == c.DEFAULT_CONTAINER:
            ports = container.setdefault("ports", [])
            if not any(port.get("name") == c.DEFAULT_PORT_NAME for port in ports):
                ports.append({"name": c.DEFAULT_PORT_NAME, "containerPort": c.DEFAULT_PORT, "protocol": "TCP"})
            return


def pod_restart_policy(replica_policy: str) -> str:
    """The pod's restartPolicy for a replica's policy: ExitCode is carried out by us, so the pod says Never."""
    return "Never" if replica_policy == "ExitCode" else replica_policy
