"""The e2e harness itself: kubelet's env rules, and no namespace or process left after a failure or a kill."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.e2e.netns import ETC_NETNS, PodNet, hosts_file, network, sweep
from tests.e2e.pods import container_env, expand, plan


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$(A)", "1"),
        ("x$(A)y$(B)", "x1y2"),
        ("$(MISSING)", "$(MISSING)"),
        ("$$(A)", "$(A)"),
        ("$$", "$"),
        ("$A $", "$A $"),
        ("$(A", "$(A"),
        ("$()", "$()"),
    ],
)
def test_expand_follows_kubelet(text: str, expected: str) -> None:
    assert expand(text, {"A": "1", "B": "2"}) == expected


def test_last_entry_of_a_name_wins_and_values_see_earlier_entries() -> None:
    container = {
        "env": [
            {"name": "A", "value": "first"},
            {"name": "B", "value": "$(A)-$(C)"},
            {"name": "C", "value": "late"},
            {"name": "A", "value": "second"},
        ]
    }
    assert container_env(container) == {"A": "second", "B": "first-$(C)", "C": "late"}


def test_command_and_args_expand_against_the_whole_env() -> None:
    pod = {
        "metadata": {"name": "j-worker-0", "labels": {}},
        "spec": {
            "hostname": "h",
            "containers": [
                {"name": "sidecar", "command": ["x"]},
                {
                    "name": "mxnet",
                    "command": ["sh", "-c"],
                    "args": ["echo $(Z) $(Y)"],
                    "env": [{"name": "Y", "value": "y"}, {"name": "Z", "value": "$(Y)z"}],
                },
            ],
        },
    }
    planned = plan(pod)
    assert (planned.argv, planned.hostname, planned.namespace) == (["sh", "-c", "echo yz y"], "h", "default")


def test_hosts_file_maps_services_in_every_form() -> None:
    text = hosts_file(PodNet("ns", "10.1.2.3", "me"), {"svc": "10.1.2.4"}, "ml")
    assert "10.1.2.3\tme\n" in text
    assert "10.1.2.4\tsvc svc.ml svc.ml.svc svc.ml.svc.cluster.local\n" in text


def listed() -> str:
    return subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=20, check=True).stdout


@pytest.mark.usefixtures("namespaces")
def test_everything_is_removed_when_the_block_fails() -> None:
    with pytest.raises(KeyboardInterrupt), network({"p-0": "p-0", "p-1": "p-1"}, {"p-0": "p-0"}, "default") as net:
        names = [pod.netns for pod in net.pods.values()] + [net.hub]
        assert all(name in listed() for name in names)
        assert (ETC_NETNS / net.pods["p-0"].netns / "hosts").exists()
        raise KeyboardInterrupt
    assert not any(name in listed() for name in names)
    assert not any((ETC_NETNS / name).exists() for name in names)


# A test process that builds a one-pod network, starts the pod, prints the namespaces and the pod's pid, then waits
# to be killed: what CI's job timeout does to a hanging run.
KILLED_RUN = """
import json, sys, time
from pathlib import Path
from tests.e2e.runner import cluster
pod = {"kind": "Pod", "metadata": {"name": "p-0"},
       "spec": {"containers": [{"name": "mxnet", "command": ["sleep", "600"]}]}}
with cluster([pod], {"PATH": "/usr/bin:/bin"}, Path(sys.argv[1])) as job:
    started = job.start("p-0")
    print(json.dumps({"netns": list(job.net.created), "pod": started.process.pid}), flush=True)
    time.sleep(600)
"""


def alive(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().rsplit(")", 1)[-1].split()[0] != "Z"


@pytest.mark.usefixtures("namespaces")
def test_a_killed_run_leaves_no_process_and_the_next_run_removes_its_namespaces(tmp_path: Path) -> None:
    run = subprocess.Popen(
        [sys.executable, "-c", KILLED_RUN, str(tmp_path)], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    try:
        assert run.stdout is not None
        left = json.loads(run.stdout.readline())
    finally:
        run.kill()  # SIGKILL: no finally, no context manager in the test process runs
        run.wait(timeout=20)
        if run.stdout:
            run.stdout.close()
    deadline = time.monotonic() + 20
    while alive(left["pod"]):  # the pod's process gets SIGKILL from the kernel when its parent dies
        assert time.monotonic() < deadline, f"pod process {left['pod']} outlived the killed test process"
        time.sleep(0.05)
    assert all(name in listed() for name in left["netns"])  # the namespaces are left behind ...
    removed = sweep()
    assert set(left["netns"]) <= set(removed)  # ... until the next run's sweep
    assert not any(name in listed() for name in left["netns"])
    assert not any((ETC_NETNS / name).exists() for name in left["netns"])
