"""Zero drift on a real kube-apiserver: apply the rendering (client-side, then server-side), and `diff --live` is empty.

Every example under every target and gang scheduler, and every golden case that renders, each in its own
namespace (a namespace pinned in the input is moved there, a Namespace object is left out). The rule that makes
this hold is in compiler/spec/canonical.py (what is rendered) and compiler/diff/diffview.py `live_view` (what is
compared).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from mxjob_gitops.compiler.render.gang.registry import GANG_SCHEDULERS
from tests.conftest import EXAMPLES, REPO, run_cli
from tests.realapi.cluster import RealCluster
from tests.realapi.test_crd import SERVER_DEFAULTS, differences

GOLDEN = REPO / "tests" / "golden"
PODGROUP_CRDS = {  # upstream's own CRDs, vendored unchanged (tests/fixtures/crds/SOURCE.md), as tests/modern uses them
    "podgroups.scheduling.volcano.sh": REPO / "tests" / "fixtures" / "crds" / "scheduling.volcano.sh_podgroups.yaml",
    "podgroups.scheduling.x-k8s.io": REPO / "tests" / "fixtures" / "crds" / "scheduling.x-k8s.io_podgroups.yaml",
}
EXAMPLE_FILES = sorted(p for name in ("train", "tune", "byteps", "single") for p in (EXAMPLES / name).glob("*.yaml"))
# Gang schedulers whose objects the test server (Kubernetes 1.20) cannot hold: checked by the offline strict schemas.
GANG_NEWER_THAN_THE_SERVER = {
    "kubernetes": "the scheduling.k8s.io PodGroup and Pod spec.schedulingGroup arrived in "
    "Kubernetes 1.35/1.36 (tests/test_gang_schedulers.py checks them against "
    "the 1.37 schemas)"
}
# Every target, and every gang scheduler the registry knows (a new one needs the CRD of its group object, if it
# renders one, in PODGROUP_CRDS).
VARIANTS = {
    "plain": [],
    "argocd": ["--target", "argocd"],
    "flux": ["--target", "flux"],
    **{
        backend.kind: ["--gang-scheduler", backend.kind]
        for backend in GANG_SCHEDULERS
        if backend.kind not in GANG_NEWER_THAN_THE_SERVER
    },
}


# Golden cases whose pods use a field newer than some servers: (the first minor version that has it, the field).
# On an older server (v1.20 here) kubectl's validation against the server's OpenAPI refuses the field, which the
# test then checks instead; with a newer envtest bundle the case runs like every other.
NEWER_FIELDS = {"scheduling-gates": (26, "schedulingGates")}  # Pod spec.schedulingGates: Kubernetes 1.26


def _golden_cases() -> list[tuple[str, Path, list[str]]]:
    """(name, input, render options) of every golden case that renders successfully."""
    cases = []
    for folder in sorted(p for p in GOLDEN.iterdir() if p.is_dir()):
        args = (folder / "args").read_text().split() if (folder / "args").exists() else ["render", "input.yaml"]
        if args[0] != "render" or (folder / "expected.exit").read_text().strip() != "0":
            continue
        if "--engine" in args:  # a JobSet needs its CRD, which this server has not: tests/test_jobset_server.py
            continue
        source = folder / ("stdin.yaml" if "-" in args else args[-1])
        options = [a for a in args[1:-1] if a not in ("--format", "json")]
        if "--namespace" in options:  # each case runs in a namespace of its own
            at = options.index("--namespace")
            del options[at : at + 2]
        cases.append((folder.name, source, options))
    return cases


CASES = [
    (f"{path.parent.name}-{variant}", path, options) for path in EXAMPLE_FILES for variant, options in VARIANTS.items()
] + _golden_cases()


def _into(document: Any, namespace: str) -> Any:
    if isinstance(document, dict) and document.get("kind") == "List":
        return {**document, "items": [_into(item, namespace) for item in document.get("items") or []]}
    if (
        isinstance(document, dict)
        and isinstance(document.get("metadata"), dict)
        and "namespace" in document["metadata"]
    ):  # cluster-scoped objects (a PriorityClass) have none
        return {**document, "metadata": {**document["metadata"], "namespace": namespace}}
    return document


def _moved(source: Path, namespace: str, folder: Path) -> Path:
    """The input with every object in `namespace` and no Namespace objects."""
    documents = [
        d
        for d in yaml.safe_load_all(source.read_text(encoding="utf-8"))
        if d is not None and not (isinstance(d, dict) and d.get("kind") == "Namespace")
    ]
    moved = folder / source.name
    moved.write_text(yaml.safe_dump_all([_into(d, namespace) for d in documents], sort_keys=False))
    return moved


@pytest.fixture(scope="module")
def cluster(mxjob_crd: RealCluster) -> RealCluster:
    for crd, path in PODGROUP_CRDS.items():
        mxjob_crd.kubectl("apply", "-f", str(path))
        mxjob_crd.wait_established(crd)
    code, body = mxjob_crd.request(
        "POST",
        "/apis/scheduling.k8s.io/v1/priorityclasses",
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "medium"}, "value": 500},
    )
    assert code in (201, 409), body
    return mxjob_crd


def _apply(cluster: RealCluster, namespace: str, manifests: str, *flags: str) -> None:
    applied = cluster.kubectl("apply", *flags, "-n", namespace, "-f", "-", stdin=manifests, check=False)
    assert (applied.returncode, applied.stderr) == (0, ""), applied.stderr


@pytest.mark.parametrize(("name", "source", "options"), CASES, ids=[case[0] for case in CASES])
def test_apply_then_diff_live_is_empty(
    cluster: RealCluster, namespace: str, tmp_path: Path, name: str, source: Path, options: list[str]
) -> None:
    job = _moved(source, namespace, tmp_path)
    rendered = run_cli(["render", "-n", namespace, *options, str(job)])
    assert rendered.exit_code == 0, rendered.stderr
    since, field = NEWER_FIELDS.get(name, (0, ""))
    if cluster.minor < since:
        for flags in ((), ("--server-side",)):
            refused = cluster.kubectl("apply", *flags, "-n", namespace, "-f", "-", stdin=rendered.stdout, check=False)
            assert refused.returncode == 1 and f'unknown field "{field}"' in refused.stderr, refused.stderr
        return
    for flags in ((), ("--server-side",)):
        _apply(cluster, namespace, rendered.stdout, *flags)
        diff = run_cli(["diff", "--live", "--kubeconfig", str(cluster.kubeconfig), "-n", namespace, *options, str(job)])
        assert diff.exit_code == 0, f"after kubectl apply {' '.join(flags)}:\n{diff.stdout}{diff.stderr}"
        assert diff.stdout.strip().splitlines()[-1:] == diff.stdout.strip().splitlines(), diff.stdout


@pytest.mark.parametrize("api_version", ["scheduling.volcano.sh/v1beta1", "scheduling.x-k8s.io/v1alpha1"])
def test_the_podgroup_crds_prune_what_the_schedulers_do_not_know(
    cluster: RealCluster, namespace: str, api_version: str
) -> None:
    """So a rendered PodGroup field either scheduler lacks would show up in `diff --live` (and kubectl's checks)."""
    group = {
        "apiVersion": api_version,
        "kind": "PodGroup",
        "metadata": {"name": "pg"},
        "spec": {"minMember": 3, "minMembers": 3},
    }
    code, body = cluster.request("POST", f"/apis/{api_version}/namespaces/{namespace}/podgroups", group)
    assert code == 201, body
    assert "minMembers" not in body["spec"] and body["spec"]["minMember"] == 3, body["spec"]
    # ... and fills in what the project defaults: Volcano's CRD gives a PodGroup without a queue `queue: default`.
    assert {k: v for k, v in body["spec"].items() if k != "minMember"} == (
        {"queue": "default"} if api_version.startswith("scheduling.volcano.sh/") else {}
    ), body["spec"]


@pytest.mark.parametrize("crd", sorted(PODGROUP_CRDS))
def test_the_upstream_podgroup_crds_are_served_as_written(cluster: RealCluster, crd: str) -> None:
    """The real CRDs, not a stand-in: this server stores each exactly as upstream wrote it (nothing dropped; they
    use no `x-kubernetes-validations`, which a server before 1.25 would drop, tests/realapi/conftest.py)."""
    written = yaml.safe_load(PODGROUP_CRDS[crd].read_text(encoding="utf-8"))
    stored = cluster.get(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd}")
    assert stored is not None
    found = list(differences({**SERVER_DEFAULTS, **written["spec"]}, stored["spec"], "spec"))
    assert found == [], "the server changed the upstream CRD:\n" + "\n".join(found)
