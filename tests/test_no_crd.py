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


@pytest.mark.parametrize("status", [403, 500])
def test_reconcile_once_that_cannot_list_jobs_exits_2(tmp_path: Path, status: int) -> None:
    """`reconcile --help` promises exit 2 when --once cannot list the jobs (a refused or failing list)."""
    with FakeServer() as server:
        server.state.fail("GET", r"/mxjobs(\?|$)", status, times=1000)
        kubeconfig = server.kubeconfig(tmp_path / "kubeconfig")
        args = ["reconcile", "--once", "--kubeconfig", str(kubeconfig), "--no-leader-election"]
        result = run_cli([*args, "--pass-timeout", "2"])
    assert result.exit_code == 2, result.stderr
    assert "every job reconciled" not in result.stderr and "Traceback" not in result.stderr
