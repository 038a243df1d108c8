"""Other projects' CRDs on the 1.36 server: the PodGroups of Volcano and scheduler-plugins (vendored, see
tests/fixtures/crds/SOURCE.md), Kueue's and JobSet's (from the realcomp share) install with server-side apply and
accept what `mxjob render` writes for them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import JOB_EXAMPLE_FILES, REPO, run_cli
from tests.modern.server import ModernServer, apply_strictly, install
from tests.realcomp import realcomp_share

VENDORED = REPO / "tests" / "fixtures" / "crds"
PODGROUP_CRDS = {
    "volcano": (VENDORED / "scheduling.volcano.sh_podgroups.yaml", "podgroups.scheduling.volcano.sh"),
    "scheduler-plugins": (VENDORED / "scheduling.x-k8s.io_podgroups.yaml", "podgroups.scheduling.x-k8s.io"),
}


@pytest.fixture(scope="module")
def with_crds(modern_crd: ModernServer) -> ModernServer:
    for path, _ in PODGROUP_CRDS.values():
        install(modern_crd, path)
    return modern_crd


def test_kueue_and_jobset_crds_install(modern_crd: ModernServer) -> None:
    share = realcomp_share() / "crds"
    files = sorted((share / "kueue").glob("*.yaml")) + sorted((share / "jobset").glob("*.yaml"))
    assert len(files) >= 12, files
    installed = [name for path in files for name in install(modern_crd, path)]
    assert "localqueues.kueue.x-k8s.io" in installed and "jobsets.jobset.x-k8s.io" in installed


def test_the_kueue_queue_we_label_pods_with_is_a_valid_local_queue(modern_crd: ModernServer) -> None:
    """Kueue gets no object from us, only pod labels naming a LocalQueue; that name must be one Kueue can hold.
    (JobSet gets nothing from us: its CRD only has to coexist.)"""
    test_kueue_and_jobset_crds_install(modern_crd)
    rendered = run_cli(["render", "--gang-scheduler", "kueue=research-gpu", str(JOB_EXAMPLE_FILES[0])])
    assert rendered.exit_code == 0, rendered.stderr
    pods = [d for d in yaml.safe_load_all(rendered.stdout) if d and d["kind"] == "Pod"]
    queues = {p["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] for p in pods}
    assert queues == {"research-gpu"}
    for queue in queues:
        local_queue = {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "LocalQueue",
            "metadata": {"name": queue, "namespace": "kueue"},
            "spec": {"clusterQueue": "cluster"},
        }
        done = modern_crd.run("apply", "--server-side", "--validate=strict", "-f", "-", stdin=json.dumps(local_queue))
        assert done.returncode == 0 and done.stderr == "", done.stderr


@pytest.mark.parametrize("scheduler", sorted(PODGROUP_CRDS))
@pytest.mark.parametrize("example", JOB_EXAMPLE_FILES, ids=lambda p: p.name)
def test_the_upstream_podgroup_crds_accept_our_podgroups(
    with_crds: ModernServer, scheduler: str, example: Path
) -> None:
    rendered = run_cli(["render", "-n", "gang", "--gang-scheduler", scheduler, str(example)])
    assert rendered.exit_code == 0, rendered.stderr
    groups = [d for d in yaml.safe_load_all(rendered.stdout) if d and d["kind"] == "PodGroup"]
    assert len(groups) == 1, [d["kind"] for d in yaml.safe_load_all(rendered.stdout) if d]
    [group] = groups
    found = apply_strictly(with_crds, group)
    assert found == [], "the upstream CRD pruned or changed what we render:\n" + "\n".join(found)
