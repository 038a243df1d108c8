"""Write schemas/kubernetes/v<version>-strict.json.gz: the one Kubernetes schema set a base install validates with.

kubernetes-validate ships strict and relaxed schemas for every Kubernetes minor version from 1.25 on (108 MB
installed). `mxjob validate` needs only the definitions of one version: the per-kind files it also ships are
the same definitions with `type: object` at the top and their `$ref`s pointing into `_definitions.json`, and the
relaxed variant is the strict one without `additionalProperties: false` (both checked by tests/test_schema.py).
So the wheel carries the strict `$defs` of the default version, minified and gzipped (~0.2 MB), and every other
version comes from kubernetes-validate when the `[schemas]` extra is installed.
Run `python schemas/kubernetes_bundle.py` after changing DEFAULT_KUBERNETES_VERSION in compiler/validate/kubeschema.py.
Versions older than the extra's (1.20 to 1.24) are bundled too, by schemas/legacy_bundles.py.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def source_definitions(version: str) -> dict[str, Any]:
    """The strict `$defs` of one minor version, as kubernetes-validate ships them."""
    import kubernetes_validate

    folder = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema" / f"v{version}.0-local-strict"
    with (folder / "_definitions.json").open(encoding="utf-8") as handle:
        definitions: dict[str, Any] = json.load(handle)["$defs"]
    return definitions


def bundle_bytes(definitions: dict[str, Any]) -> bytes:
    """Deterministic bytes: sorted keys, no whitespace, gzip without a timestamp or file name."""
    text = json.dumps(definitions, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def bundle_path(version: str) -> Path:
    return HERE / "kubernetes" / f"v{version}-strict.json.gz"


def write_bundle(version: str, definitions: dict[str, Any]) -> Path:
    path = bundle_path(version)
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(bundle_bytes(definitions))
    return path


def main() -> None:
    from mxjob_gitops.compiler.validate.kubeschema import DEFAULT_KUBERNETES_VERSION

    path = write_bundle(DEFAULT_KUBERNETES_VERSION, source_definitions(DEFAULT_KUBERNETES_VERSION))
    print(f"wrote {path.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
