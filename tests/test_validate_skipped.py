"""validate names every object no schema checks (kind, name, file:line) in every format, and
--reject-missing-schemas makes them errors, as kubeconform's default does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

WIDGET = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n"
    "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec: {}\n"
)


@pytest.mark.parametrize(
    ("fmt", "named"),
    [
        ("text", "widgets.yaml:5:1: info MXJ010: Widget/w (example.com/v1) was not checked"),
        ("github", "::notice file=widgets.yaml,line=5,col=1,title=mxjob MXJ010::Widget/w (example.com/v1)"),
        ("tap", "# SKIP no schema for"),
        ("junit", "no schema for example.com/v1 Widget"),
    ],
)
def test_a_skipped_object_is_named(tmp_path: Path, fmt: str, named: str) -> None:
    (tmp_path / "widgets.yaml").write_text(WIDGET, encoding="utf-8")
    result = run_cli(["validate", "--format", fmt, "widgets.yaml"], cwd=tmp_path)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert named in result.stdout, result.stdout
    rejected = run_cli(["validate", "--reject-missing-schemas", "--format", fmt, "widgets.yaml"], cwd=tmp_path)
    assert rejected.exit_code == 1, rejected.stdout


def test_json_lists_the_note_with_its_place(tmp_path: Path) -> None:
    (tmp_path / "widgets.yaml").write_text(WIDGET, encoding="utf-8")
    report = json.loads(run_cli(["validate", "--format", "json", "widgets.yaml"], cwd=tmp_path).stdout)
    [note] = [d for d in report["diagnostics"] if d["code"] == "MXJ010"]
    assert note["severity"] == "info" and note["line"] == 5 and "Widget/w" in note["message"]
    assert report["summary"]["ok"] is True
    rejected = run_cli(["validate", "--reject-missing-schemas", "--format", "json", "widgets.yaml"], cwd=tmp_path)
    assert json.loads(rejected.stdout)["summary"]["ok"] is False


def test_nothing_skipped_says_nothing(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text(WIDGET.split("---")[0], encoding="utf-8")
    result = run_cli(["validate", "--reject-missing-schemas", "cm.yaml"], cwd=tmp_path)
    assert result.exit_code == 0 and "MXJ010" not in result.stdout
