"""Against a cluster that does not serve the MXJob CRD, `reconcile` and `diff --live` stop with exit 2 and say
to install the CRD, rather than find no jobs and report every job reconciled (or every object added)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import JOB_EXAMPLE_FILES, run_cli
from tests.fakeapi import DEFAULT_RESOURCES, FakeServer

pytest.importorskip("kubernetes")
WITHOUT_CRD = tuple(r for r in DEFAULT_RESOURCES if r.kind != "MXJob")


@pytest.mark.parametrize("dry_run", [["--dry-run"], []])
def test_reconcile_once_without_the_crd_exits_2(tmp_path: Path, dry_run: list[str]) -> None:
    with FakeServer(WITHOUT_CRD) as server:
        kubeconfig = server.kubeconfig(tmp_path / "kubeconfig")
        args = ["reconcile", "--once", *dry_run, "--kubeconfig", str(kubeconfig), "--no-leader-election"]
        result = run_cli([*args, "--pass-timeout", "2"])
    assert result.exit_code == 2, result.stderr
    assert "does not serve kubeflow.org/v1 MXJob: install the CRD" in result.stderr
    assert "every job reconciled" not in result.stderr


def test_reconcile_once_with_the_crd_passes(tmp_path: Path) -> None:
    with FakeServer() as server:
        kubeconfig = server.kubeconfig(tmp_path / "kubeconfig")
        args = ["reconcile", "--once", "--dry-run", "--kubeconfig", str(kubeconfig), "--no-leader-election"]
        result = run_cli([*args, "--pass-timeout", "2"])
    assert result.exit_code == 0, result.stderr


def test_diff_live_without_the_crd_exits_2(tmp_path: Path) -> None:
    with FakeServer(WITHOUT_CRD) as server:
        kubeconfig = server.kubeconfig(tmp_path / "kubeconfig")
        result = run_cli(["diff", "--live", "--kubeconfig", str(kubeconfig), str(JOB_EXAMPLE_FILES[0])])
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "install the CRD" in result.stderr and result.stdout == ""
