"""`mxjob krm`: a KRM function (kustomize/kpt): ResourceList in on stdin, ResourceList with results out.

MXJob items are replaced by what they render; other items pass through untouched (including the
orchestrator's `internal.config.kubernetes.io/*` annotations). Options come from the flags and, overriding
them, from a ConfigMap functionConfig (`data`: target, namespace, gangScheduler, priorityClasses as
`name=value,…`, job `true|false`, maxPods), checked as strictly as the flags.

Every failure, unreadable input and a bad functionConfig included, still writes a ResourceList whose `results`
say what went wrong, and exits 1: the KRM Functions Specification (kustomize,
cmd/config/docs/api-conventions/functions-spec.md, "Results") has a failing function report through results,
which kustomize and kpt print; the input items come back unchanged.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, NoReturn

import click

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, Severity
from mxjob_gitops.compiler.cli.exits import FINDINGS, OK, Exit
from mxjob_gitops.compiler.cli.flags import verbosity_options
from mxjob_gitops.compiler.cli.guard import guarded
from mxjob_gitops.compiler.cli.render_flags import render_options
from mxjob_gitops.compiler.io.resourcelist import options_from, write_resource_list
from mxjob_gitops.compiler.render.options import RenderOptions

if TYPE_CHECKING:
    from mxjob_gitops.compiler.render.emit import Emitter


def _respond(
    resource_list: dict[str, Any],
    items: list[Any],
    diagnostics: list[Diagnostic],
    failed: bool,
    emitter: Emitter | None = None,
) -> NoReturn:
    write_resource_list(resource_list, items, diagnostics, emitter)
    raise Exit(FINDINGS if failed else OK)


@click.command(short_help="Run as a KRM function (ResourceList on stdin and stdout).")
@render_options
@verbosity_options
def krm(options: RenderOptions) -> None:
    """Read a ResourceList on stdin, render its MXJobs, write a ResourceList with results on stdout."""
    from mxjob_gitops.compiler.compile.documents import compile_documents
    from mxjob_gitops.compiler.io.inputs import STDIN_NAME, decode_limited, unreadable
    from mxjob_gitops.compiler.read.source import parse_text
    from mxjob_gitops.compiler.render.emit import Emitter

    with guarded():
        text = decode_limited(sys.stdin.buffer)
        if not isinstance(text, str):
            _respond({}, [], [unreadable(text, STDIN_NAME)], failed=True)
        parsed = parse_text(text, STDIN_NAME)
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
            _respond(resource_list, items if isinstance(items, list) else [], diagnostics, failed=True)
        options, problems = options_from(resource_list.get("functionConfig"), options)
        diagnostics.extend(problems)
        if problems:
            _respond(resource_list, items, diagnostics, failed=True)
        plan = compile_documents(documents, options)
        diagnostics.extend(plan.diagnostics)
        failed = not plan.ok or any(d.severity is Severity.ERROR for d in diagnostics)
        emitter = Emitter()
        rendered = items if failed else list(plan.manifests(emitter.expect_prefix))
        _respond(resource_list, rendered, diagnostics, failed, emitter)
