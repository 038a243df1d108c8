"""Our reader against the Kubernetes tools' own: sigs.k8s.io/yaml (kubectl, Argo CD) and kyaml (kustomize, Flux).

Both Go readers run as realcomp's `yaml2json` and `kyaml2json` over a table of the scalars people write and over
generated ones; every plain scalar must come out as kubectl reads it (compiler/read/goscalar.py), and where the two Go
readers disagree, with an MXJ009 warning. Numbers compare by value: our floats stay floats (`1e3` is 1000.0),
Go's JSON writes a whole float without its fraction (1000).
"""

from __future__ import annotations

import json
import math
import subprocess
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.base.diagnostics import Code
from mxjob_gitops.compiler.read import goscalar
from mxjob_gitops.compiler.read.source import parse_text
from tests.conftest import run_cli
from tests.realcomp import realcomp_bin

TABLE = [
    "12:30", "1:20:30", "190:20:30.15", "1e3", "1E3", "1.0e+3", "010", "0777", "08", "0o17", "0b11", "0x1F",
    "-0x1F", "1_000", "+1", "-0", ".5", "+.5", "0.", "1e3.5", "1,000", "~", "null", "Null", "NULL", "true",
    "True", "TRUE", "false", "2001-12-14", "2001-12-14T21:59:43.10-05:00", "9223372036854775807",
    "9223372036854775808", "18446744073709551615", "18446744073709551616", "-9223372036854775809", "1e999",
    "0x_1F", "1__0", "_1", "abc", "1.2.3", "0xG", "0b2", "+", ".", "e3", "y", "Y", "n", "N", "yes", "Yes",
    "YES", "no", "on", "On", "off", "OFF", "yEs", "tRue", ".inf", "-.Inf", ".NaN", "0o-0", "0o+7", "0o-1_0", "-0o7",
    "<<", "<< b", "=",
]  # fmt: skip
AMBIGUOUS = goscalar.AMBIGUOUS_TRUE | goscalar.AMBIGUOUS_FALSE


def _go_read(binary: str, scalars: list[str]) -> list[Any]:
    """The value each reader gives `k: <scalar>`, one document per scalar in one process; an error is the
    string '<error>'."""
    stream = "".join(f"---\nk: {s}\n" for s in scalars)
    done = subprocess.run(
        [str(realcomp_bin(binary)), "-inline-errors"], input=stream, capture_output=True, text=True, check=False
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == len(scalars), (binary, done.stderr[-2000:])
    return ["<error>" if "error" in line and "k" not in line else line.get("k") for line in lines]


def _ours(scalars: list[str]) -> list[tuple[Any, set[str]]]:
    out: list[tuple[Any, set[str]]] = []
    for scalar in scalars:
        parsed = parse_text(f"k: {scalar}\n", "in.yaml")
        codes = {str(d.code) for d in parsed.diagnostics}
        errors = [d for d in parsed.diagnostics if d.severity == "error"]
        out.append(("<error>" if errors or not parsed.documents else parsed.documents[0].data["k"], codes))
    return out


def _same(ours: Any, theirs: Any) -> bool:
    if isinstance(ours, bool) or isinstance(theirs, bool) or ours is None or theirs is None:
        return ours is theirs or (ours == theirs and type(ours) is type(theirs))
    if isinstance(ours, (int, float)) and isinstance(theirs, (int, float)):
        return math.isclose(ours, theirs, rel_tol=1e-15)
    return bool(ours == theirs and type(ours) is type(theirs))


def _check(scalars: list[str]) -> None:
    assert all(_is_plain_scalar(s) for s in scalars)
    kubectl, kyaml = _go_read("yaml2json", scalars), _go_read("kyaml2json", scalars)
    for scalar, (value, codes), go, go3 in zip(scalars, _ours(scalars), kubectl, kyaml, strict=True):
        if go == "<error>":  # .inf, .nan: JSON cannot hold them; ours is a located MXJ005 error
            assert value == "<error>", scalar
            continue
        assert _same(value, go), (scalar, value, go)
        disagree = not _same(go, go3)
        assert (str(Code.AMBIGUOUS_SCALAR) in codes) == disagree, (scalar, go, go3, codes)


def test_the_table_reads_as_kubectl_reads_it() -> None:
    _check(TABLE)


def test_where_the_go_readers_disagree() -> None:
    """What the MXJ009 warning is for: sigs.k8s.io/yaml is YAML 1.1 for booleans, kyaml YAML 1.2; kyaml rewrites
    timestamps and reads `0o` with a signed octal (`0o-7`) as an integer."""
    kubectl, kyaml = _go_read("yaml2json", TABLE), _go_read("kyaml2json", TABLE)
    disagreeing = {s for s, a, b in zip(TABLE, kubectl, kyaml, strict=True) if not _same(a, b)}
    assert disagreeing >= AMBIGUOUS & set(TABLE)
    assert disagreeing - AMBIGUOUS == {"2001-12-14", "2001-12-14T21:59:43.10-05:00", "0o-0", "0o+7", "0o-1_0"}


_SCALAR_CHARS = "0123456789+-._:eExXoObB~yYnNtTrRuUfFaAlLsS<="


@settings(max_examples=15, deadline=None)
@given(st.lists(st.text(_SCALAR_CHARS, min_size=1, max_size=8), min_size=60, max_size=60))
def test_generated_plain_scalars_read_as_kubectl_reads_them(scalars: list[str]) -> None:
    plain = [s for s in scalars if _is_plain_scalar(s)]
    if plain:
        _check(plain)


def _is_plain_scalar(text: str) -> bool:
    """Whether `k: <text>` is one plain scalar for YAML at all (not a sequence, alias, tag, comment or key)."""
    try:
        node = yaml.compose(f"k: {text}\n")
    except yaml.YAMLError:
        return False
    if not isinstance(node, yaml.MappingNode) or len(node.value) != 1:
        return False
    value = node.value[0][1]
    return isinstance(value, yaml.ScalarNode) and value.style is None and value.value == text


# `<<` where go-yaml's merge tag does nothing (a value, an item, explicitly tagged); the merge key itself.
MERGE_TAGGED = [
    "a: <<\n",
    "- <<\n- [<<, x]\n",
    "a: {<<: {b: 1}, c: <<}\n",
    "b: &x {c: 1}\nd: {<<: *x, e: <<}\n",
    "a: !!merge x\n",
    "a: !!merge {b: {c: 2}}\n",
    "a: !!merge [1, <<]\n",
]


@pytest.mark.parametrize("text", MERGE_TAGGED)
def test_the_merge_tag_reads_as_the_go_readers_read_it(text: str) -> None:
    for binary in ("yaml2json", "kyaml2json"):
        done = subprocess.run([str(realcomp_bin(binary))], input=text, capture_output=True, text=True, check=True)
        parsed = parse_text(text, "in.yaml", fast=False)
        assert [d for d in parsed.diagnostics if d.severity == "error" and d.code != Code.NOT_AN_OBJECT] == []
        assert [d.data for d in parsed.documents] == [json.loads(done.stdout)], binary


def test_a_time_in_a_passed_through_config_map_stays_the_string() -> None:
    """`backup-time: 12:30` rendered as 750 (PyYAML's base-60 integers): the user's data changed, exit 0."""
    source = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  backup-time: 12:30\n  ok: yes\n"
    result = run_cli(["render", "-"], stdin=source)
    assert result.exit_code == 0, result.stderr
    assert "backup-time: '12:30'" in result.stdout and "ok: true" in result.stdout
    assert "MXJ009" in result.stderr and "<stdin>:6:7" in result.stderr


KEYS = [
    "1", "-1", "0", "-0", "+1", "1.0", "1e3", "1e6", "0.0001", "0.00001", "-0.0", "1.5", "1e21", "123456.7",
    "1234567.0", "100000.0", "1e-7", "0x10", "010", "0o17", "1_000", ".5", "true", "True", "yes", "off", "abc",
    "12:30", "2001-12-14", "1e400", "'1.0'", '"true"', "'yes'", "16777217.0", "18446744073709551616",
]  # fmt: skip


def _go_keys(binary: str, keys: list[str]) -> list[str]:
    stream = "".join(f"---\n{k}: v\n" for k in keys)
    done = subprocess.run(
        [str(realcomp_bin(binary)), "-inline-errors"], input=stream, capture_output=True, text=True, check=False
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == len(keys), done.stderr[-2000:]
    return [next(iter(line)) if "error" not in line else "<error>" for line in lines]


def test_map_keys_read_as_kubectl_reads_them_and_warn_where_kustomize_differs() -> None:
    """A key is JSON text: sigs.k8s.io/yaml writes a float key with FormatFloat('g', -1, 32), kyaml keeps every
    key as written; where they differ the key is read as kubectl reads it, with an MXJ009 warning."""
    kubectl, kyaml = _go_keys("yaml2json", KEYS), _go_keys("kyaml2json", KEYS)
    for key, go, go3 in zip(KEYS, kubectl, kyaml, strict=True):
        parsed = parse_text(f"{key}: v\n", "in.yaml")
        codes = {str(d.code) for d in parsed.diagnostics}
        assert list(parsed.documents[0].data) == [go], (key, go)
        assert (str(Code.AMBIGUOUS_SCALAR) in codes) == (go != go3), (key, go, go3, codes)


@pytest.mark.parametrize("key", ["~", "null", "Null"])
def test_a_null_key_is_refused_as_both_go_readers_refuse_it(key: str) -> None:
    assert _go_keys("yaml2json", [key]) == _go_keys("kyaml2json", [key]) == ["<error>"]
    parsed = parse_text(f"a: 1\n{key}: v\n", "in.yaml")
    assert [(d.code, d.location.line if d.location else 0) for d in parsed.diagnostics] == [(Code.NOT_JSON, 2)]


@pytest.mark.parametrize("text", ["1: a\n1.0: b\n", "y: a\ntrue: b\n", "1e3: a\n1000: b\n", "a: 1\n'a': 2\n"])
def test_two_spellings_of_one_key_are_a_duplicate_key(text: str) -> None:
    """Keys that kubectl reads as one text: reported (MXJ003) on the second key's line."""
    parsed = parse_text(text, "in.yaml")
    duplicates = [d for d in parsed.diagnostics if d.code == Code.DUPLICATE_KEY]
    assert [d.location.line if d.location else 0 for d in duplicates] == [2], parsed.diagnostics


def test_keys_python_takes_for_one_stay_two() -> None:
    """PyYAML's dict took `1`, `1.0` and `true` for one key and kept one value silently."""
    text = "1: a\ntrue: b\n"
    assert parse_text(text, "in.yaml").documents[0].data == {"1": "a", "true": "b"}
    done = subprocess.run([str(realcomp_bin("yaml2json"))], input=text, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == {"1": "a", "true": "b"}
