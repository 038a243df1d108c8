"""Where the real components are (MXJOB_REALCOMP_BIN, default ${XDG_CACHE_HOME:-~/.cache}/mxjob-gitops/realcomp/bin).

A missing component skips the test with the reason; under CI=true the test fails instead (as tests/realapi and
tests/e2e do), since there the tier must run.
"""

from __future__ import annotations

import os
import pathlib

import pytest


def _root() -> pathlib.Path:
    cache = os.environ.get("XDG_CACHE_HOME") or str(pathlib.Path.home() / ".cache")
    return pathlib.Path(cache) / "mxjob-gitops" / "realcomp"


def _missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and a real component is missing: {reason}", pytrace=False)
    pytest.skip(reason)


def realcomp_bin(name: str) -> pathlib.Path:
    """The binary `name` of the real components; skips (fails under CI=true) when it is not built."""
    directory = pathlib.Path(os.environ.get("MXJOB_REALCOMP_BIN") or _root() / "bin")
    path = directory / name
    if not os.access(path, os.X_OK):
        _missing(f"{path} is not built (see the real components' build script)")
    return path


def realcomp_share() -> pathlib.Path:
    """The real components' data directory (CRDs, schemas), next to bin."""
    binary = os.environ.get("MXJOB_REALCOMP_BIN")
    share = pathlib.Path(binary).parent / "share" if binary else _root() / "share"
    if not share.is_dir():
        _missing(f"{share} is missing (see the real components' build script)")
    return share
