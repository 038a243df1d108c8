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
# CEL rules (`x-kubernetes-validations`) are known to JSONSchemaProps from 1.23 and on by default from 1.25
# (the CustomResourceValidationExpressions gate). An older server drops them, and kubectl, validating on the
# client against that server's OpenAPI, refuses the field; the tier then applies with --validate=false and
# accepts exactly that key as dropped (docs/real-cluster.md, "Known limits").
CEL_MINOR = 25


def crd_apply_flags(cluster: RealCluster) -> list[str]:
    return ["--validate=false"] if cluster.minor < CEL_MINOR else []


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
    real_cluster.kubectl("apply", *crd_apply_flags(real_cluster), "-f", str(CRD_FILE))
    real_cluster.wait_established("mxjobs.kubeflow.org")
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
