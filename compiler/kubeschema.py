"""Validate manifests against Kubernetes' OpenAPI schemas offline, pinned to a version; one validator per kind.

The schemas are the ones the kubernetes-validate package ships (strict and non-strict variants). Building a
validator reads a 1.8 MB definitions file, so each (version, strictness, kind) is built once and reused:
calling kubernetes_validate.validate() per document costs ~19 ms, a cached validator ~0.7 ms.
Our own kinds (MXJob, both PodGroups) are checked against schemas/kubeconform/.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compiler.names import api_version_problem, kind_problem
from compiler.schema import schema_dir, strict_integer_validator, suggest

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

DEFAULT_KUBERNETES_VERSION = "1.35"
OWN_SCHEMAS = {
    ("kubeflow.org", "v1", "MXJob"): "kubeflow.org/mxjob_v1.json",
    ("scheduling.volcano.sh", "v1beta1", "PodGroup"): "scheduling.volcano.sh/podgroup_v1beta1.json",
    ("scheduling.x-k8s.io", "v1alpha1", "PodGroup"): "scheduling.x-k8s.io/podgroup_v1alpha1.json",
}


class VersionUnavailable(ValueError):
    """No schemas for the requested Kubernetes version ship offline."""


@dataclass(frozen=True, slots=True)
class SchemaError:
    path: tuple[str | int, ...]
    message: str
    at_key: bool = False  # the problem is the key itself (an unknown field), not its value

    @property
    def pointer(self) -> str:
        return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in self.path) if self.path else ""


def _bundle_root() -> Path:
    import kubernetes_validate

    return Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"


@functools.cache
def available_versions() -> tuple[str, ...]:
    """Minor versions with bundled schemas, oldest first, e.g. ('1.25', …, '1.37')."""
    found = set()
    for entry in _bundle_root().iterdir():
        match = re.fullmatch(r"v(\d+)\.(\d+)\.\d+-local", entry.name)
        if match:
            found.add((int(match.group(1)), int(match.group(2))))
    return tuple(f"{major}.{minor}" for major, minor in sorted(found))


def resolve_version(requested: str) -> str:
    """'1.35', '1.35.2' or 'v1.35' → '1.35'; a version outside what ships is an error, not a guess."""
    match = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.\d+)?", requested.strip())
    versions = available_versions()
    span = f"{versions[0]} to {versions[-1]}" if versions else "none"
    if match is None:
        raise VersionUnavailable(f"{requested!r} is not a Kubernetes version like 1.35 (available offline: {span})")
    minor = f"{int(match.group(1))}.{int(match.group(2))}"
    if minor not in versions:
        raise VersionUnavailable(f"no Kubernetes {minor} schemas are available offline (available: {span}); "
                                 "pick one of those with --kubernetes-version")
    return minor


def _folder(version: str, strict: bool) -> Path:
    return _bundle_root() / f"v{version}.0-local{'-strict' if strict else ''}"


@functools.cache
def _registry(version: str, strict: bool) -> Any:
    from referencing import Registry, Resource

    definitions = json.loads((_folder(version, strict) / "_definitions.json").read_text(encoding="utf-8"))
    return Resource.from_contents(definitions) @ Registry()


@functools.cache
def _schema_table(version: str, strict: bool) -> dict[str, Path]:
    """The bundled schema files of one version, by name: the fixed table every lookup goes through.

    A kind or apiVersion from the input only ever selects an entry of this table; no path is built from it.
    """
    return {entry.name: entry for entry in _folder(version, strict).iterdir()
            if entry.name.endswith(".json") and not entry.name.startswith("_")}


@functools.cache
def _kubernetes_validator(version: str, strict: bool, kind: str, api_version: str) -> Draft202012Validator | None:
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    path = _schema_table(version, strict).get(f"{kind.lower()}-{group_version}.json")
    if path is None:
        return None
    schema = json.loads(path.read_text(encoding="utf-8"))
    return strict_integer_validator()(schema, registry=_registry(version, strict))


@functools.cache
def _own_validator(relative: str, strict: bool) -> Draft202012Validator:
    schema = json.loads((schema_dir() / "kubeconform" / relative).read_text(encoding="utf-8"))
    if not strict:
        schema = _relax(schema)
    return strict_integer_validator()(schema)


def _relax(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _relax(v) for k, v in node.items() if not (k == "additionalProperties" and v is False)}
    if isinstance(node, list):
        return [_relax(v) for v in node]
    return node


def validator_for(manifest: dict[str, Any], version: str, strict: bool) -> Draft202012Validator | None:
    """The validator for this object's kind, or None when no schema is known (a custom resource)."""
    api_version = str(manifest.get("apiVersion", ""))
    kind = str(manifest.get("kind", ""))
    group, _, gv = api_version.rpartition("/")
    own = OWN_SCHEMAS.get((group, gv, kind))
    if own is not None:
        return _own_validator(own, strict)
    if not api_version or not kind or kind_problem(kind) or api_version_problem(api_version):
        return None
    return _kubernetes_validator(version, strict, kind, api_version)


def schema_errors(manifest: dict[str, Any], validator: Draft202012Validator) -> Iterator[SchemaError]:
    """All errors, not just the first, most precise path first."""
    for error in sorted(validator.iter_errors(manifest), key=lambda e: (list(map(str, e.absolute_path)), e.message)):
        path = tuple(error.absolute_path)
        known = error.schema.get("properties") if isinstance(error.schema, dict) else None
        if error.validator == "additionalProperties" and isinstance(error.instance, dict) and known is not None:
            for key in error.instance:
                if key not in known:
                    hint = suggest(key, known)
                    yield SchemaError((*path, key), f"unknown field {key!r}{' (' + hint + ')' if hint else ''}",
                                      at_key=True)
        else:
            yield SchemaError(path, error.message)
