"""The real kustomize for the tests that build kustomizations through `mxjob -k`: $MXJOB_KUSTOMIZE, else the one
`.ci/kustomize.sh` builds, else PATH's `kustomize`. Outside CI, `kubectl kustomize` (kustomize compiled into
kubectl) stands in when none is built; under CI=true the tier must run, so a missing kustomize fails it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

BUILT = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mxjob-gitops/kustomize/bin/kustomize"


def kustomize_binary() -> str | None:
    """The kustomize binary, or None when only kubectl's is there (outside CI); skips or fails without either."""
    for candidate in (os.environ.get("MXJOB_KUSTOMIZE"), str(BUILT), shutil.which("kustomize")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    reason = "no kustomize (bash .ci/kustomize.sh builds one, or set MXJOB_KUSTOMIZE)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and the kustomize tier cannot run: {reason}", pytrace=False)
    if shutil.which("kubectl") is None:
        pytest.skip(reason)
    return None


@pytest.fixture
def kustomize(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make `mxjob -k` use the real kustomize; the command that builds, for a test's own oracle."""
    binary = kustomize_binary()
    if binary is None:
        monkeypatch.delenv("MXJOB_KUSTOMIZE", raising=False)
        return [str(shutil.which("kubectl")), "kustomize"]
    monkeypatch.setenv("MXJOB_KUSTOMIZE", binary)
    return [binary, "build"]
