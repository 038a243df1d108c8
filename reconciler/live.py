"""Live objects for `mxjob diff --live`, found through the `mxjob.live` entry point (the compiler never imports it).

For every rendered object the cluster's copy is fetched; objects the tool manages that Git no longer has
(pods, services, ConfigMaps and PodGroups with the operator's label, MXJobs) are listed in the namespaces the
rendering touches, so they show up as removed.
"""

from __future__ import annotations

from typing import Any

from compiler import constants as c
from compiler import identity
from reconciler.kube import Cluster

MANAGED_KINDS = (("v1", "Pod"), ("v1", "Service"), ("v1", "ConfigMap"),
                 ("scheduling.volcano.sh/v1beta1", "PodGroup"), ("scheduling.x-k8s.io/v1alpha1", "PodGroup"))


def fetch(desired: list[dict[str, Any]], kubeconfig: str | None, context: str | None) -> list[dict[str, Any]]:
    cluster = Cluster.connect(kubeconfig, context)
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
    selector = f"{c.LABEL_OPERATOR_NAME}={c.OPERATOR_NAME}"
    for namespace in namespaces:
        candidates = [item for api_version, kind in MANAGED_KINDS
                      for item in cluster.list(api_version, kind, namespace, selector)]
        candidates.extend(cluster.list(c.API_VERSION, c.KIND, namespace, ""))
        for item in candidates:
            if identity(item) not in seen:
                seen.add(identity(item))
                live.append(item)
    return live
