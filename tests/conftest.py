"""Shared test helpers: run the mxjob CLI in-process, locate the repository and its examples."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from mxjob_gitops.compiler.base import run as compiler_run
from mxjob_gitops.compiler.cli.group import cli

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
# The MXJob examples; examples/kustomize and examples/gitops hold patches and GitOps objects, not jobs.
JOB_EXAMPLE_DIRS = [EXAMPLES / name for name in ("train", "tune", "byteps", "single")]
JOB_EXAMPLE_FILES = sorted(p for d in JOB_EXAMPLE_DIRS for p in d.rglob("*.yaml"))


@pytest.fixture(autouse=True, scope="session")
def _render_stat_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """`render -o` keeps its stat cache (cli.statcache) under this test run's temporary directory."""
    previous = os.environ.get("MXJOB_RENDER_CACHE")
    os.environ["MXJOB_RENDER_CACHE"] = str(tmp_path_factory.mktemp("render-stat-cache"))
    yield
    if previous is None:
        os.environ.pop("MXJOB_RENDER_CACHE", None)
    else:
        os.environ["MXJOB_RENDER_CACHE"] = previous


@pytest.fixture(autouse=True)
def _fresh_run() -> Iterator[None]:
    """Each test runs in a run of its own (compiler.base.run): what the library calls of one test read count
    against no other's budget (past 256 KiB read, every text is read fast), and a fast path one turned off is on
    for the next. A command installs its own run and gives this one back when it ends."""
    with compiler_run.running(compiler_run.Run()):
        yield


@dataclass(frozen=True)
class Run:
    exit_code: int
    stdout: str
    stderr: str


def run_cli(args: Sequence[str], cwd: Path | None = None, stdin: str | bytes | None = None) -> Run:
    runner = CliRunner()
    previous = Path.cwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        result = runner.invoke(cli, list(args), input=stdin, catch_exceptions=False)
    finally:
        os.chdir(previous)
    return Run(result.exit_code, result.stdout, result.stderr)


@pytest.fixture
def cli_run() -> type[Run]:
    return Run
