"""Checker.add's shortcut for objects that pass its checks (objectcheck.passing_identity) decides exactly as the
checks themselves: on generated objects, valid and not, every item, diagnostic, identity and memo entry is the
same with the shortcut and without it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.compile import checker as checks
from mxjob_gitops.compiler.compile.checker import PassedObjects
from mxjob_gitops.compiler.compile.documents import InputFacts
from mxjob_gitops.compiler.read.source import SourceDocument
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.rules.objectcheck import passing_identity

# Valid values come several times over: most objects of a stream pass, and an object fails by one field.
KINDS = [*["ConfigMap", "Service", "Role"] * 4, "Namespace", "MXJob", "mxjob", "MxJob", "", "bad kind", "9Pod", 5, None]
API_VERSIONS = [*["v1", "apps/v1"] * 4, "kubeflow.org/v1", "mlkube.io/v1beta1", "kubeflow.org/v1alpha1", "", "B/v1", 1]
NAMES = [*["a", "web-1"] * 6, "1-front", "Upper", "", "a.b", "x" * 64, "x" * 254, "-a", "a-", "..", "a/b", "é", 3, None]
PREFIXES = ["gen-", "Gen-", "", "a", "x" * 253 + "-", 2, None]
NAMESPACES = [*["team"] * 4, "", "Team", "a" * 64, "1", 1, None]
ABSENT = object()


def _mapping(draw: st.DrawFn, fields: dict[str, list[Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, values in fields.items():
        value = draw(st.sampled_from([ABSENT, *values]))
        if value is not ABSENT:
            found[key] = value
    return found


@st.composite
def objects(draw: st.DrawFn) -> Any:
    form = draw(st.sampled_from(["mapping", "mapping", "mapping", "text", "none"]))
    metadata: Any = None
    if form == "mapping":
        metadata = _mapping(draw, {"name": NAMES, "generateName": PREFIXES, "namespace": NAMESPACES})
    elif form == "text":
        metadata = "text"
    obj = _mapping(draw, {"apiVersion": API_VERSIONS, "kind": KINDS})
    if draw(st.booleans()) or metadata is not None:
        obj["metadata"] = metadata
    return draw(st.sampled_from([obj, obj, obj, [obj], "text", None]))


def _add(obj: Any, relaxed: bool, shortcut: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    with monkeypatch.context() as patch:
        if not shortcut:
            patch.setattr(checks, "passing_identity", lambda _obj, _relaxed: None)
        passed: PassedObjects = {}
        checker = InputFacts().checker(RenderOptions(kubernetes_version="1.36" if relaxed else "1.35"))
        checker.passed = passed
        document = SourceDocument(obj, "objects.yaml", 0)
        examined = checker.examine(document, (), obj)
        checker.account(document, (), examined.diagnostics, examined.identities, examined.estimate)
        item = examined.item
        return (
            item is obj,
            item is None,
            [d.render() for d in checker.all_diagnostics()],
            list(checker.seen),
            [(entry[1], entry[2]) for entry in passed.values()],
        )


@settings(max_examples=600, deadline=None)
@given(objects(), st.booleans())
def test_the_shortcut_decides_as_the_checks(obj: Any, relaxed: bool) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert _add(obj, relaxed, True, monkeypatch) == _add(obj, relaxed, False, monkeypatch)


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
