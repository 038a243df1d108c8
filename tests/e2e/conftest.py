"""Fixtures of the e2e tier: the cached MXNet venv, network namespaces, and a way to run a rendered job."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from tests.e2e.netns import unavailable_reason
from tests.e2e.pods import Manifest
from tests.e2e.runner import Cluster, cluster

PREPARE = "bash .ci/mxnet.sh (or make e2e-prepare)"


def mxnet_venv() -> Path:
    """Where .ci/mxnet.sh keeps MXNet: outside the repository, cached between runs."""
    if "MXJOB_MXNET_VENV" in os.environ:
        return Path(os.environ["MXJOB_MXNET_VENV"])
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "mxjob-gitops" / "mxnet-venv"


def unavailable(reason: str) -> None:
    """Skip with `reason`; in CI (CI=true) the tier must run, so there it fails instead."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"the e2e tier must run in CI: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def image_path() -> str:
    """The PATH of our stand-in image: the MXNet venv's bin first, then the system's."""
    venv = mxnet_venv()
    if not (venv / "bin" / "python").exists():
        unavailable(f"no MXNet venv at {venv}; run {PREPARE}")
    reason = unavailable_reason()
    if reason is not None:
        unavailable(reason)
    return f"{venv / 'bin'}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@pytest.fixture
def run_cluster(image_path: str, tmp_path: Path) -> Callable[[list[Manifest]], AbstractContextManager[Cluster]]:
    """Open a Cluster for rendered manifests; logs go to the test's tmp_path."""

    def opened(manifests: list[Manifest]) -> AbstractContextManager[Cluster]:
        # The image's ENV: PATH (so the command's `python` is MXNet's), HOME, and unbuffered output for the logs.
        image_env = {"PATH": image_path, "HOME": str(tmp_path), "PYTHONUNBUFFERED": "1", "LANG": "C.UTF-8"}
        return cluster(manifests, image_env, tmp_path)

    return opened


@pytest.fixture
def workdir(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "render"
    path.mkdir()
    yield path
