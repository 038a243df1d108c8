"""A pod template with spec.schedulingGates: validate and render both warn (MXJ315) at the field, and go on."""

from __future__ import annotations

import pytest

from tests.conftest import REPO, run_cli

INPUT = REPO / "tests" / "golden" / "scheduling-gates" / "input.yaml"
WHERE = "scheduling-gates/input.yaml:14:11: warning MXJ315 at spec.mxReplicaSpecs.Worker.template.spec.schedulingGates"


@pytest.mark.parametrize(
    "command", [["render"], ["render", "--target", "argocd"], ["validate"], ["validate", "--format", "json"]]
)
def test_gates_are_a_located_warning(command: list[str]) -> None:
    result = run_cli([*command, str(INPUT)])
    assert result.exit_code == 0, result.stderr
    text = result.stdout + result.stderr
    assert "MXJ315" in text
    if "--format" not in command:
        assert WHERE in text


def test_no_gates_no_warning() -> None:
    result = run_cli(["validate", str(REPO / "examples" / "train")])
    assert result.exit_code == 0 and "MXJ315" not in result.stdout + result.stderr
