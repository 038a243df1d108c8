"""The pod the JobSet and Job controllers create from one replicatedJob of a rendered JobSet, as they write it, so
that compiler.judge holds it to the pod rules before the JobSet is applied (a pod they cannot create is a job
that never starts, whatever the JobSet's own validation said).

- kubernetes-sigs/jobset pkg/controllers/jobset_controller.go `constructJob`: the Job `<jobset>-<rjob>-<jobIndex>`
  (placement.GenJobName), its pod template's labels and annotations from `labelAndAnnotateObject`
  (jobset.sigs.k8s.io/jobset-name, replicatedjob-name, restart-attempt, replicatedjob-replicas, job-index, job-key
  (a SHA-1 hex digest), and as labels also global-replicas and job-global-index); with
  `network.enableDNSHostnames` the template's subdomain is the JobSet's `network.subdomain`; with `spec.coordinator`
  also the label and annotation jobset.sigs.k8s.io/coordinator, the endpoint `CoordinatorEndpoint` builds
  (`<jobset>-<rjob>-<jobIndex>-<podIndex>.<subdomain>`, `GetSubdomain`: the JobSet's name when none is set).
- kubernetes pkg/controller/job/job_controller.go and indexed_job_utils.go: the pod's generateName
  `<job>-<index>-` and hostname `<job>-<index>` (`podGenerateNameWithIndex`), the completion-index annotation and
  label (batch.kubernetes.io/job-completion-index), the job-name and controller-uid labels (pkg/registry/batch/job
  strategy.go `generateSelector`, in both their short and batch.kubernetes.io/ forms).
"""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.base.jsonutil import as_dict, as_list

JOBSET = "jobset.sigs.k8s.io/"
BATCH = "batch.kubernetes.io/"
INDEX_KEY = f"{BATCH}job-completion-index"
# A controller-uid is a UUID; any one has the length and characters of every other.
_UID = "00000000-0000-0000-0000-000000000000"
_JOB_KEY = "0" * 40
Manifest = dict[str, Any]


def job_name(jobset: str, replicated_job: str, job_index: int = 0) -> str:
    """placement.GenJobName."""
    return f"{jobset}-{replicated_job}-{job_index}"


def coordinator_endpoint(jobset: Manifest) -> str:
    """CoordinatorEndpoint: where the pod `spec.coordinator` names answers."""
    spec = as_dict(jobset.get("spec"))
    coordinator = as_dict(spec.get("coordinator"))
    name = str(as_dict(jobset.get("metadata")).get("name") or "")
    subdomain = as_dict(spec.get("network")).get("subdomain") or name
    return (
        f"{job_name(name, str(coordinator.get('replicatedJob') or ''), int(coordinator.get('jobIndex') or 0))}"
        f"-{int(coordinator.get('podIndex') or 0)}.{subdomain}"
    )


def controller_pod(jobset: Manifest, replicated: int, pod_index: int) -> Manifest:
    """The pod of index `pod_index` of job 0 of replicatedJobs[replicated], as the controllers create it."""
    spec = as_dict(jobset.get("spec"))
    entry = as_dict(as_list(spec.get("replicatedJobs"))[replicated])
    metadata = as_dict(jobset.get("metadata"))
    name, rjob = str(metadata.get("name") or ""), str(entry.get("name") or "")
    job = job_name(name, rjob)
    template = as_dict(as_dict(as_dict(entry.get("template")).get("spec")).get("template"))
    pod_metadata = as_dict(template.get("metadata"))
    added = {
        f"{JOBSET}jobset-name": name,
        f"{JOBSET}replicatedjob-name": rjob,
        f"{JOBSET}restart-attempt": "0",
        f"{JOBSET}replicatedjob-replicas": str(entry.get("replicas", 1)),
        f"{JOBSET}job-index": "0",
        f"{JOBSET}job-key": _JOB_KEY,
    }
    labels = {
        **as_dict(pod_metadata.get("labels")),
        **added,
        f"{JOBSET}global-replicas": str(
            sum(as_dict(r).get("replicas", 1) for r in as_list(spec.get("replicatedJobs")))
        ),
        f"{JOBSET}job-global-index": str(replicated),
        "controller-uid": _UID,
        f"{BATCH}controller-uid": _UID,
        "job-name": job,
        f"{BATCH}job-name": job,
        INDEX_KEY: str(pod_index),
    }
    coordinator = as_dict(spec.get("coordinator"))
    if coordinator:
        added[f"{JOBSET}coordinator"] = coordinator_endpoint(jobset)
        labels[f"{JOBSET}coordinator"] = added[f"{JOBSET}coordinator"]
    annotations = {**as_dict(pod_metadata.get("annotations")), **added, INDEX_KEY: str(pod_index)}
    pod_spec = dict(as_dict(template.get("spec")))
    network = as_dict(spec.get("network"))
    if network.get("enableDNSHostnames"):
        pod_spec["subdomain"] = network.get("subdomain") or name
    pod_spec["hostname"] = f"{job}-{pod_index}"
    new_metadata: dict[str, Any] = {"generateName": f"{job}-{pod_index}-"}
    if metadata.get("namespace"):
        new_metadata["namespace"] = metadata["namespace"]
    new_metadata["labels"] = labels
    new_metadata["annotations"] = annotations
    if pod_metadata.get("finalizers"):
        new_metadata["finalizers"] = pod_metadata["finalizers"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": new_metadata, "spec": pod_spec}
