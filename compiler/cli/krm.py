"""`mxjob krm`: a KRM function (kustomize/kpt): ResourceList in on stdin, ResourceList with results out.

MXJob items are replaced by what they render; other items pass through untouched (including the
orchestrator's `internal.config.kubernetes.io/*` annotations). Options come from the flags and, overriding
them, from a ConfigMap functionConfig (`data`: target, namespace, gangScheduler, priorityClasses as
`name=value,…`, job `true|false`). Problems become `results`; any error exits 1 with the input items
returned unchanged.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from compiler.cli.exits import FINDINGS, OK, Exit, guarded
from compiler.cli.flags import verbosity_options
from compiler.cli.options import render_options
from compiler.diagnostics import Diagnostic, Severity, format_path
from compiler.options import RenderOptions

RESOURCE_LIST_VERSIONS = ("config.kubernetes.io/v1", "config.kubernetes.io/v1beta1")
PATH_ANNOTATIONS = ("internal.config.kubernetes.io/path", "config.kubernetes.io/path")
INDEX_ANNOTATIONS = ("internal.config.kubernetes.io/index", "config.kubernetes.io/index")


def _annotation(item: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    annotations = (item.get("metadata") or {}).get("annotations") or {}
    for key in keys:
        if key in annotations:
            return str(annotations[key])
    return None


def options_from(config: Any, base: RenderOptions) -> RenderOptions:
    """Overlay a ConfigMap functionConfig's data (a RenderOptions record) on the command-line options."""
    data = config.get("data") if isinstance(config, dict) and config.get("kind") == "ConfigMap" else None
    return RenderOptions.from_record(data, base) if isinstance(data, dict) else base


def result_of(diagnostic: Diagnostic, items: list[Any]) -> dict[str, Any]:
    """A KRM `results` entry; paths inside items are reported relative to the item."""
    result: dict[str, Any] = {"message": f"{diagnostic.code.value}: {diagnostic.message}"
                                         + (f" ({diagnostic.hint})" if diagnostic.hint else ""),
                              "severity": {Severity.ERROR: "error", Severity.WARNING: "warning"}.get(
                                  diagnostic.severity, "info")}
    path = diagnostic.path
    if len(path) >= 2 and path[0] == "items" and isinstance(path[1], int) and path[1] < len(items):
        item = items[path[1]] if isinstance(items[path[1]], dict) else {}
        metadata = item.get("metadata") or {}
        result["resourceRef"] = {key: value for key, value in (
            ("apiVersion", item.get("apiVersion")), ("kind", item.get("kind")), ("name", metadata.get("name")),
            ("namespace", metadata.get("namespace"))) if value}
        if len(path) > 2:
            result["field"] = {"path": format_path(path[2:])}
        file_path = _annotation(item, PATH_ANNOTATIONS)
        if file_path is not None:
            index = _annotation(item, INDEX_ANNOTATIONS)
            result["file"] = {"path": file_path, **({"index": int(index)} if index and index.isdigit() else {})}
    return result


@click.command(short_help="Run as a KRM function (ResourceList on stdin and stdout).")
@render_options
@verbosity_options
def krm(options: RenderOptions) -> None:
    """Read a ResourceList on stdin, render its MXJobs, write a ResourceList with results on stdout."""
    from compiler.emit import Emitter
    from compiler.pipeline import compile_documents
    from compiler.source import parse_text

    with guarded():
        parsed = parse_text(sys.stdin.read(), "<stdin>")
        documents = [d for d in parsed.documents if isinstance(d.data, dict)]
        resource_list = documents[0].data if len(documents) == 1 else {}
        items = resource_list.get("items")
        diagnostics = list(parsed.diagnostics)
        if resource_list.get("kind") != "ResourceList" or not isinstance(items, list):
            click.echo("mxjob krm: stdin must hold one ResourceList (config.kubernetes.io/v1) with items", err=True)
            raise Exit(FINDINGS if diagnostics else 2)
        try:
            options = options_from(resource_list.get("functionConfig"), options)
        except ValueError as exc:
            click.echo(f"mxjob krm: functionConfig: {exc}", err=True)
            raise Exit(2) from None
        plan = compile_documents(documents, options)
        diagnostics.extend(plan.diagnostics)
        failed = not plan.ok or any(d.severity is Severity.ERROR for d in diagnostics)
        emitter = Emitter()
        output = {
            "apiVersion": resource_list.get("apiVersion") if resource_list.get("apiVersion")
            in RESOURCE_LIST_VERSIONS else RESOURCE_LIST_VERSIONS[0],
            "kind": "ResourceList",
            "items": items if failed else list(plan.manifests(emitter.expect_prefix)),
        }
        results = [result_of(d, items) for d in diagnostics]
        if results:
            output["results"] = results
        sys.stdout.write(emitter.to_yaml(output))
        raise Exit(FINDINGS if failed else OK)
