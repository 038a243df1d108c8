"""Where the real components of the test tiers are: `MXJOB_REALCOMP_BIN` or the build cache; a missing one skips
the test, or fails it under CI=true (the tier must run there)."""

from __future__ import annotations

import os
import pathlib

import pytest


def _root() -> pathlib.Path:
    cache = os.environ.get("XDG_CACHE_HOME") or str(pathlib.Path.home() / ".cache")
    return pathlib.Path(cache) / "mxjob-gitops" / "realcomp"


def realcomp_bin(name: str) -> pathlib.Path:
    path = pathlib.Path(os.environ.get("MXJOB_REALCOMP_BIN") or _root() / "bin") / name
    if not path.is_file():
        missing = f"{path} is missing (build it with the realcomp build script)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and a real component is missing: {missing}", pytrace=False)
        pytest.skip(missing)
    return path


def realcomp_share() -> pathlib.Path:
    return _root() / "share"
