"""The JobSet engine's env and hostnames form real clusters: train (dist_sync), BytePS and MXTune.

A JobSet rendering is turned into the pods the JobSet and Job controllers would create (kubernetes-sigs/jobset
`constructJob`: Job `<jobset>-<rjob>-0`, pod subdomain = spec.network.subdomain; kubernetes job_controller.go
`manageJob`: hostname `<job>-<index>`, annotation batch.kubernetes.io/job-completion-index), each pod in a network
namespace named by its hostname. The headless Service of the subdomain gives every pod the DNS name
`<hostname>.<subdomain>` (and its `.<namespace>.svc…` forms): here one hosts entry per pod, as the other tests
do for the pods engine's Services. The downward-API variables read the index annotation, as the kubelet would.
"""

from __future__ import annotations

import copy
import itertools
from pathlib import Path
from typing import Any

from tests.conftest import EXAMPLES
from tests.e2e.check import JOB_TIMEOUT, RunCluster, result_of, results
from tests.e2e.jobs import load, render, with_command
from tests.e2e.test_tune import TUNE_TIMEOUT

Manifest = dict[str, Any]
INDEX = "batch.kubernetes.io/job-completion-index"
COORDINATOR = "jobset.sigs.k8s.io/coordinator"
TRAIN = ["python", "kvstore_check.py"]


def jobset_pods(jobset: Manifest) -> list[Manifest]:
    """The pods of a JobSet (and one Service-shaped DNS entry per pod for the e2e network)."""
    name = jobset["metadata"]["name"]
    namespace = jobset["metadata"].get("namespace", "default")
    subdomain = jobset["spec"]["network"]["subdomain"]
    manifests: list[Manifest] = []
    for rjob in jobset["spec"]["replicatedJobs"]:
        job_spec = rjob["template"]["spec"]
        for index in range(job_spec["completions"]):
            template = copy.deepcopy(job_spec["template"])
            host = f"{name}-{rjob['name']}-0-{index}"
            labels = {**template["metadata"].get("labels", {}), INDEX: str(index)}
            shown = {INDEX: str(index), **_coordinator(jobset)}
            for container in template["spec"]["containers"]:
                container["env"] = [_downward(e, shown) for e in container.get("env", [])]
            spec = {**template["spec"], "hostname": host, "subdomain": subdomain}
            meta = {"name": host, "namespace": namespace, "labels": labels, "annotations": {INDEX: str(index)}}
            manifests.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})
            selector = {"training.kubeflow.org/replica-type": rjob["name"], INDEX: str(index)}
            service = {"name": f"{host}.{subdomain}", "namespace": namespace}
            manifests.append(
                {"apiVersion": "v1", "kind": "Service", "metadata": service, "spec": {"selector": selector}}
            )
    return manifests


def _coordinator(jobset: Manifest) -> dict[str, str]:
    """The annotation the JobSet controller writes on every pod for spec.coordinator (kubernetes-sigs/jobset
    pkg/controllers/jobset_controller.go `CoordinatorEndpoint`)."""
    spec = jobset["spec"]
    co = spec.get("coordinator")
    if co is None:
        return {}
    name, subdomain = jobset["metadata"]["name"], spec["network"]["subdomain"]
    return {COORDINATOR: f"{name}-{co['replicatedJob']}-{co['jobIndex']}-{co['podIndex']}.{subdomain}"}


def _downward(entry: Manifest, shown: dict[str, str]) -> Manifest:
    """A downward-API variable of an annotation, resolved as the kubelet would."""
    if "valueFrom" not in entry:
        return entry
    path = entry["valueFrom"]["fieldRef"]["fieldPath"]
    key = path.removeprefix("metadata.annotations['").removesuffix("']")
    assert key in shown, entry
    return {"name": entry["name"], "value": shown[key]}


def _render(job: Manifest, workdir: Path) -> tuple[Manifest, list[Manifest]]:
    (jobset,) = render(job, workdir, "--engine", "jobset")
    return jobset, jobset_pods(jobset)


def _start_in_order(cluster: Any, jobset: Manifest) -> None:
    """dependsOn starts each replicatedJob after the one it names (the one before it); our pods start in that
    order."""
    rjobs = jobset["spec"]["replicatedJobs"]
    assert all(r["dependsOn"] == [{"name": p["name"], "status": "Ready"}] for p, r in itertools.pairwise(rjobs))
    order = [r["name"] for r in rjobs]
    for role in order:
        for name, plan in cluster.plans.items():
            if plan.replica_type == role:
                cluster.start(name)


def test_train_forms_a_dist_sync_cluster(run_cluster: RunCluster, workdir: Path) -> None:
    job = with_command(load(EXAMPLES / "byteps" / "byteps_job.yaml"), TRAIN)  # 1 scheduler, 2 servers, 2 workers
    jobset, manifests = _render(job, workdir)
    subdomain = jobset["spec"]["network"]["subdomain"]
    with run_cluster(manifests) as cluster:
        _start_in_order(cluster, jobset)
        codes = cluster.wait(list(cluster.plans), JOB_TIMEOUT)
        assert set(codes.values()) == {0}, f"exit codes {codes}\n{cluster.report()}"
        workers = [n for n, p in cluster.plans.items() if p.replica_type == "worker"]
        found = results(cluster, workers)
    for name, result in found.items():
        index = int(name.rsplit("-", 1)[1])
        assert result["ok"], f"{name}: inexact aggregate {result['rounds']}"
        assert result["hostname"] == name and result["own_url"] == f"{name}.{subdomain}"
        assert result["task"] == {"type": "worker", "index": index}
        assert result["worker_id"] == str(index) and result["num_workers"] == len(found)
    assert sorted(r["rank"] for r in found.values()) == list(range(len(found)))
    assert {r["kvstore"] for r in found.values()} == {"dist_sync"}


def test_every_byteps_pod_env_satisfies_the_launcher(run_cluster: RunCluster, workdir: Path) -> None:
    source = load(EXAMPLES / "byteps" / "byteps_job.yaml")
    worker_args = source["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["args"]
    jobset, manifests = _render(with_command(source, ["python", "bpslaunch_check.py"], Worker=worker_args), workdir)
    with run_cluster(manifests) as cluster:
        _start_in_order(cluster, jobset)
        codes = cluster.wait(list(cluster.plans), JOB_TIMEOUT)
        found = results(cluster, list(cluster.plans))
        scheduler_ip = next(cluster.net.pods[n].ip for n, p in cluster.plans.items() if p.replica_type == "scheduler")
    assert set(codes.values()) == {0}, found
    assert {r["root_ip"] for r in found.values()} == {scheduler_ip}
    workers = {n: r for n, r in found.items() if r["role"] == "worker"}
    assert sorted(r["worker_id"] for r in workers.values()) == ["0", "1"]


def test_tuner_reaches_the_keyed_server_through_the_tracker(run_tvm_cluster: RunCluster, workdir: Path) -> None:
    job = with_command(load(EXAMPLES / "tune" / "mx_job_tune_gpu.yaml"), ["python3", "tune_start.py"])
    _, manifests = _render(job, workdir)
    with run_tvm_cluster(manifests) as cluster:
        for name in cluster.plans:
            cluster.start(name)
        names = {p.replica_type: n for n, p in cluster.plans.items()}
        codes = cluster.wait([names["tuner"]], TUNE_TIMEOUT)
        assert codes == {names["tuner"]: 0}, cluster.report()
        result = result_of(cluster, names["tuner"])
        server_ip = cluster.net.pods[names["tunerserver"]].ip
    assert result["key"] == "2080ti"
    assert result["tracker"] == "auto-tuning-job-tunertracker-0-0.auto-tuning-job:9091"
    assert [(s["key"], s["addr"][0]) for s in result["servers"]] == [("server:2080ti", server_ip)]
