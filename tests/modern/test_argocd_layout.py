"""The Argo CD health check in Argo CD's resource_customizations layout, run as Argo CD runs its built-in checks:
argocd-health looks `kubeflow.org/MXJob/health.lua` up in the directory, and every case of health_test.yaml
gives its status and message (as argo-cd's util/lua TestLuaHealthScript reads those files)."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest
import yaml

from tests.conftest import REPO
from tests.realcomp import realcomp_bin

LAYOUT = REPO / "integrations" / "argocd"
CHECK = LAYOUT / "kubeflow.org" / "MXJob"
CASES: list[dict[str, Any]] = yaml.safe_load((CHECK / "health_test.yaml").read_text(encoding="utf-8"))["tests"]


def test_the_layout_ships_the_packaged_script() -> None:
    packaged = REPO / "compiler" / "integrations" / "mxjob_health.lua"
    # One file: the layout's health.lua is a link to the packaged script, so the two cannot drift apart.
    assert (CHECK / "health.lua").resolve() == packaged.resolve()
    assert (CHECK / "health.lua").read_text(encoding="utf-8") == packaged.read_text(encoding="utf-8")


def test_every_testdata_file_has_a_case() -> None:
    assert sorted(p.name for p in (CHECK / "testdata").iterdir()) == sorted(c["inputPath"][9:] for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["inputPath"] for c in CASES])
def test_health_test_case_in_argo_cd(case: dict[str, Any]) -> None:
    argv = [str(realcomp_bin("argocd-health")), "-customizations", str(LAYOUT), str(CHECK / case["inputPath"])]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    [result] = [json.loads(line) for line in done.stdout.splitlines()]
    assert result["source"] == "lua-builtin:kubeflow.org/MXJob", result
    assert {"status": result["status"], "message": result["message"]} == case["healthStatus"]
