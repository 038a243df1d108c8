"""Expand a defaulted MXJob into its ConfigMap, headless Services, Pods and the MXJob itself (pure); decorations
(compiler.decorations) add what targets and gang schedulers need.

Rendered objects share unchanged sub-trees of the template between pods (structural sharing); callers
must treat every returned manifest as read-only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from mxjob_gitops.compiler.render.cluster import ClusterSpec, cluster_spec, service_name
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.model import MXJob, Replica
from mxjob_gitops.compiler.spec.replicas import generated_env_names

Manifest = dict[str, Any]


def operator_labels(job: MXJob, replica: Replica, index: int) -> dict[str, str]:
    return {
        c.LABEL_OPERATOR_NAME: c.OPERATOR_NAME,
        c.LABEL_JOB_NAME: job.name.replace("/", "-"),
        c.LABEL_REPLICA_TYPE: replica.role,
        c.LABEL_REPLICA_INDEX: str(index),
    }


def _metadata(name: str, namespace: str | None, labels: dict[str, str]) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    metadata["labels"] = labels
    return metadata


def render_config_map(job: MXJob, spec: ClusterSpec, render: dict[str, str]) -> Manifest:
    """The job's cluster spec, the run policy and how it was rendered: what the reconciler reads."""
    labels = {c.LABEL_OPERATOR_NAME: c.OPERATOR_NAME, c.LABEL_JOB_NAME: job.name}
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": _metadata(f"{job.name}{c.CONFIGMAP_SUFFIX}", job.namespace, labels),
        "data": _config_map_data(job, spec, render),
    }


def _config_map_data(job: MXJob, spec: ClusterSpec, render: dict[str, str]) -> dict[str, str]:
    run_policy = job.document["spec"]["runPolicy"]
    job_info = {
        "jobMode": job.job_mode,
        c.CONFIG_RENDER_KEY: render,
        "replicaSpecs": {r.type: {"replicas": r.replicas, "restartPolicy": r.restart_policy} for r in job.replicas},
        "runPolicy": run_policy,
    }
    data = {
        "cluster.json": spec.shared_json,
        c.CONFIG_JOB_KEY: json.dumps(job_info, indent=2, sort_keys=True, ensure_ascii=False) + "\n",
    }
    return data


def render_service(job: MXJob, replica: Replica, index: int) -> Manifest:
    labels = operator_labels(job, replica, index)
    ports = []
    for port in replica.mxnet_ports:
        entry: dict[str, Any] = {"port": port.number}
        if port.name is not None:
            entry["name"] = port.name
        # Explicit, as the server stores it (SetDefaults_ServicePort); v1.20's server-side apply needs it too.
        entry["protocol"] = port.protocol or "TCP"
        ports.append(entry)
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _metadata(service_name(job.name, replica.role, index), job.namespace, labels),
        "spec": {"clusterIP": "None", "ports": ports, "selector": dict(labels)},
    }


class PodFactory:
    """Builds the pods of one replica type; everything that does not vary by index is computed once."""

    def __init__(self, job: MXJob, replica: Replica, spec: ClusterSpec) -> None:
        self.job = job
        self.replica = replica
        self.cluster = spec
        template = replica.template
        self.template_metadata: dict[str, Any] = template.get("metadata") or {}
        self.pod_spec: dict[str, Any] = template["spec"]
        generated = generated_env_names(replica.type)
        self.user_env = [
            [e for e in container.get("env") or [] if e.get("name") not in generated]
            for container in self.pod_spec["containers"]
        ]

    def pod(self, index: int) -> Manifest:
        replica = self.replica
        labels = dict(self.template_metadata.get("labels") or {})
        labels.update(operator_labels(self.job, replica, index))
        if replica.type == c.SERVER:
            labels[c.LABEL_JOB_ROLE] = "master"
        metadata = _metadata(service_name(self.job.name, replica.role, index), self.job.namespace, labels)
        for key in ("annotations", "finalizers"):
            if self.template_metadata.get(key):
                metadata[key] = self.template_metadata[key]
        generated = self.cluster.env(replica, index)
        spec = dict(self.pod_spec)
        spec["containers"] = [
            {**container, "env": user_env + generated}
            for container, user_env in zip(self.pod_spec["containers"], self.user_env, strict=True)
        ]
        spec["restartPolicy"] = replica.pod_restart_policy
        return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def render_job_object(job: MXJob) -> Manifest:
    document = job.document
    ordered: Manifest = {"apiVersion": c.API_VERSION, "kind": c.KIND}
    ordered.update({k: v for k, v in document.items() if k not in ("apiVersion", "kind")})
    ordered["metadata"] = dict(document["metadata"])
    return ordered


def expand(
    job: MXJob,
    *,
    include_job: bool = True,
    render: dict[str, str] | None = None,
    expect_prefix: Callable[[str], None] | None = None,
    spec: ClusterSpec | None = None,
) -> Iterator[Manifest]:
    """ConfigMap, Services, then Pods (scheduler first), then the MXJob: the order GitOps keeps.

    `render` records the options that shaped the pods (target, gang scheduler) in the ConfigMap, so the
    reconciler can render a deleted pod again exactly as Git holds it. `expect_prefix` (an Emitter's) is
    told the long prefix every MX_CONFIG value of this job shares. `spec`: the job's cluster spec when the compile
    built it already.
    """
    spec = spec or cluster_spec(job)
    if expect_prefix is not None:
        expect_prefix(spec.mx_config_prefix)
    yield render_config_map(job, spec, render or {})
    if not job.run_policy.suspend:
        for replica in job.replicas:
            for index in range(replica.replicas):
                yield render_service(job, replica, index)
        for replica in job.replicas:
            factory = PodFactory(job, replica, spec)
            for index in range(replica.replicas):
                yield factory.pod(index)
    if include_job:
        yield render_job_object(job)
