"""A diff's shared parses (compiler/io/inputs.SharedParses) name each side's own file: its documents, positions and
diagnostics. That `mxjob diff` reports with them exactly what it reports without is tests/test_exact_mode.py's."""

from __future__ import annotations

from mxjob_gitops.compiler.io.inputs import SharedParses


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
