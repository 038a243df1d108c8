"""The Kubernetes schemas built into the base install are exactly kubernetes-validate's, for every kind."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest

from mxjob_gitops.compiler.base.quantity import with_quantity_rule
from mxjob_gitops.compiler.validate import kubeschema
from mxjob_gitops.compiler.validate.kubeschema import (
    DEFAULT_KUBERNETES_VERSION,
    _by_kind,
    _definitions,
    top_level_schema,
)
from tests.helpers import schema_script

UPSTREAM = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"


def _bundle_module() -> Any:
    return schema_script("kubernetes_bundle")


def _local_refs(node: Any) -> Any:
    """kubernetes-validate's per-kind files point into _definitions.json; inside it, refs are local."""
    if isinstance(node, dict):
        return {
            k: v.replace("/api/_definitions.json#", "#") if k == "$ref" and isinstance(v, str) else _local_refs(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_local_refs(v) for v in node]
    return node


def test_the_committed_bundle_is_the_upstream_strict_definitions() -> None:
    bundle = _bundle_module()
    committed = bundle.bundle_path(DEFAULT_KUBERNETES_VERSION)
    assert json.loads(gzip.decompress(committed.read_bytes())) == bundle.source_definitions(
        DEFAULT_KUBERNETES_VERSION
    ), "stale: run `python schemas/kubernetes_bundle.py`"


def test_the_relaxed_variant_is_the_strict_one_without_additional_properties_false() -> None:
    folder = UPSTREAM / f"v{DEFAULT_KUBERNETES_VERSION}.0-local"
    relaxed = json.loads((folder / "_definitions.json").read_text(encoding="utf-8"))["$defs"]
    # ... with the API server's quantity syntax added to both (compiler.quantity.with_quantity_rule).
    assert _definitions(DEFAULT_KUBERNETES_VERSION, False) == with_quantity_rule(relaxed)


def test_every_per_kind_file_is_its_definition_as_a_non_null_object() -> None:
    folder = UPSTREAM / f"v{DEFAULT_KUBERNETES_VERSION}.0-local-strict"
    definitions = _definitions(DEFAULT_KUBERNETES_VERSION, True)
    index = _by_kind(DEFAULT_KUBERNETES_VERSION)
    checked = 0
    for path in sorted(folder.glob("*.json")):
        upstream = json.loads(path.read_text(encoding="utf-8"))
        for gvk in upstream.get("x-kubernetes-group-version-kind") or ():
            ours = top_level_schema(definitions[index[(gvk["group"], gvk["version"], gvk["kind"])]])
            theirs = {k: v for k, v in _local_refs(upstream).items() if k not in ("$schema", "$id")}
            if ours == theirs:
                checked += 1
            else:  # a gvk shared by several definitions (DeleteOptions, WatchEvent): not a top-level kind
                assert gvk["kind"] in ("DeleteOptions", "WatchEvent"), path.name
    assert checked > 300


def test_without_the_extra_only_the_bundled_versions_are_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default version and the versions older than the extra's (schemas/legacy_bundles.py)."""
    monkeypatch.setattr(kubeschema, "_extra_root", lambda: None)
    kubeschema.available_versions.cache_clear()
    try:
        legacy = ("1.20", "1.21", "1.22", "1.23", "1.24")
        assert kubeschema.available_versions() == (*legacy, DEFAULT_KUBERNETES_VERSION)
        with pytest.raises(kubeschema.VersionUnavailable, match=r"\[schemas\] extra"):
            kubeschema.resolve_version("1.30")
    finally:
        kubeschema.available_versions.cache_clear()
