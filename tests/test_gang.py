"""Gang scheduling: PodGroup minMember and minResources, pod decoration, scheduler choice, quantities."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from mxjob_gitops.compiler import RenderOptions
from mxjob_gitops.compiler.base.quantity import QuantityError, add_quantities, parse_quantity
from mxjob_gitops.compiler.render.gang.plan import GangScheduler
from tests.helpers import by_name, container, job, render, replica

VOLCANO = RenderOptions(gang_scheduler=GangScheduler.parse("volcano"))


def _resources(requests: dict[str, str] | None = None, limits: dict[str, object] | None = None) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    return {"resources": resources}


def _mixed(min_available: int | None) -> dict[str, Any]:
    scheduler = replica(1, [container(**_resources({"cpu": "1"}))])
    server = replica(
        2,
        [container(**_resources({"cpu": "2", "memory": "4Gi"}))],
    )
    server["template"]["spec"]["priorityClassName"] = "high"
    worker = replica(4, [container(**_resources({"cpu": "4"}, {"memory": "8Gi", "nvidia.com/gpu": 1}))])
    worker["template"]["spec"]["priorityClassName"] = "low"
    spec = job(name="mixed", Scheduler=scheduler, Server=server, Worker=worker)
    if min_available is not None:
        spec["spec"]["runPolicy"] = {"schedulingPolicy": {"minAvailable": min_available}}
    return spec


@pytest.mark.parametrize(
    ("min_available", "priorities", "expected"),
    [
        # all 7 pods: scheduler + 2 servers + 4 workers
        (None, (("high", 100), ("low", 10)), {"cpu": "21", "memory": "40Gi", "nvidia.com/gpu": "4"}),
        # 3 pods, highest first: the two servers, then one worker
        (3, (("high", 100), ("low", 10)), {"cpu": "8", "memory": "16Gi", "nvidia.com/gpu": "1"}),
        # 3 pods, workers rank highest
        (3, (("high", 1), ("low", 1000)), {"cpu": "12", "memory": "24Gi", "nvidia.com/gpu": "3"}),
        # 1 pod, unknown classes count as 0: ties keep Scheduler, Server, Worker order
        (1, (), {"cpu": "1"}),
    ],
)
def test_min_member_and_min_resources(
    min_available: int | None, priorities: tuple[tuple[str, int], ...], expected: dict[str, str]
) -> None:
    options = RenderOptions(gang_scheduler=GangScheduler.parse("volcano"), priority_classes=priorities)
    group = by_name(render(_mixed(min_available), options=options), "PodGroup", "mixed")
    assert group["apiVersion"] == "scheduling.volcano.sh/v1beta1"
    assert group["spec"]["minMember"] == (min_available if min_available is not None else 7)
    assert group["spec"]["minResources"] == expected
    assert group["spec"]["queue"] == "default"


@pytest.mark.parametrize(
    ("min_available", "priorities", "expected"),
    [
        # every pod: Scheduler 1, Server n, Worker m
        (None, (), {"scheduler": 1, "server": 2, "worker": 4}),
        # the same first minAvailable pods that minResources sums: highest PriorityClass first
        (3, (("high", 100), ("low", 10)), {"server": 2, "worker": 1}),
        (3, (("high", 1), ("low", 1000)), {"worker": 3}),
        (2, (), {"scheduler": 1, "server": 1}),
    ],
)
def test_volcano_min_task_member_per_role(
    min_available: int | None, priorities: tuple[tuple[str, int], ...], expected: dict[str, int]
) -> None:
    options = RenderOptions(gang_scheduler=GangScheduler.parse("volcano"), priority_classes=priorities)
    manifests = render(_mixed(min_available), options=options)
    group = by_name(manifests, "PodGroup", "mixed")
    assert group["spec"]["minTaskMember"] == expected
    assert sum(expected.values()) == group["spec"]["minMember"]
    # the keys are the roles pods announce in volcano.sh/task-spec
    roles = {m["metadata"]["annotations"]["volcano.sh/task-spec"] for m in manifests if m["kind"] == "Pod"}
    assert set(expected) <= roles


def test_volcano_min_task_member_for_mxtune_roles() -> None:
    spec = job(name="tune", mode="MXTune", TunerTracker=replica(1), TunerServer=replica(2), Tuner=replica(1))
    group = by_name(render(spec, options=VOLCANO), "PodGroup", "tune")
    assert group["spec"]["minTaskMember"] == {"tunertracker": 1, "tunerserver": 2, "tuner": 1}


def test_pods_join_the_volcano_group_and_it_comes_before_them() -> None:
    manifests = render(job(name="v", Worker=replica(1)), options=VOLCANO)
    assert [m["kind"] for m in manifests] == ["ConfigMap", "PodGroup", "Service", "Pod", "MXJob"]
    pod = by_name(manifests, "Pod", "v-worker-0")
    assert pod["spec"]["schedulerName"] == "volcano"
    assert pod["metadata"]["annotations"] == {"scheduling.k8s.io/group-name": "v", "volcano.sh/task-spec": "worker"}


def test_scheduler_plugins_label_and_name() -> None:
    options = RenderOptions(gang_scheduler=GangScheduler.parse("scheduler-plugins"))
    manifests = render(job(name="s", Worker=replica(1)), options=options)
    group = by_name(manifests, "PodGroup", "s")
    assert group["apiVersion"] == "scheduling.x-k8s.io/v1alpha1"
    assert "queue" not in group["spec"]
    pod = by_name(manifests, "Pod", "s-worker-0")
    assert pod["spec"]["schedulerName"] == "scheduler-plugins-scheduler"
    assert pod["metadata"]["labels"]["scheduling.x-k8s.io/pod-group"] == "s"


def test_no_gang_scheduler_no_pod_group() -> None:
    assert "PodGroup" not in [m["kind"] for m in render(_mixed(3))]


@pytest.mark.parametrize(
    ("text", "kind", "name"),
    [
        ("volcano", "volcano", "volcano"),
        ("scheduler-plugins", "scheduler-plugins", "scheduler-plugins-scheduler"),
        ("scheduler-plugins=coscheduler", "scheduler-plugins", "coscheduler"),
    ],
)
def test_parse_gang_scheduler(text: str, kind: str, name: str) -> None:
    parsed = GangScheduler.parse(text)
    assert (parsed.kind, parsed.scheduler_name) == (kind, name)


@pytest.mark.parametrize("text", ["kube-batch", "volcano=x", ""])
def test_parse_gang_scheduler_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        GangScheduler.parse(text)


@pytest.mark.parametrize(
    ("values", "total"),
    [
        (["500m", "1", "1.5"], "3"),
        (["500m", "250m"], "750m"),
        (["4Gi", "512Mi"], "4608Mi"),
        (["1Gi", "1G"], "2073741824"),
        ([1, 2], "3"),
        (["1e3", "1k"], "2k"),
        (["100Mi"], "100Mi"),
    ],
)
def test_add_quantities(values: list[object], total: str) -> None:
    assert add_quantities(values) == total


def test_parse_quantity_rejects_garbage() -> None:
    assert parse_quantity("2Ki") == (Decimal(2048), True)
    with pytest.raises(QuantityError):
        parse_quantity("lots")


@pytest.mark.parametrize(
    "text", ["volcano", "scheduler-plugins=coscheduler", "scheduler-plugins=scheduler-plugins-scheduler"]
)
def test_gang_scheduler_text_round_trips(text: str) -> None:
    assert str(GangScheduler.parse(text)) == text
