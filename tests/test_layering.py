"""Layers: the compiler core stays pure (no I/O, client or reconciler; only compiler.cli touches files), and the
reconciler uses only the compiler's public entry points."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO

CORE = sorted(p for p in (REPO / "compiler").rglob("*.py") if p.relative_to(REPO / "compiler").parts[0] != "cli")
FORBIDDEN_IN_CORE = {
    "os",
    "sys",
    "subprocess",
    "socket",
    "time",
    "datetime",
    "random",
    "shutil",
    "tempfile",
    "urllib",
    "http",
    "requests",
    "kubernetes",
    "mxjob_gitops.reconciler",
    "mxjob_gitops.compiler.cli",
    "click",
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", CORE, ids=[str(p.relative_to(REPO / "compiler")) for p in CORE])
def test_core_module_is_pure(path: Path) -> None:
    bad = {
        name
        for name in _imports(path)
        for forbidden in FORBIDDEN_IN_CORE
        if name == forbidden or name.startswith(forbidden + ".")
    }
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_compiler_never_imports_the_reconciler() -> None:
    for path in (REPO / "compiler").rglob("*.py"):
        assert not any(n.split(".")[:2] == ["mxjob_gitops", "reconciler"] for n in _imports(path)), path


def test_every_module_starts_with_a_docstring() -> None:
    for path in [*(REPO / "compiler").rglob("*.py"), *(REPO / "reconciler").rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if path.name == "__main__.py" or tree.body:
            assert ast.get_docstring(tree), f"{path} has no module docstring"


def test_only_one_module_imports_the_kubernetes_client() -> None:
    sources = [*(REPO / "compiler").rglob("*.py"), *(REPO / "reconciler").rglob("*.py")]
    importers = sorted(
        str(path.relative_to(REPO))
        for path in sources
        if any(n == "kubernetes" or n.startswith("kubernetes.") for n in _imports(path))
    )
    assert importers == ["reconciler/kube.py"]


# What the reconciler may use of the compiler: the package's exported names, the operator's vocabulary, and
# the CLI's contract with its subcommands: exit codes, the shared flag vocabulary and the optional-extra check
# (the reconciler's `reconcile` command plugs into `mxjob` and must take the same flags as every other command),
# and the readers of numbers in supplied text (flags, headers, labels read one way everywhere).
PUBLIC_MODULES = {
    "mxjob_gitops.compiler",
    "mxjob_gitops.compiler.asciinum",
    "mxjob_gitops.compiler.constants",
    "mxjob_gitops.compiler.replicas",
    "mxjob_gitops.compiler.cli.exits",
    "mxjob_gitops.compiler.cli.flags",
    "mxjob_gitops.compiler.cli.extras",
}


def _is_compiler(module: str) -> bool:
    return module == "mxjob_gitops.compiler" or module.startswith("mxjob_gitops.compiler.")


def _compiler_imports(path: Path) -> list[tuple[str, str | None]]:
    """(module, name) for every import of the compiler in a file; name is None for `import module`."""
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, None) for alias in node.names if _is_compiler(alias.name))
        elif isinstance(node, ast.ImportFrom) and node.module and _is_compiler(node.module):
            found.extend((node.module, alias.name) for alias in node.names)
    return found


def test_reconciler_uses_only_the_compilers_public_entry_points() -> None:
    from mxjob_gitops import compiler

    exported = set(compiler.__all__) | {m.rpartition(".")[2] for m in PUBLIC_MODULES if m.count(".") == 2}
    bad = []
    for path in sorted((REPO / "reconciler").rglob("*.py")):
        for module, name in _compiler_imports(path):
            if module not in PUBLIC_MODULES or (module == "mxjob_gitops.compiler" and name not in exported):
                bad.append(f"{path.relative_to(REPO)}: {module}{'.' + name if name else ''}")
    assert not bad, "the reconciler reaches into the compiler's internals: " + ", ".join(bad)


def test_public_names_resolve() -> None:
    from mxjob_gitops import compiler

    for name in compiler.__all__:
        assert getattr(compiler, name) is not None


def test_everything_imports_through_the_one_package() -> None:
    """compiler/ and reconciler/ are folders, imported as mxjob_gitops.compiler and .reconciler (an editable install
    also exposes the folders' own names, which the wheel does not install)."""
    folders = ("compiler", "reconciler", "tests", "bench", "schemas")
    sources = [*(REPO / "mxjob_gitops").glob("*.py"), *(p for folder in folders for p in (REPO / folder).rglob("*.py"))]
    bad = [
        f"{p.relative_to(REPO)}: {n}"
        for p in sources
        for n in _imports(p)
        if n.split(".")[0] in ("compiler", "reconciler")
    ]
    assert len(sources) > 100 and not bad, bad
