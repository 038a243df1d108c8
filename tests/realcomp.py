"""Where the real components built for the tests live: `MXJOB_REALCOMP_BIN` (default
`${XDG_CACHE_HOME:-~/.cache}/mxjob-gitops/realcomp/bin`, where ../shared/realcomp/build.sh puts them) and
`MXJOB_REALCOMP_SHARE` (default: `share` beside it). A missing one skips its test with the reason, except under
`CI=true`, where it fails (as tests/realapi/conftest.py does for the API server tier): there every tier must run."""

from __future__ import annotations

import os
import pathlib

import pytest


def _root() -> pathlib.Path:
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return pathlib.Path(cache) / "mxjob-gitops" / "realcomp"


def _missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and a real component is missing: {reason}", pytrace=False)
    pytest.skip(reason)


def realcomp_bin(name: str) -> pathlib.Path:
    """The component `name`; skips (fails under CI=true) when it is not built."""
    directory = pathlib.Path(os.environ.get("MXJOB_REALCOMP_BIN") or _root() / "bin")
    path = directory / name
    if not os.access(path, os.X_OK):
        _missing(f"{name} not found in {directory} (run ../shared/realcomp/build.sh, or set MXJOB_REALCOMP_BIN)")
    return path


def realcomp_share() -> pathlib.Path:
    """The real components' data (CRDs, JSON schemas, Argo CD's health scripts)."""
    binary = os.environ.get("MXJOB_REALCOMP_BIN")
    default = pathlib.Path(binary).parent / "share" if binary else _root() / "share"
    share = pathlib.Path(os.environ.get("MXJOB_REALCOMP_SHARE") or default)
    if not share.is_dir():
        _missing(f"{share} is missing (run ../shared/realcomp/build.sh, or set MXJOB_REALCOMP_SHARE)")
    return share
