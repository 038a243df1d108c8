"""Every gang scheduler in one table: what its pods carry, its group object, and what a replicas change diffs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from mxjob_gitops.compiler import RenderOptions
from mxjob_gitops.compiler.render.gang.plan import GangScheduler
from mxjob_gitops.compiler.validate.kubeschema import available_versions
from tests.conftest import EXAMPLES, run_cli
from tests.helpers import by_name, job, render, replica

EXAMPLE_FILES = sorted(p for name in ("train", "tune", "byteps", "single") for p in (EXAMPLES / name).glob("*.yaml"))


def _train(workers: int = 2, **metadata: Any) -> dict[str, Any]:
    spec = job(name="g", Scheduler=replica(1), Server=replica(1), Worker=replica(workers))
    spec["metadata"].update(metadata)
    return spec


def _rendered(scheduler: str, version: str | None = None, spec: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    options = RenderOptions(gang_scheduler=GangScheduler.parse(scheduler), kubernetes_version=version)
    return render(spec or _train(), options=options)


# scheduler, version: pod labels (beyond the operator's), pod annotations, pod spec fields, group object (or None)
TABLE: list[tuple[str, str | None, dict[str, str], dict[str, str], dict[str, Any], dict[str, Any] | None]] = [
    (
        "volcano",
        None,
        {},
        {"scheduling.k8s.io/group-name": "g", "volcano.sh/task-spec": "worker"},
        {"schedulerName": "volcano"},
        {
            "apiVersion": "scheduling.volcano.sh/v1beta1",
            "kind": "PodGroup",
            "spec": {"minMember": 4, "minTaskMember": {"scheduler": 1, "server": 1, "worker": 2}, "queue": "default"},
        },
    ),
    (
        "scheduler-plugins",
        None,
        {"scheduling.x-k8s.io/pod-group": "g"},
        {},
        {"schedulerName": "scheduler-plugins-scheduler"},
        {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "spec": {"minMember": 4}},
    ),
    (
        "kueue=research",
        None,
        {"kueue.x-k8s.io/queue-name": "research", "kueue.x-k8s.io/pod-group-name": "g"},
        {"kueue.x-k8s.io/pod-group-total-count": "4"},
        {},
        None,
    ),
    (
        "kubernetes",
        None,
        {},
        {},
        {"schedulingGroup": {"podGroupName": "g"}},
        {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "PodGroup",
            "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}},
        },
    ),
    (
        "kubernetes",
        "1.37",
        {},
        {},
        {"schedulingGroup": {"podGroupName": "g"}},
        {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "PodGroup",
            "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}},
        },
    ),
    (
        "kubernetes",
        "1.36",
        {},
        {},
        {"schedulingGroup": {"podGroupName": "g"}},
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}},
        },
    ),
    (
        "kubernetes",
        "1.35",
        {},
        {},
        {"workloadRef": {"name": "g", "podGroup": "gang"}},
        {
            "apiVersion": "scheduling.k8s.io/v1alpha1",
            "kind": "Workload",
            "spec": {"podGroups": [{"name": "gang", "policy": {"gang": {"minCount": 4}}}]},
        },
    ),
]


@pytest.mark.parametrize(("scheduler", "version", "labels", "annotations", "fields", "group"), TABLE)
def test_pods_and_group(
    scheduler: str,
    version: str | None,
    labels: dict[str, str],
    annotations: dict[str, str],
    fields: dict[str, Any],
    group: dict[str, Any] | None,
) -> None:
    manifests = _rendered(scheduler, version)
    pod = by_name(manifests, "Pod", "g-worker-1")
    own = {k: v for k, v in pod["metadata"]["labels"].items() if not k.startswith("training.kubeflow.org/")}
    assert own == labels
    assert pod["metadata"].get("annotations", {}) == annotations
    for key in ("schedulerName", "schedulingGroup", "workloadRef"):
        assert pod["spec"].get(key) == fields.get(key)
    groups = [m for m in manifests if m["kind"] in ("PodGroup", "Workload")]
    if group is None:
        assert groups == []
        return
    assert [{k: g[k] for k in ("apiVersion", "kind", "spec")} for g in groups] == [group]
    kinds = [m["kind"] for m in manifests]
    assert kinds.index(group["kind"]) < kinds.index("Pod")  # the group exists before its pods


@pytest.mark.parametrize("scheduler", ["volcano", "scheduler-plugins", "kueue=q", "kubernetes"])
def test_every_pod_of_every_role_joins(scheduler: str) -> None:
    pods = [m for m in _rendered(scheduler) if m["kind"] == "Pod"]
    assert len(pods) == 4
    first = json.dumps({k: v for k, v in pods[0]["spec"].items() if k in ("schedulerName", "schedulingGroup")})
    for pod in pods:
        assert json.dumps({k: v for k, v in pod["spec"].items() if k in ("schedulerName", "schedulingGroup")}) == first


@pytest.mark.parametrize(
    ("labels", "policy", "flag", "queue"),
    [
        ({"kueue.x-k8s.io/queue-name": "team-a"}, None, "kueue", "team-a"),
        ({}, {"queue": "team-b"}, "kueue", "team-b"),
        ({"kueue.x-k8s.io/queue-name": "team-a"}, {"queue": "team-b"}, "kueue", "team-a"),
        ({"kueue.x-k8s.io/queue-name": "team-a"}, None, "kueue=urgent", "urgent"),
    ],
)
def test_kueue_queue_sources(labels: dict[str, str], policy: dict[str, str] | None, flag: str, queue: str) -> None:
    spec = _train(labels=labels)
    if policy:
        spec["spec"]["runPolicy"] = {"schedulingPolicy": policy}
    for pod in (m for m in _rendered(flag, spec=spec) if m["kind"] == "Pod"):
        assert pod["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == queue


def _write(tmp_path: Path, spec: dict[str, Any], name: str = "job.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return path


def test_kueue_without_a_queue_warns(tmp_path: Path) -> None:
    result = run_cli(["render", "--gang-scheduler", "kueue", str(_write(tmp_path, _train()))])
    assert result.exit_code == 0
    assert "MXJ316" in result.stderr and "kueue=QUEUE" in result.stderr
    pod = next(d for d in yaml.safe_load_all(result.stdout) if d["kind"] == "Pod")
    assert "kueue.x-k8s.io/queue-name" not in pod["metadata"]["labels"]
    assert pod["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"] == "g"


@pytest.mark.parametrize("args", [[], ["--gang-scheduler", "volcano"]])
def test_a_queue_label_without_kueue_rendering_is_a_validate_warning(tmp_path: Path, args: list[str]) -> None:
    path = _write(tmp_path, _train(labels={"kueue.x-k8s.io/queue-name": "team-a"}))
    result = run_cli(["validate", *args, str(path)])
    assert result.exit_code == 0
    assert "warning MXJ316" in result.stdout and "--gang-scheduler kueue" in result.stdout
    assert "MXJ316" not in run_cli(["validate", "--gang-scheduler", "kueue", str(path)]).stdout


def test_kubernetes_before_1_35_is_an_error(tmp_path: Path) -> None:
    result = run_cli(
        ["render", "--gang-scheduler", "kubernetes", "--kubernetes-version", "1.34", str(_write(tmp_path, _train()))]
    )
    assert result.exit_code == 1 and result.stdout == ""
    assert "1.35" in result.stderr


def test_kubernetes_version_is_recorded_for_the_reconciler() -> None:
    config = by_name(_rendered("kubernetes", "1.36"), "ConfigMap", "g-mxjob-config")
    render_record = json.loads(config["data"]["job.json"])["render"]
    assert render_record == {"gangScheduler": "kubernetes", "kubernetesVersion": "1.36", "target": "plain"}
    assert RenderOptions.from_config_map(config).kubernetes_version == "1.36"
    volcano = by_name(_rendered("volcano", "1.36"), "ConfigMap", "g-mxjob-config")
    assert "kubernetesVersion" not in json.loads(volcano["data"]["job.json"])["render"]


# What `mxjob diff` shows when Worker replicas go from 2 to 3 (docs/gang-scheduling.md, "Changing replicas"):
# every existing pod is replaced anyway (DMLC_NUM_WORKER and MX_CONFIG change); the scheduler adds its own
# changes to those same pods, or to its group object, which is patched in place.
DIFF_TABLE = [
    ("volcano", [], {"PodGroup": ["spec.minMember", "spec.minResources.cpu", "spec.minTaskMember.worker"]}),
    ("scheduler-plugins", [], {"PodGroup": ["spec.minMember", "spec.minResources.cpu"]}),
    ("kueue=q", ['metadata.annotations["kueue.x-k8s.io/pod-group-total-count"]'], {}),
    ("kubernetes", [], {"PodGroup": ["spec.schedulingPolicy.gang.minCount"]}),
]


@pytest.mark.parametrize(("scheduler", "pod_changes", "group_changes"), DIFF_TABLE)
def test_diff_when_replicas_change(
    tmp_path: Path, scheduler: str, pod_changes: list[str], group_changes: dict[str, list[str]]
) -> None:
    resources = {"resources": {"requests": {"cpu": "1"}}}
    old, new = (_train(workers=n) for n in (2, 3))
    for spec in (old, new):
        for rtype in spec["spec"]["mxReplicaSpecs"].values():
            rtype["template"]["spec"]["containers"][0].update(resources)
    paths = [str(_write(tmp_path, old, "old.yaml")), str(_write(tmp_path, new, "new.yaml"))]
    result = run_cli(["diff", "--gang-scheduler", scheduler, "--format", "json", *paths])
    assert result.exit_code == 1
    objects = {(o["kind"], o["name"]): o for o in json.loads(result.stdout)["objects"]}
    env = ["spec.containers[mxnet].env[DMLC_NUM_WORKER].value", "spec.containers[mxnet].env[MX_CONFIG].value"]
    for name in ("g-scheduler-0", "g-server-0", "g-worker-0", "g-worker-1"):
        pod = objects[("Pod", name)]
        assert pod["replace"] is True
        assert sorted(c["path"] for c in pod["changes"]) == sorted(pod_changes + env)
    groups = {
        kind: sorted(c["path"] for c in o["changes"])
        for (kind, _), o in objects.items()
        if kind in ("PodGroup", "Workload")
    }
    assert groups == {kind: sorted(paths) for kind, paths in group_changes.items()}
    assert not any(o["replace"] for (kind, _), o in objects.items() if kind != "Pod")


@pytest.mark.parametrize("scheduler", ["volcano", "scheduler-plugins", "kueue=q", "kubernetes"])
@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_examples_validate_strictly(path: Path, scheduler: str) -> None:
    """The issue's bar: every example, every gang scheduler, strict schemas (1.37 for the native API)."""
    assert "1.37" in available_versions()  # the installed kubernetes-validate ships the 1.37 strict schemas
    result = run_cli(
        ["validate", "--kubernetes-version", "1.37", "--gang-scheduler", scheduler, "--format", "json", str(path)]
    )
    assert result.exit_code == 0, result.stdout
    report = json.loads(result.stdout)
    assert report["summary"]["invalid"] == 0 and report["summary"]["skipped"] == 0, report["summary"]


@pytest.mark.parametrize(
    ("version", "kinds"),
    [
        ("1.35", {"Workload": "scheduling.k8s.io/v1alpha1"}),
        ("1.36", {"PodGroup": "scheduling.k8s.io/v1alpha2"}),
        ("1.37", {"PodGroup": "scheduling.k8s.io/v1beta1"}),
    ],
)
def test_kubernetes_shape_follows_the_version_validated(version: str, kinds: dict[str, str]) -> None:
    """validate renders the shape of the version it checks against, and that release's strict schema accepts it."""
    path = EXAMPLES / "train" / sorted(p.name for p in (EXAMPLES / "train").glob("*.yaml"))[0]
    result = run_cli(
        ["validate", "--kubernetes-version", version, "--gang-scheduler", "kubernetes", "--format", "json", str(path)]
    )
    assert result.exit_code == 0, result.stdout
    report = json.loads(result.stdout)
    assert report["summary"]["invalid"] == 0 and report["summary"]["skipped"] == 0, report["summary"]
    rendered = run_cli(["render", "--kubernetes-version", version, "--gang-scheduler", "kubernetes", str(path)])
    groups = {
        d["kind"]: d["apiVersion"] for d in yaml.safe_load_all(rendered.stdout) if d["kind"] in ("PodGroup", "Workload")
    }
    assert groups == kinds
