"""Two tenants and a platform on the fake API: what tenant B writes never makes the reconciler write outside
B's namespace or to an object whose own record does not list B's pod, and never crashes it (reconciler.trust,
reconciler.gitops)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mxjob_gitops.reconciler.apply import ApplySettings
from mxjob_gitops.reconciler.kube import Cluster
from mxjob_gitops.reconciler.runner import Reconciler, Settings
from tests.fakeapi import DEFAULT_RESOURCES, FakeServer, Resource
from tests.kubelet import deploy, set_pod
from tests.test_reconcile import EXITCODE_JOB, PODS

RESOURCES = (
    *DEFAULT_RESOURCES,
    Resource("kustomize.toolkit.fluxcd.io", "v1", "Kustomization", "kustomizations"),
    Resource("argoproj.io", "v1alpha1", "Application", "applications"),
)
FLUX, ARGO = "kustomize.toolkit.fluxcd.io/v1", "argoproj.io/v1alpha1"
WORKER = "mxnet-job-worker-0"


def listing(namespace: str) -> dict[str, Any]:
    return {"group": "", "version": "v1", "kind": "Pod", "namespace": namespace, "name": WORKER}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FakeServer, Path]]:
    """team-a and team-b run the same job; the platform's Kustomizations and Applications list only A's pods."""
    with FakeServer(RESOURCES) as server:
        for namespace in ("team-a", "team-b"):
            deploy(server, EXITCODE_JOB, namespace)
            for pod in PODS:
                set_pod(server, pod, "Running", namespace=namespace)
        inventory = {"entries": [{"id": f"team-a_{WORKER}__Pod", "v": "v1"}]}
        server.state.create(
            FLUX, "kustomizations", "flux-system", {"metadata": {"name": "team-a"}, "status": {"inventory": inventory}}
        )
        for namespace, name in (("argocd", "team-a"), ("argocd", "platform"), ("team-a", "apps")):
            app = {"metadata": {"name": name}, "status": {"resources": [listing("team-a")]}}
            server.state.create(ARGO, "applications", namespace, app)
        yield server, server.kubeconfig(tmp_path_factory.mktemp("kube") / "kubeconfig", namespace="team-b")


def writes(server: FakeServer, since: int) -> list[tuple[str, str]]:
    with server.state.lock:
        return [r for r in server.state.requests[since:] if r[0] in ("POST", "PUT", "PATCH", "DELETE")]


def outside(server: FakeServer) -> dict[tuple[str, str, str, str], str]:
    """Every object B must not change, with its resourceVersion."""
    with server.state.lock:
        return {k: v["metadata"]["resourceVersion"] for k, v in server.state.objects.items() if k[2] != "team-b"}


def fail_b_worker(server: FakeServer, labels: dict[str, Any], annotations: dict[str, Any]) -> None:
    """Tenant B labels its pod as it likes; then the pod fails with a retryable code."""
    key = ("v1", "pods", "team-b", WORKER)
    if key not in server.state.objects:  # deleted by an earlier restart: Argo CD / Flux would bring it back
        deploy_one(server)
    pod = server.state.objects[key]
    metadata = {**pod["metadata"], "labels": {**pod["metadata"]["labels"], **labels}, "annotations": annotations}
    server.state.update(key, {**pod, "metadata": metadata}, status_only=False, check_version=False)
    set_pod(server, WORKER, "Failed", exit_code=137, namespace="team-b", finished_at="2020-01-01T00:00:00Z")


def deploy_one(server: FakeServer) -> None:
    import yaml

    from tests.conftest import run_cli

    rendered = yaml.safe_load_all(run_cli(["render", "-n", "team-b", "-"], stdin=EXITCODE_JOB).stdout)
    pod = next(m for m in rendered if m and m["kind"] == "Pod" and m["metadata"]["name"] == WORKER)
    server.state.create("v1", "pods", "team-b", pod)


def reconcile_b(server: FakeServer, kubeconfig: Path, mode: str = "gitops", timeout: float = 10) -> dict[Any, str]:
    settings_ = Settings(namespaces=("team-b",), apply=ApplySettings(recreate=mode == "recreate"))
    return Reconciler(Cluster.connect(str(kubeconfig)), settings_).run_once(timeout=timeout)


HOSTILE_OWNERS = [
    pytest.param(
        {"kustomize.toolkit.fluxcd.io/name": "team-a", "kustomize.toolkit.fluxcd.io/namespace": "flux-system"},
        {},
        id="flux-a",
    ),
    pytest.param({}, {"argocd.argoproj.io/tracking-id": f"team-a:/Pod:team-b/{WORKER}"}, id="argo-a"),
    pytest.param({}, {"argocd.argoproj.io/tracking-id": f"platform:/Pod:team-b/{WORKER}"}, id="argo-platform"),
    pytest.param({}, {"argocd.argoproj.io/tracking-id": f"team-a_apps:/Pod:team-b/{WORKER}"}, id="argo-any-ns"),
    pytest.param({}, {"argocd.argoproj.io/tracking-id": f"team-a:/Pod:team-a/{WORKER}"}, id="argo-copied-id"),
    pytest.param(
        {},
        {"argocd.argoproj.io/tracking-id": f"../../../api/v1/namespaces/team-a/pods/{WORKER}#:/Pod:team-b/{WORKER}"},
        id="path",
    ),
    pytest.param({}, {"argocd.argoproj.io/tracking-id": "team-a_platform%2F..:/Pod:team-b/" + WORKER}, id="escaped"),
]


@pytest.mark.parametrize(("labels", "annotations"), HOSTILE_OWNERS)
def test_b_naming_others_owners_writes_only_in_b(
    cluster: tuple[FakeServer, Path], labels: dict[str, Any], annotations: dict[str, Any]
) -> None:
    server, kubeconfig = cluster
    before, since = outside(server), len(server.state.requests)
    fail_b_worker(server, labels, annotations)
    started = time.monotonic()
    assert reconcile_b(server, kubeconfig) == {}
    assert time.monotonic() - started < 30
    assert outside(server) == before
    assert all("/namespaces/team-b/" in path for _, path in writes(server, since)), writes(server, since)
    assert ("v1", "pods", "team-b", WORKER) not in server.state.objects  # B's own restart still happened


STEERING_OWNERS = [
    *HOSTILE_OWNERS,
    pytest.param(
        {"kustomize.toolkit.fluxcd.io/name": "payments", "kustomize.toolkit.fluxcd.io/namespace": "team-a"},
        {},
        id="flux-in-a",
    ),
    pytest.param({}, {"argocd.argoproj.io/tracking-id": f"team-a_prod-db:/Pod:team-b/{WORKER}"}, id="argo-in-a"),
]


def requests_by_namespace(server: FakeServer, since: int) -> Counter[str]:
    """Every request since `since`, counted by the namespace in its path ("" for cluster-scoped ones)."""
    with server.state.lock:
        paths = [path for _, path in server.state.requests[since:]]
    return Counter(
        path.split("/namespaces/", 1)[1].split("/", 1)[0] if "/namespaces/" in path else "" for path in paths
    )


@pytest.mark.parametrize(("labels", "annotations"), STEERING_OWNERS)
def test_b_cannot_steer_any_request_into_another_namespace(
    cluster: tuple[FakeServer, Path], labels: dict[str, Any], annotations: dict[str, Any]
) -> None:
    """Reads included: every request of B's reconcile is in B's namespace, in the configured Argo CD and Flux
    namespaces, or cluster-scoped (discovery); team-a is never read."""
    server, kubeconfig = cluster
    fail_b_worker(server, labels, annotations)
    since = len(server.state.requests)
    assert reconcile_b(server, kubeconfig) == {}
    counted = requests_by_namespace(server, since)
    assert counted["team-b"] > 0
    assert set(counted) <= {"team-b", "argocd", "flux-system", ""}, counted


def test_a_verified_owner_is_nudged(cluster: tuple[FakeServer, Path]) -> None:
    """The platform's Application that really lists B's pod is asked to refresh; the one that does not is not."""
    server, kubeconfig = cluster
    app = {"metadata": {"name": "team-b"}, "status": {"resources": [listing("team-b")]}}
    server.state.create(ARGO, "applications", "argocd", app)
    fail_b_worker(server, {}, {"argocd.argoproj.io/tracking-id": f"team-b:/Pod:team-b/{WORKER}"})
    assert reconcile_b(server, kubeconfig) == {}
    nudged = server.state.objects[(ARGO, "applications", "argocd", "team-b")]
    assert nudged["metadata"]["annotations"]["argocd.argoproj.io/refresh"] == "normal"
    assert "annotations" not in server.state.objects[(ARGO, "applications", "argocd", "team-a")]["metadata"]


def test_b_config_map_cannot_move_a_recreated_pod(cluster: tuple[FakeServer, Path]) -> None:
    """B's ConfigMap records `namespace: team-a` for its rendering: the recreated pod is still created in B."""
    import json

    server, kubeconfig = cluster
    key = ("v1", "configmaps", "team-b", "mxnet-job-mxjob-config")
    config_map = server.state.objects[key]
    job = json.loads(config_map["data"]["job.json"])
    job.setdefault("render", {})["namespace"] = "team-a"
    data = {**config_map["data"], "job.json": json.dumps(job)}
    server.state.update(key, {**config_map, "data": data}, status_only=False, check_version=False)
    before, since = outside(server), len(server.state.requests)
    fail_b_worker(server, {}, {})
    reconcile_b(server, kubeconfig, "recreate")
    assert outside(server) == before
    assert all("/namespaces/team-b/" in path for _, path in writes(server, since))
    assert ("v1", "pods", "team-b", WORKER) in server.state.objects


def test_a_pod_of_another_controller_is_left_alone(cluster: tuple[FakeServer, Path]) -> None:
    """A pod labelled as the job's but controlled by a ReplicaSet is not the job's: never deleted or counted."""
    server, kubeconfig = cluster
    labels = dict(server.state.objects[("v1", "pods", "team-b", "mxnet-job-scheduler-0")]["metadata"]["labels"])
    labels.update({"training.kubeflow.org/replica-index": "7", "training.kubeflow.org/replica-type": "worker"})
    pod = {
        "metadata": {
            "name": "mxnet-job-worker-7",
            "labels": labels,
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "x", "uid": "u", "controller": True}
            ],
        },
        "spec": {"containers": [{"name": "mxnet", "image": "x"}]},
    }
    server.state.create("v1", "pods", "team-b", pod)
    set_pod(server, "mxnet-job-worker-7", "Failed", exit_code=137, namespace="team-b")
    reconcile_b(server, kubeconfig)
    assert ("v1", "pods", "team-b", "mxnet-job-worker-7") in server.state.objects


JUNK = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=300),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=20), inner, max_size=4),
    max_leaves=20,
)
STATUS_KEYS = st.sampled_from(["conditions", "podRestarts", "restartCounts", "startTime", "completionTime", "x"])
RECORD = st.fixed_dictionaries({}, optional={"count": JUNK, "uid": JUNK, "pending": JUNK, "type": JUNK, "keep": JUNK})
STATUS = st.dictionaries(STATUS_KEYS, JUNK, max_size=5) | st.fixed_dictionaries(
    {"podRestarts": st.dictionaries(st.sampled_from([WORKER, "x y", "Ω"]), RECORD | JUNK, max_size=3)},
    optional={"conditions": st.lists(st.dictionaries(st.text(max_size=9), JUNK, max_size=4) | JUNK, max_size=3)},
)
VALUE = st.text(max_size=80) | st.sampled_from(
    ["\u202e", "team-a_x:/Pod:team-b/" + WORKER, "::::", "_", "a_:/:/", "\x00", "a:_/" * 50_000, "Ω" * 200_000]
)


SPEC_PLACES = st.sampled_from(
    [("runPolicy",), ("runPolicy", "backoffLimit"), ("mxReplicaSpecs", "Worker", "replicas"), ("jobMode",), ()]
)
ORIGINAL_SPECS: dict[int, Any] = {}


def _with_junk(spec: Any, place: tuple[str, ...], junk: Any) -> Any:
    if not place:
        return junk
    return {**spec, place[0]: _with_junk(spec.get(place[0]) or {}, place[1:], junk)}


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    status=STATUS,
    tracking=VALUE,
    flux_name=VALUE,
    exit_codes=VALUE,
    spec_junk=st.none() | st.tuples(SPEC_PLACES, JUNK),
)
def test_hostile_values_never_crash_the_loop(
    cluster: tuple[FakeServer, Path],
    status: dict[str, Any],
    tracking: str,
    flux_name: str,
    exit_codes: str,
    spec_junk: tuple[tuple[str, ...], Any] | None,
) -> None:
    """Junk in the job's spec, status and annotations and in the pod's ownership annotation: the pass finishes, no
    internal error (an invalid job is reported as such), nothing written outside B (label values are limited by
    the API server; annotations are not)."""
    server, kubeconfig = cluster
    key = ("kubeflow.org/v1", "mxjobs", "team-b", "mxnet-job")
    job = server.state.objects[key]
    spec = ORIGINAL_SPECS.setdefault(id(server), job["spec"])
    if spec_junk is not None:
        spec = _with_junk(spec, *spec_junk)
    annotations = {"mxjob.kubeflow.org/exit-codes": exit_codes, "x": flux_name}
    server.state.update(
        key,
        {**job, "spec": spec, "metadata": {**job["metadata"], "annotations": annotations}, "status": status},
        status_only=False,
        check_version=False,
    )
    before, since = outside(server), len(server.state.requests)
    fail_b_worker(server, {}, {"argocd.argoproj.io/tracking-id": tracking})
    started = time.monotonic()
    problems = reconcile_b(server, kubeconfig, timeout=1)  # an invalid job is retried until its budget is spent
    assert time.monotonic() - started < 30
    assert not any("internal error" in p for p in problems.values()), problems
    assert outside(server) == before
    assert all("/namespaces/team-b/" in path for _, path in writes(server, since))
