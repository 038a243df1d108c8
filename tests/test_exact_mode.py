"""MXJOB_EXACT=1 turns every fast path off (compiler/base/exact.py); nothing a user sees may change with it.

The same commands run on the same inputs with the fast paths on and off, and must print the same bytes on
stdout and stderr, write the same files and exit alike: every golden case (against its expected files), every
example and corpus file, every edit of the mutation catalogs, generated values of every YAML style
(tests/yamlgen.py), large streams that take the fast reader, the forked parts, the checks while reading and the
stat cache of `render -o`, and the hostile texts on which the fast reader once read other values than the exact
one (tests/test_fastread.py holds the readers equal on generated texts).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.base import exact
from mxjob_gitops.compiler.base import run as compiler_run
from mxjob_gitops.compiler.io import runcontext
from tests.conftest import JOB_EXAMPLE_FILES, REPO, Run, run_cli
from tests.test_golden import CASES, _args
from tests.yamlgen import yaml_block

CORPUS = sorted((REPO / "tests" / "corpus").glob("*.yaml"))
# The run context each command of a test built (io/runcontext.py), latest last.
_BUILT: list[compiler_run.Run] = []


@pytest.fixture(autouse=True)
def _record_runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    build = runcontext.command_run

    def recorded() -> compiler_run.Run:
        _BUILT.append(build())
        return _BUILT[-1]

    monkeypatch.setattr(runcontext, "command_run", recorded)
    yield
    _BUILT.clear()


def _both(
    monkeypatch: pytest.MonkeyPatch, args: list[str], cwd: Path | None = None, stdin: str | None = None
) -> tuple[Run, Run]:
    """The command with the fast paths on, then off."""
    monkeypatch.delenv("MXJOB_EXACT", raising=False)
    fast = run_cli(args, cwd=cwd, stdin=stdin)
    monkeypatch.setenv("MXJOB_EXACT", "1")
    try:
        exact_run = run_cli(args, cwd=cwd, stdin=stdin)
        assert _BUILT[-1].off == frozenset(exact.SHORTCUTS), "the command line did not turn the fast paths off"
    finally:
        monkeypatch.delenv("MXJOB_EXACT")
    assert not exact.exact("reader"), "the command's run outlived the command"
    return fast, exact_run


def _same(fast: Run, exact_run: Run, what: str) -> None:
    assert (fast.exit_code, fast.stderr) == (exact_run.exit_code, exact_run.stderr), what
    assert fast.stdout == exact_run.stdout, what


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_cases_are_the_same_without_fast_paths(case: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MXJOB_EXACT", "1")
    stdin_file = case / "stdin.yaml"
    stdin = stdin_file.read_text(encoding="utf-8") if stdin_file.exists() else None
    result = run_cli(_args(case), cwd=case, stdin=stdin)
    assert result.stdout == (case / "expected.out").read_text(encoding="utf-8")
    assert result.stderr == (case / "expected.err").read_text(encoding="utf-8")
    assert f"{result.exit_code}\n" == (case / "expected.exit").read_text(encoding="utf-8")


@pytest.mark.parametrize("path", [*JOB_EXAMPLE_FILES, *CORPUS], ids=lambda p: p.name)
def test_examples_and_corpus_read_render_and_validate_alike(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for command in (["render", str(path)], ["render", "--format", "json", str(path)], ["validate", str(path)]):
        _same(*_both(monkeypatch, command), " ".join(command))


def _renamed(text: str, suffix: str) -> str:
    """A spec with every job (and its pass-through objects) given new names, so copies do not collide."""
    return re.sub(r"(?m)^(  name: )([a-z0-9-]+)$", lambda m: f"{m.group(1)}{m.group(2)}-{suffix}", text)


def _large_specs(copies: int) -> str:
    texts = [p.read_text(encoding="utf-8") for p in JOB_EXAMPLE_FILES]
    return "".join(f"---\n{_renamed(text, str(n))}" for n in range(copies) for text in texts)


@pytest.fixture(scope="module")
def large_rendering() -> Iterator[str]:
    """About 3 MB of rendered objects: the fast reader, the forked parts and vouching all take it."""
    result = run_cli(["render", "-"], stdin=_large_specs(150))
    assert result.exit_code == 0, result.stderr
    assert len(result.stdout) > 2 * 1024 * 1024
    yield result.stdout


def test_a_large_spec_stream_renders_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    specs = _large_specs(150)
    for args in (["render", "-"], ["render", "--format", "json", "-"], ["validate", "-"]):
        _same(*_both(monkeypatch, args, stdin=specs), " ".join(args))


def test_a_large_rendered_stream_validates_and_diffs_alike(
    large_rendering: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _same(*_both(monkeypatch, ["validate", "-"], stdin=large_rendering), "validate")
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(large_rendering, encoding="utf-8")
    edited = large_rendering.replace("image: ", "image: registry.example/", 40)
    new.write_text(edited.replace("kind: Service\n", "kind: Service\n", 1), encoding="utf-8")
    for fmt in ("text", "json", "brief"):
        _same(*_both(monkeypatch, ["diff", "--format", fmt, str(old), str(new)]), f"diff {fmt}")


def _tree(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def test_render_into_a_directory_writes_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Twice each way (the second run finds its files unchanged, where the stat cache would vouch for them)."""
    specs = tmp_path / "specs.yaml"
    specs.write_text(_large_specs(60), encoding="utf-8")
    fast_dir, exact_dir = tmp_path / "fast", tmp_path / "exact"
    for _ in range(2):
        monkeypatch.delenv("MXJOB_EXACT", raising=False)
        fast = run_cli(["render", "-o", str(fast_dir), str(specs)])
        monkeypatch.setenv("MXJOB_EXACT", "1")
        exact_run = run_cli(["render", "-o", str(exact_dir), str(specs)])
        monkeypatch.delenv("MXJOB_EXACT")
        assert fast.exit_code == exact_run.exit_code == 0, (fast.stderr, exact_run.stderr)
        assert fast.stdout == exact_run.stdout
        assert fast.stderr.replace(str(fast_dir), "DIR") == exact_run.stderr.replace(str(exact_dir), "DIR")
        assert _tree(fast_dir) == _tree(exact_dir)


# Values the fast reader once read otherwise than the exact one (and kubectl) once a file passed 256 KiB.
HOSTILE = [
    "data: {k: train\n  \n }\n",
    "data:\n  x: {k: train,\n   \n   j: x\n  }\n",
    'data:\n  k: "x\\\n  y"\n',
    "data:\n  k: >1+\n   x\n  y\n\n",
    "data:\n  k: |2-\n     x\n    y\n",
    "data:\n  k: [x,\n  \n  y]\n",
    'data:\n  k: "a\n\n   b"\n',
    "data:\n  k: a\n    \n   b\n",
]


@pytest.mark.parametrize("body", HOSTILE)
def test_hostile_values_read_alike_in_a_large_file(body: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hostile\n"
    padding = "".join(
        f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pad-{n}\ndata:\n  k: '{'x' * 200}'\n"
        for n in range(1400)
    )
    path = tmp_path / "big.yaml"
    path.write_text(head + body + padding, encoding="utf-8")
    assert path.stat().st_size > 256 * 1024
    fast, exact_run = _both(monkeypatch, ["render", str(path)])
    _same(fast, exact_run, body)
    if fast.exit_code == 0:  # the exact reader's value is the one every Go reader gives (tests/test_yaml_readers.py)
        first = next(yaml.safe_load_all(fast.stdout))
        assert first["metadata"]["name"] == "hostile"


def test_a_fast_path_can_be_turned_off_alone_and_a_wrong_name_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MXJOB_EXACT", "reader, memo")
    alone = run_cli(["render", str(JOB_EXAMPLE_FILES[0])])
    assert alone.exit_code == 0, alone.stderr
    assert [name for name in exact.SHORTCUTS if name in _BUILT[-1].off] == ["reader", "memo"]
    monkeypatch.setenv("MXJOB_EXACT", "fastest")
    wrong = run_cli(["render", str(JOB_EXAMPLE_FILES[0])])
    assert wrong.exit_code == 2 and "MXJOB_EXACT: 'fastest' is no fast path" in wrong.stderr
    assert wrong.stdout == ""


def _catalog_stream() -> str:
    """Every edit of both mutation catalogs (tests/hidden_mutations.py, tests/kube_mutations.py), each object in a
    namespace of its own unless the edit is to its namespace (so no two collide), as one YAML stream."""
    from tests import hidden_mutations

    bases = hidden_mutations.render_bases()
    documents = []
    for index, (base, obj) in enumerate(hidden_mutations.mutated_objects(bases)):
        metadata = obj.get("metadata")
        if isinstance(metadata, dict) and metadata.get("namespace") == bases[base]["metadata"].get("namespace"):
            metadata["namespace"] = f"mutation-{index}"
        documents.append(obj)
    assert len(documents) > 300
    return yaml.safe_dump_all(documents, sort_keys=False)


@pytest.mark.parametrize(
    "command",
    [["validate", "-"], ["validate", "--kubernetes-version", "1.20", "-"], ["render", "-"]],
    ids=["validate", "validate-1.20", "render"],
)
def test_the_mutation_catalogs_are_judged_alike(command: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The pod-spec memo, the compiled schema acceptance, the identity shortcut, vouching and the representatives
    all meet every edit of the catalogs: the verdicts, their wording and the exit code must not change."""
    stream = _catalog_stream()
    fast, exact_run = _both(monkeypatch, command, stdin=stream)
    _same(fast, exact_run, " ".join(command))
    assert fast.exit_code == 1  # the catalogs hold invalid objects, and each is checked
    if command[0] == "validate":
        summary = re.search(r"(\d+) valid, (\d+) invalid", fast.stdout)
        assert summary is not None and int(summary[1]) > 100 and int(summary[2]) > 100, fast.stdout[-300:]


# ConfigMaps enough to pass the 256 KiB from which every text is read fast.
_PADDING = "".join(
    f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pad-{n}\ndata:\n  k: '{'x' * 200}'\n"
    for n in range(1400)
)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(blocks=st.lists(yaml_block(indent=2), min_size=1, max_size=3))
def test_generated_values_render_alike_in_a_large_stream(blocks: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """tests/yamlgen.py's scalars and collections (every quoting and block style), in objects that render passes
    through as they were read: the values printed, the diagnostics and the exit code do not change."""
    head = "".join(
        f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: generated-{n}\nextra:\n{block}\n"
        for n, block in enumerate(blocks)
    )
    fast, exact_run = _both(monkeypatch, ["render", "-"], stdin=head + _PADDING)
    _same(fast, exact_run, head)
