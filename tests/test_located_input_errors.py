"""Every diagnostic has file:line:col, the reader's own refusals included: a NUL or another control character (the
reader used to say `in "<unicode string>", position 64`) and a byte that is not UTF-8 (located from its byte
offset), through every command that reads input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.helpers import git, init_repo

HEAD = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n"
CASES = {
    "NUL in a quoted string": (HEAD + b'  a: "b\x00c"\n', 6, 8, "U+0000"),
    "a control character": (HEAD + b"  a: b\x01c\n", 6, 7, "U+0001"),
    "ESC": (HEAD + b"  a: \x1b[31m\n", 6, 6, "U+001B"),
    "a byte that is not UTF-8": (HEAD + b"  a: b\xffc\n", 6, 7, "byte 0xFF at byte offset 63"),
    "a truncated sequence after other text": ("  é: ü\n".encode() * 3 + b"  b: \xc3\n", 4, 6, "byte 0xC3"),
    "a BOM then bad UTF-8": (b"\xef\xbb\xbf" + HEAD + b"  a: \x80\n", 6, 6, "byte 0x80 at byte offset 65"),
}


def _located(text: str, file: str, line: int, column: int) -> bool:
    return re.search(rf"(^|\s){re.escape(file)}:{line}:{column}: error MXJ001", text, re.MULTILINE) is not None


@pytest.mark.parametrize(("data", "line", "column", "what"), CASES.values(), ids=CASES.keys())
@pytest.mark.parametrize("command", ["render", "validate", "convert", "convert --in-place", "diff"])
def test_reader_refusals_are_located(
    tmp_path: Path, data: bytes, line: int, column: int, what: str, command: str
) -> None:
    (tmp_path / "f.yaml").write_bytes(data)
    args = [*command.split(), "f.yaml", *(["f.yaml"] if command == "diff" else [])]
    result = run_cli(args, cwd=tmp_path)
    assert result.exit_code in (1, 2)
    said = result.stdout if command == "validate" else result.stderr
    assert _located(said, "f.yaml", line, column), said
    assert what in said and "<unicode string>" not in said


@pytest.mark.parametrize(("data", "line", "column", "what"), CASES.values(), ids=CASES.keys())
def test_krm_locates_them_on_stdin(data: bytes, line: int, column: int, what: str) -> None:
    result = run_cli(["krm"], stdin=data)
    assert result.exit_code == 1
    assert f"<stdin>:{line}:{column}: MXJ001: " in result.stdout and what in result.stdout, result.stdout


@pytest.mark.parametrize(("data", "line", "column", "what"), CASES.values(), ids=CASES.keys())
def test_git_revisions_locate_them(tmp_path: Path, data: bytes, line: int, column: int, what: str) -> None:
    init_repo(tmp_path)
    (tmp_path / "f.yaml").write_bytes(data)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "bad")
    (tmp_path / "f.yaml").write_text(json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}))
    result = run_cli(["diff", "--base", "HEAD", "f.yaml"], cwd=tmp_path)
    assert result.exit_code == 2
    assert f"HEAD:f.yaml:{line}:{column}: " in result.stderr and what in result.stderr, result.stderr
