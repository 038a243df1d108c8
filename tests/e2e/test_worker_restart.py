"""A worker killed with SIGKILL and recreated from the rendering (as the reconciler would): does the job finish?

Evidence for docs/reconciler.md ("Restarting one MXNet worker") and docs/e2e.md. ps-lite (MXNet 1.9.1's
3rdparty/ps-lite, src/van.cc, Van::UpdateLocalID) admits a node that registers after the cluster is complete only
as the replacement of a node its heartbeats declared dead; with heartbeats off (the default) it drops it silently.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from tests.conftest import EXAMPLES
from tests.e2e.check import MARK, RunCluster
from tests.e2e.jobs import load, render, with_command
from tests.e2e.runner import Cluster

JOIN_TIMEOUT = 90.0
# How long the job gets once the recreated worker has registered: a healthy job of this size finishes its two
# remaining rounds in <2 s even on a busy machine, so 10 s without progress is a hang, not slowness.
OBSERVE = 10.0
HEARTBEAT = {"PS_HEARTBEAT_INTERVAL": "1", "PS_HEARTBEAT_TIMEOUT": "2"}


def wait_for(cluster: Cluster, text: str, names: list[str], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not all(text in cluster.pods[n].output() for n in names):
        assert time.monotonic() < deadline, f"no {text!r} from {names} in {timeout:.0f}s\n{cluster.report()}"
        time.sleep(0.1)


def rank_of(output: str) -> int | None:
    found = re.search(r"^JOINED rank=(\d+)", output, re.MULTILINE)
    return int(found.group(1)) if found else None


def restart_one_worker(run_cluster: RunCluster, workdir: Path, extra_env: dict[str, str]) -> dict[str, Any]:
    """Run the 2-server/2-worker layout, SIGKILL worker-1 after round 1, recreate it, and report what follows."""
    go = workdir / "go"
    job = with_command(
        load(EXAMPLES / "byteps" / "byteps_job.yaml"),
        ["python", "kvstore_check.py"],
        Worker=["--hold-after-first", str(go)],
    )
    for spec in job["spec"]["mxReplicaSpecs"].values():
        container = spec["template"]["spec"]["containers"][0]
        container["env"] = [{"name": k, "value": v} for k, v in {"PS_VERBOSE": "1", **extra_env}.items()]
    with run_cluster(render(job, workdir)) as cluster:
        for name in cluster.plans:
            cluster.start(name)
        survivor, victim = sorted(n for n, p in cluster.plans.items() if p.replica_type == "worker")
        wait_for(cluster, "HOLDING", [survivor, victim], JOIN_TIMEOUT)
        old_rank = rank_of(cluster.pods[victim].output())
        killed_at, exit_code = time.monotonic(), cluster.kill(victim)
        if extra_env:
            # The reconciler recreates a pod only after it has seen it fail; here that delay is made long enough for
            # the scheduler's heartbeat check to count the killed node as dead.
            time.sleep(max(0.0, killed_at + float(extra_env["PS_HEARTBEAT_TIMEOUT"]) + 1 - time.monotonic()))
        cluster.start(victim)
        go.touch()
        # ps-lite logs the bind (PS_VERBOSE=1) once MXNet is imported, just before it registers with the scheduler.
        wait_for(cluster, "Bind to role=worker", [victim], JOIN_TIMEOUT)
        try:
            codes: dict[str, int] | None = cluster.wait(list(cluster.plans), OBSERVE)
        except TimeoutError:
            codes = None
        scheduler = next(n for n, p in cluster.plans.items() if p.replica_type == "scheduler")
        survivor_out, victim_out = cluster.pods[survivor].output(), cluster.pods[victim].output()
        evidence = {
            "exit_code": exit_code,
            "old_rank": old_rank,
            "new_rank": rank_of(victim_out),
            "finished": codes,
            "replaced": "replace dead node" in cluster.pods[scheduler].output(),
            "survivor": [line for line in survivor_out.splitlines() if line.startswith(("ROUND", MARK))],
            "recreated": [line for line in victim_out.splitlines() if line.startswith(("JOINED", "ROUND"))],
            "report": cluster.report(),
        }
    print("\n" + "\n".join(f"{k}: {v}" for k, v in evidence.items() if k != "report"))
    return evidence


def test_without_heartbeats_the_recreated_worker_is_never_admitted(run_cluster: RunCluster, workdir: Path) -> None:
    seen = restart_one_worker(run_cluster, workdir, {})
    assert seen["exit_code"] == 137
    assert seen["finished"] is None, seen["report"]  # nothing exits: the whole job hangs
    assert seen["new_rank"] is None and not seen["replaced"], seen["report"]
    assert not any(line.startswith(MARK) for line in seen["survivor"]), seen["report"]


def test_with_heartbeats_the_rejoin_is_admitted_but_the_sums_are_wrong(run_cluster: RunCluster, workdir: Path) -> None:
    seen = restart_one_worker(run_cluster, workdir, HEARTBEAT)
    assert seen["exit_code"] == 137
    assert seen["replaced"] and seen["new_rank"] == seen["old_rank"], seen["report"]
    # The newcomer starts again at round 1 while the survivor is at round 2: the job never ends with exact sums.
    assert seen["finished"] is None, seen["report"]
    results = [line for line in seen["survivor"] if line.startswith(MARK)]
    assert all('"ok": false' in line for line in results), seen["report"]
