"""The API server's rules beside schema errors: the parts of a job the schema refused are cut out (at the nearest
mapping key above each error, so list positions keep their meaning), the rest is checked, and what is found at
or under a cut is left out (it is the schema's finding already). compiler.job calls it; one mistake is reported
once, and a type error no longer hides the object's other findings."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, JsonPath


def cut_points(diagnostics: Iterable[Diagnostic]) -> set[JsonPath]:
    """Where to cut for each error: its path up to the last mapping key (a list position cuts the whole list)."""
    points: set[JsonPath] = set()
    for diagnostic in diagnostics:
        path = diagnostic.path
        while path and not isinstance(path[-1], str):
            path = path[:-1]
        points.add(path)
    return points


def without(data: dict[str, Any], points: set[JsonPath]) -> dict[str, Any]:
    """A copy of `data` without the values at `points` (each a path of mapping keys and list positions)."""
    pruned = copy.deepcopy(data)
    for point in sorted(points, key=len, reverse=True):
        parent: Any = pruned
        for step in point[:-1]:
            parent = _child(parent, step)
            if parent is None:
                break
        if point and isinstance(parent, dict):
            parent.pop(point[-1], None)
    return pruned


def _child(parent: Any, step: str | int) -> Any:
    """parent[step] when it is there, else None."""
    if isinstance(parent, dict) and isinstance(step, str):
        return parent.get(step)
    if isinstance(parent, list) and isinstance(step, int) and 0 <= step < len(parent):
        return parent[step]
    return None


def under(path: JsonPath, points: set[JsonPath]) -> bool:
    return any(path[: len(point)] == point for point in points)


def beside(schema_errors: list[Diagnostic], found: Iterable[Diagnostic]) -> list[Diagnostic]:
    """`found` without what lies at or under a value the schema refused."""
    points = cut_points(schema_errors)
    return [d for d in found if not under(d.path, points)]


def checked_beside(
    data: dict[str, Any], schema_errors: list[Diagnostic], check: Callable[[dict[str, Any]], Iterable[Diagnostic]]
) -> list[Diagnostic]:
    """`check` on `data` without what the schema refused; none of its findings at or under a cut point.
    An error of the whole document (an empty path) leaves nothing to check."""
    points = cut_points(schema_errors)
    if () in points:
        return []
    return [d for d in check(without(data, points)) if not under(d.path, points)]
