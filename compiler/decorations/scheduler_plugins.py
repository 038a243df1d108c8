"""scheduler-plugins coscheduling: a scheduling.x-k8s.io PodGroup, pods join by label; the scheduler is named."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from compiler.decorations import Manifest
from compiler.gang import GangBackend, GangKind
from compiler.model import MXJob

PLUGINS_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
DEFAULT_PLUGINS_SCHEDULER = "scheduler-plugins-scheduler"


def _group_fields(_job: MXJob, policy: Mapping[str, Any]) -> dict[str, Any]:
    return {"scheduleTimeoutSeconds": policy["scheduleTimeoutSeconds"]} if "scheduleTimeoutSeconds" in policy else {}


def _join(pod: Manifest, job_name: str, _role: str) -> None:
    pod["metadata"]["labels"][PLUGINS_GROUP_LABEL] = job_name


BACKEND = GangBackend(GangKind.SCHEDULER_PLUGINS.value, DEFAULT_PLUGINS_SCHEDULER, True,
                      "scheduling.x-k8s.io/v1alpha1", _group_fields, _join)
