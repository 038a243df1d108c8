"""A warning for a `dist_sync` job whose Server or Worker restarts alone (called by compiler.rules.mxjob.check_rules).

MXNet's synchronous parameter server cannot take back one recreated node: the e2e tier shows the job hangs, or with
ps-lite heartbeats on, ends with wrong sums (docs/reconciler.md, "Restarting one MXNet worker"). So a Server or
Worker with `restartPolicy: ExitCode`, `OnFailure` or `Always` in a job whose `mxnet` container asks for a
synchronous kvstore (`--kv-store dist_sync`, `dist_sync_device`, `dist_device_sync`, in its command or args) gets
a warning with the fix: `restartPolicy: Never` and `activeDeadlineSeconds`, and the whole job run again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, warning
from mxjob_gitops.compiler.base.jsonutil import as_dict, as_list
from mxjob_gitops.compiler.spec import constants as c

SYNC_KVSTORE = re.compile(r"\bdist(_device)?_sync(_device)?\b")
RESTARTING_POLICIES = frozenset({"ExitCode", "OnFailure", "Always"})
RESTARTED_ALONE = ("Server", "Worker")


def sync_restart_problems(spec: dict[str, Any]) -> Iterator[Diagnostic]:
    replicas = as_dict(spec.get("mxReplicaSpecs"))
    if not any(_asks_for_sync(as_dict(replica)) for replica in replicas.values()):
        return
    for replica_type in RESTARTED_ALONE:
        policy = as_dict(replicas.get(replica_type)).get("restartPolicy", c.DEFAULT_RESTART_POLICY)
        if isinstance(policy, str) and policy in RESTARTING_POLICIES:  # a malformed value is the schema's to report
            yield warning(
                Code.SYNC_RESTART,
                f"a {replica_type} of this dist_sync job is restarted alone ({policy}), and a synchronous MXNet job "
                "cannot take back one recreated node: it hangs, or computes wrong sums",
                ("spec", "mxReplicaSpecs", replica_type, "restartPolicy"),
                "set restartPolicy: Never (and runPolicy.activeDeadlineSeconds) and run the whole job again; "
                'see docs/reconciler.md, "Restarting one MXNet worker"',
            )


def _asks_for_sync(replica: dict[str, Any]) -> bool:
    for container in as_list(as_dict(as_dict(replica.get("template")).get("spec")).get("containers")):
        container = as_dict(container)
        if container.get("name") != c.DEFAULT_CONTAINER:
            continue
        words = [*as_list(container.get("command")), *as_list(container.get("args"))]
        if any(isinstance(word, str) and SYNC_KVSTORE.search(word) for word in words):
            return True
    return False
