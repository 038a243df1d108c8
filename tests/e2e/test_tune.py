"""The MXTune layout: a startup script reading MX_CONFIG brings up a real TVM RPC tracker, server and tuner."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import EXAMPLES
from tests.e2e.check import RunCluster, result_of
from tests.e2e.jobs import load, render, with_command

TUNE_TIMEOUT = 150.0  # three processes importing TVM (~10 s each on a busy 2-core machine) and a tracker round-trip


def test_tuner_reaches_the_keyed_server_through_the_tracker(run_tvm_cluster: RunCluster, workdir: Path) -> None:
    job = with_command(load(EXAMPLES / "tune" / "mx_job_tune_gpu.yaml"), ["python3", "tune_start.py"])
    manifests = render(job, workdir)
    with run_tvm_cluster(manifests) as cluster:
        for name in cluster.plans:
            cluster.start(name)
        names = {p.replica_type: n for n, p in cluster.plans.items()}
        codes = cluster.wait([names["tuner"]], TUNE_TIMEOUT)
        assert codes == {names["tuner"]: 0}, cluster.report()
        result = result_of(cluster, names["tuner"])
        server_ip = cluster.net.pods[names["tunerserver"]].ip
        # Tracker and server keep running, as in a cluster: MXO-1.1 ends the job when the Tuner replicas succeed.
        assert all(cluster.pods[names[t]].exit_code() is None for t in ("tunertracker", "tunerserver"))
    print(f"\ntuner result: {result}")
    assert result["key"] == "2080ti"  # the TunerServer template's tuner-server-key annotation
    assert result["tracker"] == "auto-tuning-job-tunertracker-0:9091"
    assert result["echo"] == "mxtune"
    assert [(s["key"], s["addr"][0]) for s in result["servers"]] == [("server:2080ti", server_ip)]
