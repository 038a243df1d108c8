"""Layers: the compiler's rooms import only the rooms below them (lazy and TYPE_CHECKING imports count), no module
imports itself through others, the core stays pure (no I/O, client or reconciler; only compiler.io and compiler.cli
touch files), and the reconciler uses only the compiler's public entry points."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO

# The compiler's rooms by stage, bottom to top; a room may import the rooms of lower rank only (same rank: none of
# the other). `__init__` is the package's public façade. docs/architecture.md draws the same picture.
RANKS = {
    "base": 0,
    "read": 1,
    "spec": 1,
    "rules": 2,
    "integrations": 2,
    "render": 3,
    "compile": 4,
    "validate": 5,
    "diff": 5,
    "__init__": 5,
    "io": 6,
    "report": 6,
    "cli": 7,
    "reconciler": 8,
}
IMPURE = ("cli", "io")
CORE = sorted(p for p in (REPO / "compiler").rglob("*.py") if p.relative_to(REPO / "compiler").parts[0] not in IMPURE)
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
    "mxjob_gitops.compiler.io",
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
    "mxjob_gitops.compiler.base.asciinum",
    "mxjob_gitops.compiler.base.limits",
    "mxjob_gitops.compiler.spec.constants",
    "mxjob_gitops.compiler.spec.exitcodes",
    "mxjob_gitops.compiler.spec.replicas",
    "mxjob_gitops.compiler.cli.exits",
    "mxjob_gitops.compiler.cli.guard",
    "mxjob_gitops.compiler.cli.flags",
    "mxjob_gitops.compiler.io.extras",
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

    exported = set(compiler.__all__)
    bad = []
    for path in sorted((REPO / "reconciler").rglob("*.py")):
        for module, name in _compiler_imports(path):
            if f"{module}.{name}" in PUBLIC_MODULES:  # `from mxjob_gitops.compiler.spec import constants`
                continue
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


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(["mxjob_gitops", *(parts[:-1] if parts[-1] == "__init__" else parts)])


def _graph() -> dict[str, set[str]]:
    """Every module of compiler/ and reconciler/ and the modules of the package it imports, wherever the import
    statement stands (in a function, under TYPE_CHECKING): `from package import module` counts as the module."""
    paths = [*(REPO / "compiler").rglob("*.py"), *(REPO / "reconciler").rglob("*.py")]
    modules = {_module_name(p): p for p in paths}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                found.update(
                    f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules else node.module
                    for alias in node.names
                )
        graph[name] = {m for m in found if m in modules}
    return graph


def _room(module: str) -> str:
    parts = module.split(".")
    if parts[1] == "reconciler":
        return "reconciler"
    return parts[2] if len(parts) > 2 else "__init__"


def test_the_compiler_top_level_holds_its_rooms_only() -> None:
    entries = list((REPO / "compiler").iterdir())
    modules = sorted(p.name for p in entries if p.suffix == ".py" and p.name != "__init__.py")
    rooms = sorted(p.name for p in entries if (p / "__init__.py").is_file())
    assert modules == [], f"loose modules at the top of compiler/: {modules}"
    assert rooms == sorted(room for room in RANKS if room not in ("__init__", "reconciler")), rooms


def test_every_import_between_rooms_goes_down() -> None:
    graph = _graph()
    bad = [
        f"{module} ({_room(module)}) imports {target} ({_room(target)})"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if _room(module) != _room(target) and not RANKS[_room(target)] < RANKS[_room(module)]
    ]
    assert not bad, "an import goes up or sideways between rooms:\n" + "\n".join(bad)


def test_no_module_imports_itself_through_others() -> None:
    graph = _graph()
    cycles: list[list[str]] = []
    done: set[str] = set()

    def visit(module: str, trail: list[str]) -> None:
        if module in trail:
            cycles.append([*trail[trail.index(module) :], module])
            return
        if module in done:
            return
        for target in sorted(graph[module]):
            visit(target, [*trail, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_report_writers_are_independent_of_each_other() -> None:
    """One module per --format: a writer may use its package's shared part, never another writer."""
    graph = _graph()
    for family in ("validate", "diff"):
        package = f"mxjob_gitops.compiler.report.{family}"
        writers = {m for m in graph if m.startswith(package + ".")}
        bad = sorted(f"{w} imports {t}" for w in writers for t in graph[w] if t in writers)
        assert not bad, bad


CLI_MOST_LINES = 1_500


def test_the_commands_stay_small() -> None:
    """compiler/cli/ is the commands only (parse, wire, map errors to exit codes): a capability goes to the room of
    its stage (io/ for I/O, report/ for printing, compile/ for pure orchestration) and cli/ only wires it."""
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in (REPO / "compiler" / "cli").rglob("*.py"))
    assert 0 < lines <= CLI_MOST_LINES, f"compiler/cli/ holds {lines:,} lines, more than {CLI_MOST_LINES:,}"
