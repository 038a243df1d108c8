"""The API server's rules for a CRD's openAPIV3Schema, checked offline (used by crd.py and tests/test_structural.py).

Each rule is written from the Kubernetes source (k8s.io/apiextensions-apiserver, checked against v1.20.2 and the
same functions upstream today), and named after what it protects:
- pkg/apiserver/schema/validation.go `validateStructuralInvariants`, `validateNestedValueValidation`: every field
  has a type, arrays have items, no metadata beyond name/generateName at the root, value validations (anyOf,
  allOf, oneOf, not) carry no types, defaults, descriptions or extensions, except the int-or-string pattern;
- pkg/apis/apiextensions/validation/validation.go `specStandardValidatorV3.validate`,
  `ValidateCustomResourceDefinitionOpenAPISchema`, `validateMapListKeysMapSet`: no $ref/definitions/..., properties
  and additionalProperties are exclusive, list-type/map-keys consistency, items of map and set lists and map keys
  never nullable, map keys required or defaulted, set items atomic, nullable never at the root;
- `validateCustomResourceDefinitionValidation` (`allowedFieldsAtRootSchema`): the root of a schema with the status
  subresource only uses a few fields;
- pkg/apiserver/schema/defaulting/validation.go `ValidateDefaults`: defaults validate against their schema and hold
  no field the schema would prune;
- pkg/apis/apiextensions/v1/types_jsonschema.go `JSONSchemaProps`: the only keys the server stores (any other key
  is dropped on decode, so the stored CRD would differ from Git); minimum/maximum are float64 there, so a bound
  that is not exactly a float64 (9223372036854775807) comes back as a different number.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft4Validator

STORED_KEYS = frozenset(
    {
        "id",
        "$schema",
        "$ref",
        "description",
        "type",
        "format",
        "title",
        "default",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "multipleOf",
        "enum",
        "maxProperties",
        "minProperties",
        "required",
        "items",
        "allOf",
        "oneOf",
        "anyOf",
        "not",
        "properties",
        "additionalProperties",
        "patternProperties",
        "dependencies",
        "additionalItems",
        "definitions",
        "externalDocs",
        "example",
        "nullable",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-embedded-resource",
        "x-kubernetes-int-or-string",
        "x-kubernetes-list-map-keys",
        "x-kubernetes-list-type",
        "x-kubernetes-map-type",
        # Since Kubernetes 1.25 (beta, on by default); older servers drop it on decode. See docs/real-cluster.md.
        "x-kubernetes-validations",
    }
)
UNSUPPORTED = ("id", "$ref", "definitions", "dependencies", "additionalItems", "patternProperties")
TYPES = ("array", "boolean", "integer", "number", "object", "string")
ROOT_WITH_STATUS = frozenset(
    {
        "description",
        "type",
        "format",
        "title",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "multipleOf",
        "required",
        "items",
        "properties",
        "externalDocs",
        "example",
        "x-kubernetes-preserve-unknown-fields",
    }
)
JUNCTORS = ("anyOf", "allOf", "oneOf")
INT_OR_STRING = [{"type": "integer"}, {"type": "string"}]
NOT_IN_JUNCTORS = (
    "type",
    "additionalProperties",
    "default",
    "title",
    "description",
    "nullable",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-list-type",
    "x-kubernetes-map-type",
)


@dataclass(frozen=True, slots=True)
class Violation:
    rule: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message} [{self.rule}]"


def check(schema: dict[str, Any], status_subresource: bool = True) -> list[Violation]:
    """Every rule the API server would enforce on this openAPIV3Schema, as a list (empty when it is accepted)."""
    found = list(_root(schema, status_subresource))
    found.extend(_walk(schema, "openAPIV3Schema", "root"))
    return found


def _root(schema: dict[str, Any], status_subresource: bool) -> Iterator[Violation]:
    path = "openAPIV3Schema"
    if schema.get("type") != "object":
        yield Violation("root-object", path, "type must be object at the root")
    if "additionalProperties" in schema:
        yield Violation("root-object", path, "additionalProperties must not be used at the root")
    if schema.get("nullable"):
        yield Violation("nullable", path, "nullable cannot be true at the root")
    extra = sorted(set(schema) - ROOT_WITH_STATUS)
    if status_subresource and extra:
        yield Violation("status-root", path, f"fields not allowed at the root with the status subresource: {extra}")
    meta = schema.get("properties", {}).get("metadata")
    if meta is not None:
        names = set(meta.get("properties", {})) - {"name", "generateName"}
        if meta.get("type") != "object" or set(meta) - {"type", "properties"} or names:
            yield Violation(
                "root-metadata",
                f"{path}.properties[metadata]",
                "must be type object and may only restrict name and generateName",
            )


def _walk(node: dict[str, Any], path: str, level: str) -> Iterator[Violation]:
    yield from _keys(node, path)
    yield from _typed(node, path, level)
    yield from _lists(node, path)
    yield from _default(node, path)
    yield from _bounds(node, path)
    for junctor in JUNCTORS:
        for index, option in enumerate(node.get(junctor) or ()):
            yield from _nested(option, f"{path}.{junctor}[{index}]")
    if isinstance(node.get("not"), dict):
        yield from _nested(node["not"], f"{path}.not")
    for name, child in (node.get("properties") or {}).items():
        yield from _walk(child, f"{path}.properties[{name}]", "field")
    if isinstance(node.get("items"), dict):
        yield from _walk(node["items"], f"{path}.items", "item")
    if isinstance(node.get("additionalProperties"), dict):
        yield from _walk(node["additionalProperties"], f"{path}.additionalProperties", "field")


def _keys(node: dict[str, Any], path: str) -> Iterator[Violation]:
    unknown = sorted(set(node) - STORED_KEYS)
    if unknown:
        yield Violation("stored-keys", path, f"the server drops {unknown}, so the stored CRD would differ")
    for key in UNSUPPORTED:
        if key in node:
            yield Violation("unsupported-keyword", path, f"{key} is not supported")
    if isinstance(node.get("items"), list):
        yield Violation("unsupported-keyword", path, "items must be a schema object and not an array")
    if node.get("uniqueItems") is True:
        yield Violation("unsupported-keyword", path, "uniqueItems cannot be true")
    if node.get("x-kubernetes-preserve-unknown-fields") is False:
        yield Violation("preserve-unknown-fields", path, "x-kubernetes-preserve-unknown-fields must be true or unset")
    if "properties" in node and node.get("additionalProperties") not in (None, True):
        yield Violation("properties-exclusive", path, "additionalProperties and properties are mutually exclusive")


def _typed(node: dict[str, Any], path: str, level: str) -> Iterator[Violation]:
    kind = node.get("type")
    int_or_string = node.get("x-kubernetes-int-or-string") is True
    if kind is None and not int_or_string and not node.get("x-kubernetes-preserve-unknown-fields"):
        yield Violation("type-required", path, f"type must not be empty ({level})")
    if kind is not None and kind not in TYPES:
        yield Violation("type-required", path, f"type must be one of {TYPES}, not {kind!r}")
    if kind == "array" and "items" not in node:
        yield Violation("items-required", path, "items must be specified for an array")
    if int_or_string:
        if node.get("x-kubernetes-preserve-unknown-fields") or node.get("x-kubernetes-embedded-resource"):
            yield Violation("int-or-string", path, "must not be combined with preserve-unknown-fields or embedded")
        if "anyOf" in node and node["anyOf"] != INT_OR_STRING:
            yield Violation("int-or-string", path, "anyOf must be exactly [integer, string]")
    if node.get("x-kubernetes-embedded-resource"):
        yield from _embedded(node, path)


def _embedded(node: dict[str, Any], path: str) -> Iterator[Violation]:
    if node.get("type") != "object" or "additionalProperties" in node:
        yield Violation("embedded-resource", path, "must be type object without additionalProperties")
    if not node.get("properties") and not node.get("x-kubernetes-preserve-unknown-fields"):
        yield Violation("embedded-resource", path, "needs properties or x-kubernetes-preserve-unknown-fields")
    props = node.get("properties") or {}
    for field, wanted in (("kind", "string"), ("apiVersion", "string"), ("metadata", "object")):
        if field in props and props[field].get("type") != wanted:
            yield Violation("embedded-resource", f"{path}.properties[{field}]", f"must be type {wanted}")


def _nested(node: dict[str, Any], path: str) -> Iterator[Violation]:
    """Inside anyOf/allOf/oneOf/not: value validation only (the int-or-string pattern is checked by its parent)."""
    if node in INT_OR_STRING:
        return
    for key in NOT_IN_JUNCTORS:
        if key in node:
            yield Violation("value-validation-only", path, f"{key} must not be set inside a junctor")
    if "metadata" in (node.get("properties") or {}):
        yield Violation("value-validation-only", path, "metadata must not be specified in a nested context")
    for name, child in (node.get("properties") or {}).items():
        yield from _nested(child, f"{path}.properties[{name}]")
    if isinstance(node.get("items"), dict):
        yield from _nested(node["items"], f"{path}.items")


def _lists(node: dict[str, Any], path: str) -> Iterator[Violation]:
    list_type = node.get("x-kubernetes-list-type")
    keys = node.get("x-kubernetes-list-map-keys") or []
    items = node.get("items") if isinstance(node.get("items"), dict) else None
    if keys and list_type != "map":
        yield Violation("list-type", path, "x-kubernetes-list-map-keys needs x-kubernetes-list-type map")
    map_type = node.get("x-kubernetes-map-type")
    if map_type is not None and (node.get("type") != "object" or map_type not in ("atomic", "granular")):
        yield Violation("map-type", path, "x-kubernetes-map-type is atomic or granular, on an object")
    if list_type is None:
        return
    if node.get("type") != "array" or list_type not in ("atomic", "set", "map"):
        yield Violation("list-type", path, "x-kubernetes-list-type is atomic, set or map, on an array")
    if items is None or list_type == "atomic":
        return
    if items.get("nullable"):
        yield Violation("list-items-not-nullable", f"{path}.items", f"cannot be nullable in a {list_type} list")
    if list_type == "set":
        yield from _set_items(items, path)
    else:
        yield from _map_keys(items, keys, path)


def _set_items(items: dict[str, Any], path: str) -> Iterator[Violation]:
    if items.get("type") == "object" and items.get("x-kubernetes-map-type") != "atomic":
        yield Violation("set-items-atomic", f"{path}.items", "objects in a set list must be map-type atomic")
    if items.get("type") == "array" and items.get("x-kubernetes-list-type", "atomic") != "atomic":
        yield Violation("set-items-atomic", f"{path}.items", "arrays in a set list must be atomic")


def _map_keys(items: dict[str, Any], keys: list[str], path: str) -> Iterator[Violation]:
    if not keys:
        yield Violation("list-type", path, "x-kubernetes-list-type map needs x-kubernetes-list-map-keys")
    if len(set(keys)) != len(keys):
        yield Violation("list-type", path, "x-kubernetes-list-map-keys must not repeat a key")
    if items.get("type") != "object":
        yield Violation("list-type", f"{path}.items", "items of a map list must be objects")
    props = items.get("properties") or {}
    for key in keys:
        prop = props.get(key)
        if prop is None:
            yield Violation("list-type", path, f"map key {key!r} is not a property of the items")
            continue
        where = f"{path}.items.properties[{key}]"
        if prop.get("type") in ("array", "object"):
            yield Violation("list-type", where, "a map key must be a scalar")
        if key not in (items.get("required") or []) and "default" not in prop:
            yield Violation("map-keys-required-or-defaulted", where, "a map key must be required or have a default")
        if prop.get("nullable"):
            yield Violation("map-keys-not-nullable", where, "a map key cannot be nullable")


def _default(node: dict[str, Any], path: str) -> Iterator[Violation]:
    if "default" not in node:
        return
    value = node["default"]
    for error in Draft4Validator(_as_json_schema(node)).iter_errors(value):
        yield Violation("defaults-valid", f"{path}.default", f"{value!r}: {error.message}")
    pruned = _prune(value, node)
    if pruned != value:
        yield Violation("defaults-pruned", f"{path}.default", f"{value!r} holds fields the schema prunes")


def _as_json_schema(node: Any) -> Any:
    """The schema as draft 4 JSON Schema (OpenAPI v3.0's base): nullable widens the type, extensions go."""
    if isinstance(node, list):
        return [_as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {
        k: _as_json_schema(v)
        for k, v in node.items()
        if not k.startswith("x-kubernetes-") and k not in ("nullable", "default", "format", "properties")
    }
    if "properties" in node:
        out["properties"] = {name: _as_json_schema(child) for name, child in node["properties"].items()}
    if node.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    return out


def _prune(value: Any, node: dict[str, Any]) -> Any:
    if node.get("x-kubernetes-preserve-unknown-fields"):
        return value
    if isinstance(value, dict):
        props = node.get("properties")
        extra = node.get("additionalProperties")
        if props is not None:
            return {k: _prune(v, props[k]) for k, v in value.items() if k in props}
        if isinstance(extra, dict):
            return {k: _prune(v, extra) for k, v in value.items()}
        return value if extra is True else {}
    if isinstance(value, list) and isinstance(node.get("items"), dict):
        return [_prune(item, node["items"]) for item in value]
    return value


def _bounds(node: dict[str, Any], path: str) -> Iterator[Violation]:
    for key in ("minimum", "maximum"):
        bound = node.get(key)
        if isinstance(bound, int) and not isinstance(bound, bool) and int(float(bound)) != bound:
            yield Violation(
                "bounds-float64",
                f"{path}.{key}",
                f"{bound} is not exactly a float64 and is stored as {int(float(bound))}",
            )
