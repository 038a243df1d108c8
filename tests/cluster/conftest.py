"""Fixtures of the cluster tier: one control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
kwok) per test session with the MXJob CRD, and per test a namespace with its own fake nodes. Missing binaries
skip the tier with the reason, except under CI=true, where it fails (tests/realapi/conftest.py's rule)."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator

import pytest

from tests.cluster.control_plane import ControlPlane
from tests.realapi.cluster import ClusterUnavailable, find_binary
from tests.realapi.conftest import CRD_FILE, crd_apply_flags
from tests.realcomp import realcomp_bin, realcomp_share

_namespaces = itertools.count(1)


def _required() -> None:
    try:
        for name in ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"):
            find_binary(name)
    except ClusterUnavailable as missing:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and the cluster tier cannot run: {missing}", pytrace=False)
        pytest.skip(str(missing))


@pytest.fixture(scope="session")
def control_plane() -> Iterator[ControlPlane]:
    _required()
    kwok, share = realcomp_bin("kwok"), realcomp_share()  # skip, or fail under CI=true, when not built
    with ControlPlane(kwok=kwok, share=share) as plane:
        plane.kubectl("apply", *crd_apply_flags(plane), "-f", str(CRD_FILE))
        plane.wait_established("mxjobs.kubeflow.org")
        yield plane


@pytest.fixture
def pool(control_plane: ControlPlane) -> str:
    """A fresh namespace whose name is also the node pool of its test: one CPU node and two 1-GPU nodes."""
    name = f"c{next(_namespaces)}"
    control_plane.ensure_namespace(name)
    control_plane.add_node(f"{name}-cpu", name)
    for index in range(2):
        control_plane.add_node(f"{name}-gpu-{index}", f"{name}-gpu", gpus=1)
    return name
