"""The memo of valid pod specs (compiler/rules/kubevalidate/memo.py): bounded in bytes, and keyed so that what
JSON writes alike is told apart. That it never changes a finding is tests/test_exact_mode.py's (the mutation
catalogs under several versions, and specs remembered with other env values, through the command line)."""

from __future__ import annotations

from typing import Any

import pytest

from mxjob_gitops.compiler.rules.kubevalidate import memo


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
