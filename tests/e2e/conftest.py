"""Fixtures of the e2e tier: the cached MXNet venv, network namespaces, and a way to run a rendered job."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.check import RunCluster
from tests.e2e.netns import sweep, unavailable_reason
from tests.e2e.runner import cluster

PREPARE = "bash .ci/mxnet.sh (or make e2e-prepare)"


def venv(name: str) -> Path:
    """Where .ci/mxnet.sh keeps the `mxnet` or `tvm` venv: outside the repository, cached between runs."""
    override = os.environ.get(f"MXJOB_{name.upper()}_VENV")
    if override:
        return Path(override)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "mxjob-gitops" / f"{name}-venv"


def unavailable(reason: str) -> None:
    """Skip with `reason`; in CI (CI=true) the tier must run, so there it fails instead."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"the e2e tier must run in CI: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def namespaces() -> None:
    """Network namespaces can be made here (or the test skips/fails saying why); those of killed runs are removed."""
    reason = unavailable_reason()
    if reason is not None:
        unavailable(reason)
    sweep()


def image(name: str, home: Path) -> dict[str, str]:
    """The ENV of our stand-in image: PATH with the venv's bin first (so the command's `python` is that venv's)."""
    path = venv(name)
    if not (path / "bin" / "python").exists():
        unavailable(f"no {name} venv at {path}; run {PREPARE}")
    system = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    return {"PATH": f"{path / 'bin'}:{system}", "HOME": str(home), "PYTHONUNBUFFERED": "1", "LANG": "C.UTF-8"}


@pytest.fixture
def run_cluster(namespaces: None, tmp_path: Path) -> RunCluster:
    """Open a Cluster for rendered manifests, running in the MXNet venv's image; logs go to tmp_path."""
    env = image("mxnet", tmp_path)
    return lambda manifests: cluster(manifests, env, tmp_path)


@pytest.fixture
def run_tvm_cluster(namespaces: None, tmp_path: Path) -> RunCluster:
    """Like run_cluster, with the TVM venv's image (the MXTune case)."""
    env = image("tvm", tmp_path)
    return lambda manifests: cluster(manifests, env, tmp_path)


@pytest.fixture
def workdir(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "render"
    path.mkdir()
    yield path
