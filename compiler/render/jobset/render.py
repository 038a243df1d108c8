"""One MXJob as one JobSet (jobset.x-k8s.io/v1alpha2): a replicatedJob per replica type, policies mapped.

Field by field, with the upstream source of each, in docs/jobset.md. In short (kubernetes-sigs/jobset
api/jobset/v1alpha2/jobset_types.go for the API, pkg/controllers for what the controller does with it):
- replicatedJobs: one per replica type with pods, in rendering order, `replicas: 1`; its Job is Indexed with
  completions = parallelism = the replica count (`constructJob` copies the template; the webhook `Default`
  would make Indexed the default, we say it).
- network: enableDNSHostnames, subdomain = the JobSet name, publishNotReadyAddresses (the headless Service of
  `createHeadlessSvcIfNecessary`), so ps-lite can reach pods before they are Ready.
- successPolicy: operator All over the replicatedJob that decides success (Worker in MXTrain, Tuner in MXTune;
  success_policy.go `numJobsMatchingSuccessPolicy`). On success or failure the controller deletes the Jobs still
  active (`reconcile`: jobSetFinished then deleteJobs), so servers and the scheduler stop.
- dependsOn, not the deprecated startupPolicy (to go in JobSet's v1 API): in MXTrain with a Scheduler each
  replicatedJob after the first depends on the one before it being Ready (servers after the scheduler, workers
  after the servers), the order startupPolicy InOrder gave. The controller creates a replicatedJob's Jobs once
  the one it names has Ready + Succeeded + Failed Jobs equal to its replicas (depends_on.go
  `dependencyReachedStatus`), InOrder's `allReplicasStarted` test. The CRD allows one item; the webhook refuses
  dependsOn on the first replicatedJob and a name not listed up to this one (jobset_webhook.go `ValidateCreate`);
  https://github.com/kubernetes-sigs/jobset/blob/main/api/jobset/v1alpha2/jobset_types.go (DependsOn). Without a
  Scheduler (a lone Worker) and in MXTune nothing waits, as AnyOrder (the default) did.
- coordinator: the scheduler's pod where it fits (topology.uses_coordinator); DMLC_PS_ROOT_URI reads it.
- suspend: the run policy's (`constructJob` suspends every Job of a suspended JobSet). ttlSecondsAfterFinished is
  not rendered, as on the pods engine (warning MXJ303): JobSet would delete a Git-tracked object
  (ttl_after_finished.go `executeTTLAfterFinishedPolicy`) and Argo CD or Flux would create it again, to run again.
- Kueue: the queue-name label on the JobSet (Kueue's jobset integration admits it as one workload).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from mxjob_gitops.compiler.render.gang.plan import Gang
from mxjob_gitops.compiler.render.jobset.policy import backoff_limit, pod_failure_policy, pod_restart_policy
from mxjob_gitops.compiler.render.jobset.topology import Environment, uses_coordinator
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.exitcodes import Overrides, job_overrides, parse_overrides
from mxjob_gitops.compiler.spec.model import MXJob, Replica
from mxjob_gitops.compiler.spec.replicas import TRAITS, JobMode
from mxjob_gitops.compiler.spec.targets import Target

if TYPE_CHECKING:
    from mxjob_gitops.compiler.render.job import CompiledJob

API_VERSION = "jobset.x-k8s.io/v1alpha2"
KIND = "JobSet"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
Manifest = dict[str, Any]
# The JobSet CRD makes most of spec immutable (x-kubernetes-validations `self == oldSelf`), so a changed JobSet is
# replaced, as the pods engine's pods are (compiler.decorations.argocd and .flux say the same for pods).
_TARGET_ANNOTATIONS = {
    Target.ARGOCD: {"argocd.argoproj.io/sync-options": "Force=true,Replace=true"},
    Target.FLUX: {"kustomize.toolkit.fluxcd.io/force": "Enabled"},
}


def render_compiled(compiled: CompiledJob, options: RenderOptions) -> Iterator[Manifest]:
    """The manifests of one compiled job on this engine: its JobSet (no ConfigMap, Services, Pods or MXJob)."""
    if compiled.job is None:
        raise ValueError("the job was compiled without defaults; it can only be converted")
    jobset = render_jobset(compiled.job, compiled.gang, parse_overrides(options.exit_codes))
    annotations = dict(_TARGET_ANNOTATIONS.get(options.target, {}))
    if options.target is Target.FLUX and "${" in json.dumps(jobset, ensure_ascii=False):
        annotations["kustomize.toolkit.fluxcd.io/substitute"] = "disabled"  # as compiler.decorations.flux does
    if annotations:
        jobset["metadata"]["annotations"] = annotations
    yield jobset


def render_jobset(job: MXJob, gang: Gang | None, exit_overrides: Overrides) -> Manifest:
    """The JobSet of one defaulted MXJob; `gang` counts only when it is Kueue (a queue name)."""
    document = job.document
    metadata: dict[str, Any] = {"name": job.name}
    if job.namespace:
        metadata["namespace"] = job.namespace
    labels = dict(document["metadata"].get("labels") or {})
    if gang is not None and gang.scheduler.kind == "kueue":
        # As the pods engine reads it: `kueue=QUEUE`, else the job's own label, else schedulingPolicy.queue.
        policy = job.run_policy.scheduling_policy or {}
        queue = str(gang.scheduler.argument or labels.get(QUEUE_LABEL) or policy.get("queue") or "")
        if queue:
            labels[QUEUE_LABEL] = queue
    if labels:
        metadata["labels"] = labels
    annotations = document["metadata"].get("annotations") or {}
    overrides = job_overrides(annotations, exit_overrides)
    environment = Environment(job)
    replicas = [r for r in job.replicas if r.replicas > 0]
    rjobs = [_replicated_job(job, r, environment, overrides) for r in replicas]
    if _in_order(job, replicas):
        for rjob, previous in zip(rjobs[1:], replicas, strict=False):
            rjob["dependsOn"] = [{"name": previous.role, "status": "Ready"}]
    spec: dict[str, Any] = {
        "replicatedJobs": rjobs,
        "network": {"enableDNSHostnames": True, "subdomain": job.name, "publishNotReadyAddresses": True},
    }
    scheduler = job.replica(c.SCHEDULER)
    if scheduler is not None and uses_coordinator(job):
        spec["coordinator"] = {"replicatedJob": scheduler.role, "jobIndex": 0, "podIndex": 0}
    deciders = [r.role for r in replicas if _decides_success(job, r)]
    spec["successPolicy"] = {"operator": "All", **({"targetReplicatedJobs": deciders} if deciders else {})}
    if job.run_policy.suspend:
        spec["suspend"] = True
    return {"apiVersion": API_VERSION, "kind": KIND, "metadata": metadata, "spec": spec}


def _decides_success(job: MXJob, replica: Replica) -> bool:
    """Workers in MXTrain (all of them), the Tuner in MXTune."""
    return replica.type == (c.WORKER if job.job_mode != JobMode.TUNE else c.TUNER)


def _in_order(job: MXJob, replicas: list[Replica]) -> bool:
    """ps-lite's scheduler first: an MXTrain job with a Scheduler and anything else to start after it."""
    types = [r.type for r in replicas]
    return c.SCHEDULER in types and len(types) > 1 and TRAITS[types[0]].rendezvous


def _replicated_job(job: MXJob, replica: Replica, environment: Environment, overrides: Overrides) -> Manifest:
    template = replica.template
    template_metadata = template.get("metadata") or {}
    pod_metadata: dict[str, Any] = {}
    pod_labels = dict(template_metadata.get("labels") or {})
    pod_labels.update({c.LABEL_JOB_NAME: job.name, c.LABEL_REPLICA_TYPE: replica.role})
    pod_metadata["labels"] = pod_labels
    for key in ("annotations", "finalizers"):
        if template_metadata.get(key):
            pod_metadata[key] = template_metadata[key]
    pod_spec = dict(template["spec"])
    generated = environment.env(replica)
    pod_spec["containers"] = [
        {**container, "env": environment.user_env(container, replica) + generated}
        for container in pod_spec["containers"]
    ]
    pod_spec["restartPolicy"] = pod_restart_policy(replica)
    job_spec: dict[str, Any] = {
        "completionMode": "Indexed",
        "completions": replica.replicas,
        "parallelism": replica.replicas,
        "backoffLimit": backoff_limit(job, replica),
    }
    deadline = job.run_policy.active_deadline_seconds
    if deadline is not None:
        job_spec["activeDeadlineSeconds"] = deadline
    failure_policy = pod_failure_policy(replica, overrides)
    if failure_policy is not None:
        job_spec["podFailurePolicy"] = failure_policy
    job_spec["template"] = {"metadata": pod_metadata, "spec": pod_spec}
    return {"name": replica.role, "replicas": 1, "template": {"spec": job_spec}}
