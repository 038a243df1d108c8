"""Live objects for `mxjob diff`, found through the `mxjob.live` entry points (the compiler never imports them): the
namespace kubectl would default to, the cluster's copies of what a rendering owns (`--live`), and the pods of the
jobs a change restarts (`pods`: which are running, since when).

For every rendered object the cluster's copy is fetched. Objects in the cluster that the rendering no longer
has show up as removed; which ones count depends on the scope: `jobs` (the default) lists only objects that
carry the job-name label of a job the rendering holds, so diffing one job's file never reports every other job
in the namespace as removed; `namespace` lists every object mxjob manages in the namespaces rendered into.
"""

from __future__ import annotations

import os
from typing import Any

from mxjob_gitops.compiler import identity
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.reconciler.kube import Cluster, context_namespace

MANAGED_KINDS = (
    ("v1", "Pod"),
    ("v1", "Service"),
    ("v1", "ConfigMap"),
    ("scheduling.volcano.sh/v1beta1", "PodGroup"),
    ("scheduling.x-k8s.io/v1alpha1", "PodGroup"),
)
SCOPES = ("jobs", "namespace")
SELECTOR_NAMES = 100  # job names per label selector: a request URL stays short
SERVICE_ACCOUNT_NAMESPACE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"


def default_namespace(kubeconfig: str | None, context: str | None) -> str:
    """The namespace kubectl uses without -n, as client-go's clientcmd (tools/clientcmd/client_config.go)
    resolves it: DirectClientConfig.Namespace takes the context's namespace, else "default"; with no kubeconfig
    at all, inClusterClientConfig.Namespace reads the pod's service-account namespace file."""
    found = context_namespace(kubeconfig, context)
    if found:
        return found
    has_kubeconfig = kubeconfig or os.environ.get("KUBECONFIG") or os.path.exists(os.path.expanduser("~/.kube/config"))
    if not has_kubeconfig:
        try:
            with open(SERVICE_ACCOUNT_NAMESPACE, encoding="utf-8") as handle:
                return handle.read().strip() or "default"
        except OSError:
            pass
    return "default"


def _owned_jobs(desired: list[dict[str, Any]]) -> dict[str, set[str]]:
    """Namespace → the jobs the rendering holds (MXJobs, and the job-name label of everything rendered)."""
    jobs: dict[str, set[str]] = {}
    for obj in desired:
        _, kind, namespace, name = identity(obj)
        labels = (obj.get("metadata") or {}).get("labels") or {}
        job = name if kind == c.KIND else labels.get(c.LABEL_JOB_NAME)
        if job:
            jobs.setdefault(namespace, set()).add(str(job))
    return jobs


def fetch(
    desired: list[dict[str, Any]], kubeconfig: str | None, context: str | None, scope: str = "jobs"
) -> list[dict[str, Any]]:
    cluster = Cluster.connect(kubeconfig, context)
    owned = _owned_jobs(desired)
    if owned or scope == "namespace" or any(identity(obj)[:2] == (c.API_VERSION, c.KIND) for obj in desired):
        cluster.require_mxjobs()  # else every MXJob would read as absent: "added", as if nothing were wrong
    live: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str, str]] = set()
    for obj in desired:
        api_version, kind, namespace, name = identity(obj)
        found = cluster.get(api_version, kind, namespace, name)
        if found is not None:
            live.append(found)
            seen.add(identity(found))
    # Cluster-scoped objects (a Namespace among the inputs) have no namespace; listing "" would be every namespace.
    namespaces = sorted({identity(obj)[2] for obj in desired} - {""})
    for namespace in namespaces:
        selector = f"{c.LABEL_OPERATOR_NAME}={c.OPERATOR_NAME}"
        if scope == "jobs":
            if not owned.get(namespace):
                continue
            selector += f",{c.LABEL_JOB_NAME} in ({','.join(sorted(owned[namespace]))})"
        candidates = [
            item for api_version, kind in MANAGED_KINDS for item in cluster.list(api_version, kind, namespace, selector)
        ]
        if scope == "namespace":
            candidates.extend(cluster.list(c.API_VERSION, c.KIND, namespace, ""))
        for item in candidates:
            if identity(item) not in seen:
                seen.add(identity(item))
                live.append(item)
    return live


def _pod_summary(pod: dict[str, Any]) -> dict[str, Any]:
    """What `mxjob diff` reads of a pod: its name, namespace and labels, phase and start times."""
    metadata = pod.get("metadata") or {}
    status = pod.get("status") or {}
    return {
        "metadata": {
            key: metadata[key] for key in ("name", "namespace", "labels", "deletionTimestamp") if key in metadata
        },
        "status": {key: status[key] for key in ("phase", "startTime", "containerStatuses") if key in status},
    }


def pods(kubeconfig: str | None, context: str | None, jobs: dict[str, list[str]]) -> list[dict[str, Any]]:
    """The pods of the named jobs (namespace -> job names), found by the job-name label both engines put on pods
    (`mxjob diff --base` with a cluster: which of the pods a change replaces are running, and since when)."""
    cluster = Cluster.connect(kubeconfig, context)  # even with nothing to look up: a bad kubeconfig is reported
    found: list[dict[str, Any]] = []
    for namespace, names in sorted(jobs.items()):
        ordered = sorted(names)
        for start in range(0, len(ordered), SELECTOR_NAMES):
            selector = f"{c.LABEL_JOB_NAME} in ({','.join(ordered[start : start + SELECTOR_NAMES])})"
            found.extend(cluster.list_kept("v1", "Pod", namespace, selector, _pod_summary)[0])
    return found
