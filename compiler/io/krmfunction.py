"""One run of the KRM function (`mxjob krm`): a ResourceList read from standard input, its MXJob items replaced by
what they render, and a ResourceList with `results` written to standard output, whatever went wrong (the input
items then come back unchanged). cli/krm.py turns the verdict into the exit code."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, BinaryIO

import click

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, Severity
from mxjob_gitops.compiler.io.resourcelist import options_from, write_resource_list
from mxjob_gitops.compiler.render.options import RenderOptions

if TYPE_CHECKING:
    from mxjob_gitops.compiler.base.run import Run
    from mxjob_gitops.compiler.render.emit import Emitter


def run_function(stdin: BinaryIO, options: RenderOptions, run: Run | None = None) -> bool:
    """Read, render and respond; True when the function failed (its results say why). `run`: the run it reads and
    compiles under (None: the installed run)."""
    from mxjob_gitops.compiler.compile.documents import compile_documents
    from mxjob_gitops.compiler.io.inputs import STDIN_NAME, decode_limited, unreadable
    from mxjob_gitops.compiler.read.source import parse_text
    from mxjob_gitops.compiler.render.emit import Emitter

    text = decode_limited(stdin)
    if not isinstance(text, str):
        return _respond({}, [], [unreadable(text, STDIN_NAME)], failed=True)
    parsed = parse_text(text, STDIN_NAME, run=run)
    documents = [d for d in parsed.documents if isinstance(d.data, dict)]
    resource_list = documents[0].data if len(documents) == 1 else {}
    items = resource_list.get("items")
    diagnostics = list(parsed.diagnostics)
    if resource_list.get("kind") != "ResourceList" or not isinstance(items, list):
        click.echo("mxjob krm: stdin must hold one ResourceList (config.kubernetes.io/v1) with items", err=True)
        diagnostics.append(
            Diagnostic(
                Code.NOT_AN_OBJECT,
                Severity.ERROR,
                "stdin must hold one ResourceList (config.kubernetes.io/v1) with a list of items",
            )
        )
        return _respond(resource_list, items if isinstance(items, list) else [], diagnostics, failed=True)
    options, problems = options_from(resource_list.get("functionConfig"), options)
    diagnostics.extend(problems)
    if problems:
        return _respond(resource_list, items, diagnostics, failed=True)
    plan = compile_documents(documents, options, run=run)
    diagnostics.extend(plan.diagnostics)
    failed = not plan.ok or any(d.severity is Severity.ERROR for d in diagnostics)
    emitter = Emitter()
    rendered = items if failed else list(plan.manifests(emitter.expect_prefix))
    return _respond(resource_list, rendered, diagnostics, failed, emitter)


def _respond(
    resource_list: dict[str, Any],
    items: list[Any],
    diagnostics: list[Diagnostic],
    failed: bool,
    emitter: Emitter | None = None,
) -> bool:
    write_resource_list(resource_list, items, diagnostics, emitter)
    return failed
