"""Reconciler benchmark: 1,000 jobs x 10 pods in the fake API, `mxjob reconcile` in its own process.

Usage: python bench/reconcile_bench.py [--jobs N]   (or `make bench`)

Prints, from one run: the initial sync (start until every job's status says Running), the event rate
(pod updates the reconciler consumed per second) next to the rate at which the bare client merely reads the
same watch stream, the p99 time from a pod's exit to the reconciler deleting it, the reconciler's peak
RSS, and the time to recreate one pod of a 10,000-worker job (decide() over its 10,001 pods plus the pod's
manifest from the job's rendering, which is built once per spec version). Targets: >= 1,000 events/s,
p99 <= 200 ms, RSS <= 250 MB, recreate <= 20 ms.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from harness import metric, process_mib  # noqa: E402

from mxjob_gitops.reconciler.kube import Cluster  # noqa: E402
from mxjob_gitops.reconciler.vocabulary import PodPhase  # noqa: E402
from tests.fakeapi import FakeServer, free_port  # noqa: E402
from tests.kubelet import PLURALS  # noqa: E402
from tests.processes import reconciler_command  # noqa: E402

SPEC = """apiVersion: kubeflow.org/v1
kind: MXJob
metadata: {{name: job-{i:04d}, namespace: bench}}
spec:
  jobMode: MXTrain
  mxReplicaSpecs:
    Scheduler: {{replicas: 1, template: {{spec: {{containers: [{{name: mxnet, image: mxnet:1.9}}]}}}}}}
    Server:
      {{replicas: 3, restartPolicy: ExitCode, template: {{spec: {{containers: [{{name: mxnet, image: mxnet:1.9}}]}}}}}}
    Worker:
      {{replicas: 6, restartPolicy: ExitCode, template: {{spec: {{containers: [{{name: mxnet, image: mxnet:1.9}}]}}}}}}
"""


def pod_status(phase: str, code: int | None = None) -> dict[str, object]:
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    state = (
        {"terminated": {"exitCode": code, "reason": "Error", "finishedAt": now}}
        if code is not None
        else {"running": {"startedAt": now}}
    )
    return {"phase": phase, "containerStatuses": [{"name": "mxnet", "restartCount": 0, "state": state}]}


def populate(server: FakeServer, jobs: int) -> None:
    from mxjob_gitops.compiler import RenderOptions, compile_documents, parse_text

    text = "---\n".join(SPEC.format(i=i) for i in range(jobs))
    parsed = parse_text(text, "bench")
    for manifest in compile_documents(parsed.documents, RenderOptions()).manifests():
        if manifest["kind"] == "Pod":
            manifest = {**manifest, "status": pod_status("Running")}
        server.state.create(manifest["apiVersion"], PLURALS[manifest["kind"]], "bench", manifest)


def running_jobs(server: FakeServer) -> int:
    return sum(
        1
        for o in server.state.of_kind("kubeflow.org/v1", "mxjobs")
        if any(c.get("type") == "Running" for c in (o.get("status") or {}).get("conditions") or [])
    )


def reconciles(port: int) -> float:
    """How many reconciles the process has done, from its own /metrics."""
    return metric(port, "mxjob_reconcile_duration_seconds_count")


def settle(port: int) -> float:
    """Wait until the reconciler has worked through its queue; returns when the work stopped."""
    last, stamp = reconciles(port), time.perf_counter()
    while time.perf_counter() - stamp < 0.5:
        time.sleep(0.05)
        now = reconciles(port)
        if now != last:
            last, stamp = now, time.perf_counter()
    return stamp


def bare_read_rate(kubeconfig: Path, since: str, expected: int) -> float:
    """Events per second the official client alone reads from the same watch stream."""
    cluster = Cluster.connect(str(kubeconfig))
    start = time.perf_counter()
    seen = 0
    for _ in cluster.watch("v1", "Pod", "bench", "", since, 30):
        seen += 1
        if seen >= expected:
            break
    return seen / (time.perf_counter() - start)


def recreate_timing(workers: int = 10_000) -> tuple[float, float]:
    """Seconds: the job's rendering built once (first recreation after a spec change), then the median of one
    recreation each of worker-0 and worker-<last> with the rendering cached: decide() over every pod of the
    job, which returns CreatePod with the finished manifest."""
    from datetime import UTC, datetime
    from statistics import median

    from mxjob_gitops.reconciler.decide import decide
    from mxjob_gitops.reconciler.jobs import Bounds, JobCache
    from mxjob_gitops.reconciler.plan import CreatePod
    from mxjob_gitops.reconciler.state import PodView

    container = {"name": "mxnet", "image": "mxnet:1.9"}
    job = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "MXJob",
        "metadata": {"name": "big", "namespace": "bench", "uid": "u-big"},
        "spec": {
            "jobMode": "MXTrain",
            "mxReplicaSpecs": {
                "Scheduler": {"replicas": 1, "template": {"spec": {"containers": [container]}}},
                "Server": {"replicas": 1, "template": {"spec": {"containers": [container]}}},
                "Worker": {
                    "replicas": workers,
                    "restartPolicy": "ExitCode",
                    "template": {"spec": {"containers": [container]}},
                },
            },
        },
    }
    cache = JobCache(Bounds(workers + 2, workers))  # above the default --max-pods on purpose
    view = cache.view(job)
    everyone = [
        PodView(f"big-{t.lower()}-{i}", f"uid-{t}-{i}", t, i, PodPhase.RUNNING)
        for t, spec in view.replicas.items()
        for i in range(spec.replicas)
    ]
    now = datetime.now(UTC)
    started = time.perf_counter()
    cache.rendering(job, None).pod("big-worker-0")
    first = time.perf_counter() - started
    samples = []
    for name in ["big-worker-0", f"big-worker-{workers - 1}"] * 10:
        status = {"podRestarts": {name: {"type": "Worker", "count": 1, "uid": "old", "pending": True}}}
        pods = [p for p in everyone if p.name != name]
        began = time.perf_counter()
        plan = decide(view, pods, now, status, rendering=cache.rendering(job, None))
        samples.append(time.perf_counter() - began)
        assert [a.name for a in plan.actions if isinstance(a, CreatePod)] == [name]
    return first, median(samples)


@dataclass
class CpuClock:
    """CPU seconds (user + system) of the reconciler process and of this process's fake API threads.

    The fake API runs in this process; its CPU is this process's CPU minus the main thread's (which
    drives the benchmark: pod status writes go straight into the fake's state, not over HTTP)."""

    pid: int
    reconciler: float = 0.0
    api: float = 0.0
    driver: float = 0.0

    def read(self) -> tuple[float, float, float]:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        reconciler = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        own = os.times()
        driver = time.thread_time()
        return reconciler, own.user + own.system - driver, driver

    def start(self) -> None:
        self.reconciler, self.api, self.driver = self.read()

    def phase(self) -> str:
        """Since start(): 'reconciler X s, fake API Y s (share Z%), driver W s'; then starts again."""
        now = self.read()
        reconciler, api, driver = now[0] - self.reconciler, now[1] - self.api, now[2] - self.driver
        api = max(api, 0.0)  # process time minus the driver thread's: clock granularity can make it a hair negative
        self.reconciler, self.api, self.driver = now
        share = api / (api + reconciler) if api + reconciler else 0.0
        return f"cpu: reconciler {reconciler:.2f} s, fake API {api:.2f} s ({share:.0%} of both), driver {driver:.2f} s"


def reconcile_process(kubeconfig: Path, port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        reconciler_command(kubeconfig, "bench", port, "--no-leader-election", "--log-format", "json"),
        cwd=REPO,
        stderr=subprocess.DEVNULL,
        env={**os.environ},
    )


def wait_synced(server: FakeServer, jobs: int, start: float) -> float:
    while running_jobs(server) < jobs:
        if time.perf_counter() - start > 1200:
            raise SystemExit("initial sync did not finish in 20 minutes")
        time.sleep(0.1)
    return time.perf_counter() - start


def event_rate(server: FakeServer, port: int) -> tuple[float, list[tuple[str, str, str, str]]]:
    """One status update per pod of every job (10 per job), as fast as the API takes them."""
    pods = [k for k in server.state.objects if k[1] == "pods"]
    status = {**pod_status("Running"), "podIP": "10.0.0.1"}
    began = time.perf_counter()
    for key in pods:
        server.state.update(key, {"status": status}, status_only=True, check_version=False, copy_answer=False)
    return len(pods) / (settle(port) - began), pods


def exit_latencies(server: FakeServer, jobs: int) -> list[float]:
    """200 worker exits, one at a time; the time until the reconciler deletes the pod."""
    latencies = []
    for i in range(min(200, jobs)):
        key = ("v1", "pods", "bench", f"job-{i:04d}-worker-0")
        pod = server.state.objects[key]
        exited = time.monotonic()
        server.state.update(key, {**pod, "status": pod_status("Failed", 137)}, status_only=True, check_version=False)
        path = f"/api/v1/namespaces/bench/pods/job-{i:04d}-worker-0"
        while not any(m == "DELETE" and p == path for t, m, p in server.state.request_times[-50:]):
            time.sleep(0.001)
        deleted = next(t for t, m, p in reversed(server.state.request_times) if m == "DELETE" and p == path)
        latencies.append(deleted - exited)
    return sorted(latencies)


@dataclass(frozen=True)
class Burst:
    lags: list[float]  # seconds from each exit to the job's status recording it, sorted
    conflicts: float  # status writes answered 409 during the burst
    requests_per_job: float

    def percentile(self, share: float) -> float:
        return self.lags[min(len(self.lags) - 1, int(len(self.lags) * share))]


def burst(server: FakeServer, port: int, jobs: int, size: int = 200) -> Burst:
    """`size` workers of different jobs exit 137 at once; the time until each job's status records the restart."""
    conflicts_before, requests_before = metric(port, "mxjob_status_conflicts_total"), len(server.state.requests)
    names = [f"job-{i:04d}" for i in range(min(size, jobs))]
    exited = {}
    for name in names:
        key = ("v1", "pods", "bench", f"{name}-worker-1")
        server.state.update(key, {"status": pod_status("Failed", 137)}, status_only=True, check_version=False)
        exited[name] = time.monotonic()
    lags: dict[str, float] = {}
    deadline = time.monotonic() + 120
    while len(lags) < len(names) and time.monotonic() < deadline:
        for name in names:
            if name in lags:
                continue
            job = server.state.objects[("kubeflow.org/v1", "mxjobs", "bench", name)]
            if f"{name}-worker-1" in ((job.get("status") or {}).get("podRestarts") or {}):
                lags[name] = time.monotonic() - exited[name]
        time.sleep(0.005)
    settle(port)
    return Burst(
        sorted(lags.values()) or [float("nan")],
        metric(port, "mxjob_status_conflicts_total") - conflicts_before,
        (len(server.state.requests) - requests_before) / len(names),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1_000)
    jobs = parser.parse_args().jobs
    first_rendering, recreate = recreate_timing()
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="mxjob-reconcile-bench-") as tmp, FakeServer() as server:
        kubeconfig = server.kubeconfig(Path(tmp, "kubeconfig"), namespace="bench")
        populate(server, jobs)
        start = time.perf_counter()
        port = free_port()
        process = reconcile_process(kubeconfig, port)
        clock = CpuClock(process.pid)
        clock.start()
        try:
            sync = wait_synced(server, jobs, start)
            settle(port)
            sync_cpu = clock.phase()
            sync_rss = process_mib(process.pid)
            since = str(server.state.version)
            events_rate, pods = event_rate(server, port)
            events_cpu = clock.phase()
            bare_rate = bare_read_rate(kubeconfig, since, len(pods))
            clock.start()
            latencies = exit_latencies(server, jobs)
            latency_cpu = clock.phase()
            clock.start()
            exits = burst(server, port, jobs)
            burst_cpu = clock.phase()
            p99 = latencies[max(0, int(len(latencies) * 0.99) - 1)]
            rss = process_mib(process.pid)
        finally:
            process.terminate()
            process.wait(timeout=30)
    print(f"{jobs:,} jobs, {jobs * 10:,} pods in the fake API (load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})")
    print(f"  initial sync (every job Running)        {sync:7.2f} s         {sync_cpu}")
    print(f"  events consumed                          {events_rate:7.0f} events/s   (target >= 5,000)   {events_cpu}")
    print(f"  bare client reading the same watch       {bare_rate:7.0f} events/s   ratio {events_rate / bare_rate:.2f}")
    print(f"  pod exit -> reconciler deletes it, p99   {p99 * 1000:7.1f} ms         (target <= 200 ms)   {latency_cpu}")
    print(
        f"  burst of {len(exits.lags)} exits -> status, p50 / p99 / max  {exits.percentile(0.5):.2f} / "
        f"{exits.percentile(0.99):.2f} / {exits.lags[-1]:.2f} s (target median <= 1 s, max <= 5 s); "
        f"409s {exits.conflicts:.0f}, {exits.requests_per_job:.1f} requests per job   {burst_cpu}"
    )
    print(
        f"  reconciler peak RSS                      {rss:7.0f} MiB        "
        f"(target <= 250 MiB; {sync_rss:.0f} MiB at the end of the sync)"
    )
    print(
        f"  recreate one pod of a 10,000-worker job  {recreate * 1000:7.1f} ms         (target <= 20 ms; "
        f"its rendering, built once per spec version: {first_rendering * 1000:.0f} ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
