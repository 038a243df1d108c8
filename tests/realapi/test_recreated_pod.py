"""A pod the reconciler recreated, on a real kube-apiserver: written by field manager `mxjob-reconciler`,
and the GitOps engine's next apply (client-side like Argo CD's default, server-side like Flux) is clean."""

from __future__ import annotations

import yaml

from tests.conftest import run_cli
from tests.realapi.kubelet import Kubelet
from tests.realapi.test_reconciler import reconcile
from tests.test_crash import SPEC, WORKER

# test_crash's job has no integer quantities: v1.20's server-side apply rejects them (kubernetes#94275).


def rendered(kubelet: Kubelet) -> str:
    result = run_cli(["render", "-n", kubelet.namespace, "-"], stdin=SPEC)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def worker_only(stream: str) -> str:
    return yaml.safe_dump(
        next(m for m in yaml.safe_load_all(stream) if m and m["kind"] == "Pod" and m["metadata"]["name"] == WORKER)
    )


def test_recreated_pod_is_the_reconcilers_and_the_next_apply_is_clean(kubelet: Kubelet) -> None:
    kubelet.deploy(SPEC)
    for name in ("job-scheduler-0", "job-server-0", WORKER, "job-worker-1"):
        kubelet.set_pod(name, "Running")
    reconcile(kubelet)
    kubelet.set_pod(WORKER, "Failed", exit_code=137)
    reconcile(kubelet)
    pod = kubelet.pods()[WORKER]
    managers = {(m["manager"], m["operation"]) for m in pod["metadata"].get("managedFields") or []}
    assert ("mxjob-reconciler", "Update") in managers, managers
    assert not any(manager.startswith("OpenAPI-Generator") for manager, _ in managers), managers
    manifest = worker_only(rendered(kubelet))
    # kubectl diff: what the engine would change. Nothing (exit 0), although the pod is not the one it applied.
    diff = kubelet.cluster.kubectl("diff", "-n", kubelet.namespace, "-f", "-", stdin=manifest, check=False)
    assert diff.returncode == 0, diff.stdout + diff.stderr
    # Server-side apply as another manager takes the same values without a conflict (no --force-conflicts).
    applied = kubelet.cluster.kubectl(
        "apply",
        "--server-side",
        "--field-manager=kustomize-controller",
        "-n",
        kubelet.namespace,
        "-f",
        "-",
        stdin=manifest,
        check=False,
    )
    assert applied.returncode == 0, applied.stderr
    # Client-side apply (Argo CD's default): a pod's spec cannot change, so success means nothing differed.
    applied = kubelet.cluster.kubectl("apply", "-n", kubelet.namespace, "-f", "-", stdin=manifest, check=False)
    assert applied.returncode == 0, applied.stderr
    assert kubelet.pods()[WORKER]["metadata"]["uid"] == pod["metadata"]["uid"]
