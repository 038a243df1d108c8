"""The compiler core stays pure: no I/O modules, no client, no reconciler; only compiler.cli touches files."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO

CORE = sorted(p for p in (REPO / "compiler").glob("*.py"))
FORBIDDEN_IN_CORE = {"os", "sys", "subprocess", "socket", "time", "datetime", "random", "shutil", "tempfile",
                     "urllib", "http", "requests", "kubernetes", "reconciler", "compiler.cli", "click"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", CORE, ids=[p.name for p in CORE])
def test_core_module_is_pure(path: Path) -> None:
    bad = {name for name in _imports(path) for forbidden in FORBIDDEN_IN_CORE
           if name == forbidden or name.startswith(forbidden + ".")}
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_compiler_never_imports_the_reconciler() -> None:
    for path in (REPO / "compiler").rglob("*.py"):
        assert not any(n == "reconciler" or n.startswith("reconciler.") for n in _imports(path)), path


def test_every_module_starts_with_a_docstring() -> None:
    for path in [*(REPO / "compiler").rglob("*.py"), *(REPO / "reconciler").rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if path.name == "__main__.py" or tree.body:
            assert ast.get_docstring(tree), f"{path} has no module docstring"


def test_only_one_module_imports_the_kubernetes_client() -> None:
    sources = [*(REPO / "compiler").rglob("*.py"), *(REPO / "reconciler").rglob("*.py")]
    importers = sorted(str(path.relative_to(REPO)) for path in sources
                       if any(n == "kubernetes" or n.startswith("kubernetes.") for n in _imports(path)))
    assert importers == ["reconciler/kube.py"]
