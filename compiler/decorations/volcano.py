"""Volcano gang scheduling: a scheduling.volcano.sh PodGroup with queue and priority, pods join by annotation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from compiler.decorations import Manifest
from compiler.gang import GangBackend, GangKind, template_priority_class
from compiler.model import MXJob

VOLCANO_QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"
VOLCANO_GROUP_ANNOTATION = "scheduling.k8s.io/group-name"
VOLCANO_TASK_ANNOTATION = "volcano.sh/task-spec"


def _group_fields(job: MXJob, policy: Mapping[str, Any]) -> dict[str, Any]:
    annotations = job.document["metadata"].get("annotations") or {}
    fields: dict[str, Any] = {
        "queue": policy.get("queue") or str(annotations.get(VOLCANO_QUEUE_ANNOTATION) or "") or "default"}
    priority_class = policy.get("priorityClass") or template_priority_class(job)
    if priority_class:
        fields["priorityClassName"] = priority_class
    return fields


def _join(pod: Manifest, job_name: str, role: str) -> None:
    metadata = pod["metadata"]
    metadata["annotations"] = {**(metadata.get("annotations") or {}), VOLCANO_GROUP_ANNOTATION: job_name,
                               VOLCANO_TASK_ANNOTATION: role}


BACKEND = GangBackend(GangKind.VOLCANO.value, "volcano", False, "scheduling.volcano.sh/v1beta1", _group_fields,
                      _join)
