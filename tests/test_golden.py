"""Golden directories: tests/golden/<case>/ holds the input, the command line and the expected output.

Each case has `args` (the mxjob arguments, one per line; default `render input.yaml`), its input files,
and `expected.out` (stdout), `expected.err` (stderr) and `expected.exit`. After an intended change, run
`make golden` (MXJOB_UPDATE_GOLDEN=1 pytest tests/test_golden.py) and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli

GOLDEN = REPO / "tests" / "golden"
CASES = sorted(p for p in GOLDEN.iterdir() if p.is_dir()) if GOLDEN.is_dir() else []
UPDATE = os.environ.get("MXJOB_UPDATE_GOLDEN") == "1"


def _args(case: Path) -> list[str]:
    args_file = case / "args"
    if not args_file.exists():
        return ["render", "input.yaml"]
    return [line for line in args_file.read_text(encoding="utf-8").splitlines() if line.strip()]


def _check(path: Path, actual: str) -> None:
    if UPDATE:
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing: run `make golden`"
    assert actual == path.read_text(encoding="utf-8"), f"{path} differs: run `make golden` and review the diff"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden(case: Path) -> None:
    stdin_file = case / "stdin.yaml"
    stdin = stdin_file.read_text(encoding="utf-8") if stdin_file.exists() else None
    result = run_cli(_args(case), cwd=case, stdin=stdin)
    _check(case / "expected.out", result.stdout)
    _check(case / "expected.err", result.stderr)
    _check(case / "expected.exit", f"{result.exit_code}\n")


def test_there_are_golden_cases() -> None:
    assert len(CASES) >= 10
