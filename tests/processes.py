"""Child processes of the real-component tiers (API server, MXNet pods) that die with the test process."""

from __future__ import annotations

import ctypes
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In the child before exec (Popen's preexec_fn): on Linux, get SIGKILL when the thread that started it ends,
    even by SIGKILL, so a killed test run leaves no process behind (prctl(2) PR_SET_PDEATHSIG, kept across execve)."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def reconciler_command(kubeconfig: Path, namespace: str, port: int, *flags: str) -> list[str]:
    """`mxjob reconcile` for one namespace in its own Python process, with /metrics and the probes on `port`."""
    return [
        sys.executable,
        "-m",
        "mxjob_gitops",
        "reconcile",
        "--kubeconfig",
        str(kubeconfig),
        "-n",
        namespace,
        "--metrics-address",
        f"127.0.0.1:{port}",
        "--health-address",
        f"127.0.0.1:{port}",
        *flags,
    ]


def stop_processes(processes: Sequence[subprocess.Popen[Any]], timeout: float) -> None:
    """Terminate the processes in reverse start order (the API server before its etcd), killing one that does not
    end within `timeout` seconds."""
    for process in reversed(processes):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
