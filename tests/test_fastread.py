"""The native-speed reader (compiler/read/fastread.py) against the exact one and the Go readers.

Wherever compiler.fastread reads a text, its documents, their indexes and start positions, and every diagnostic
must be the exact reader's (compiler.source with fast=False); where it cannot vouch for a text it refuses it and
the exact reader reads it. Checked on a table of the cases that tell them apart, on generated documents in
every scalar and collection style, on every example, golden input, corpus file and their renderings, and on
texts with random edits (syntax errors rapidYAML would accept). What it accepts is also read by realcomp's
yaml2json (sigs.k8s.io/yaml: kubectl, Argo CD) to the same values.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler import RenderOptions, compile_documents
from mxjob_gitops.compiler.base.diagnostics import Code
from mxjob_gitops.compiler.base.run import new_run
from mxjob_gitops.compiler.read import fastread, source
from mxjob_gitops.compiler.read.source import parse_text
from mxjob_gitops.compiler.render.emit import to_yaml
from tests.conftest import JOB_EXAMPLE_FILES, REPO, run_cli
from tests.realcomp import realcomp_bin
from tests.yamlgen import yaml_block

INPUTS = sorted(
    {
        *JOB_EXAMPLE_FILES,
        *(REPO / "tests" / "golden").glob("*/input.yaml"),
        *(REPO / "tests" / "corpus").glob("*.yaml"),
    }
)


def _typed(value: Any) -> Any:
    """The value with every scalar's type made part of it (1, 1.0 and True differ)."""
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return (type(value).__name__, value)


def _agree(text: str) -> bool:
    """Whether the fast reader read the text; when it did, it must read it exactly as the exact reader."""
    fast = fastread.read_documents(text)
    if fast is None:
        return False
    exact = parse_text(text, "t.yaml", fast=False)
    assert [d.code for d in exact.diagnostics if d.code != Code.NOT_AN_OBJECT] == [], (text, exact.diagnostics)
    loaded = [(fastread.load(json), start) for json, start, _floats, _vouched in fast]
    kept = [(index, data, start) for index, (data, start) in enumerate(loaded) if data is not None]
    assert [_typed(data) for _index, data, _start in kept] == [_typed(d.data) for d in exact.documents], text
    assert [(index, start) for index, _data, start in kept] == [(d.index, d.start) for d in exact.documents], text
    return True


@pytest.fixture()
def always_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source, "FAST_READ_MIN_CHARS", 0)


def _same_parse(text: str) -> None:
    """parse_text with the fast reader (on any size, see always_fast) equals parse_text without it."""
    fast, exact = parse_text(text, "in.yaml"), parse_text(text, "in.yaml", fast=False)
    assert fast.diagnostics == exact.diagnostics, text
    assert [(d.index, d.start, _typed(d.data)) for d in fast.documents] == [
        (d.index, d.start, _typed(d.data)) for d in exact.documents
    ], text
    streamed = source.ParseStream(text, "in.yaml")  # as a render reads: values made in turn from JSON text
    documents = list(streamed)
    assert streamed.diagnostics == exact.diagnostics, text
    if not streamed.discard:
        assert [(d.index, d.start, _typed(d.data)) for d in documents] == [
            (d.index, d.start, _typed(d.data)) for d in exact.documents
        ], text


ACCEPTED = [
    "a: 1\nb: '1'\nc: \"0\"\nd: 1.5\ne: -0\nf: 1e3\ng: .5\nh: 1.\ni: true\nj: null\nk:\n",
    "---\na: [1, '2', {b: c}]\n---\n# only a comment\n---\n- x\n- |\n  literal\n  text\n- >-\n  folded\n  text\n",
    "a: 12:30\nb: '2001-12-14'\nc: 1_0x\nd: 99999999999999999999999\ne: 18446744073709551615\n",
    "f: -9223372036854775809\ng: 1e-400\n",
    "'1': x\n\"true\": x2\n'~': x3\n'<<': x4\n2: x5\nfalse: x6\n'null': x7\n-3: x8\n",
    "a: 'it''s'\nb: \"\\u00e9\\n\"\nc: é\nd: x #comment\ne: x#y\nf: a\n  b\n",
    "--- |\n  a root scalar\n---\n--- \n  # comment\n  a: 1\n",
    '{"a": [1, "2", {"b": null}], "c": 1.5e3, "d": true}\n',  # JSON, as .json inputs and KRM input hold it
    '{"a":1,"b":"x"}',
]
REFUSED = [
    "a: &x 1\nb: *x\n",  # anchors and aliases
    "a: !!str 1\n",  # tags
    "a: b\na: c\n",  # duplicate keys: MXJ003
    "<<: {a: 1}\n",  # merge key
    "a: yes\n",  # read as a boolean with a warning (MXJ009)
    "a: 2001-12-14\n",  # a timestamp: a warning (kyaml rewrites it)
    "a: ~\n",
    "a: Null\n",
    "a: 0x1F\n",
    "a: 010\n",
    "a: +1\n",
    "a: 1_000\n",
    "a: inf\n",  # rapidyaml writes the string ".inf"
    "a: .inf\n",
    "a: 1e400\n",
    'a: ""\nb:\n',
    "yes: 1\n",
    "null: 1\n",
    "1e3: x\n",
    "0x10: x\n",
    "'1': a\n1: b\n",
    "a:\tb\n",  # rapidyaml reads a tab after `:` as part of a scalar
    "a: @x\n",  # reserved indicators: libyaml refuses them, rapidyaml does not
    "a: `x\n",
    "a: x\n...\n",
    "%YAML 1.1\n---\na: 1\n",
    "a: 1\r\n",
    "a: \x01\n",
    "? a\n: b\n",
    '{"a": 1, "a": 2}',
    # Values rapidyaml reads otherwise than libyaml and Go (found by a hostile review): a line of blanks before a
    # flow collection's end (`"train\n"` for `"train"`), escaped line breaks, block scalar indentation indicators.
    "a: {k: train\n  \n }\n",
    "a:\n  x: {k: train,\n   \n   j: x\n  }\n",
    'a: "x\\\n  y"\n',
    "a: >1+\n   x\n  y\n\n",
    "a: |2-\n     x\n    y\n",
    "a: [x,\n  \n  y]\n",
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_the_fast_reader_reads_these_exactly(text: str) -> None:
    assert _agree(text)


@pytest.mark.parametrize("text", REFUSED)
def test_the_fast_reader_leaves_these_to_the_exact_one(text: str) -> None:
    assert not _agree(text)


@pytest.mark.parametrize("text", ["a: [1, 2\nb: 3\n", "a: b: c\n", "a:\n  - 1\n b: 2\n", "a: 'x\n"])
def test_a_syntax_error_is_the_exact_readers_and_rapidyaml_prints_nothing(
    text: str, always_fast: None, capfd: pytest.CaptureFixture[str]
) -> None:
    _same_parse(text)
    assert parse_text(text, "in.yaml").diagnostics[0].code == Code.YAML_SYNTAX
    assert capfd.readouterr().err == ""


def _inputs_and_renderings() -> Iterator[tuple[str, str]]:
    for path in INPUTS:
        text = path.read_text(encoding="utf-8")
        yield path.name, text
        parsed = parse_text(text, path.name, fast=False)
        plan = compile_documents(parsed.documents, RenderOptions())
        if plan.ok and not parsed.diagnostics:
            yield path.name + " rendered", "".join("---\n" + to_yaml(m) for m in plan.manifests())


def test_every_example_golden_and_corpus_input_and_rendering(always_fast: None) -> None:
    read = 0
    for _name, text in _inputs_and_renderings():
        _same_parse(text)
        read += _agree(text)
    assert read >= 40  # the fast reader is used, not refused everywhere


def test_a_large_stream_is_read_fast_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "".join(f"---\nname: job-{i}\nindex: '{i}'\nreplicas: {i}\n" for i in range(20_000))
    assert len(text) >= fastread.FAST_READ_MIN_CHARS
    calls: list[int] = []
    read = fastread.read_documents

    def counted(text: str, **options: Any) -> Any:
        calls.append(1)
        return read(text, **options)

    monkeypatch.setattr(source, "read_documents", counted)
    _same_parse(text)
    assert calls == [1, 1] and read(text) is not None  # parse_text and the streamed read


def test_limits_hold_on_the_fast_path(always_fast: None) -> None:
    deep = "a:\n" + "".join("  " * level + "- \n" for level in range(1, 210)).replace("- \n", "-\n")
    nested = "a: " + "[" * 201 + "]" * 201 + "\n"
    for text in (deep, nested):
        assert fastread.read_documents(text) is None
        found = parse_text(text, "in.yaml").diagnostics
        assert found and found[0].code in (Code.LIMIT_EXCEEDED, Code.YAML_SYNTAX)
        _same_parse(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(yaml_block(), min_size=1, max_size=3))
def test_generated_documents_read_alike(documents: list[str]) -> None:
    text = "".join(f"---\n{document}\n" for document in documents)
    fast = fastread.read_documents(text)
    exact = parse_text(text, "t.yaml", fast=False)
    if fast is not None:
        _agree(text)
    else:
        assert exact.documents or exact.diagnostics or not text.strip()


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_edited_texts_read_alike(data: st.DataObject) -> None:
    """Random edits of real inputs: whatever rapidYAML accepts that libyaml refuses must be refused."""
    _name, text = data.draw(st.sampled_from(_EDITABLE))
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        edit = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        char = data.draw(st.sampled_from(list(" \n-:'\"[]{},#|>a1&*!?%.")))
        text = text[:at] + (char if edit != "delete" else "") + text[at + (edit != "insert") :]
    if fastread.read_documents(text) is not None:
        _agree(text)


_EDITABLE = [(name, text) for name, text in _inputs_and_renderings() if len(text) < 20_000][:40]


def _go_values(texts: list[str]) -> list[Any]:
    stream = "".join(f"---\n{text}\n" for text in texts)
    done = subprocess.run(
        [str(realcomp_bin("yaml2json")), "-inline-errors"], input=stream, capture_output=True, text=True, check=False
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def _same_value(ours: Any, go: Any) -> bool:
    if isinstance(ours, dict):
        return isinstance(go, dict) and ours.keys() == go.keys() and all(_same_value(ours[k], go[k]) for k in ours)
    if isinstance(ours, list):
        return isinstance(go, list) and len(ours) == len(go) and all(map(_same_value, ours, go))
    if isinstance(ours, bool) or ours is None or isinstance(ours, str):
        return ours == go and type(ours) is type(go)
    return isinstance(go, (int, float)) and not isinstance(go, bool) and math.isclose(ours, go, rel_tol=1e-15)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(yaml_block(), min_size=30, max_size=30))
def test_what_the_fast_reader_reads_kubectl_reads_alike(documents: list[str]) -> None:
    read = [
        (d, fastread.load(fast[0][0]))
        for d in documents
        if (fast := fastread.read_documents(f"---\n{d}\n")) and len(fast) == 1
    ]
    if not read:
        return
    go = _go_values([document for document, _ in read])
    assert len(go) == len(read)
    for (document, ours), theirs in zip(read, go, strict=True):
        assert _same_value(ours, theirs), (document, ours, theirs)


def test_examples_read_fast_as_kubectl_reads_them() -> None:
    texts = [t for _n, t in _inputs_and_renderings() if (fast := fastread.read_documents(t)) and len(fast) == 1]
    values = [fastread.load(fastread.read_documents(t)[0][0]) for t in texts]  # type: ignore[index]
    go = _go_values(texts)
    assert len(go) == len(values) >= 10
    for text, ours, theirs in zip(texts, values, go, strict=True):
        assert _same_value(ours, theirs), text[:200]


def test_the_fast_path_is_not_imported_for_small_inputs() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from mxjob_gitops.compiler.read.source import parse_text; parse_text('a: 1\\n', 'x'); "
            "print('ryml' in sys.modules, 'orjson' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parent.parent,
    )
    assert done.stdout.split() == ["False", "False"]


def test_a_float_in_a_large_rendered_stream_is_still_refused(tmp_path: Path) -> None:
    """validate skips the walk for floats of documents the fast reader saw none in; the one with a float is
    still judged (`port: 80.0` is not an integer for the API server)."""
    maps = "".join(
        f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  k: '{i}'\n" for i in range(6000)
    )
    service = "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports:\n  - port: 80.0\n"
    path = tmp_path / "rendered.yaml"
    path.write_text(maps + service, encoding="utf-8")
    assert path.stat().st_size >= fastread.FAST_READ_MIN_CHARS and fastread.read_documents(path.read_text())
    result = run_cli(["validate", str(path)])
    assert result.exit_code == 1 and "1 invalid" in result.stderr + result.stdout, result.stderr[-2000:]


def test_once_a_run_has_read_much_small_texts_are_read_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    read = fastread.read_documents

    def counted(text: str, **options: Any) -> Any:
        calls.append(text)
        return read(text, **options)

    monkeypatch.setattr(source, "read_documents", counted)
    try:
        new_run()
        parse_text("a: 1\n", "x.yaml")
        assert calls == []
        new_run().input_bytes = fastread.FAST_READ_MIN_CHARS
        parse_text("a: 1\n", "x.yaml")
        assert calls == ["a: 1\n"]
    finally:
        new_run()


def test_the_command_line_silences_descriptor_2_around_native_parses(capfd: pytest.CaptureFixture[str]) -> None:
    """What rapidyaml would print on descriptor 2 inside the guard the CLI installs is dropped; after it, writes
    reach stderr again."""
    import os

    from mxjob_gitops.compiler.io.runcontext import command_run

    with command_run().native_guard():
        os.write(2, b"native parse error\n")
    os.write(2, b"after\n")
    assert capfd.readouterr().err == "after\n"


@st.composite
def _multiline_flow(draw: st.DrawFn) -> str:
    """A flow collection or quoted scalar spread over lines, with blank lines, lines of blanks, escaped line
    breaks and comments between its parts: where a reader's folding shows."""
    blank = st.sampled_from(["", " ", "  ", "   "])
    items = draw(st.lists(st.sampled_from(["train", "'q r'", '"s\\\nt"', "1", "x y", "a: b", "[c]"]), min_size=1))
    parts = []
    for item in items:
        parts.append(item)
        parts.extend(draw(st.lists(blank, max_size=2)))
    opener, closer = draw(st.sampled_from([("{k: ", "}"), ("[", "]"), ('"', '"'), ("'", "'")]))
    separator = ",\n" if opener in ("[", "{k: ") else "\n"
    body = separator.join(parts) if opener == "[" else "\n".join(parts)
    return f"a: {opener}{body}\n{draw(blank)}{closer}\n"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_multiline_flow())
def test_multi_line_values_read_alike(text: str) -> None:
    """Whatever the fast reader accepts of a value spread over lines, it reads as the exact reader does."""
    if fastread.read_documents(text) is not None:
        _agree(text)


def test_equal_string_values_of_a_fast_read_are_one_object(always_fast: None) -> None:
    """A rendering repeats a few thousand strings hundreds of thousands of times: the fast reader keeps one object
    per distinct value (in mappings and in lists, across documents), so that a large stream's values cost their
    distinct texts once (validate's peak memory, docs/performance.md)."""
    text = "".join(f"---\nimage: mxnet:1.9\nargs: [--kv-store, dist_sync, job-{i}]\nname: job-{i}\n" for i in range(3))
    documents = [d.data for d in parse_text(text, "in.yaml").documents]
    images = [d["image"] for d in documents]
    flags = [d["args"][0] for d in documents] + [d["args"][1] for d in documents]
    assert images == ["mxnet:1.9"] * 3 and all(image is images[0] for image in images)
    assert all(flag is flags[0] for flag in flags[:3]) and all(flag is flags[3] for flag in flags[3:])
    assert documents[0]["name"] is not documents[1]["name"]  # different texts stay apart
    assert [d.data for d in parse_text(text, "in.yaml", fast=False).documents] == documents
