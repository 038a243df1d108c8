"""What render and convert share: read the inputs, compile, report every diagnostic, write the stream."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, has_errors
from mxjob_gitops.compiler.base.printcap import printed_limit
from mxjob_gitops.compiler.cli.exits import FINDINGS, USAGE, Exit, fail
from mxjob_gitops.compiler.compile.documents import Plan, compile_documents
from mxjob_gitops.compiler.io.inputs import Inputs, read_inputs
from mxjob_gitops.compiler.io.verbosity import verbosity
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.report.diagnostics import write_diagnostics

if TYPE_CHECKING:
    from mxjob_gitops.compiler.base.run import Run
    from mxjob_gitops.compiler.compile.jobcache import CompileCache

FORMATS = ("yaml", "json")
NO_OBJECTS = "the input holds no Kubernetes objects; refusing to print an empty stream (Argo CD would prune everything)"


def report(diagnostics: Sequence[Diagnostic], *, quiet: bool = False) -> None:
    """Every diagnostic on standard error, a kustomize build's at their source file and line (io.origins)."""
    from mxjob_gitops.compiler.io.origins import relocated

    write_diagnostics(relocated(diagnostics), sys.stderr, quiet=quiet, limit=printed_limit(verbosity()))


def report_or_stop(diagnostics: Sequence[Diagnostic], *, quiet: bool, failure: int = FINDINGS) -> None:
    """report() every diagnostic; stop with `failure` when one is an error (before any output)."""
    report(diagnostics, quiet=quiet)
    if has_errors(diagnostics):
        raise Exit(failure)


def compile_inputs(
    inputs: Inputs,
    options: RenderOptions,
    *,
    quiet: bool,
    failure: int = FINDINGS,
    defaults: bool = True,
    cache: CompileCache | None = None,
    run: Run | None = None,
) -> Plan:
    """Compile read inputs; on any error print every diagnostic and stop with `failure` before any output."""
    plan = compile_documents(inputs.documents, options, defaults=defaults, cache=cache, run=run)
    report_or_stop([*inputs.diagnostics, *plan.diagnostics], quiet=quiet, failure=failure)
    return plan


def build_plan(
    paths: Sequence[str], options: RenderOptions, *, quiet: bool, defaults: bool = True, skip: Sequence[Path] = ()
) -> Plan:
    """Read and compile every input (exit 1 on errors); an input without objects is a usage error."""
    from mxjob_gitops.compiler.io.runcontext import built_run

    run = built_run()
    plan = compile_inputs(read_inputs(paths, skip, run=run), options, quiet=quiet, defaults=defaults, run=run)
    if not plan.items:
        raise fail(NO_OBJECTS, USAGE)
    return plan
