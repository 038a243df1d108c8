"""`mxjob diff` parses a file with the same bytes on both sides once, and reports exactly what it did before."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from mxjob_gitops.compiler.io import inputs
from mxjob_gitops.compiler.io.inputs import SharedParses
from mxjob_gitops.compiler.read.source import parse_text
from tests.conftest import run_cli
from tests.helpers import EveryTextParsed, job, replica


def test_a_known_text_is_not_parsed_again_and_names_its_own_file() -> None:
    parse = SharedParses()
    first = parse("x: 1\n---\n# two\nz: [1, 2]\n", "old/a.yaml")
    second = parse("x: 1\n---\n# two\nz: [1, 2]\n", "new/a.yaml")
    assert [d.data for d in first.documents] == [{"x": 1}, {"z": [1, 2]}]
    assert [d.data for d in second.documents] == [d.data for d in first.documents]
    assert all(a.data is b.data for a, b in zip(first.documents, second.documents, strict=True))
    assert [d.file for d in second.documents] == ["new/a.yaml"] * 2
    assert str(second.documents[1].locate(("z", 1))) == "new/a.yaml:4:8"
    assert str(first.documents[1].locate(("z", 1))) == "old/a.yaml:4:8"


def test_a_text_with_parse_errors_is_reported_on_each_side() -> None:
    parse = SharedParses()
    bad = "a: 1\na: 2\n"
    assert parse(bad, "old.yaml").diagnostics[0].location.file == "old.yaml"  # type: ignore[union-attr]
    assert parse(bad, "new.yaml").diagnostics[0].location.file == "new.yaml"  # type: ignore[union-attr]


def _tree(folder: Path, workers: dict[str, int]) -> None:
    folder.mkdir()
    for name, count in workers.items():
        spec = job(name=name, Scheduler=replica(1), Server=replica(1), Worker=replica(count))
        (folder / f"{name}.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")


def test_diff_parses_unchanged_files_once_with_the_same_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    _tree(old, {"a": 2, "b": 2, "c": 2})
    _tree(new, {"a": 2, "b": 3, "c": 2})
    parsed: list[str] = []

    def counting(text: str, file: str, **options: Any) -> object:
        parsed.append(file)
        return parse_text(text, file, **options)

    monkeypatch.setattr(inputs, "parse_text", counting)
    shared = run_cli(["diff", "--format", "json", str(old), str(new)])
    assert shared.exit_code == 1, shared.stderr
    assert sorted(Path(p).name for p in parsed) == ["a.yaml", "b.yaml", "b.yaml", "c.yaml"]
    monkeypatch.setattr(inputs, "SharedParses", EveryTextParsed)
    alone = run_cli(["diff", "--format", "json", str(old), str(new)])
    assert alone.exit_code == 1 and alone.stdout == shared.stdout
    shutil.rmtree(new)
    shutil.copytree(old, new)
    assert run_cli(["diff", str(old), str(new)]).exit_code == 0
