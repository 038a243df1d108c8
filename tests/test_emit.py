"""The YAML emitter: whatever it writes, YAML 1.1 (PyYAML, as go-yaml reads) and YAML 1.2 (ruamel) read back."""

from __future__ import annotations

import io
from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from mxjob_gitops.compiler.render.emit import Emitter, quote, to_yaml, write_yaml_stream

_yaml12 = YAML(typ="safe", pure=True)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),
    st.sampled_from(
        [
            "yes",
            "No",
            "on",
            "OFF",
            "y",
            "n",
            "~",
            "null",
            "true",
            "0777",
            "0o17",
            "0x1F",
            "1e3",
            "1_000",
            "1:20",
            ".inf",
            ".5",
            "2021-03-24T15:37:27Z",
            "2021-03-24",
            "=",
            "<<",
            "- a",
            "-",
            "a: b",
            "a #b",
            "#c",
            "x:",
            "'q'",
            '"d"',
            "@at",
            "`tick",
            "%p",
            "!t",
            "&a",
            "*a",
            "|",
            ">",
            "{x}",
            "[y]",
            " lead",
            "trail ",
            "\tlead",
            "multi\nline\n",
            "multi\nline",
            "a\n\nb\n",
            "x\n\n",
            "\x85next",
            "line\u2028sep",
            "\ufeffbom",
            "é ü 中文 😀",
            "--num-epochs",
        ]
    ),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=25,
)


def _load_both(text: str) -> tuple[Any, Any]:
    return yaml.load(text, Loader=yaml.CSafeLoader), _yaml12.load(text)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(max_size=12), json_values, min_size=1, max_size=6))
@example({"-_": None, "_": "+_"})  # ruamel.yaml's YAML 1.2 loader fails on these when plain
def test_round_trip_yaml_1_1_and_1_2(document: dict[str, Any]) -> None:
    text = to_yaml(document)
    loaded_11, loaded_12 = _load_both(text)
    assert loaded_11 == document
    assert loaded_12 == document


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("worker", "worker"),
        ("mxjob/mxnet:gpu", "mxjob/mxnet:gpu"),
        ("0", "'0'"),
        ("9091", "'9091'"),
        ("yes", "'yes'"),
        ("y", "'y'"),
        ("", "''"),
        ("it's", "'it''s'"),
        ("a: b", "'a: b'"),
        ("Force=true,Replace=true", "Force=true,Replace=true"),
        ("--gpus", "--gpus"),
        ("-", "'-'"),
        ("_", "'_'"),
        ("-_", "'-_'"),
        ("+_1", "'+_1'"),
        ("_a", "_a"),
        ("tab\there", "'tab\there'"),
        ("bell\x07", '"bell\\u0007"'),
        ("nel\x85", '"nel\\u0085"'),
    ],
)
def test_quoting(text: str, expected: str) -> None:
    assert quote(text) == expected


def test_multi_line_strings_are_literal_blocks() -> None:
    text = to_yaml({"args": ["set -e\necho hi\n"], "script": "a\n\nb"})
    assert text == "args:\n- |\n  set -e\n  echo hi\nscript: |-\n  a\n\n  b\n"


def test_key_order_is_canonical() -> None:
    text = to_yaml(
        {"spec": {"b": 1, "a": 2}, "kind": "Pod", "metadata": {"labels": {}, "name": "p"}, "apiVersion": "v1"}
    )
    assert text == "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {}\nspec:\n  a: 2\n  b: 1\n"


def test_stream_separators() -> None:
    out = io.StringIO()
    assert write_yaml_stream([{"a": 1}, {"b": 2}], out) == 2
    assert out.getvalue() == "a: 1\n---\nb: 2\n"


@settings(max_examples=300)
@given(st.text(min_size=1, max_size=5), st.integers(min_value=200, max_value=400), st.text(max_size=20))
def test_announced_prefix_never_changes_quoting(unit: str, repeat: int, tail: str) -> None:
    prefix = (unit * repeat)[: repeat + 60]
    emitter = Emitter()
    emitter.expect_prefix(prefix)
    for text in (prefix + tail, tail + prefix, prefix[:-1] + tail):
        assert emitter.quote(text) == quote(text)


def test_announced_prefix_is_used_only_when_it_forces_quotes() -> None:
    emitter = Emitter()
    emitter.expect_prefix("a" * 300)
    assert emitter.quote("a" * 300 + "b") == "a" * 300 + "b"
    emitter.expect_prefix("{" + "it's," * 100)
    assert emitter.quote("{" + "it's," * 100 + "x}") == "'{" + "it''s," * 100 + "x}'"
    assert emitter.quote("{" + "it's," * 100 + "\x00") == quote("{" + "it's," * 100 + "\x00")


def test_mx_config_prefix_equals_generic_quoting() -> None:
    from mxjob_gitops.compiler import RenderOptions, compile_job
    from tests.helpers import job, replica

    rendering = compile_job(job(name="h", Scheduler=replica(1), Server=replica(1), Worker=replica(30)), RenderOptions())
    emitter = Emitter()
    hinted = [emitter.to_yaml(m) for m in rendering.manifests(emitter.expect_prefix)]
    assert emitter._prefix is not None
    assert hinted == [to_yaml(m) for m in rendering.manifests()]


def test_a_document_is_written_the_same_whatever_one_emitter_wrote_before() -> None:
    """The emitter remembers quoted keys and values; a key that equals a multi-line value must not make that
    value quoted where a literal block is due (one Emitter writes a whole stream)."""
    later = {"kind": "ConfigMap", "data": {"script": "echo a\necho b\n", "x": "a: b", "y": "0"}}
    earlier = {"kind": "ConfigMap", "data": {"echo a\necho b\n": "x", "a: b": "0"}}
    emitter = Emitter()
    emitter.to_yaml(earlier)
    assert emitter.to_yaml(later) == to_yaml(later)
    assert "script: |\n" in to_yaml(later)


# A small pool, so that keys and values of different documents often coincide (multi-line ones included).
_POOL = st.sampled_from(["a\nb", "a\nb\n", " a\nb", "a \nb", "x: y", "0", "a", "yes", "", "-"]) | st.text(max_size=4)
_POOLED = st.recursive(
    _POOL | st.integers(-2, 2) | st.none(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_POOL, children, max_size=3),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.dictionaries(_POOL, _POOLED, min_size=1, max_size=4), min_size=2, max_size=4))
def test_one_emitter_for_a_stream_writes_each_document_as_a_fresh_one_would(documents: list[dict[str, Any]]) -> None:
    emitter = Emitter()
    assert [emitter.to_yaml(d) for d in documents] == [to_yaml(d) for d in documents]


LONG_KEYS = st.builds(lambda unit, n, tail: unit * n + tail, st.sampled_from(["k", "é", "a: ", "'", "😀", "\x07"]),
                      st.integers(300, 1400), st.text(max_size=5))  # fmt: skip
LONG_DOCUMENTS = st.recursive(
    st.dictionaries(LONG_KEYS | st.text(max_size=8), scalars, min_size=1, max_size=3),
    lambda children: st.dictionaries(
        LONG_KEYS | st.text(max_size=8), children | st.lists(children, max_size=2), max_size=3
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(LONG_DOCUMENTS)
def test_keys_longer_than_a_simple_key_round_trip(document: dict[str, Any]) -> None:
    """A key past YAML's 1024-character implicit-key limit is written as an explicit `? key`: PyYAML (YAML 1.1) and
    ruamel.yaml (1.2) read it back."""
    text = to_yaml(document)
    loaded_11, loaded_12 = _load_both(text)
    assert loaded_11 == document
    assert loaded_12 == document


@pytest.mark.parametrize("reader", ["yaml2json", "kyaml2json"])
def test_long_keys_read_back_by_kubectls_and_kustomizes_readers(reader: str) -> None:
    """The same through sigs.k8s.io/yaml (kubectl, Argo CD) and kyaml (kustomize, Flux), built from source."""
    import json
    import subprocess

    from tests.realcomp import realcomp_bin

    key = "annotation.example.com/" + "k" * 1500
    document = {
        "metadata": {"annotations": {key: "v", "short": "s"}},
        "data": {key: {"nested": [1, {key: "x"}]}, "list": [{key: "y", "z": {}}]},
        key: [],
    }
    done = subprocess.run([realcomp_bin(reader)], input=to_yaml(document).encode(), capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout) == document


def test_render_passes_a_long_key_through_readably() -> None:
    from tests.conftest import run_cli

    key = "x" * 1100
    header = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n"
    source = f"{header}  ? {key}\n  : 1\n  ? {key}y\n  : [2]\n"
    result = run_cli(["render", "-"], stdin=source)
    assert result.exit_code == 0, result.stderr
    assert yaml.safe_load(result.stdout)["spec"] == {key: 1, key + "y": [2]}
