"""`mxjob krm`: a KRM function (kustomize/kpt): ResourceList in on stdin, ResourceList with results out.

MXJob items are replaced by what they render; other items pass through untouched (including the
orchestrator's `internal.config.kubernetes.io/*` annotations). Options come from the flags and, overriding
them, from a ConfigMap functionConfig (`data`: target, namespace, gangScheduler, priorityClasses as
`name=value,…`, job `true|false`, maxPods), checked as strictly as the flags.

Every failure, unreadable input and a bad functionConfig included, still writes a ResourceList whose `results`
say what went wrong, and exits 1: the KRM Functions Specification (kustomize,
cmd/config/docs/api-conventions/functions-spec.md, "Results") has a failing function report through results,
which kustomize and kpt print; the input items come back unchanged.
"""

from __future__ import annotations

import sys

import click

from mxjob_gitops.compiler.cli.exits import FINDINGS, OK, Exit
from mxjob_gitops.compiler.cli.flags import verbosity_options
from mxjob_gitops.compiler.cli.guard import guarded
from mxjob_gitops.compiler.cli.render_flags import render_options
from mxjob_gitops.compiler.render.options import RenderOptions


@click.command(short_help="Run as a KRM function (ResourceList on stdin and stdout).")
@render_options
@verbosity_options
def krm(options: RenderOptions) -> None:
    """Read a ResourceList on stdin, render its MXJobs, write a ResourceList with results on stdout."""
    from mxjob_gitops.compiler.io.krmfunction import run_function
    from mxjob_gitops.compiler.io.runcontext import built_run

    with guarded():
        raise Exit(FINDINGS if run_function(sys.stdin.buffer, options, built_run()) else OK)
