"""Names, hostnames and the distributed environment of an MXJob run as a JobSet.

JobSet names each child Job `<jobset>-<replicatedJob>-<jobIndex>` (kubernetes-sigs/jobset
pkg/controllers/jobset_controller.go `constructJob`, via placement.GenJobName) and, with
`spec.network.enableDNSHostnames`, sets the pod template's `subdomain` to `spec.network.subdomain` (`GetSubdomain`)
and creates a headless Service of that name (`createHeadlessSvcIfNecessary`). The Job controller gives each pod of
an Indexed Job the hostname `<job>-<index>` (kubernetes pkg/controller/job/job_controller.go `manageJob`, with
the index annotation from indexed_job_utils.go `addCompletionIndexAnnotation`). So the pod of
index i of replica type `rt` answers at `<jobset>-<rt>-0-<i>.<jobset>` inside the namespace: that is what
DMLC_PS_ROOT_URI and the MX_CONFIG urls name (the pod rendering names the per-pod headless Service instead).

Per-pod values come from the Job's completion index, which the Job controller writes into the pod annotation
`batch.kubernetes.io/job-completion-index` (`addCompletionIndexAnnotation`) and exposes as JOB_COMPLETION_INDEX
(`addCompletionIndexEnvVariable`, skipped when the container already defines that name). We define
JOB_COMPLETION_INDEX ourselves, from the same annotation, before MX_CONFIG, so MX_CONFIG's task index is the
dependent expansion `$(JOB_COMPLETION_INDEX)` (kubelet expands `$(NAME)` from earlier variables; `$$` is a
literal `$`): each pod sees the exact JSON the pod rendering writes for it.

DMLC_PS_ROOT_URI reads the scheduler's address from JobSet's coordinator where it fits (`uses_coordinator`):
with `spec.coordinator` naming the scheduler's pod, the JobSet controller puts its endpoint
`<jobset>-<rjob>-<jobIndex>-<podIndex>.<subdomain>` on every Job and pod as the label and annotation
jobset.sigs.k8s.io/coordinator (https://github.com/kubernetes-sigs/jobset/blob/main/pkg/controllers/jobset_controller.go,
`labelAndAnnotateObject` and `CoordinatorEndpoint`), and the variable is that annotation through the downward API.
The value is the very hostname written otherwise; the address is then JobSet's to state, as its docs show
(https://jobset.sigs.k8s.io/docs/concepts/#coordinator).
"""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.render.cluster import go_string
from mxjob_gitops.compiler.rules.names import label_value
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.canonical import drop_empty_value
from mxjob_gitops.compiler.spec.model import MXJob, Replica
from mxjob_gitops.compiler.spec.replicas import TRAITS, WORKER_ID_ENV, JobMode, generated_env_names, rendezvous_of

INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"
INDEX_ENV = "JOB_COMPLETION_INDEX"
_INDEX_FIELD = {"fieldRef": {"fieldPath": f"metadata.annotations['{INDEX_ANNOTATION}']"}}
COORDINATOR_KEY = "jobset.sigs.k8s.io/coordinator"
_COORDINATOR_FIELD = {"fieldRef": {"fieldPath": f"metadata.annotations['{COORDINATOR_KEY}']"}}
_ROOT_URI = "DMLC_PS_ROOT_URI"


def job_name(jobset: str, replica: Replica) -> str:
    """The one child Job of a replica type's replicatedJob (replicas: 1, job index 0)."""
    return f"{jobset}-{replica.role}-0"


def hostname(jobset: str, replica: Replica, index: int) -> str:
    """A pod's stable DNS name inside the namespace: `<host>.<subdomain>`."""
    return f"{job_name(jobset, replica)}-{index}.{jobset}"


def uses_coordinator(job: MXJob) -> bool:
    """Whether the scheduler's pod is named by `spec.coordinator`: an MXTrain job with a Scheduler whose endpoint is
    a label value. The JobSet controller writes the endpoint as a label, and the webhook refuses a JobSet whose
    endpoint is not one (pkg/webhooks/jobset_webhook.go `validateCoordinatorLabelValue`): past 63 characters (a job
    name over 24) the hostname is written as a literal instead, with the same value. Every JobSet that knows
    `dependsOn` (v0.8.0) knows `coordinator` (v0.6.0), so no version decides more than that."""
    scheduler = job.replica(rendezvous_of(JobMode.TRAIN))
    if scheduler is None or scheduler.replicas <= 0:
        return False
    return not label_value(hostname(job.name, scheduler, 0))


def _escape(text: str) -> str:
    """Literal text inside an env value: kubelet reads `$$` as `$`, so no `$(` of ours is ever expanded."""
    return text.replace("$", "$$")


class Environment:
    """The variables appended to every container of one replica type, in the pod rendering's order."""

    def __init__(self, job: MXJob) -> None:
        self.job = job
        ordered = sorted((r for r in job.replicas if r.replicas > 0), key=lambda r: r.role)
        cluster = ",".join(
            f"{go_string(r.role)}:["
            + ",".join(f'{{"url":{go_string(hostname(job.name, r, i))},"port":{r.port}}}' for i in range(r.replicas))
            + "]"
            for r in ordered
        )
        labels = ",".join(f"{go_string(r.role)}:{go_string(r.tuner_key)}" for r in sorted(job.replicas, key=_role))
        self.shared_json = f'{{"cluster":{{{cluster}}},"labels":{{{labels}}}}}'
        scheduler = job.replica(rendezvous_of(JobMode.TRAIN))
        present = scheduler is not None and scheduler.replicas > 0
        self.root_port = str(scheduler.port) if scheduler is not None and present else "0"
        self.root_uri = hostname(job.name, scheduler, 0) if scheduler is not None and present else ""
        self.coordinator = uses_coordinator(job)

    def env(self, replica: Replica) -> list[dict[str, Any]]:
        role = replica.role
        task = f',"task":{{"type":{go_string(role)},"index":$({INDEX_ENV})}}}}'
        values = (
            _escape(self.shared_json[:-1]) + task,
            self.root_port,
            self.root_uri,
            str(self.job.count(c.SERVER)),
            str(self.job.count(c.WORKER)),
            role,
            "1",
        )
        names = generated_env_names(c.SCHEDULER)  # the shared seven, in order
        env: list[dict[str, Any]] = [{"name": INDEX_ENV, "valueFrom": _INDEX_FIELD}]
        env.extend(
            {"name": n, "valueFrom": _COORDINATOR_FIELD}
            if n == _ROOT_URI and self.coordinator
            else drop_empty_value({"name": n, "value": v})
            for n, v in zip(names, values, strict=True)
        )
        if TRAITS[replica.type].worker_id:
            env.append({"name": WORKER_ID_ENV, "valueFrom": _INDEX_FIELD})
        return env

    def user_env(self, container: dict[str, Any], replica: Replica) -> list[dict[str, Any]]:
        """The container's own variables without those we set (as the pod rendering drops them)."""
        ours = {*generated_env_names(replica.type), INDEX_ENV}
        return [e for e in container.get("env") or [] if e.get("name") not in ours]


def _role(replica: Replica) -> str:
    return replica.role
