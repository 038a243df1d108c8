"""Compiling never changes the parsed input, so a document can be compiled twice with the same result."""

from __future__ import annotations

import copy

from mxjob_gitops.compiler import RenderOptions, compile_documents, parse_text
from mxjob_gitops.compiler.render.emit import to_json
from tests.conftest import JOB_EXAMPLE_FILES, REPO


def test_input_documents_are_not_mutated() -> None:
    files = [*JOB_EXAMPLE_FILES, *sorted((REPO / "tests" / "golden").glob("*/input.yaml"))]
    for path in files:
        parsed = parse_text(path.read_text(encoding="utf-8"), str(path))
        before = copy.deepcopy([d.data for d in parsed.documents])
        for options in (RenderOptions(namespace="x"), RenderOptions()):
            plan = compile_documents(parsed.documents, options)
            if plan.ok:
                first = [to_json(m) for m in plan.manifests()]
                second = [to_json(m) for m in compile_documents(parsed.documents, options).manifests()]
                assert first == second, path
        assert [d.data for d in parsed.documents] == before, path
