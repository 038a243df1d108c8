"""What makes an object of the input usable before anything is compiled from it: its identity (apiVersion, kind,
namespace, name) and the checks checker.Checker runs on it first (is it an object at all; are its names valid)."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.base.diagnostics import JsonPath

Identity = tuple[str, str, str, str]


def not_an_object(obj: Any) -> tuple[str, JsonPath]:
    """Why this is no Kubernetes object (applying it would fail the whole sync) and where, or '' when it is one."""
    if not isinstance(obj, dict):
        return f"a {type(obj).__name__} where a Kubernetes object belongs", ()
    missing = [key for key in ("apiVersion", "kind") if not isinstance(obj.get(key), str) or not obj.get(key)]
    metadata = obj.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        return f"not a Kubernetes object: metadata is a {type(metadata).__name__}, not a mapping", ("metadata",)
    if not isinstance(metadata, dict) or not (metadata.get("name") or metadata.get("generateName")):
        missing.append("metadata.name")
    return (f"not a Kubernetes object: no {', '.join(missing)}" if missing else ""), ()


def identity(obj: dict[str, Any]) -> Identity:
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {}
    return (
        str(obj.get("apiVersion", "")),
        str(obj.get("kind", "")),
        str(metadata.get("namespace") or ""),
        str(metadata.get("name") or metadata.get("generateName") or ""),
    )
