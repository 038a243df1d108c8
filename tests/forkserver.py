"""A pre-imported, single-threaded process that forks one `--once` reconciler pass per request (crash trials).

Protocol on stdin/stdout, one line each: `KUBECONFIG NAMESPACE` → the child's pid, then its wait status.
Forking from a warm process makes a trial cost a pass, not an interpreter start and the imports.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    import kubernetes.client
    import kubernetes.config
    import kubernetes.dynamic
    import kubernetes.watch  # noqa: F401  (the client is imported lazily; warm it once, here)

    from mxjob_gitops import compiler
    from mxjob_gitops.reconciler.kube import Cluster
    from mxjob_gitops.reconciler.runner import Reconciler, Settings

    # Warm what every child would build again: the schema validators behind compile_job.
    container = {"name": "mxnet", "image": "mxnet:1.9"}
    compiler.compile_job(
        {
            "apiVersion": "kubeflow.org/v1",
            "kind": "MXJob",
            "metadata": {"name": "warm"},
            "spec": {
                "jobMode": "MXTrain",
                "mxReplicaSpecs": {"Worker": {"replicas": 1, "template": {"spec": {"containers": [container]}}}},
            },
        }
    )
    print("ready", flush=True)
    for line in sys.stdin:
        kubeconfig, namespace = line.split()
        pid = os.fork()
        if pid == 0:
            code = 3
            try:
                reconciler = Reconciler(Cluster.connect(kubeconfig), Settings(namespaces=(namespace,)))
                code = 1 if reconciler.run_once(timeout=5) else 0
            finally:
                os._exit(code)
        print(pid, flush=True)
        _, status = os.waitpid(pid, 0)
        print(status, flush=True)


if __name__ == "__main__":
    main()
