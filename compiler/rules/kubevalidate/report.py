"""How this package words a refusal: the API server's field.Error types (k8s.io/apimachinery pkg/util/validation/
field/errors.go) as diagnostics; the bottom layer of compiler.kubevalidate."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, TypeGuard

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, JsonPath, error

Found = list[Diagnostic]


def _show(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):  # pragma: no cover - values come from parsed YAML/JSON
        return repr(value)


def invalid(found: Found, code: Code, path: JsonPath, value: Any, detail: str) -> None:
    found.append(error(code, f"Invalid value: {_show(value)}: {detail}", path, "see docs/validation.md"))


def required(found: Found, code: Code, path: JsonPath, detail: str = "") -> None:
    tail = f": {detail}" if detail else ""
    found.append(error(code, f"Required value{tail}", path, "see docs/validation.md"))


def duplicate(found: Found, code: Code, path: JsonPath, value: Any) -> None:
    found.append(error(code, f"Duplicate value: {_show(value)}", path, "each must be unique"))


def not_found(found: Found, code: Code, path: JsonPath, value: Any) -> None:
    found.append(error(code, f"Not found: {_show(value)}", path, "see docs/validation.md"))


def forbidden(found: Found, code: Code, path: JsonPath, detail: str) -> None:
    found.append(error(code, f"Forbidden: {detail}", path, "see docs/validation.md"))


def unsupported(found: Found, code: Code, path: JsonPath, value: Any, allowed: Iterable[str]) -> None:
    choices = ", ".join(f'"{a}"' for a in allowed)
    found.append(error(code, f"Unsupported value: {_show(value)}: supported values: {choices}", path, ""))


def too_long(found: Found, code: Code, path: JsonPath, limit: int) -> None:
    found.append(error(code, f"Too long: must have at most {limit} bytes", path, "see docs/validation.md"))


def check_name(found: Found, code: Code, path: JsonPath, value: Any, rule: Any) -> None:
    """`rule` (a compiler.kubevalidate.names predicate) on a string value; a non-string is the schema's to report."""
    if isinstance(value, str):
        problem = rule(value)
        if problem:
            invalid(found, code, path, value, problem)


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


@lru_cache(maxsize=256)
def since(version: str | None, release: tuple[int, int]) -> bool:
    """The rules of `version` (None: the newest) include a change made in `release` (major, minor); memoised,
    as every container of every object asks."""
    if version is None:
        return True
    major, minor = (int(part) for part in version.split(".")[:2])
    return (major, minor) >= release
