"""Start pods as processes inside their network namespaces, watch them with hard time bounds, and stop them."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.e2e.netns import Network, network
from tests.e2e.pods import Manifest, PodPlan, kinds, plan, service_targets
from tests.processes import die_with_parent

POLL = 0.1
# What a container runtime reports for a process ended by a signal: 128 + the signal number (137 for SIGKILL).
SIGNAL_BASE = 128
# `hostname` runs in the pod's own UTS namespace (kubelet gives every pod one), then the container command replaces it.
SET_HOSTNAME = 'hostname "$0" && exec "$@"'


@dataclass
class Pod:
    """A started pod: its plan, its process and the file its output goes to."""

    plan: PodPlan
    process: subprocess.Popen[bytes]
    log: Path

    def exit_code(self) -> int | None:
        code = self.process.poll()
        return None if code is None else (SIGNAL_BASE - code if code < 0 else code)

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@dataclass
class Cluster:
    """The pods of one rendered job, each in its own network namespace; `image_env` plays the image's ENV."""

    net: Network
    plans: dict[str, PodPlan]
    image_env: Mapping[str, str]
    logs: Path
    pods: dict[str, Pod] = field(default_factory=dict)

    def start(self, name: str) -> Pod:
        """Start (or start again) the pod `name` with exactly its rendered env over the image's env."""
        pod_plan, where = self.plans[name], self.net.pods[name]
        restarts = sum(1 for p in self.logs.glob(f"{name}.*.log"))
        log = self.logs / f"{name}.{restarts}.log"
        argv = [
            "ip",
            "netns",
            "exec",
            where.netns,
            "unshare",
            "--uts",
            "--",
            "sh",
            "-c",
            SET_HOSTNAME,
            where.hostname,
            *pod_plan.argv,
        ]
        with log.open("wb") as sink:
            process = subprocess.Popen(
                argv,
                env={**self.image_env, **pod_plan.env},
                cwd=pod_plan.working_dir,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=die_with_parent,
            )
        self.pods[name] = Pod(pod_plan, process, log)
        return self.pods[name]

    def kill(self, name: str, sig: signal.Signals = signal.SIGKILL) -> int:
        """Send `sig` to the pod's whole process group and reap it; returns its exit code."""
        pod = self.pods[name]
        if pod.process.poll() is None:
            os.killpg(pod.process.pid, sig)
        pod.process.wait(timeout=10)
        code = pod.exit_code()
        assert code is not None
        return code

    def wait(self, names: list[str], timeout: float) -> dict[str, int]:
        """Exit codes of `names` once all have exited; TimeoutError (with every pod's output) past `timeout`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            codes = {n: self.pods[n].exit_code() for n in names}
            if all(code is not None for code in codes.values()):
                return {n: c for n, c in codes.items() if c is not None}
            time.sleep(POLL)
        raise TimeoutError(
            f"pods still running after {timeout:.0f}s: "
            f"{[n for n in names if self.pods[n].exit_code() is None]}\n{self.report()}"
        )

    def report(self) -> str:
        """Every pod's exit code and the tail of its output, for failure messages."""
        parts = []
        for name, pod in sorted(self.pods.items()):
            tail = "\n".join(pod.output().splitlines()[-15:])
            parts.append(f"--- {name} (exit {pod.exit_code()}) ---\n{tail}")
        return "\n".join(parts)

    def stop_all(self) -> None:
        for name, pod in self.pods.items():
            if pod.process.poll() is None:
                self.kill(name)


@contextmanager
def cluster(manifests: list[Manifest], image_env: Mapping[str, str], logs: Path) -> Iterator[Cluster]:
    """The network for a rendered job's pods; every process started in it is killed and the network removed on exit."""
    plans = {p.name: p for p in (plan(pod) for pod in kinds(manifests, "Pod"))}
    namespaces = {p.namespace for p in plans.values()}
    assert len(namespaces) == 1, f"one job namespace expected, got {namespaces}"
    hostnames = {name: p.hostname for name, p in plans.items()}
    with network(hostnames, service_targets(manifests), namespaces.pop()) as net:
        job = Cluster(net, plans, image_env, logs)
        try:
            yield job
        finally:
            job.stop_all()
