"""No fault stops, stalls or loses a restart: 20 jobs, one poisoned, in `--once` and controller mode."""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from mxjob_gitops.reconciler.controller import Controller, _leading
from mxjob_gitops.reconciler.kube import Cluster
from mxjob_gitops.reconciler.runner import Reconciler, Settings
from tests.conftest import run_cli
from tests.fakeapi import HANG, RESET, FakeServer
from tests.kubelet import PLURALS, set_pod
from tests.test_controller import wait_for

JOBS = 20
SPEC = """apiVersion: kubeflow.org/v1
kind: MXJob
metadata: {{name: job-{i:02d}}}
spec:
  jobMode: MXTrain
  mxReplicaSpecs:
    Scheduler: {{replicas: 1, template: {{spec: {{containers: [{{name: mxnet, image: mxnet:1.9}}]}}}}}}
    Server: {{replicas: 1, template: {{spec: {{containers: [{{name: mxnet, image: mxnet:1.9}}]}}}}}}
    Worker:
      {{replicas: 2, restartPolicy: ExitCode, template: {{spec: {{containers: [{{name: mxnet, image: mxnet:1.9}}]}}}}}}
"""
POISONED = "job-07"
REQUEST_TIMEOUT = (2.0, 2.0)  # a request without an answer is given up after 2 s (the default is 10 s, 30 s)


@functools.cache
def _rendered() -> str:
    result = run_cli(["render", "-n", "ml", "-"], stdin="---\n".join(SPEC.format(i=i) for i in range(JOBS)))
    assert result.exit_code == 0, result.stderr
    return result.stdout


def deploy_fleet(server: FakeServer) -> dict[str, str]:
    """20 jobs, every pod Running, then worker-0 of each exits 137: every job needs one restart.
    Returns the uid of each failed pod."""
    for manifest in (m for m in yaml.safe_load_all(_rendered()) if m):
        code, body = server.state.create(
            manifest["apiVersion"], PLURALS[manifest["kind"]], "ml", copy.deepcopy(manifest)
        )
        assert code == 201, body
    failed = {}
    for _, plural, _, name in list(server.state.objects):
        if plural == "pods":
            set_pod(server, name, "Running")
    for i in range(JOBS):
        name = f"job-{i:02d}-worker-0"
        set_pod(server, name, "Failed", exit_code=137, finished_at="2020-01-01T00:00:00Z")
        failed[f"job-{i:02d}"] = server.state.objects[("v1", "pods", "ml", name)]["metadata"]["uid"]
    return failed


def converged(server: FakeServer, job: str, old_uid: str) -> bool:
    """The restart happened exactly once and is finished: counted, the pod back with a new uid."""
    obj = server.state.objects.get(("kubeflow.org/v1", "mxjobs", "ml", job)) or {}
    status = obj.get("status") or {}
    record = (status.get("podRestarts") or {}).get(f"{job}-worker-0") or {}
    pod = server.state.objects.get(("v1", "pods", "ml", f"{job}-worker-0"))
    return (
        status.get("restartCounts") == {"Worker": 1}
        and not record.get("pending")
        and pod is not None
        and pod["metadata"]["uid"] != old_uid
    )


@dataclass(frozen=True)
class Poison:
    """One way to poison job-07, and how the fault clears."""

    name: str
    apply: Callable[[FakeServer], None]
    clear: Callable[[FakeServer], None]


def _fault(method: str, path: str, status: int, body: str = "", retry_after: float | None = None) -> Poison:
    def apply(server: FakeServer) -> None:
        server.state.fail(method, path, status, times=1_000_000, body=body, retry_after=retry_after)

    answer = {RESET: "connection reset", HANG: "no answer"}.get(status, str(status))
    return Poison(f"{answer} on {method} {path or body}", apply, lambda server: server.state.faults.clear())


def _edit(key: tuple[str, str, str, str], change: Callable[[dict[str, Any]], None]) -> Callable[[FakeServer], None]:
    def edit(server: FakeServer) -> None:
        obj = copy.deepcopy(server.state.objects[key])
        change(obj)
        code, body = server.state.update(key, obj, status_only=False, check_version=False)
        assert code == 200, body

    return edit


CONFIG_MAP = ("v1", "configmaps", "ml", f"{POISONED}-mxjob-config")
JOB = ("kubeflow.org/v1", "mxjobs", "ml", POISONED)


def _set_render(value: Any) -> Callable[[dict[str, Any]], None]:
    def change(obj: dict[str, Any]) -> None:
        record = json.loads(obj["data"]["job.json"])
        record["render"] = value
        obj["data"]["job.json"] = json.dumps(record)

    return change


def _set_workers(count: int) -> Callable[[dict[str, Any]], None]:
    def change(obj: dict[str, Any]) -> None:
        obj["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] = count

    return change


STATUS = rf"/mxjobs/{POISONED}/status"
PODS = rf"/pods/{POISONED}-"
EVENT = rf'"name": "{POISONED}\.'
POISONS = [
    Poison("bad ConfigMap render", _edit(CONFIG_MAP, _set_render("oops")), _edit(CONFIG_MAP, _set_render({}))),
    Poison(
        "bad ConfigMap gang scheduler",
        _edit(CONFIG_MAP, _set_render({"gangScheduler": "slurm"})),
        _edit(CONFIG_MAP, _set_render({})),
    ),
    *[_fault("PUT", STATUS, code, retry_after=1 if code == 429 else None) for code in (500, 503, 429)],
    *[_fault("DELETE", PODS, code, retry_after=1 if code == 429 else None) for code in (500, 503, 429)],
    *[
        _fault(
            "POST",
            r"/namespaces/ml/pods\b",
            code,
            body=rf'"name": "{POISONED}-worker-0"',
            retry_after=1 if code == 429 else None,
        )
        for code in (500, 503, 429)
    ],
    *[_fault("POST", r"/events", code, body=EVENT, retry_after=1 if code == 429 else None) for code in (500, 503, 429)],
    *[
        _fault("GET", rf"/configmaps/{POISONED}-mxjob-config", code, retry_after=1 if code == 429 else None)
        for code in (500, 503, 429)
    ],
    # The rest of the transient answers, and requests that get no answer at all.
    _fault("PUT", STATUS, 502),
    _fault("DELETE", PODS, 504),
    *[
        _fault(method, path, RESET, body=body)
        for method, path, body in (
            ("PUT", STATUS, ""),
            ("DELETE", PODS, ""),
            ("GET", rf"/configmaps/{POISONED}-mxjob-config", ""),
            ("POST", r"/namespaces/ml/pods\b", rf'"name": "{POISONED}-worker-0"'),
        )
    ],
    _fault("DELETE", PODS, HANG),
    _fault("*", PODS, 403),
    Poison("a huge job", _edit(JOB, _set_workers(2_000_000)), _edit(JOB, _set_workers(2))),
]


@contextlib.contextmanager
def running(kubeconfig: Path, **options: Any) -> Iterator[Controller]:
    """A leading controller over namespace ml, stopped on the way out."""
    reconciler = Reconciler(
        Cluster.connect(str(kubeconfig), request_timeout=REQUEST_TIMEOUT), Settings(namespaces=("ml",))
    )
    controller = Controller(reconciler, **options)
    _leading(controller, True)
    controller.start()
    try:
        yield controller
    finally:
        controller.stop.set()


def others_converge(server: FakeServer, failed: dict[str, str]) -> bool:
    return all(converged(server, job, uid) for job, uid in failed.items() if job != POISONED)


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[tuple[FakeServer, Path, dict[str, str]]]:
    with FakeServer() as server:
        kubeconfig = server.kubeconfig(tmp_path / "kubeconfig", namespace="ml")
        yield server, kubeconfig, deploy_fleet(server)


@pytest.mark.parametrize("poison", POISONS, ids=[p.name for p in POISONS])
def test_once_the_other_19_converge_and_the_poisoned_one_after_the_fault(
    fleet: tuple[FakeServer, Path, dict[str, str]], poison: Poison
) -> None:
    server, kubeconfig, failed = fleet
    poison.apply(server)
    reconciler = Reconciler(
        Cluster.connect(str(kubeconfig), request_timeout=REQUEST_TIMEOUT), Settings(namespaces=("ml",))
    )
    # The poisoned job is retried with back-off until 4 s of its own are spent; the back-off is charged to it by
    # run_once but not slept through here (a pass timing out is what is shown, not the clock: the waiting was
    # about 3 s of each of these tests).
    problems = reconciler.run_once(timeout=4, sleep=lambda _: None)
    assert list(problems) == [("ml", POISONED)]
    # A fault is tried more than once within the pass: it was retried, not given up on its first answer.
    assert all(1_000_000 - fault.times >= 2 for fault in server.state.faults)
    assert [job for job, uid in failed.items() if not converged(server, job, uid)] == [POISONED]
    poison.clear(server)
    assert reconciler.run_once(timeout=5) == {}
    assert all(converged(server, job, uid) for job, uid in failed.items())


@pytest.mark.parametrize("poison", POISONS, ids=[p.name for p in POISONS])
def test_controller_the_other_19_converge_and_the_poisoned_one_after_the_fault(
    fleet: tuple[FakeServer, Path, dict[str, str]], poison: Poison
) -> None:
    server, kubeconfig, failed = fleet
    poison.apply(server)
    with running(kubeconfig, retry_cap=0.5) as controller:
        wait_for(lambda: others_converge(server, failed))
        assert not converged(server, POISONED, failed[POISONED])
        assert controller.health() == ""
        poison.clear(server)
        wait_for(lambda: converged(server, POISONED, failed[POISONED]))
        assert all(t.is_alive() for t in controller.threads)


def test_once_a_hanging_job_uses_up_no_other_jobs_time(fleet: tuple[FakeServer, Path, dict[str, str]]) -> None:
    # Every delete of job-07 hangs for the whole 9 s read timeout; the other jobs' restarts (delete, poll until
    # gone, create) are interleaved with it and still finish within an 8 s budget each. The budget is
    # generous for a healthy job's own requests even on a loaded machine; what it must not include is
    # job-07's hang, which alone is longer than the budget (a pass timed as a whole would fail them all).
    server, kubeconfig, failed = fleet
    server.state.fail("DELETE", PODS, HANG, times=1_000_000)
    reconciler = Reconciler(Cluster.connect(str(kubeconfig), request_timeout=(9.0, 9.0)), Settings(namespaces=("ml",)))
    assert list(reconciler.run_once(timeout=8)) == [("ml", POISONED)]
    assert [job for job, uid in failed.items() if not converged(server, job, uid)] == [POISONED]
    server.state.faults.clear()


def test_once_exit_codes(fleet: tuple[FakeServer, Path, dict[str, str]]) -> None:
    server, kubeconfig, _ = fleet
    server.state.fail("PUT", STATUS, 500, times=1_000_000)
    # 4 s of its own time per job, as in the tests above: ample for a healthy job on a loaded machine (its own
    # requests, not the other jobs'); the poisoned one spends it on back-offs between its failing status writes.
    args = ["reconcile", "--once", "--kubeconfig", str(kubeconfig), "--no-leader-election", "--pass-timeout", "4"]
    result = run_cli(args)
    assert result.exit_code == 1, result.stderr
    assert f"ml/{POISONED}" in result.stderr and "1 job(s) could not be reconciled" in result.stderr
    server.state.faults.clear()
    assert run_cli(args).exit_code == 0
    assert run_cli([*args, "--exit-codes", "x=y"]).exit_code == 2


def test_a_bug_in_one_job_never_kills_a_worker(
    fleet: tuple[FakeServer, Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    import mxjob_gitops.reconciler.runner as runner
    from mxjob_gitops.reconciler.decide import decide as real

    server, kubeconfig, failed = fleet

    def buggy(job: Any, *args: Any, **kwargs: Any) -> Any:
        if job.name == POISONED:
            raise KeyError("a bug")
        return real(job, *args, **kwargs)

    monkeypatch.setattr(runner, "decide", buggy)
    with running(kubeconfig, workers=1, retry_cap=0.2) as controller:
        errors = controller.reconciler.metrics.reconcile_errors.labels("ml", "internal")
        wait_for(lambda: others_converge(server, failed))
        wait_for(lambda: errors._value.get() >= 2)
        assert all(t.is_alive() for t in controller.threads) and controller.health() == ""
        monkeypatch.setattr(runner, "decide", real)
        wait_for(lambda: converged(server, POISONED, failed[POISONED]))


def test_retry_after_does_not_slow_other_jobs(fleet: tuple[FakeServer, Path, dict[str, str]]) -> None:
    server, kubeconfig, failed = fleet
    server.state.fail("PUT", STATUS, 429, times=1, retry_after=30)
    with running(kubeconfig) as controller:
        # Every other job converges long before the poisoned job's 30 s Retry-After is over.
        wait_for(lambda: others_converge(server, failed), timeout=20)
        assert not converged(server, POISONED, failed[POISONED])
        assert 15 < (controller.queue.due_in(("ml", POISONED)) or 0) <= 30


def test_healthz_fails_on_a_dead_worker_and_a_stalled_watch(fleet: tuple[FakeServer, Path, dict[str, str]]) -> None:
    server, kubeconfig, failed = fleet
    with running(kubeconfig, watch_timeout=1, watch_grace=1) as controller:
        controller.stale_window, controller.silence_window = 3, 6
        wait_for(lambda: all(converged(server, job, uid) for job, uid in failed.items()))
        assert controller.health() == "" and controller.readiness() == ""
        # The watch is held open and silent; lists fail too: the informers cannot see anything.
        server.state.stall_watches()
        server.state.fail("GET", r"/pods\?", 500, times=1_000_000)
        wait_for(lambda: "cache not refreshed" in controller.readiness(), timeout=30)  # not ready first,
        wait_for(lambda: "watch silent" in controller.health(), timeout=30)  # then not healthy
        server.state.faults.clear()
        server.state.unstall_watches()
        wait_for(lambda: controller.health() == "" and controller.readiness() == "", timeout=30)
        dead = threading.Thread(target=lambda: None, name="worker-x")
        dead.start()
        dead.join()
        controller.threads.append(dead)
        assert "threads not running: worker-x" in controller.health()


def test_a_stalled_watch_is_listed_again_and_the_restart_happens(
    fleet: tuple[FakeServer, Path, dict[str, str]],
) -> None:
    server, kubeconfig, failed = fleet
    with running(kubeconfig, watch_timeout=1, watch_grace=1):
        wait_for(lambda: all(converged(server, job, uid) for job, uid in failed.items()))
        server.state.stall_watches()  # every watch from now on is held open and silent
        old = server.state.objects[("v1", "pods", "ml", "job-03-worker-1")]["metadata"]["uid"]
        set_pod(server, "job-03-worker-1", "Failed", exit_code=137)
        # Only the re-list after the client's read timeout (1 s + 1 s) can see the failure.
        wait_for(
            lambda: (
                (server.state.objects.get(("v1", "pods", "ml", "job-03-worker-1")) or {}).get("metadata", {}).get("uid")
                not in (None, old)
            ),
            timeout=30,
        )
