"""The 1.36 tier: ONE etcd + crd-apiserver per test session, our MXJob CRD installed with server-side apply."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import REPO
from tests.modern.server import ModernServer

CRD_FILE = REPO / "schemas" / "crd" / "kubeflow.org_mxjobs.yaml"
CRD_NAME = "mxjobs.kubeflow.org"


@pytest.fixture(scope="session")
def modern() -> Iterator[ModernServer]:
    with ModernServer() as server:
        yield server


@pytest.fixture(scope="session")
def modern_crd(modern: ModernServer) -> ModernServer:
    """The MXJob CRD from schemas/crd, applied server-side and Established."""
    modern.kubectl("apply", "--server-side", "--field-manager=mxjob-tests", "-f", str(CRD_FILE))
    modern.wait_established(CRD_NAME)
    return modern
