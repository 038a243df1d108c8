"""What makes an object of the input usable before anything is compiled from it: its identity (apiVersion, kind,
namespace, name) and the checks checker.Checker runs on it first (is it an object at all; are its names valid),
with a short way through them for the tens of thousands of plainly valid objects of a rendering."""

from __future__ import annotations

import functools
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import JsonPath
from mxjob_gitops.compiler.rules.names import api_version_problem, kind_problem, name_problem, namespace_problem
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.katib import is_experiment

Identity = tuple[str, str, str, str]


def passing_identity(obj: Any, relaxed: bool) -> Identity | None:
    """The identity of an object other than an MXJob on which Checker.add's checks (not_an_object,
    legacy_kind_problem, identity_problems) find nothing, found at a third of their cost (a rendering holds tens of
    thousands of such objects); None where they may find something: they then run for their diagnostics.
    tests/test_exact_mode.py holds the commands with it to the commands without it (MXJOB_EXACT=identity)."""
    if type(obj) is not dict:
        return None
    kind, api_version, metadata = obj.get("kind"), obj.get("apiVersion"), obj.get("metadata")
    if type(kind) is not str or type(api_version) is not str or type(metadata) is not dict:
        return None
    if not _plain_kind(kind, api_version):
        return None
    name, prefix, namespace = metadata.get("name"), metadata.get("generateName"), metadata.get("namespace")
    if name is not None and (type(name) is not str or name_problem(kind, name, relaxed_service=relaxed)):
        return None
    if prefix is not None and (
        type(prefix) is not str or name_problem(kind, prefix, prefix=True, relaxed_service=relaxed)
    ):
        return None
    if namespace is not None and (type(namespace) is not str or namespace_problem(namespace)):
        return None
    named = name or prefix
    return (api_version, kind, namespace or "", named) if named else None


@functools.lru_cache(maxsize=1024)
def _plain_kind(kind: str, api_version: str) -> bool:
    """A kind and apiVersion that are valid and say nothing of MXJobs (a real MXJob or a look-alike)."""
    return bool(kind and api_version) and not (
        kind.lower() == c.KIND.lower()
        or is_experiment(kind, api_version)  # a Katib Experiment may run MXJob trials (compiler.katib)
        or kind_problem(kind)
        or api_version_problem(api_version)
    )


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
