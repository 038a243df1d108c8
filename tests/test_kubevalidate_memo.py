"""The memo of valid pod specs (compiler.kubevalidate.memo) never changes a finding: with it, check_pod_spec
reports exactly what every rule reports afresh, on both mutation catalogs and on their specs with any env values."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.base.diagnostics import Diagnostic
from mxjob_gitops.compiler.rules.kubevalidate import memo, pod
from tests import hidden_mutations

VERSIONS = [None, "1.20", "1.32", "1.36"]


def _specs() -> Iterator[Any]:
    """Each pod base of the examples, then every pod edit of both catalogs."""
    bases = hidden_mutations.render_bases()
    for base in hidden_mutations.EXAMPLE_PODS:
        yield bases[base]["spec"]
    for base, obj in hidden_mutations.mutated_objects(bases):
        if base in hidden_mutations.EXAMPLE_PODS:
            yield obj.get("spec")


SPECS = list(_specs())


def _afresh(spec: Any, version: str | None, whole: bool) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    pod.check_pod_spec_afresh(found, spec, ("spec",), version, whole)
    return found


def _remembered(spec: Any, version: str | None, whole: bool) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    pod.check_pod_spec(found, spec, ("spec",), version, whole)
    return found


@pytest.fixture(autouse=True)
def _empty_memo() -> Iterator[None]:
    pod._VALID_SPECS.clear()
    yield
    pod._VALID_SPECS.clear()


def test_the_catalogs_hold_valid_and_invalid_specs() -> None:
    verdicts = {bool(_afresh(spec, None, True)) for spec in SPECS}
    assert len(SPECS) > 400 and verdicts == {True, False}


def test_the_memo_reports_what_every_rule_reports() -> None:
    """Every spec under every version, whole or a template, twice in one memo (the second time every valid one
    is remembered, from its own version and flag only)."""
    combinations = [(version, whole) for version in VERSIONS for whole in (True, False)]
    fresh = {combination: [_afresh(spec, *combination) for spec in SPECS] for combination in combinations}
    for _ in range(2):
        for combination in combinations:
            assert [_remembered(spec, *combination) for spec in SPECS] == fresh[combination], combination
    assert len(pod._VALID_SPECS) > 0


def _with_env_values(spec: Any, values: list[Any]) -> Any:
    changed = copy.deepcopy(spec)
    slots = [
        var
        for field in ("initContainers", "containers")
        for container in (changed.get(field) or [] if isinstance(changed, dict) else [])
        if isinstance(container, dict) and isinstance(container.get("env"), list)
        for var in container["env"]
        if isinstance(var, dict)
    ]
    for var, value in zip(slots, values, strict=False):
        if value is None:
            var.pop("value", None)
        else:
            var["value"] = value
    return changed


ENV_VALUE = st.one_of(
    st.none(), st.text(max_size=8), st.just(""), st.integers(-2, 2), st.booleans(), st.lists(st.text(max_size=2))
)


@settings(max_examples=300, deadline=None)
@given(
    index=st.integers(0, len(SPECS) - 1),
    first=st.lists(ENV_VALUE, max_size=4),
    second=st.lists(ENV_VALUE, max_size=4),
    version=st.sampled_from(VERSIONS),
)
def test_a_spec_remembered_with_other_env_values_reports_the_same(
    index: int, first: list[Any], second: list[Any], version: str | None
) -> None:
    """Remember a spec with one set of env values, then check it with another: the findings are those of a
    fresh check (the memo keys each value by whether it is empty, which is all the rules read of it)."""
    pod._VALID_SPECS.clear()
    spec = SPECS[index]
    _remembered(_with_env_values(spec, first), version, True)
    other = _with_env_values(spec, second)
    assert _remembered(other, version, True) == _afresh(other, version, True)


def test_a_value_next_to_value_from_is_found_after_the_same_var_without_one() -> None:
    source = {"fieldRef": {"fieldPath": "metadata.name"}}
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "x", "env": [{"name": "X", "value": "", "valueFrom": source}]}]
    }
    assert _remembered(spec, None, True) == []
    spec["containers"][0]["env"][0]["value"] = "set"
    found = _remembered(spec, None, True)
    assert found and "may not be specified when `value` is not empty" in found[0].message


def test_the_memo_is_bounded_in_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memo, "MAX_BYTES", 160)
    specs = memo.ValidSpecs()
    specs.add(b"x" * 11)  # over a sixteenth: not kept
    assert b"x" * 11 not in specs and len(specs) == 0
    keys = [bytes([65 + n]) * 10 for n in range(20)]
    for key in keys:
        specs.add(key)
        specs.add(key)  # counted once
        assert key in specs and 0 < len(specs) <= 16
    assert len(specs) == 20 - 16


def test_a_spec_json_cannot_write_has_no_key() -> None:
    assert memo.spec_key({"containers": [{"name": object()}]}, None, True) is None
    assert memo.spec_key({"nodeSelector": {1: "a"}}, None, True) is None  # json.dumps would write the key "1"
    assert memo.spec_key({"activeDeadlineSeconds": 2**70}, None, True) is None  # orjson: beyond 64 bits
    assert memo.spec_key([], None, True) is None


@pytest.mark.parametrize("value", [None, float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 0, False, "null"])
def test_keys_tell_apart_what_orjson_writes_alike(value: Any) -> None:
    """orjson writes NaN, Infinity and null all as null; the key must not."""
    others = [None, float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 0, False, "null"]
    keys = {repr(other): memo.spec_key({"overhead": {"cpu": other}}, None, True) for other in others}
    assert list(keys.values()).count(keys[repr(value)]) == 1
