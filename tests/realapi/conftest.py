"""Fixtures of the real API server tier: one etcd + kube-apiserver per test session, a namespace per test."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator

import pytest

from tests.conftest import REPO
from tests.realapi.cluster import ClusterUnavailable, RealCluster, find_binary
from tests.realapi.kubelet import Kubelet, ensure_node

CRD_FILE = REPO / "schemas" / "crd" / "kubeflow.org_mxjobs.yaml"
_namespaces = itertools.count(1)


@pytest.fixture(scope="session")
def real_cluster() -> Iterator[RealCluster]:
    """Skip when the binaries are missing, except in CI (`CI=true`), where the tier must run."""
    try:
        find_binary("etcd")
        find_binary("kube-apiserver")
    except ClusterUnavailable as missing:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and the real API server tier cannot run: {missing}", pytrace=False)
        pytest.skip(str(missing))
    with RealCluster() as cluster:
        ensure_node(cluster)
        yield cluster


@pytest.fixture(scope="session")
def mxjob_crd(real_cluster: RealCluster) -> RealCluster:
    """The MXJob CRD from schemas/crd, installed and Established."""
    real_cluster.kubectl("apply", "-f", str(CRD_FILE))
    real_cluster.kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/mxjobs.kubeflow.org")
    return real_cluster


@pytest.fixture
def namespace(real_cluster: RealCluster) -> str:
    """A fresh namespace (with its `default` ServiceAccount) per test; namespaces cannot be deleted without a
    controller-manager, and one per test keeps the tests independent anyway."""
    name = f"t{next(_namespaces)}"
    real_cluster.ensure_namespace(name)
    return name


@pytest.fixture
def kubelet(mxjob_crd: RealCluster, namespace: str) -> Kubelet:
    return Kubelet(mxjob_crd, namespace)
