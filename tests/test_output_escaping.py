"""Hostile file and object names through every printer, each output read back by a real parser of its format:
xml.etree for JUnit, a TAP 14 test-point parser, the GitHub Actions runner's two workflow-command rules,
markdown-it (CommonMark + GFM tables) for the PR comment, json for JSON, and a control/bidi scan for the
terminal (compiler/base/escape.py)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.base import escape
from tests.conftest import run_cli

HOSTILE_NAMES = [
    "a\n::error file=x.yaml,line=1::pwned.yaml",
    "b # TODO c.yaml",
    "c\ufffe\x1b[31m\u202eevil.yaml",
    "d ##[error]legacy.yaml",
    "  ::warning::lead.yaml",
    "e\r::notice::cr.yaml",
]
BODY = """apiVersion: v1
kind: ConfigMap
metadata:
  name: "x\\u202e::warning::y\\ufffe"
data: 5
"""
# actions/runner src/Runner.Worker/ActionCommandManager.cs registers these; any of them in a line is run.
RUNNER_COMMANDS = {
    "error", "warning", "notice", "debug", "group", "endgroup", "add-mask", "add-matcher", "remove-matcher",
    "stop-commands", "set-output", "set-env", "add-path", "save-state", "echo",
}  # fmt: skip
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff]")


def workflow_commands(output: str) -> list[tuple[str, str]]:
    """The commands the runner would run from `output`: its ActionCommand.TryParseV2 (`::name props::data` after
    leading blanks) and TryParse (`##[name props]data` anywhere in a line), read line by line as it reads."""
    found = []
    for line in re.split(r"\r\n|\r|\n", output):
        trimmed = line.lstrip()
        if trimmed.startswith("::") and (end := trimmed.find("::", 2)) >= 0:
            name = trimmed[2:end].split(" ", 1)[0]
            if name in RUNNER_COMMANDS:
                found.append((name, trimmed[2:end]))
        if (start := line.find("##[")) >= 0 and (close := line.find("]", start)) >= 0:
            name = line[start + 3 : close].split(" ", 1)[0]
            if name in RUNNER_COMMANDS:
                found.append(("legacy " + name, line))
    return found


TEST_POINT = re.compile(r"(?P<ok>not ok|ok)\b(?: (?P<number>\d+))?(?: -)?(?P<rest>.*)")


def tap_points(output: str) -> list[tuple[bool, str | None]]:
    """TAP 14 test points as (ok, directive): the directive follows the first `#` not escaped by `\\`
    (testanything.org tap-version-14-specification, "Directives" and "Escaping")."""
    points = []
    for line in output.splitlines():
        assert line == "" or line.startswith(("TAP version", "1..", "ok", "not ok", "  ")), repr(line)
        match = TEST_POINT.fullmatch(line)
        if match is None:
            continue
        rest, directive, i = match.group("rest"), None, 0
        while i < len(rest):
            if rest[i] == "\\":
                i += 2
                continue
            if rest[i] == "#":
                word = re.match(r"\s*(todo|skip)", rest[i + 1 :], re.IGNORECASE)
                directive = word.group(1).upper() if word else None
                break
            i += 1
        points.append((match.group("ok") == "ok", directive))
    return points


@pytest.fixture
def hostile_dir(tmp_path: Path) -> Path:
    for name in HOSTILE_NAMES:
        (tmp_path / name).write_text(BODY, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "tap", "github"])
def test_validate_reporters_escape_hostile_names(hostile_dir: Path, fmt: str) -> None:
    result = run_cli(["validate", "--format", fmt, str(hostile_dir)])
    assert result.exit_code == 1, result.stderr
    assert not UNSAFE.search(result.stdout + result.stderr)
    assert workflow_commands(result.stderr) == []
    commands = workflow_commands(result.stdout)
    if fmt == "github":  # exactly one annotation per file, none smuggled in by a name
        assert [name for name, _ in commands] == ["error"] * len(HOSTILE_NAMES), commands
    else:
        assert commands == []
    if fmt == "junit":
        suite = ET.fromstring(result.stdout.encode())
        assert int(suite.get("failures") or 0) == len(HOSTILE_NAMES)
    if fmt == "json":
        assert json.loads(result.stdout)["summary"]["inputErrors"] == len(HOSTILE_NAMES)
    if fmt == "tap":
        points = tap_points(result.stdout)
        assert points == [(False, None)] * len(HOSTILE_NAMES)  # no `# TODO` turns a failure into a pass
    if fmt == "text":
        assert len(result.stdout.splitlines()) == len(HOSTILE_NAMES) + 1  # one line per problem, and the summary


def test_error_lines_on_stderr_are_escaped(tmp_path: Path) -> None:
    missing = tmp_path / "a\n::error::injected\n##[warning]x"
    result = run_cli(["validate", str(missing)])
    assert result.exit_code == 2
    assert workflow_commands(result.stderr) == [] and len(result.stderr.splitlines()) == 1


def test_markdown_comment_has_no_injected_markup(tmp_path: Path) -> None:
    from markdown_it import MarkdownIt

    hostile = "`</code></summary><img src=x>|*b*[l](http://e)"
    old = tmp_path / f"old{hostile.replace('/', '')}.yaml"
    new = tmp_path / "new<\\details>.yaml"
    config = "apiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: ml\ndata:\n  k: {value}\n"
    old.write_text(config.format(kind="ConfigMap", name="x", value='"a"'), encoding="utf-8")
    value = json.dumps(f"```\n</details><img src=y>\u202e{hostile}")  # names and kinds are validated; values not
    new.write_text(config.format(kind="ConfigMap", name="x", value=value), encoding="utf-8")
    result = run_cli(["diff", "--format", "markdown", str(old), str(new)])
    assert result.exit_code == 1, result.stderr
    assert not UNSAFE.search(result.stdout)
    tokens = MarkdownIt("commonmark").enable("table").parse(result.stdout)
    inline = [child for token in tokens for child in (token.children or [])]
    html = [t.content for t in (*tokens, *inline) if t.type in ("html_inline", "html_block")]
    allowed = re.compile(r"\s*(</?details>|<summary>|</summary>|</?code>)+\s*", re.DOTALL)
    assert all(allowed.fullmatch(re.sub(r"(?<=<summary>)[^<]*|(?<=<code>)[^<]*", "", h)) for h in html), html
    assert not any(t.type in ("image", "link_open") for t in inline)
    assert sum(t.type == "fence" for t in tokens) == 1


TEXT = st.text(st.characters() | st.sampled_from("\n\r\x1b\u202e\udcff#:[`|"))


@settings(max_examples=300)
@given(TEXT)
def test_each_escape_leaves_nothing_its_format_reads(text: str) -> None:
    line = escape.terminal(text)
    assert "\n" not in line and "\r" not in line and not UNSAFE.search(line)
    assert workflow_commands(line) == [] and workflow_commands("::error::" + escape.github_data(text)) == [
        ("error", "error")
    ]
    assert tap_points(f"not ok 1 - {escape.tap_description(text)}") == [(False, None)]
    ET.fromstring(f"<a b='{escape.xml_text(text).replace('&', '&amp;').replace('<', '&lt;').replace(chr(39), '')}'/>")
    assert escape.terminal(line) == line  # idempotent: printing an escaped string again changes nothing


COMMAND_TEXT = st.lists(
    st.sampled_from(["::error::x", "  ::add-mask::s", "##[warning]y", "a", "\n", " ", "##[", "::", "\t::debug::z"]),
    max_size=6,
).map("".join)


@settings(max_examples=200)
@given(st.dictionaries(COMMAND_TEXT, COMMAND_TEXT | st.lists(COMMAND_TEXT, max_size=3), min_size=1, max_size=4))
def test_yaml_output_holds_no_workflow_command(document: dict[str, object]) -> None:
    """Manifests printed to a CI log (`mxjob render`, `convert`) hold no line the runner would run: a value with
    such a line is double-quoted on one line, and `##[` is written `##\\u005b`; every reader gets the value back."""
    import yaml

    from mxjob_gitops.compiler.render.emit import to_yaml

    text = to_yaml(document)
    assert workflow_commands(text) == []
    assert yaml.safe_load(text) == document


def test_render_prints_no_workflow_command(tmp_path: Path) -> None:
    source = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: ml\ndata:\n"
        '  run: "echo\\n::error file=a,line=1::injected\\n"\n  legacy: "x ##[set-output name=a]b"\n'
    )
    result = run_cli(["render", "-"], stdin=source)
    assert result.exit_code == 0, result.stderr
    assert workflow_commands(result.stdout) == []
