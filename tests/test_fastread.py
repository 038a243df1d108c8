"""The native-speed reader (compiler/read/fastread.py) against the Go readers, and where it is used.

What it accepts is read by realcomp's yaml2json (sigs.k8s.io/yaml: kubectl, Argo CD) to the same values; it
refuses what nests over the limits, prints nothing of its own, and is imported only for large inputs. That it
reads what the exact reader reads, or refuses the text, is tests/test_exact_mode.py's (with the inputs of
tests/exact_inputs.py, through the command line).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.base.diagnostics import Code
from mxjob_gitops.compiler.base.run import Run
from mxjob_gitops.compiler.read import fastread, source
from mxjob_gitops.compiler.read.source import parse_text
from tests.conftest import run_cli
from tests.exact_inputs import inputs_and_renderings
from tests.realcomp import realcomp_bin
from tests.yamlgen import yaml_block


@pytest.mark.parametrize("text", ["a: [1, 2\nb: 3\n", "a: b: c\n", "a:\n  - 1\n b: 2\n", "a: 'x\n"])
def test_a_syntax_error_is_the_exact_readers_and_rapidyaml_prints_nothing(
    text: str, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(source, "FAST_READ_MIN_CHARS", 0)
    assert parse_text(text, "in.yaml").diagnostics[0].code == Code.YAML_SYNTAX
    assert capfd.readouterr().err == ""


def test_limits_hold_on_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source, "FAST_READ_MIN_CHARS", 0)
    deep = "a:\n" + "".join("  " * level + "- \n" for level in range(1, 210)).replace("- \n", "-\n")
    nested = "a: " + "[" * 201 + "]" * 201 + "\n"
    for text in (deep, nested):
        assert fastread.read_documents(text) is None
        found = parse_text(text, "in.yaml").diagnostics
        assert found and found[0].code in (Code.LIMIT_EXCEEDED, Code.YAML_SYNTAX)


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
    texts = [t for _n, t in inputs_and_renderings() if (fast := fastread.read_documents(t)) and len(fast) == 1]
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
    parse_text("a: 1\n", "x.yaml", run=Run())
    assert calls == []
    much = Run()
    much.budget.input_bytes = fastread.FAST_READ_MIN_CHARS
    parse_text("a: 1\n", "x.yaml", run=much)
    assert calls == ["a: 1\n"]


def test_the_command_line_silences_descriptor_2_around_native_parses(capfd: pytest.CaptureFixture[str]) -> None:
    """What rapidyaml would print on descriptor 2 inside the guard the CLI installs is dropped; after it, writes
    reach stderr again."""
    import os

    from mxjob_gitops.compiler.io.runcontext import command_run

    with command_run().native_guard():
        os.write(2, b"native parse error\n")
    os.write(2, b"after\n")
    assert capfd.readouterr().err == "after\n"


def test_equal_string_values_of_a_fast_read_are_one_object(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rendering repeats a few thousand strings hundreds of thousands of times: the fast reader keeps one object
    per distinct value (in mappings and in lists, across documents), so that a large stream's values cost their
    distinct texts once (validate's peak memory, docs/performance.md)."""
    monkeypatch.setattr(source, "FAST_READ_MIN_CHARS", 0)
    text = "".join(f"---\nimage: mxnet:1.9\nargs: [--kv-store, dist_sync, job-{i}]\nname: job-{i}\n" for i in range(3))
    documents = [d.data for d in parse_text(text, "in.yaml").documents]
    images = [d["image"] for d in documents]
    flags = [d["args"][0] for d in documents] + [d["args"][1] for d in documents]
    assert images == ["mxnet:1.9"] * 3 and all(image is images[0] for image in images)
    assert all(flag is flags[0] for flag in flags[:3]) and all(flag is flags[3] for flag in flags[3:])
    assert documents[0]["name"] is not documents[1]["name"]  # different texts stay apart
    assert [d.data for d in parse_text(text, "in.yaml", fast=False).documents] == documents
