"""The KRM function's ResourceList protocol (kustomize's and kpt's functions spec): render options from its
functionConfig, and a `results` entry for each diagnostic, pointed at the item or file it is about."""

from __future__ import annotations

import sys
from typing import Any

from mxjob_gitops.compiler.base.asciinum import whole
from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, JsonPath, Severity, error, format_path
from mxjob_gitops.compiler.render.emit import Emitter
from mxjob_gitops.compiler.render.options import RECORD_KEYS, RenderOptions

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


def write_resource_list(
    resource_list: dict[str, Any], items: list[Any], diagnostics: list[Diagnostic], emitter: Emitter | None = None
) -> None:
    """The function's answer on stdout: the items (rendered, or as they came on failure) and a result for each
    diagnostic, in the ResourceList version it was given."""
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
