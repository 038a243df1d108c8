"""Findings in what kustomize built, moved to the file and line they came from: kustomize's
`buildMetadata: [originAnnotations]` writes `config.kubernetes.io/origin: {path: ...}` on every object (kustomize
api/krusty, "originAnnotations"), relative to the kustomization built. cli.kustomize's reads remember each build
and the source files its annotations name (read at once: a revision's checkout is gone after reading); the
commands pass every location they report through `relocate`, which is a no-op when nothing was built.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, Location
from mxjob_gitops.compiler.base.limits import MAX_INPUT_BYTES

if TYPE_CHECKING:
    from mxjob_gitops.compiler.validate.validation import Report

ANNOTATION = "config.kubernetes.io/origin"
_PATH_LINE = re.compile(r"^\s*(?:\{\s*)?path:\s*['\"]?([^'\"\n}]+?)['\"]?\s*\}?\s*$", re.MULTILINE)


@dataclass(slots=True)
class _Built:
    """One kustomize build: its text, and the label and text of each source file its annotations name."""

    text: str
    sources: dict[str, tuple[str, str]]
    nodes: list[yaml.Node] | None = None
    parsed: dict[str, list[yaml.Node]] = field(default_factory=dict)


_BUILT: dict[str, _Built] = {}  # a built stream's label -> what is known of it


def remember(label: str, text: str, directory: Path, root: Path, shown: Callable[[Path], str]) -> None:
    """Keep what relocating findings of the build LABEL (TEXT, built in DIRECTORY) needs: each source file its
    origin annotations name, read now if it lies below ROOT (the tree read), named by `shown`."""
    _BUILT.pop(label, None)  # an earlier build of the same name, in the same process
    if ANNOTATION not in text:
        return
    sources: dict[str, tuple[str, str]] = {}
    top = Path(os.path.realpath(root))
    for found in _origins(text):
        written = found.group(1).strip()
        if written not in sources:
            _read_source(sources, written, Path(os.path.realpath(directory / written)), top, shown)
    _BUILT[label] = _Built(text, sources)


def remember_piped(label: str, text: str, root: Path) -> None:
    """Like `remember` for a build piped in (`kubectl kustomize DIR | mxjob render -`): the kustomization it was
    built from is not known, so each origin path is resolved from every kustomization directory below ROOT (the
    working directory); a path is kept only when all those that find a file find the same one."""
    _BUILT.pop(label, None)
    if ANNOTATION not in text:
        return
    from mxjob_gitops.compiler.io.kustomize import KUSTOMIZATION_NAMES
    from mxjob_gitops.compiler.io.shown import shown

    roots: list[Path] = []
    for visited, (directory, subdirectories, names) in enumerate(os.walk(root)):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
        if any(name in names for name in KUSTOMIZATION_NAMES):
            roots.append(Path(directory))
        if len(roots) >= _MOST_KUSTOMIZATIONS or visited >= _MOST_DIRECTORIES:
            break
    sources: dict[str, tuple[str, str]] = {}
    for written in {m.group(1).strip() for m in _origins(text)}:
        found = {os.path.realpath(r / written) for r in roots if (r / written).is_file()}
        if len(found) == 1:
            _read_source(sources, written, Path(found.pop()), Path(os.path.realpath(root)), shown)
    _BUILT[label] = _Built(text, sources)


_MOST_KUSTOMIZATIONS = 500
_MOST_DIRECTORIES = 20_000  # a pipe from elsewhere, run in a large tree: looked for this far, then left as it is


def _origins(text: str) -> Iterable[re.Match[str]]:
    """The `path:` of each origin annotation in TEXT."""
    for at in re.finditer(re.escape(ANNOTATION), text):
        found = _PATH_LINE.search(text, at.end(), at.end() + 400)
        if found is not None:
            yield found


def _read_source(
    sources: dict[str, tuple[str, str]], written: str, target: Path, top: Path, shown: Callable[[Path], str]
) -> None:
    """Keep the text of TARGET (the file an origin path WRITTEN names) when it is a file below TOP."""
    if not target.is_relative_to(top) or not target.is_file() or target.stat().st_size > MAX_INPUT_BYTES:
        return
    try:
        sources[written] = (shown(target), target.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError):
        return


def relabel(old: str, new: str, rename: Callable[[str], str]) -> None:
    """The build OLD is now named NEW, and each source file label L is now rename(L) (a revision's checkout)."""
    built = _BUILT.pop(old, None)
    _BUILT.pop(new, None)
    if built is not None:
        built.sources = {k: (rename(label), text) for k, (label, text) in built.sources.items()}
        _BUILT[new] = built


def forget() -> None:
    _BUILT.clear()


def relocate(location: Location | None) -> Location | None:
    """LOCATION in a remembered build, moved to the same field in the source file its object came from (the
    nearest field there when a patch added it); any other location as it is."""
    built = _BUILT.get(location.file) if location is not None else None
    if built is None or location is None or location.line <= 0:
        return location
    if built.nodes is None:
        built.nodes = _compose(built.text)
    line = location.line - 1
    document = next((n for n in built.nodes if n.start_mark.line <= line <= n.end_mark.line), None)
    if document is None:
        return location
    origin = _origin_path(document)
    source = built.sources.get(origin or "")
    if source is None:
        return location
    label, text = source
    candidates = built.parsed.setdefault(label, _compose(text))
    target = _matching(candidates, document)
    if target is None:
        return location
    mark = _descend(target, _path_at(document, line, max(location.column - 1, 0)))
    return Location(label, mark.line + 1, mark.column + 1)


def relocated(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics with their locations relocated (the same objects when nothing was built)."""
    if not _BUILT:
        return list(diagnostics)
    return [d if d.location is None else replace(d, location=relocate(d.location)) for d in diagnostics]


def relocate_report(report: Report) -> None:
    """Every location of a validate report in a kustomize build moved to its source file and line."""
    report.diagnostics[:] = relocated(report.diagnostics)
    report.objects[:] = [
        replace(
            result,
            origin=relocate(result.origin) or result.origin,
            findings=tuple(replace(f, location=relocate(f.location)) for f in result.findings),
        )
        if result.findings or result.status.value == "skipped"
        else result
        for result in report.objects
    ]


def _compose(text: str) -> list[yaml.Node]:
    try:
        return list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return []


def _child(node: yaml.Node, key: str) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
                found: yaml.Node = value_node
                return found
    return None


def _scalar(node: yaml.Node, path: Sequence[str]) -> str | None:
    current: yaml.Node | None = node
    for part in path:
        current = _child(current, part) if current is not None else None
    return current.value if isinstance(current, yaml.ScalarNode) else None


def _origin_path(document: yaml.Node) -> str | None:
    written = _scalar(document, ("metadata", "annotations", ANNOTATION))
    try:
        origin: Any = yaml.safe_load(written) if written else None
    except yaml.YAMLError:
        return None
    path = origin.get("path") if isinstance(origin, dict) else None
    return path.strip() if isinstance(path, str) else None


def _matching(candidates: list[yaml.Node], built: yaml.Node) -> yaml.Node | None:
    """The document of the source file the built object came from: same kind and name, else same kind and a name
    the built one holds (a namePrefix or nameSuffix), else the only document of that kind."""
    kind, name = _scalar(built, ("kind",)), _scalar(built, ("metadata", "name")) or ""
    same_kind = [n for n in candidates if _scalar(n, ("kind",)) == kind]
    for accept in (lambda other: other == name, lambda other: bool(other) and other in name):
        found = [n for n in same_kind if accept(_scalar(n, ("metadata", "name")) or "")]
        if len(found) == 1:
            return found[0]
    return same_kind[0] if len(same_kind) == 1 else None


def _path_at(node: yaml.Node, line: int, column: int) -> list[str | int]:
    """The path of the deepest field of NODE at or before (LINE, COLUMN), both 0-based."""
    at = (line, column)
    path: list[str | int] = []
    current = node
    while True:
        if isinstance(current, yaml.MappingNode):
            entries = [(k, v) for k, v in current.value if (k.start_mark.line, k.start_mark.column) <= at]
            if not entries:
                return path
            key, value = entries[-1]
            path.append(str(key.value))
            if isinstance(value, yaml.ScalarNode) or (value.start_mark.line, value.start_mark.column) > at:
                return path
            current = value
        elif isinstance(current, yaml.SequenceNode):
            items = [(i, v) for i, v in enumerate(current.value) if (v.start_mark.line, v.start_mark.column) <= at]
            if not items:
                return path
            path.append(items[-1][0])
            current = items[-1][1]
        else:
            return path


def _descend(node: yaml.Node, path: Sequence[str | int]) -> Any:
    """The mark of the field at PATH in NODE, or of its nearest ancestor there."""
    current = node
    for part in path:
        if isinstance(current, yaml.MappingNode):
            match = next(
                ((k, v) for k, v in current.value if isinstance(k, yaml.ScalarNode) and k.value == str(part)), None
            )
            if match is None:
                break
            if isinstance(match[1], yaml.ScalarNode):
                return match[1].start_mark
            current = match[1]
        elif isinstance(current, yaml.SequenceNode) and isinstance(part, int) and part < len(current.value):
            current = current.value[part]
        else:
            break
    return current.start_mark
