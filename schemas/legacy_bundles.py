"""Write schemas/kubernetes/v1.20-strict.json.gz … v1.24-strict.json.gz: Kubernetes versions older than the
`[schemas]` extra ships, so `--kubernetes-version 1.20` validates as a 1.20 cluster would.

kubernetes-validate dropped these versions from its newest releases, but its older wheels on PyPI still carry
them. 1.22 to 1.24 are taken as they are from kubernetes-validate 1.31.0, whose definitions have the same form
as the current release (its 1.25 equals the current release's 1.25, checked below). 1.20 and 1.21 exist only in
1.28.3 and earlier, written in the older form: `definitions` instead of `$defs`, no `null` in the types of
optional fields, no `apiVersion`/`kind` enums, integer quantities. `modernise` converts that form into the
current one, and before anything is written the conversion is proven: applied to 1.28.3's 1.25 to 1.28, it must
give 1.31.0's 1.25 to 1.28 exactly. Both wheels are pinned by SHA-256.

Run `python schemas/legacy_bundles.py` (downloads two wheels from PyPI with pip; a development script, not
part of the wheel).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kubernetes_bundle import HERE, write_bundle

WHEELS = {
    "1.28.3": "916b8539c570958ca4742a09d42c9a29b7b89bfb3a04972a40abfa63f797b850",
    "1.31.0": "6ff0493132eaaeeec43b90abf97aebb2afe21741da785bc03b983688179c935d",
}
OLD_FORM = ("1.20", "1.21")  # from 1.28.3, converted
CURRENT_FORM = ("1.22", "1.23", "1.24")  # from 1.31.0, as they are
PROOF = ("1.25", "1.26", "1.27", "1.28")  # in both wheels
PIP_DOWNLOAD = (sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:")
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
# Property names that are also schema keywords: the current generator makes their own type nullable but leaves
# what is inside them alone (seen in JSONSchemaProps; the proof below fails without this).
KEYWORD_PROPERTIES = ("required", "x-kubernetes-list-map-keys")


def _nullable(kind: Any) -> Any:
    if isinstance(kind, str):
        return [kind, "null"]
    if isinstance(kind, list) and "null" not in kind:
        return [*kind, "null"]
    return kind


def _convert(node: Any, required: bool = False) -> Any:
    """Every `type` nullable except a required property's own; refs into `$defs`."""
    if isinstance(node, list):
        return [_convert(item) for item in node]
    if isinstance(node, str) and node.startswith("#/definitions/"):
        return "#/$defs/" + node.removeprefix("#/definitions/")
    if not isinstance(node, dict):
        return node
    names = node.get("required")
    needed = set(names) if isinstance(names, list) else set()
    converted: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            converted[key] = {
                name: dict(schema, type=_nullable(schema["type"]))
                if name in KEYWORD_PROPERTIES and isinstance(schema, dict) and "type" in schema
                else _convert(schema, name in needed)
                for name, schema in value.items()
            }
        elif key == "type":
            converted[key] = value if required else _nullable(value)
        elif key == "description":
            converted[key] = value
        else:
            converted[key] = _convert(value)
    return converted


def modernise(definitions: dict[str, Any]) -> dict[str, Any]:
    """The older kubernetes-validate form of one version's definitions, in the current form."""
    result: dict[str, Any] = {name: _convert(schema) for name, schema in definitions.items()}
    if QUANTITY in result:
        result[QUANTITY] = {**result[QUANTITY], "oneOf": [{"type": ["string", "null"]}, {"type": ["number", "null"]}]}
    for schema in result.values():
        kinds = schema.get("x-kubernetes-group-version-kind")
        properties = schema.get("properties")
        if not kinds or not isinstance(properties, dict):
            continue
        if "apiVersion" in properties:
            versions = (f"{k['group']}/{k['version']}" if k["group"] else k["version"] for k in kinds)
            properties["apiVersion"] = {**properties["apiVersion"], "enum": list(dict.fromkeys(versions))}
        if "kind" in properties:
            properties["kind"] = {**properties["kind"], "enum": list(dict.fromkeys(k["kind"] for k in kinds))}
    return result


def _download(version: str, folder: Path) -> zipfile.ZipFile:
    subprocess.run(
        [*PIP_DOWNLOAD, "--dest", str(folder), f"kubernetes-validate=={version}"],
        check=True,
    )
    [wheel] = folder.glob(f"kubernetes_validate-{version}-*.whl")
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != WHEELS[version]:
        raise SystemExit(f"{wheel.name}: SHA-256 {digest}, expected {WHEELS[version]}")
    return zipfile.ZipFile(wheel)


def _definitions(wheel: zipfile.ZipFile, version: str) -> dict[str, Any]:
    name = f"kubernetes_validate/kubernetes-json-schema/v{version}.0-local-strict/_definitions.json"
    document: dict[str, Any] = json.loads(wheel.read(name))
    return document["$defs"] if "$defs" in document else document["definitions"]  # type: ignore[no-any-return]


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        old = _download("1.28.3", Path(scratch) / "old")
        current = _download("1.31.0", Path(scratch) / "current")
        for version in PROOF:
            if modernise(_definitions(old, version)) != _definitions(current, version):
                raise SystemExit(f"the conversion does not reproduce kubernetes-validate's {version}: not written")
        for version in OLD_FORM:
            print(f"wrote {write_bundle(version, modernise(_definitions(old, version))).relative_to(HERE.parent)}")
        for version in CURRENT_FORM:
            print(f"wrote {write_bundle(version, _definitions(current, version)).relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
