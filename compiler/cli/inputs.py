"""Read the CLI's inputs: files, directories (recursive *.yaml/*.yml/*.json) and '-' for stdin."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from compiler.diagnostics import Code, Diagnostic, Location, Severity
from compiler.source import SourceDocument, parse_text

SUFFIXES = (".yaml", ".yml", ".json")
# kustomize's own files describe how to build, they are not objects to render.
KUSTOMIZE_FILES = frozenset({"kustomization.yaml", "kustomization.yml", "Kustomization"})
STDIN_NAME = "<stdin>"


class InputError(Exception):
    """The input cannot be read at all (missing path, unreadable, nothing found): exit code 2."""


@dataclass(slots=True)
class Inputs:
    documents: list[SourceDocument] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def is_manifest_path(parts: Sequence[str]) -> bool:
    """Whether a file (given by its path parts below a walked directory) is read as input."""
    if not parts or any(part.startswith(".") for part in parts):
        return False
    name = parts[-1]
    return name.endswith(SUFFIXES) and name not in KUSTOMIZE_FILES


def discover(paths: Sequence[str], skip: Sequence[Path] = (), allow_empty: bool = False) -> list[str]:
    """Expand directories into their manifest files in a stable order; '-' stays as is."""
    found: list[str] = []
    skipped = [p.resolve() for p in skip]
    for raw in paths:
        if raw == "-":
            found.append(raw)
            continue
        path = Path(raw)
        if path.is_dir():
            found.extend(_walk(path, skipped))
        elif path.is_file():
            found.append(raw)
        elif path.exists():
            raise InputError(f"{raw}: not a regular file or directory")
        else:
            raise InputError(f"{raw}: no such file or directory")
    if not found and not allow_empty:
        raise InputError(f"no {', '.join(SUFFIXES)} files found in {', '.join(paths)}")
    return found


def _walk(root: Path, skipped: list[Path]) -> list[str]:
    files: list[str] = []
    for path in sorted(root.rglob("*"), key=lambda p: p.as_posix()):
        if not is_manifest_path(path.relative_to(root).parts) or not path.is_file():
            continue
        if any(path.resolve().is_relative_to(s) for s in skipped):
            continue
        files.append(path.as_posix())
    return files


def read_inputs(paths: Sequence[str], skip: Sequence[Path] = (), allow_empty: bool = False) -> Inputs:
    inputs = Inputs()
    stdin_used = False
    for name in discover(paths, skip, allow_empty):
        if name == "-":
            if stdin_used:
                raise InputError("'-' (standard input) can be given only once")
            stdin_used = True
            text, label = _read_stdin(), STDIN_NAME
        else:
            text, label = _read_file(name), name
        if text is None:
            inputs.diagnostics.append(Diagnostic(Code.YAML_SYNTAX, Severity.ERROR, "the file is not UTF-8 text",
                                                 location=Location(label), hint="save it as UTF-8"))
            continue
        parsed = parse_text(text, label)
        inputs.files.append(label)
        inputs.documents.extend(parsed.documents)
        inputs.diagnostics.extend(parsed.diagnostics)
    return inputs


def _decode(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def _read_file(name: str) -> str | None:
    try:
        raw = Path(name).read_bytes()
    except OSError as exc:
        raise InputError(f"{name}: {exc.strerror or exc}") from exc
    return _decode(raw)


def _read_stdin() -> str | None:
    return _decode(sys.stdin.buffer.read())
