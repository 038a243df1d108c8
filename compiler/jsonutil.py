"""Small helpers over JSON-shaped data (dicts, lists, scalars) shared by the conversion and rule modules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from compiler.diagnostics import PathPart


def copy_json(value: Any) -> Any:
    """Deep-copy JSON-shaped data; several times faster than copy.deepcopy for this shape."""
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    return value


def get_in(value: Any, path: Sequence[PathPart]) -> Any:
    """Follow a path; None when any step is missing or has the wrong type."""
    current = value
    for part in path:
        if isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current):
            current = current[part]
        elif isinstance(current, dict) and isinstance(part, str):
            current = current.get(part)
        else:
            return None
    return current


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    return "mapping"
