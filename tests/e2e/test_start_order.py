"""One Argo CD wave starts the pods in any order: MXNet forms its cluster even when the scheduler comes last.

Evidence for docs/argocd.md ("Why one wave"): `--target argocd` has no sync waves, so nothing makes the scheduler
start first. Here the servers and workers start while the scheduler's headless Service does not resolve yet (as
in a cluster before the scheduler pod has an address) and the scheduler is not running; ps-lite's connect goes
through ZeroMQ, which resolves the name when it opens the socket and retries until it answers (libzmq
src/socket_base.cpp, `socket_base_t::connect`, leaves TCP resolution to the connecter; src/tcp_connecter.cpp
retries after `reconnect_ivl`).
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import EXAMPLES
from tests.e2e.check import RunCluster, finish
from tests.e2e.jobs import load, render, with_command
from tests.e2e.netns import ETC_NETNS
from tests.e2e.pods import service_targets
from tests.e2e.test_worker_restart import JOIN_TIMEOUT, wait_for


def test_workers_and_servers_started_before_the_scheduler_resolves(run_cluster: RunCluster, workdir: Path) -> None:
    job = with_command(load(EXAMPLES / "byteps" / "byteps_job.yaml"), ["python", "kvstore_check.py"])
    for spec in job["spec"]["mxReplicaSpecs"].values():
        spec["template"]["spec"]["containers"][0]["env"] = [{"name": "PS_VERBOSE", "value": "1"}]
    manifests = render(job, workdir, "--target", "argocd")
    with run_cluster(manifests) as cluster:
        scheduler = next(n for n, p in cluster.plans.items() if p.replica_type == "scheduler")
        others = [n for n in cluster.plans if n != scheduler]
        hidden = {service for service, pod in service_targets(manifests).items() if pod == scheduler}
        assert hidden, "the scheduler has a Service"
        hosts = {n: ETC_NETNS / cluster.net.pods[n].netns / "hosts" for n in others}
        kept = {n: path.read_text() for n, path in hosts.items()}
        for name, path in hosts.items():
            # Rewritten in place: `ip netns exec` bind-mounts this file, and glibc reads it on every lookup.
            path.write_text(
                "".join(line for line in kept[name].splitlines(keepends=True) if not hidden & set(line.split()[1:]))
            )
        for name in others:
            cluster.start(name)
        # ps-lite logs the bind just before it connects to the scheduler and sends its registration.
        wait_for(cluster, "Bind to role=", others, JOIN_TIMEOUT)
        assert {n: cluster.pods[n].exit_code() for n in others} == dict.fromkeys(others), cluster.report()
        for name, path in hosts.items():
            path.write_text(kept[name])
        cluster.start(scheduler)
        assert len(finish(cluster)) == 2
