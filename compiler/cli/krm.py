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

from mxjob_gitops.compiler.base.asciinum import whole
from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, JsonPath, Severity, error, format_path
from mxjob_gitops.compiler.cli.exits import FINDINGS, OK, Exit
from mxjob_gitops.compiler.cli.flags import verbosity_options
from mxjob_gitops.compiler.cli.guard import guarded
from mxjob_gitops.compiler.cli.render_flags import render_options
from mxjob_gitops.compiler.render.options import RECORD_KEYS, RenderOptions

if TYPE_CHECKING:
    from mxjob_gitops.compiler.render.emit import Emitter

RESOURCE_LIST_VERSIONS = ("config.kubernetes.io/v1", "config.kubernetes.io/v1beta1")
PATH_ANNOTATIONS = ("internal.config.kubernetes.io/path", "config.kubernetes.io/path")
INDEX_ANNOTATIONS = ("internal.config.kubernetes.io/index", "config.kubernetes.io/index")
_CONFIG: JsonPath = ("functionConfig",)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _annotation(item: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    annotations = _mapping(_mapping(item.get("metadata")).get("annotations"))
    for key in keys:
        if key in annotations:
            return str(annotations[key])
    return None


def options_from(config: Any, base: RenderOptions) -> tuple[RenderOptions, list[Diagnostic]]:
    """Overlay a functionConfig (a ConfigMap whose data is a RenderOptions record) on the command-line options.

    Anything else is an error, as a wrong flag would be: another kind, data that is not a mapping, an unknown
    key, a value the flag would refuse (a namespace that is not a DNS-1123 label, say).
    """
    if config is None:
        return base, []
    if not isinstance(config, dict) or config.get("kind") != "ConfigMap":
        kind = config.get("kind") if isinstance(config, dict) else type(config).__name__
        return base, [
            error(
                Code.INVALID_VALUE,
                f"functionConfig is a {str(kind)[:80]!r}, not a ConfigMap",
                _CONFIG,
                "give the options as the data of a ConfigMap",
            )
        ]
    data = config.get("data", {})
    if not isinstance(data, dict):
        return base, [error(Code.WRONG_TYPE, "functionConfig data must be a mapping", (*_CONFIG, "data"))]
    unknown = [str(key) for key in data if key not in RECORD_KEYS]
    found = [
        error(
            Code.UNKNOWN_FIELD,
            f"functionConfig data has no option {key[:80]!r}",
            (*_CONFIG, "data", key),
            f"known options: {', '.join(RECORD_KEYS)}",
        )
        for key in unknown
    ]
    try:
        options = RenderOptions.from_record(data, base)
    except ValueError as exc:
        key = str(exc).partition(":")[0]
        found.append(error(Code.INVALID_VALUE, f"functionConfig {exc}", (*_CONFIG, "data", key)))
        options = base
    return options, found


def result_of(diagnostic: Diagnostic, resource_list: dict[str, Any]) -> dict[str, Any]:
    """A KRM `results` entry; a path inside an item (or the functionConfig) is reported relative to it."""
    message = f"{diagnostic.code.value}: {diagnostic.message}" + (f" ({diagnostic.hint})" if diagnostic.hint else "")
    result: dict[str, Any] = {
        "message": message,
        "severity": {Severity.ERROR: "error", Severity.WARNING: "warning"}.get(diagnostic.severity, "info"),
    }
    listed = resource_list.get("items")
    items: list[Any] = listed if isinstance(listed, list) else []
    path = diagnostic.path
    if len(path) >= 2 and path[0] == "items" and isinstance(path[1], int) and path[1] < len(items):
        item, field = _mapping(items[path[1]]), path[2:]
    elif path[:1] == _CONFIG:
        item, field = _mapping(resource_list.get("functionConfig")), path[1:]
    else:  # about the input as a whole: say where in it
        if diagnostic.location is not None and diagnostic.location.line > 0:
            result["message"] = f"{diagnostic.location}: {message}"
        return result
    metadata = _mapping(item.get("metadata"))
    result["resourceRef"] = {
        key: value
        for key, value in (
            ("apiVersion", item.get("apiVersion")),
            ("kind", item.get("kind")),
            ("name", metadata.get("name")),
            ("namespace", metadata.get("namespace")),
        )
        if isinstance(value, str) and value
    }
    if field:
        result["field"] = {"path": format_path(field)}
    file_path = _annotation(item, PATH_ANNOTATIONS)
    if file_path is not None:
        index = _annotation(item, INDEX_ANNOTATIONS)
        number = whole(index) if index is not None else None  # isdigit() also passed `³`, which int() refuses
        result["file"] = {"path": file_path, **({"index": number} if number is not None else {})}
    return result


def _respond(
    resource_list: dict[str, Any],
    items: list[Any],
    diagnostics: list[Diagnostic],
    failed: bool,
    emitter: Emitter | None = None,
) -> NoReturn:
    from mxjob_gitops.compiler.render.emit import Emitter

    version = resource_list.get("apiVersion")
    output: dict[str, Any] = {
        "apiVersion": version if version in RESOURCE_LIST_VERSIONS else RESOURCE_LIST_VERSIONS[0],
        "kind": "ResourceList",
        "items": items,
    }
    results = [result_of(d, resource_list) for d in diagnostics]
    if results:
        output["results"] = results
    sys.stdout.write((emitter or Emitter()).to_yaml(output))
    sys.stdout.flush()
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
