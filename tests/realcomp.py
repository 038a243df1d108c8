"""Where the real components built for the tests live (`MXJOB_REALCOMP_BIN`, default
`${XDG_CACHE_HOME:-~/.cache}/mxjob-gitops/realcomp/bin`): a missing one skips its test, except under `CI=true`,
where it fails (as tests/realapi/conftest.py does for the API server tier)."""

from __future__ import annotations

import os
import pathlib

import pytest


def _root() -> pathlib.Path:
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return pathlib.Path(cache) / "mxjob-gitops" / "realcomp"


def realcomp_bin(name: str) -> pathlib.Path:
    """The component `name`; skips (fails under CI=true) when it is not there."""
    directory = pathlib.Path(os.environ.get("MXJOB_REALCOMP_BIN") or _root() / "bin")
    path = directory / name
    if not os.access(path, os.X_OK):
        reason = f"{name} not found in {directory} (set MXJOB_REALCOMP_BIN)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and {reason}", pytrace=False)
        pytest.skip(reason)
    return path


def realcomp_share() -> pathlib.Path:
    return pathlib.Path(os.environ.get("MXJOB_REALCOMP_SHARE") or _root() / "share")
