"""The cluster spec: MX_CONFIG byte for byte as the operator's Go code wrote it, and the DMLC_* environment."""

from __future__ import annotations

from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import Any

from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.canonical import drop_empty_value
from mxjob_gitops.compiler.spec.model import MXJob, Replica
from mxjob_gitops.compiler.spec.replicas import SHARED_ENV, TRAITS, WORKER_ID_ENV, JobMode, rendezvous_of

# Go's encoding/json escapes these (HTML safety and JavaScript line terminators); Python's json does not.
_GO_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def go_string(value: str) -> str:
    """A JSON string literal as Go's json.Marshal writes it (json.dumps(value, ensure_ascii=False) calls the same
    encode_basestring, after building an encoder each time)."""
    return encode_basestring(value).translate(_GO_ESCAPES)


def service_name(job: str, role: str, index: int) -> str:
    """Pod and Service name, as GenGeneralName builds it."""
    return f"{job}-{role}-{index}".replace("/", "-")


@dataclass(frozen=True, slots=True)
class ClusterSpec:
    """What every pod of one job shares: the cluster and labels parts of MX_CONFIG and the DMLC values."""

    shared_json: str
    ps_root_port: str
    ps_root_uri: str
    num_server: str
    num_worker: str
    # What every pod's MX_CONFIG starts with: the shared JSON without its closing brace (O(replicas) long).
    mx_config_prefix: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "mx_config_prefix", self.shared_json[:-1])

    def mx_config(self, role: str, index: int) -> str:
        return f'{self.mx_config_prefix},"task":{{"type":{go_string(role)},"index":{index}}}}}'

    def env(self, replica: Replica, index: int) -> list[dict[str, Any]]:
        """The variables appended to every container of one pod, in the operator's order."""
        role = replica.role
        values = (
            self.mx_config(role, index),
            self.ps_root_port,
            self.ps_root_uri,
            self.num_server,
            self.num_worker,
            role,
            "1",
        )
        env = [{"name": name, "value": value} for name, value in zip(SHARED_ENV, values, strict=True)]
        if TRAITS[replica.type].worker_id:
            env.append({"name": WORKER_ID_ENV, "value": str(index)})
        return [drop_empty_value(var) for var in env]


def cluster_spec(job: MXJob) -> ClusterSpec:
    """The job's cluster spec: what every pod's variables and the ConfigMap are made of."""
    ordered = sorted(job.replicas, key=lambda replica: replica.role)
    ports = {r.role: r.port for r in ordered}
    # Every type of the spec has a cluster key, 0 replicas included: each operator built the list with
    # `make([]UrlPort, 0, *spec.Replicas)`, a non-nil empty slice that encoding/json writes as `[]`
    # (kubeflow/mxnet-operator v1.0.0 and v1.1.0 pkg/controller.v1/mxnet/mxnet.go and pkg/controller.v1beta1/mxnet/
    # mxnet.go genClusterSpec; kubeflow/training-operator pkg/controller.v1/mxnet/mxnet.go genClusterSpec).
    cluster = ",".join(
        f"{go_string(r.role)}:["
        + ",".join(
            f'{{"url":{go_string(service_name(job.name, r.role, i))},"port":{ports[r.role]}}}'
            for i in range(r.replicas)
        )
        + "]"
        for r in ordered
    )
    labels = ",".join(f"{go_string(r.role)}:{go_string(r.tuner_key)}" for r in ordered)
    # DMLC_PS_ROOT_* name the training rendezvous (the Scheduler) whatever the job mode, as the operator did.
    scheduler = job.replica(rendezvous_of(JobMode.TRAIN))
    has_scheduler = scheduler is not None and scheduler.replicas > 0
    return ClusterSpec(
        shared_json=f'{{"cluster":{{{cluster}}},"labels":{{{labels}}}}}',
        ps_root_port=str(scheduler.port) if scheduler is not None and has_scheduler else "0",
        ps_root_uri=service_name(job.name, scheduler.role, 0) if scheduler is not None and has_scheduler else "",
        num_server=str(job.count(c.SERVER)),
        num_worker=str(job.count(c.WORKER)),
    )
