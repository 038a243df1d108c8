"""`mxjob reconcile` pointed at the fake API with a kubeconfig: the issue's scenarios, end to end."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLES, run_cli
from tests.fakeapi import FakeServer
from tests.kubelet import condition_types, deploy, job_status, set_pod, state_history

SEED = (EXAMPLES / "train" / "mx_job_dist_gpu.yaml").read_text(encoding="utf-8")
EXITCODE_JOB = SEED.replace(
    """    Worker:
      replicas: 1
      restartPolicy: Never""",
    """    Worker:
      replicas: 1
      restartPolicy: ExitCode""",
)
PODS = ("mxnet-job-scheduler-0", "mxnet-job-server-0", "mxnet-job-worker-0")


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[FakeServer, Path]]:
    with FakeServer() as server:
        yield server, server.kubeconfig(tmp_path / "kubeconfig", namespace="ml")


def once(kubeconfig: Path, *flags: str) -> str:
    result = run_cli(["reconcile", "--once", "--kubeconfig", str(kubeconfig), "--no-leader-election", *flags])
    assert result.exit_code == 0, result.stderr
    return result.stderr


def all_running(server: FakeServer) -> None:
    for name in PODS:
        set_pod(server, name, "Running")


def test_retryable_exit_restarts_the_worker(api: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = api
    deploy(server, EXITCODE_JOB)
    all_running(server)
    once(kubeconfig)
    assert condition_types(server) == [("Created", "True"), ("Running", "True")]
    old_uid = server.state.objects[("v1", "pods", "ml", "mxnet-job-worker-0")]["metadata"]["uid"]
    set_pod(server, "mxnet-job-worker-0", "Failed", exit_code=137)
    once(kubeconfig)  # one pass: deleted, gone, created again from the rendering of the live MXJob
    assert state_history(server)[-2:] == ["Restarting", "Running"]
    assert job_status(server)["restartCounts"] == {"Worker": 1}
    assert "pending" not in job_status(server)["podRestarts"]["mxnet-job-worker-0"]
    recreated = server.state.objects[("v1", "pods", "ml", "mxnet-job-worker-0")]
    assert recreated["metadata"]["uid"] != old_uid
    rendered = next(m for m in deploy_preview() if m["kind"] == "Pod" and m["metadata"]["name"] == "mxnet-job-worker-0")
    assert recreated["spec"] == rendered["spec"]
    assert recreated["metadata"]["labels"] == rendered["metadata"]["labels"]
    set_pod(server, "mxnet-job-worker-0", "Running")
    once(kubeconfig)
    assert condition_types(server)[-1] == ("Running", "True")
    assert ("Restarting", "True") not in condition_types(server)
    assert job_status(server)["restartCounts"] == {"Worker": 1}
    reasons = [e["reason"] for (g, p, _, _), e in server.state.objects.items() if p == "events"]
    assert "ExitedWithCode" in reasons and "MXJobRestarting" in reasons


def deploy_preview() -> list[dict[str, Any]]:
    import yaml

    return [m for m in yaml.safe_load_all(run_cli(["render", "-n", "ml", "-"], stdin=EXITCODE_JOB).stdout) if m]


def test_permanent_exit_fails_the_job(api: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = api
    deploy(server, EXITCODE_JOB)
    all_running(server)
    set_pod(server, "mxnet-job-worker-0", "Failed", exit_code=1)
    once(kubeconfig)
    status = job_status(server)
    assert status["conditions"][-1]["type"] == "Failed"
    assert status["conditions"][-1]["reason"] == "MXJobFailed"
    assert status["conditions"][-1]["message"] == "mxjob mxnet-job is failed because 1 Worker replica(s) failed."
    assert "completionTime" in status


def test_scheduler_success_completes_the_job(api: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = api
    deploy(server, SEED)
    all_running(server)
    once(kubeconfig)
    set_pod(server, "mxnet-job-scheduler-0", "Succeeded", exit_code=0)
    once(kubeconfig)
    status = job_status(server)
    assert condition_types(server)[-1] == ("Succeeded", "True")
    assert status["conditions"][-1]["message"] == "MXJob mxnet-job is successfully completed."
    assert status["completionTime"]


def test_dry_run_prints_the_plan_and_changes_nothing(api: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = api
    deploy(server, EXITCODE_JOB)
    all_running(server)
    set_pod(server, "mxnet-job-worker-0", "Failed", exit_code=137)
    before = {k: v["metadata"]["resourceVersion"] for k, v in server.state.objects.items()}
    log = once(kubeconfig, "--dry-run")
    lines = log.splitlines()
    assert "info [ml/mxnet-job] mxjob ml/mxnet-job status updated (dry run): conditions Created, Restarting" in log
    assert "info [ml/mxnet-job] pod ml/mxnet-job-worker-0 deleted (dry run): restart" in log
    assert "created (dry run): Pod: ml/mxnet-job-worker-0 exited with code 137 (retryable)" in log
    assert all(re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ (info|warning|error|debug) ", line) for line in lines), log
    assert "['" not in log and "ml.mxnet-job" not in log
    after = {k: v["metadata"]["resourceVersion"] for k, v in server.state.objects.items()}
    assert after == before
    writes = [r for r in server.state.requests if r[0] in ("POST", "PUT", "PATCH", "DELETE")]
    assert writes == []


def test_gitops_mode_only_deletes(api: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = api
    deploy(server, EXITCODE_JOB)
    all_running(server)
    set_pod(server, "mxnet-job-worker-0", "Failed", exit_code=143)
    once(kubeconfig, "--restart-mode", "gitops")
    once(kubeconfig, "--restart-mode", "gitops")
    assert ("v1", "pods", "ml", "mxnet-job-worker-0") not in server.state.objects
    assert job_status(server)["podRestarts"]["mxnet-job-worker-0"]["pending"] is True


def test_unreachable_api_is_a_clear_error(tmp_path: Path) -> None:
    with FakeServer() as server:
        kubeconfig = server.kubeconfig(tmp_path / "kubeconfig")
    result = run_cli(["reconcile", "--once", "--kubeconfig", str(kubeconfig), "--no-leader-election"])
    assert result.exit_code == 2 and "Traceback" not in result.stderr


TUNE = (EXAMPLES / "tune" / "mx_job_tune_gpu.yaml").read_text(encoding="utf-8")
SINGLE = (EXAMPLES / "single" / "mx_job_single_worker.yaml").read_text(encoding="utf-8")


def test_mxtune_succeeds_with_its_tuner(api: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = api
    deploy(server, TUNE)
    for name in ("auto-tuning-job-tunertracker-0", "auto-tuning-job-tunerserver-0", "auto-tuning-job-tuner-0"):
        set_pod(server, name, "Running")
    once(kubeconfig)
    set_pod(server, "auto-tuning-job-tuner-0", "Succeeded", exit_code=0)
    once(kubeconfig)
    assert condition_types(server, "auto-tuning-job")[-1] == ("Succeeded", "True")


def test_single_worker_on_failure_restarts_then_succeeds(api: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = api
    deploy(server, SINGLE.replace("namespace: training", "namespace: ml"))
    set_pod(server, "mnist-single-worker-0", "Failed", exit_code=1)
    once(kubeconfig)
    once(kubeconfig)
    assert ("v1", "pods", "ml", "mnist-single-worker-0") in server.state.objects
    set_pod(server, "mnist-single-worker-0", "Succeeded", exit_code=0)
    once(kubeconfig)
    assert condition_types(server, "mnist-single")[-1] == ("Succeeded", "True")
    assert job_status(server, "mnist-single")["restartCounts"] == {"Worker": 1}


def test_backoff_limit_fails_the_job(api: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = api
    deploy(server, EXITCODE_JOB.replace("    cleanPodPolicy: None", "    cleanPodPolicy: None\n    backoffLimit: 0"))
    all_running(server)
    set_pod(server, "mxnet-job-worker-0", "Failed", exit_code=137)
    once(kubeconfig)
    status = job_status(server)
    assert (
        status["conditions"][-1]["message"]
        == "Job mxnet-job has failed because it has reached the specified backoff limit"
    )
    assert [k for k in server.state.objects if k[1] == "pods"] == []


def test_suspend_deletes_pods_and_clean_pod_policy_all(api: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = api
    deploy(server, SEED.replace("cleanPodPolicy: None", "cleanPodPolicy: All"))
    all_running(server)
    once(kubeconfig)
    set_pod(server, "mxnet-job-scheduler-0", "Succeeded", exit_code=0)
    once(kubeconfig)
    once(kubeconfig)  # finished: cleanPodPolicy All deletes every pod
    assert [k for k in server.state.objects if k[1] == "pods"] == []
    assert condition_types(server)[-1] == ("Succeeded", "True")


def test_suspend_through_the_api(api: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = api
    deploy(server, SEED)
    all_running(server)
    once(kubeconfig)
    key = ("kubeflow.org/v1", "mxjobs", "ml", "mxnet-job")
    job = server.state.objects[key]
    job["spec"]["runPolicy"]["suspend"] = True
    server.state.update(key, job, status_only=False, check_version=False)
    once(kubeconfig)
    assert condition_types(server)[-1] == ("Suspended", "True")
    assert [k for k in server.state.objects if k[1] == "pods"] == []


def test_active_deadline_through_the_api(api: tuple[FakeServer, Path]) -> None:
    server, kubeconfig = api
    deploy(server, SEED.replace("    cleanPodPolicy: None", "    cleanPodPolicy: None\n    activeDeadlineSeconds: 600"))
    all_running(server)
    once(kubeconfig)
    key = ("kubeflow.org/v1", "mxjobs", "ml", "mxnet-job")
    job = server.state.objects[key]
    server.state.update(
        key,
        {**job, "status": {**job["status"], "startTime": "2026-01-01T00:00:00Z"}},
        status_only=True,
        check_version=False,
    )
    once(kubeconfig)
    assert (
        job_status(server)["conditions"][-1]["message"]
        == "Job mxnet-job has failed because it was active longer than specified deadline"
    )
    assert [k for k in server.state.objects if k[1] == "pods"] == []


def test_gitops_mode_nudges_flux_and_argo_cd(tmp_path: Path) -> None:
    from tests.fakeapi import DEFAULT_RESOURCES, Resource

    resources = (
        *DEFAULT_RESOURCES,
        Resource("kustomize.toolkit.fluxcd.io", "v1", "Kustomization", "kustomizations"),
        Resource("argoproj.io", "v1alpha1", "Application", "applications"),
    )
    with FakeServer(resources) as server:
        kubeconfig = server.kubeconfig(tmp_path / "kubeconfig", namespace="ml")
        server.state.create(
            "kustomize.toolkit.fluxcd.io/v1",
            "kustomizations",
            "flux-system",
            {
                "metadata": {"name": "jobs"},
                "spec": {},
                "status": {"inventory": {"entries": [{"id": "ml_mxnet-job-worker-0__Pod", "v": "v1"}]}},
            },
        )
        listed = {"group": "", "version": "v1", "kind": "Pod", "namespace": "ml", "name": "mxnet-job-worker-0"}
        server.state.create(
            "argoproj.io/v1alpha1",
            "applications",
            "argocd",
            {"metadata": {"name": "train"}, "status": {"resources": [listed]}},
        )
        deploy(server, EXITCODE_JOB)
        all_running(server)
        key = ("v1", "pods", "ml", "mxnet-job-worker-0")
        pod = server.state.objects[key]
        pod["metadata"]["labels"].update(
            {"kustomize.toolkit.fluxcd.io/name": "jobs", "kustomize.toolkit.fluxcd.io/namespace": "flux-system"}
        )
        pod["metadata"]["annotations"] = {"argocd.argoproj.io/tracking-id": "train:/Pod:ml/mxnet-job-worker-0"}
        server.state.update(key, pod, status_only=False, check_version=False)
        set_pod(server, "mxnet-job-worker-0", "Failed", exit_code=137)
        once(kubeconfig, "--restart-mode", "gitops")
        flux = server.state.objects[("kustomize.toolkit.fluxcd.io/v1", "kustomizations", "flux-system", "jobs")]
        argo = server.state.objects[("argoproj.io/v1alpha1", "applications", "argocd", "train")]
        assert "reconcile.fluxcd.io/requestedAt" in flux["metadata"]["annotations"]
        assert argo["metadata"]["annotations"]["argocd.argoproj.io/refresh"] == "normal"
        assert ("v1", "pods", "ml", "mxnet-job-worker-0") not in server.state.objects
