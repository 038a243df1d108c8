"""Kueue plain-pod groups: every pod carries the queue, the pod-group name and the group's total count."""

from __future__ import annotations

from collections.abc import Iterator

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, info, warning
from mxjob_gitops.compiler.render.gang.base import SCHEDULING_POLICY, GangBackend, GangPlan, Manifest
from mxjob_gitops.compiler.rules.names import dns1123_subdomain, label_value
from mxjob_gitops.compiler.spec.model import MXJob

# kubernetes-sigs/kueue pkg/controller/constants (QueueLabel) and pkg/controller/jobs/pod/constants/constants.go.
KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
KUEUE_GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
KUEUE_TOTAL_COUNT_ANNOTATION = "kueue.x-k8s.io/pod-group-total-count"
_QUEUE_LABEL_PATH = ("metadata", "labels", KUEUE_QUEUE_LABEL)


def job_queue(job: MXJob) -> str:
    """The queue a job names: its own kueue.x-k8s.io/queue-name label, else schedulingPolicy.queue."""
    labels = job.document["metadata"].get("labels") or {}
    policy = job.run_policy.scheduling_policy or {}
    return str(labels.get(KUEUE_QUEUE_LABEL) or policy.get("queue") or "")


def queue_of(plan: GangPlan) -> str:
    """`kueue=QUEUE` wins over the job's label, which wins over schedulingPolicy.queue."""
    return plan.argument or job_queue(plan.job)


def _join(pod: Manifest, plan: GangPlan, _role: str) -> None:
    """One group of every pod of the job (KEP-976 "Groups of Pods created beforehand").

    The webhook (pkg/controller/jobs/pod/pod_webhook.go, `Default`) then gates the pod, adds the finalizer
    kueue.x-k8s.io/managed and the role hash, so Scheduler, Server and Worker become separate pod sets of one
    Workload named after the group; `validatePodGroupMetadata` requires the name and the total count together.
    """
    metadata = pod["metadata"]
    labels = metadata["labels"]  # fresh per pod
    queue = queue_of(plan)
    if queue:
        labels[KUEUE_QUEUE_LABEL] = queue
    labels[KUEUE_GROUP_LABEL] = plan.job.name
    metadata["annotations"] = {**(metadata.get("annotations") or {}), KUEUE_TOTAL_COUNT_ANNOTATION: str(plan.total)}


def _findings(plan: GangPlan) -> Iterator[Diagnostic]:
    if not queue_of(plan):
        yield warning(
            Code.GANG_QUEUE,
            "the pods name no Kueue queue: Kueue queues them only if the namespace has a LocalQueue "
            "named 'default' or Kueue runs with manageJobsWithoutQueueName",
            _QUEUE_LABEL_PATH,
            f"pass --gang-scheduler kueue=QUEUE, or label the job {KUEUE_QUEUE_LABEL}: QUEUE",
        )
    if plan.min_member < plan.total:
        yield warning(
            Code.GANG_POLICY_IGNORED,
            f"Kueue admits the whole group of {plan.total} pods; minAvailable {plan.min_member} has no effect on it",
            (*SCHEDULING_POLICY, "minAvailable"),
            "remove minAvailable",
        )


def absent(job: MXJob) -> Iterator[Diagnostic]:
    """A job that names a Kueue queue but is not rendered for Kueue: its pods are queued one by one, if at all."""
    queue = job_queue(job)
    labels = job.document["metadata"].get("labels") or {}
    if queue and KUEUE_QUEUE_LABEL in labels:
        yield warning(
            Code.GANG_QUEUE,
            f"the job is labelled {KUEUE_QUEUE_LABEL}: {queue}, but its pods are not rendered for "
            "Kueue: they carry no queue or pod group, so Kueue does not admit them together, and a "
            "LocalQueue named 'default' in the namespace would gate and admit each pod on its own "
            "(a partly started job that holds quota)",
            _QUEUE_LABEL_PATH,
            "render with --gang-scheduler kueue (or annotate the job mxjob.kubeflow.org/gang-scheduler: kueue)",
        )


def multikueue_note(job: MXJob) -> Diagnostic:
    """A note on a job rendered as a Kueue pod group by the pods engine: MultiKueue would run its pods without the
    Services they reach each other by.

    MultiKueue's adapter for plain pods (kubernetes-sigs/kueue pkg/controller/jobs/pod/pod_multikueue_adapter.go,
    `SyncJob` and `syncPodGroup`) creates on the worker cluster a copy of each Pod of the group, and nothing else;
    a JobSet is copied whole and its controller there makes its own headless Service
    (https://kueue.sigs.k8s.io/docs/concepts/multikueue/, .../docs/tasks/run/multikueue/plain_pods/ and
    .../jobsets/). Whether a queue dispatches through MultiKueue is the cluster's to say (a ClusterQueue with an
    AdmissionCheck of controllerName kueue.x-k8s.io/multikueue), not the spec's; most Kueue setups are one
    cluster, where this rendering is right. So it is a note, not a warning: printed by default, left out by -q.
    """
    return info(
        Code.MULTIKUEUE_SERVICES,
        "if this job's Kueue queue dispatches to other clusters (MultiKueue), only its Pods are copied there: "
        "the headless Services its pods find each other by are not, so the job cannot start there",
        ("metadata", "name"),
        "for a MultiKueue queue, render with --engine jobset: MultiKueue copies a JobSet whole; "
        "see docs/gang-scheduling.md#multikueue",
    )


def _queue_problem(queue: str) -> str:
    """The queue becomes the pods' (and a JobSet's) kueue.x-k8s.io/queue-name label, a label value, and the
    `spec.queueName` of the Workload Kueue creates for them, a DNS-1123 subdomain (compiler.gang.workload)."""
    problem = label_value(queue)
    if problem:
        return f"is not a label value (it becomes the label {KUEUE_QUEUE_LABEL}): {problem}"
    problem = dns1123_subdomain(queue)
    return f"is not a LocalQueue name (it becomes the Workload's spec.queueName): {problem}" if problem else ""


BACKEND = GangBackend(
    "kueue",
    "QUEUE",
    "",
    lambda _argument: None,
    lambda _plan: None,
    _join,
    findings=_findings,
    absent=absent,
    argument_problem=_queue_problem,
)
