"""Locate the real Kubernetes-ecosystem components (crd-apiserver, core-validate, kubectl 1.36, kubeconform,
argocd-health, flux-health, kstatus, ...) that `make envtest` / `.ci/run` build into a cache.

One variable names the place: `REALCOMP_CACHE` (default `${XDG_CACHE_HOME:-~/.cache}/mxjob-gitops/realcomp`),
holding `bin/` and `share/`; `MXJOB_REALCOMP_BIN` / `MXJOB_REALCOMP_SHARE` point at either directory alone.
Binaries with envtest names (etcd, kubectl) are also taken from `KUBEBUILDER_ASSETS` the way controller-runtime's
envtest looks them up (`TEST_ASSET_<NAME>` first). Missing: the test skips with the reason, except under
`CI=true`, where it fails (the mechanism of tests/realapi/conftest.py).
"""

from __future__ import annotations

import os
import pathlib

import pytest


def cache_dir() -> pathlib.Path:
    explicit = os.environ.get("REALCOMP_CACHE")
    if explicit:
        return pathlib.Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(pathlib.Path.home() / ".cache")
    return pathlib.Path(base) / "mxjob-gitops" / "realcomp"


def unavailable(reason: str) -> None:
    """Skip with `reason`; under CI=true the tier must run, so there it fails instead."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and a real component is missing: {reason}", pytrace=False)
    pytest.skip(reason)


def _bin_candidates(name: str) -> list[pathlib.Path]:
    candidates: list[pathlib.Path] = []
    if os.environ.get("MXJOB_REALCOMP_BIN"):
        candidates.append(pathlib.Path(os.environ["MXJOB_REALCOMP_BIN"]) / name)
    explicit = os.environ.get("TEST_ASSET_" + name.upper().replace("-", "_"))
    if explicit:
        candidates.append(pathlib.Path(explicit))
    candidates.append(cache_dir() / "bin" / name)
    if os.environ.get("KUBEBUILDER_ASSETS"):
        candidates.append(pathlib.Path(os.environ["KUBEBUILDER_ASSETS"]) / name)
    return candidates


def realcomp_bin(name: str) -> pathlib.Path:
    """The executable `name`; skips (fails under CI=true) when it is not built."""
    candidates = _bin_candidates(name)
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    looked = ", ".join(str(c) for c in candidates)
    unavailable(f"no {name} (looked at {looked}); run `make envtest` or set REALCOMP_CACHE")
    raise AssertionError("unreachable")  # pragma: no cover


def realcomp_share() -> pathlib.Path:
    """The data directory (JSON schemas, CRDs, Argo CD's resource_customizations); skips / fails when absent."""
    explicit = os.environ.get("MXJOB_REALCOMP_SHARE")
    share = pathlib.Path(explicit) if explicit else cache_dir() / "share"
    if not share.is_dir():
        unavailable(f"no realcomp share directory at {share}; run `make envtest` or set REALCOMP_CACHE")
    return share
