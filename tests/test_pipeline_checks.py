"""Which objects take Checker.add's shortcut for objects that pass its checks (objectcheck.passing_identity). That
it decides exactly as the checks themselves is tests/test_exact_mode.py's (tests/exact_inputs.py's objects at
the identity rules' edges, through the command line)."""

from __future__ import annotations

from typing import Any

import pytest

from mxjob_gitops.compiler.rules.objectcheck import passing_identity


@pytest.mark.parametrize(
    ("obj", "relaxed", "expected"),
    [
        ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "team"}}, False, True),
        ({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "1-front"}}, True, True),
        ({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "1-front"}}, False, False),
        ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "gen-"}}, False, True),
        ({"apiVersion": "kubeflow.org/v1", "kind": "MXJob", "metadata": {"name": "a"}}, False, False),
        ({"apiVersion": "mlkube.io/v1beta1", "kind": "MXJob", "metadata": {"name": "a"}}, False, False),
        ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": ""}}, False, False),
        ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"namespace": "team"}}, False, False),
    ],
)
def test_which_objects_take_the_shortcut(obj: dict[str, Any], relaxed: bool, expected: bool) -> None:
    assert (passing_identity(obj, relaxed) is not None) is expected
