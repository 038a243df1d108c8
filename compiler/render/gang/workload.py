"""The Workload Kueue creates for what we render with `--gang-scheduler kueue`, so that compiler.judge holds it to
the Workload CRD before anything is applied: a Workload Kueue cannot create leaves the pods gated for ever, with
exit 0 from us. Only what Kueue copies from our objects is filled in; the rest (status, admission) is Kueue's.

- A plain pod group (the pods engine), kubernetes-sigs/kueue pkg/controller/jobs/pod/pod_controller.go
  `ConstructComposableWorkload`: the Workload is named after the group (the pod-group-name label), owned by every
  pod of the group (`SetOwnerReference` per pod), its queue the pods' queue-name label, its priority class the
  pods' kueue.x-k8s.io/priority-class label (a WorkloadPriorityClass), else their `priorityClassName`; one pod
  set per role (`constructGroupPodSets`: the pods of a replica type share a role hash, an 8-character hex name),
  counting the pods of the role, its template the pod's spec alone (`constructPodSet`: `Template.Spec` is a
  deep copy of the pod's spec, no metadata).
- A JobSet, pkg/controller/jobs/jobset/jobset_controller.go `PodSets`: one pod set per replicatedJob, named after
  it, counting replicas x parallelism, its template the replicatedJob's pod template; the Workload is
  `jobset-<name>-<hash>` (pkg/controller/jobframework `GetWorkloadNameForOwnerWithGVK`), owned by the JobSet.

Called by compiler.judge with the objects it judges (the pod of the highest index of each replica type stands
for the others: they differ only in names and env values, which no Workload rule reads but for its size, which
the owner references' names give here in full)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mxjob_gitops.compiler.base.jsonutil import as_dict, as_list
from mxjob_gitops.compiler.render.gang.kueue import KUEUE_GROUP_LABEL, KUEUE_QUEUE_LABEL

Manifest = dict[str, Any]
API_VERSION = "kueue.x-k8s.io/v1beta2"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"  # pkg/controller/constants WorkloadPriorityClassLabel
_UID = "00000000-0000-0000-0000-{:012x}"  # an owner's uid: every one has this length
_HASH = "0" * 5  # the name's hash suffix: five hex characters


def kueue_workload(objects: list[Manifest], counts: Mapping[str, int]) -> Manifest | None:
    """The Workload for the pods (one per replica type, `counts` of them by the pod's name prefix) or the JobSet
    among `objects`; None when they join no Kueue group."""
    for obj in objects:
        if obj.get("kind") == "JobSet":
            return _jobset_workload(obj)
    roles: dict[str, Manifest] = {}  # the pod of each role (every pod when nothing stands for the others)
    for obj in objects:
        if obj.get("kind") == "Pod" and KUEUE_GROUP_LABEL in as_dict(obj["metadata"].get("labels")):
            roles[str(obj["metadata"]["name"]).rsplit("-", 1)[0]] = obj
    if not roles:
        return None
    pods = list(roles.values())
    first = pods[0]["metadata"]
    owners: list[Manifest] = []
    pod_sets: list[Manifest] = []
    for index, (prefix, pod) in enumerate(roles.items()):
        count = counts.get(prefix, 1)
        owners.extend(_owner("v1", "Pod", f"{prefix}-{i}", len(owners) + i) for i in range(count))
        pod_sets.append({"name": f"{index:08x}", "count": count, "template": {"spec": pod["spec"]}})
    return _workload(str(first["labels"][KUEUE_GROUP_LABEL]), first, pods[0]["spec"], owners, pod_sets)


def _priority_class(labels: dict[str, Any], pod_spec: Manifest) -> Manifest | None:
    """jobframework's priority: a WorkloadPriorityClass named by the label wins over the pods' PriorityClass."""
    if labels.get(PRIORITY_LABEL):
        return {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": labels[PRIORITY_LABEL]}
    if pod_spec.get("priorityClassName"):
        return {"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": pod_spec["priorityClassName"]}
    return None


def _jobset_workload(jobset: Manifest) -> Manifest | None:
    metadata = as_dict(jobset.get("metadata"))
    if KUEUE_QUEUE_LABEL not in as_dict(metadata.get("labels")):
        return None
    pod_sets = []
    for entry in as_list(as_dict(jobset.get("spec")).get("replicatedJobs")):
        entry = as_dict(entry)
        job_spec = as_dict(as_dict(entry.get("template")).get("spec"))
        count = int(entry.get("replicas", 1)) * int(job_spec.get("parallelism", 1))
        pod_sets.append({"name": entry.get("name"), "count": count, "template": job_spec.get("template")})
    name = f"jobset-{metadata.get('name')}"[: 253 - 6] + f"-{_HASH}"
    owner = _owner(str(jobset.get("apiVersion")), "JobSet", str(metadata.get("name")), 0)
    template_spec = as_dict(as_dict(pod_sets[0]["template"]).get("spec")) if pod_sets else {}
    return _workload(name, metadata, template_spec, [owner], pod_sets)


def _workload(
    name: str, source: Manifest, pod_spec: Manifest, owners: list[Manifest], pod_sets: list[Manifest]
) -> Manifest:
    metadata: Manifest = {"name": name}
    if source.get("namespace"):
        metadata["namespace"] = source["namespace"]
    metadata["ownerReferences"] = owners
    spec: Manifest = {"podSets": pod_sets}
    queue = as_dict(source.get("labels")).get(KUEUE_QUEUE_LABEL)
    if queue:
        spec["queueName"] = queue
    priority = _priority_class(as_dict(source.get("labels")), pod_spec)
    if priority is not None:
        spec["priorityClassRef"] = priority
        spec["priority"] = 0  # the class's value, which Kueue reads from the cluster
    return {"apiVersion": API_VERSION, "kind": "Workload", "metadata": metadata, "spec": spec}


def _owner(api_version: str, kind: str, name: str, number: int) -> Manifest:
    return {"apiVersion": api_version, "kind": kind, "name": name, "uid": _UID.format(number)}
