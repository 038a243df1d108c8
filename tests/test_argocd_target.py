"""`--target argocd`: one sync wave (no sync-wave annotation anywhere) and the pod annotations Argo CD needs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from mxjob_gitops.compiler.render.gang.plan import backends
from tests.conftest import EXAMPLES, JOB_EXAMPLE_FILES, REPO, run_cli

WAVE = "argocd.argoproj.io/sync-wave"


def _render(path: Path | str, *extra: str, stdin: str | None = None) -> list[dict[str, object]]:
    result = run_cli(["render", "--target", "argocd", *extra, str(path)], stdin=stdin)
    assert result.exit_code == 0, result.stderr
    return [d for d in yaml.safe_load_all(result.stdout) if d]


def _annotations(manifest: dict[str, object]) -> dict[str, str]:
    metadata = manifest["metadata"]
    assert isinstance(metadata, dict)
    return dict(metadata.get("annotations") or {})


@pytest.mark.parametrize("example", JOB_EXAMPLE_FILES, ids=[p.name for p in JOB_EXAMPLE_FILES])
@pytest.mark.parametrize("gang", [None, *backends()])
def test_no_object_of_any_example_carries_a_sync_wave(example: Path, gang: str | None) -> None:
    """The rule: rendered for Argo CD, no object has a sync wave, so every sync is single-step.

    Why (argoproj/argo-cd, gitops-engine/pkg/sync): `syncContext.Sync` in sync_context.go keeps the operation
    Running while any applied, not-yet-Healthy task remains whenever `syncTasks.multiStep()` (sync_tasks.go)
    is true, which any two distinct waves make it. `getCorev1PodHealth` in pkg/health/health_pod.go reports a
    running restartPolicy Never/OnFailure pod as Progressing until it exits, so with waves the sync would last
    as long as training (and on Argo CD <= 3.5 stall for good at the scheduler's wave). Ordering needs no waves:
    `syncTasks.Less` sorts one wave by kindOrder, ConfigMap and Service before Pod.
    """
    manifests = _render(example, *(["--gang-scheduler", gang] if gang else []))
    assert manifests
    assert [m["kind"] for m in manifests if WAVE in _annotations(m)] == []


@pytest.mark.parametrize("overlay", sorted(p.name for p in (EXAMPLES / "kustomize" / "overlays").iterdir()))
def test_no_object_of_a_kustomize_example_carries_a_sync_wave(overlay: str) -> None:
    """The same rule for the kustomize example, built by the real kubectl and piped in as users do."""
    kubectl = shutil.which("kubectl")
    assert kubectl is not None, "kubectl is part of the test tools (GUIDE.md)"
    built = subprocess.run(
        [kubectl, "kustomize", str(EXAMPLES / "kustomize" / "overlays" / overlay)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    manifests = _render("-", stdin=built)
    assert any(m["kind"] == "Pod" for m in manifests)
    assert [m["kind"] for m in manifests if WAVE in _annotations(m)] == []


def test_pods_are_replaced_and_judged_like_long_running_pods() -> None:
    manifests = _render(REPO / "examples" / "train")
    pods = [m for m in manifests if m["kind"] == "Pod"]
    assert pods
    for pod in pods:
        annotations = _annotations(pod)
        assert annotations["argocd.argoproj.io/sync-options"] == "Force=true,Replace=true"
        assert annotations["argocd.argoproj.io/ignore-restart-policy"] == "true"
    others = [m for m in manifests if m["kind"] != "Pod"]
    assert others and all(not _annotations(m).keys() & {WAVE, "argocd.argoproj.io/sync-options"} for m in others)
