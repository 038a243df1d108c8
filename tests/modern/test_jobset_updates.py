"""The JobSet CRD's own update rules (`self == oldSelf` transition rules) on a 1.36 CRD server against
diff.jobset_rules: each update the server refuses is one `check_update` refuses for the same field, and each it
takes is one `check_update` takes (the webhook's rules on replicatedJobs are not the CRD's: no webhook runs here, so
the cases leave the replicatedJobs' templates alone). tests/test_diff_restarts.py covers the webhook's part."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from mxjob_gitops.compiler.diff.jobset_rules import check_update
from tests.conftest import EXAMPLES, run_cli
from tests.modern.server import ModernServer, install
from tests.realcomp import realcomp_share

NAMESPACE = "jobset-updates"
WEBHOOK_FIELDS = ("spec.replicatedJobs", "spec.managedBy")
_names = itertools.count(1)
Edit = Callable[[dict[str, Any]], None]


@pytest.fixture(scope="module")
def jobset_server(modern: ModernServer) -> ModernServer:
    install(modern, realcomp_share() / "crds" / "jobset" / "jobset.x-k8s.io_jobsets.yaml")
    modern.run("create", "namespace", NAMESPACE)
    return modern


def _rendered() -> dict[str, Any]:
    result = run_cli(["render", "--engine", "jobset", str(EXAMPLES / "train" / "mx_job_dist_gpu.yaml")])
    assert result.exit_code == 0, result.stderr
    jobset: dict[str, Any] = yaml.safe_load(result.stdout)
    jobset["spec"].pop("startupPolicy", None)  # set by the cases that need it
    for job in jobset["spec"]["replicatedJobs"]:
        job.pop("dependsOn", None)
    return jobset


def _set(path: str, value: Any) -> Edit:
    def edit(jobset: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node = jobset
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
        node[last] = value

    return edit


def _drop(path: str) -> Edit:
    def edit(jobset: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node = jobset
        for part in parents:
            node = node[part]
        del node[last]

    return edit


def _depends(status: str) -> Edit:
    return _set("spec.replicatedJobs.1.dependsOn", [{"name": "scheduler", "status": status}])


CASES: dict[str, tuple[list[Edit], list[Edit]]] = {
    "network changed": ([], [_set("spec.network.publishNotReadyAddresses", False)]),
    "network added": ([_drop("spec.network")], []),
    "network removed": ([], [_drop("spec.network")]),
    "successPolicy changed": ([], [_set("spec.successPolicy.targetReplicatedJobs", ["server"])]),
    "failurePolicy changed": (
        [_set("spec.failurePolicy", {"maxRestarts": 1})],
        [_set("spec.failurePolicy.maxRestarts", 3)],
    ),
    "startupPolicy changed": (
        [_set("spec.startupPolicy", {"startupPolicyOrder": "AnyOrder"})],
        [_set("spec.startupPolicy", {"startupPolicyOrder": "InOrder"})],
    ),
    "dependsOn changed": ([_depends("Ready")], [_depends("Complete")]),
    "labels, suspend and ttl": (
        [],
        [
            _set("metadata.labels", {"team": "vision"}),
            _set("spec.suspend", True),
            _set("spec.ttlSecondsAfterFinished", 60),
        ],
    ),
}


ACCEPTED = {"network added", "network removed", "labels, suspend and ttl"}


@pytest.mark.parametrize("case", list(CASES))
def test_the_crds_rules_agree_with_check_update(jobset_server: ModernServer, case: str) -> None:
    old = _rendered()
    old["metadata"]["name"] = f"update-{next(_names)}"
    for edit in CASES[case][0]:
        edit(old)
    new = copy.deepcopy(old)
    for edit in CASES[case][1]:
        edit(new)
    apply = ("apply", "--server-side", "--field-manager=mxjob", "-n", NAMESPACE, "-f", "-")
    jobset_server.kubectl(*apply, stdin=yaml.safe_dump(old))
    done = jobset_server.run(*apply, stdin=yaml.safe_dump(new))
    refused_by_server = done.returncode != 0
    if refused_by_server:
        assert "immutable" in done.stderr, done.stderr
    assert refused_by_server is (case not in ACCEPTED), done.stderr  # the cases mean what they say
    ours = [field for field in check_update(old, new).refused if field not in WEBHOOK_FIELDS]
    assert bool(ours) == refused_by_server, (ours, done.stderr)
    jobset_server.run("delete", "-n", NAMESPACE, "jobset", old["metadata"]["name"])
