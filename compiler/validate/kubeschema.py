"""Validate manifests against Kubernetes' OpenAPI schemas offline, pinned to a version; one validator per kind.

The definitions are the strict ones kubernetes-validate publishes: the default version and 1.20 to 1.24 ship
inside mxjob (schemas/kubernetes/, see schemas/kubernetes_bundle.py and schemas/legacy_bundles.py), the other
versions come from kubernetes-validate itself when the `[schemas]` extra is installed. The relaxed (--no-strict)
variant is derived by dropping `additionalProperties: false`. Each (version, strictness, kind) validator is built
once and reused: calling kubernetes_validate.validate() per document costs ~19 ms, a cached validator ~0.7 ms.
Our own kinds (MXJob, both PodGroups) are checked against schemas/kubeconform/.
"""

from __future__ import annotations

import functools
import gzip
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mxjob_gitops.compiler.base.diagnostics import Code
from mxjob_gitops.compiler.base.exact import exact
from mxjob_gitops.compiler.base.quantity import with_quantity_rule
from mxjob_gitops.compiler.rules.names import api_version_problem, kind_problem
from mxjob_gitops.compiler.rules.schema import explain, has_float, rust_validators, schema_dir, strict_integer_validator

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

DEFAULT_KUBERNETES_VERSION = "1.35"
DEFINITIONS_URI = "https://kubernetes.io/api/_definitions.json"
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
    code: Code = Code.SCHEMA
    hint: str = ""

    @property
    def pointer(self) -> str:
        return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in self.path) if self.path else ""


def _bundled() -> dict[str, Path]:
    """The versions whose strict definitions ship inside mxjob itself (schemas/kubernetes/)."""
    found: dict[str, Path] = {}
    folder = schema_dir() / "kubernetes"
    for path in folder.glob("v*-strict.json.gz") if folder.is_dir() else ():
        found[path.name.removeprefix("v").removesuffix("-strict.json.gz")] = path
    return found


def _extra_root() -> Path | None:
    """kubernetes-validate's schema folders (the `schemas` extra: every version since 1.25), when installed."""
    try:
        import kubernetes_validate
    except ImportError:
        return None
    return Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"


@functools.cache
def available_versions() -> tuple[str, ...]:
    """Minor versions with offline schemas, oldest first, e.g. ('1.20', …, '1.37')."""
    found = {tuple(int(n) for n in version.split(".")) for version in _bundled()}
    root = _extra_root()
    for entry in root.iterdir() if root is not None else ():
        match = re.fullmatch(r"v(\d+)\.(\d+)\.\d+-local-strict", entry.name)
        if match:
            found.add((int(match.group(1)), int(match.group(2))))
    return tuple(f"{major}.{minor}" for major, minor in sorted(found))


def _spans(versions: tuple[str, ...]) -> str:
    """('1.20', '1.21', '1.22', '1.35') -> '1.20 to 1.22, 1.35'."""
    runs: list[list[str]] = []
    for version in versions:
        major, minor = (int(n) for n in version.split("."))
        if runs and runs[-1][-1] == f"{major}.{minor - 1}":
            runs[-1].append(version)
        else:
            runs.append([version])
    return ", ".join(run[0] + (f" to {run[-1]}" if len(run) > 1 else "") for run in runs) or "none"


def resolve_version(requested: str) -> str:
    """'1.35', '1.35.2' or 'v1.35' → '1.35'; a version outside what ships is an error, not a guess."""
    match = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.\d+)?", requested.strip())
    versions = available_versions()
    span = _spans(versions)
    if match is None:
        raise VersionUnavailable(f"{requested!r} is not a Kubernetes version like 1.35 (available offline: {span})")
    minor = f"{int(match.group(1))}.{int(match.group(2))}"
    if minor not in versions:
        more = (
            ""
            if _extra_root() is not None
            else (
                "; the schemas of every Kubernetes version since 1.25 come with the [schemas] extra "
                "(pip install '<mxjob-gitops wheel or Git URL>[schemas]')"
            )
        )
        raise VersionUnavailable(
            f"no Kubernetes {minor} schemas are available offline (available: {span}); "
            f"pick one of those with --kubernetes-version{more}"
        )
    return minor


def schema_version(requested: str | None) -> str:
    """The Kubernetes version whose schemas validate checks against: the one asked for (VersionUnavailable when it
    is not installed), else the newest installed (1.35 in the base install, 1.37 with the [schemas] extra).
    What is rendered follows --kubernetes-version alone, as in render, diff and krm."""
    return resolve_version(requested) if requested is not None else available_versions()[-1]  # oldest first


@functools.cache
def _definitions(version: str, strict: bool) -> dict[str, Any]:
    """The `$defs` of one version: from the bundle if it ships one, else from kubernetes-validate."""
    bundled = _bundled().get(version)
    if bundled is not None:
        definitions: dict[str, Any] = json.loads(gzip.decompress(bundled.read_bytes()))
    else:
        root = _extra_root()
        assert root is not None, "resolve_version() admits only versions that ship"
        text = (root / f"v{version}.0-local-strict" / "_definitions.json").read_text(encoding="utf-8")
        definitions = json.loads(text)["$defs"]
    definitions = with_quantity_rule(definitions)
    return definitions if strict else _relax(definitions)


@functools.cache
def _by_kind(version: str) -> dict[tuple[str, str, str], str]:
    """(group, version, kind) → definition name, from each definition's x-kubernetes-group-version-kind."""
    index: dict[tuple[str, str, str], str] = {}
    for name, definition in _definitions(version, True).items():
        for gvk in definition.get("x-kubernetes-group-version-kind") or ():
            index.setdefault((gvk["group"], gvk["version"], gvk["kind"]), name)
    return index


@functools.cache
def _registry(version: str, strict: bool) -> Any:
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    document = {"$id": DEFINITIONS_URI, "$defs": _definitions(version, strict)}
    return Registry().with_resource(DEFINITIONS_URI, DRAFT202012.create_resource(document))


def top_level_schema(definition: dict[str, Any]) -> dict[str, Any]:
    """A kind's schema as kubernetes-validate's per-kind files write it: its definition as a non-null object
    whose own properties may be null (required ones included; the API server's defaulting fills them)."""
    properties = {}
    for name, prop in (definition.get("properties") or {}).items():
        kind = prop.get("type") if isinstance(prop, dict) else None
        properties[name] = dict(prop, type=[kind, "null"]) if isinstance(kind, str) else prop
    return {**definition, "type": "object", **({"properties": properties} if properties else {})}


def _kubernetes_schema(version: str, strict: bool, name: str) -> dict[str, Any]:
    """One definition as a top-level schema whose `$ref`s point into the definitions document."""
    definition = top_level_schema(_definitions(version, strict)[name])
    schema: dict[str, Any] = _absolute_refs({"$id": f"{DEFINITIONS_URI}/{name}", **definition})
    return schema


@functools.cache
def _kubernetes_validator(version: str, strict: bool, name: str) -> Draft202012Validator:
    return strict_integer_validator()(_kubernetes_schema(version, strict, name), registry=_registry(version, strict))


def _absolute_refs(node: Any) -> Any:
    """Point `#/$defs/…` references at the definitions document (as the per-kind files do)."""
    if isinstance(node, dict):
        return {
            k: f"{DEFINITIONS_URI}{v}"
            if k == "$ref" and isinstance(v, str) and v.startswith("#")
            else _absolute_refs(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_absolute_refs(v) for v in node]
    return node


@functools.cache
def _own_schema(relative: str, strict: bool) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((schema_dir() / "kubeconform" / relative).read_text(encoding="utf-8"))
    if "$defs" in schema:
        schema["$defs"] = with_quantity_rule(schema["$defs"])
    return schema if strict else _relax(schema)


@functools.cache
def _own_validator(relative: str, strict: bool) -> Draft202012Validator:
    return strict_integer_validator()(_own_schema(relative, strict))


def _relax(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _relax(v) for k, v in node.items() if not (k == "additionalProperties" and v is False)}
    if isinstance(node, list):
        return [_relax(v) for v in node]
    return node


def _lookup(manifest: dict[str, Any], version: str) -> tuple[str, str] | None:
    """("own", schema file) or ("kubernetes", definition name) for this object's kind; None for a custom resource.

    The kind and apiVersion from the input only ever select an entry of a fixed table; no path is built from them.
    """
    return _lookup_kind(str(manifest.get("apiVersion", "")), str(manifest.get("kind", "")), version)


@functools.lru_cache(maxsize=1024)
def _lookup_kind(api_version: str, kind: str, version: str) -> tuple[str, str] | None:
    """_lookup's answer for one apiVersion and kind, kept: a rendering repeats the same few kinds thousands of
    times, and the name checks are the larger part of a valid object's cost after the compiled validator."""
    group, _, group_version = api_version.rpartition("/")
    own = OWN_SCHEMAS.get((group, group_version, kind))
    if own is not None:
        return "own", own
    if not api_version or not kind or kind_problem(kind) or api_version_problem(api_version):
        return None
    name = _by_kind(version).get((group, group_version, kind))
    return None if name is None else ("kubernetes", name)


def validator_for(manifest: dict[str, Any], version: str, strict: bool) -> Draft202012Validator | None:
    """The explaining validator for this object's kind, or None when no schema is known (a custom resource)."""
    found = _lookup(manifest, version)
    if found is None:
        return None
    source, name = found
    return _own_validator(name, strict) if source == "own" else _kubernetes_validator(version, strict, name)


def has_schema(manifest: dict[str, Any], version: str) -> bool:
    return _lookup(manifest, version) is not None


@functools.cache
def _fast_registry(version: str, strict: bool) -> Any:
    document = {"$id": DEFINITIONS_URI, "$defs": _definitions(version, strict)}
    return rust_validators().Registry([(DEFINITIONS_URI, document)])


@functools.cache
def _fast_validator(version: str, strict: bool, source: str, name: str) -> Any:
    rust = rust_validators()  # a compiled validator for the objects that are valid; jsonschema explains the others
    if source == "own":
        return rust.validator_for(_own_schema(name, strict))
    return rust.validator_for(_kubernetes_schema(version, strict, name), registry=_fast_registry(version, strict))


def accepted_fast(manifest: dict[str, Any], version: str, strict: bool, *, floats: bool | None = None) -> bool:
    """True when the compiled (Rust) validator accepts the object under the very same schema, so the explaining
    validator has nothing to say; False means "ask it" (an invalid object, or a float that the Rust validator
    would take for an integer, or no jsonschema_rs). Valid objects are checked ~100x faster this way.

    `floats=False` is the caller's word that the object holds no float (None: walk it to find out)."""
    found = _lookup(manifest, version)
    if exact("acceptance") or found is None or rust_validators() is None:
        return False
    if not _fast_validator(version, strict, *found).is_valid(manifest):
        return False
    return not (has_float(manifest) if floats is None else floats)


def schema_errors(manifest: dict[str, Any], validator: Draft202012Validator) -> Iterator[SchemaError]:
    """All errors, not just the first, most precise path first; worded and coded as the MXJob input's are."""
    errors = sorted(validator.iter_errors(manifest), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    for found in explain(errors):
        yield SchemaError(found.path, found.message, found.code is Code.UNKNOWN_FIELD, found.code, found.hint)
